"""The translation unit by unit (#45): names as placeholders, the units of a digest and the digest they make, and
the rules of a unit's Chinese, on faithful translations and on the faults of the issue's review
(tests/data/zh/units.json)."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

from papers_digest.checker.chinese import check_digest_zh
from papers_digest.checker.fields import prose_fields
from papers_digest.checker.placeholders import protect
from papers_digest.checker.units import (
    assemble,
    clauses,
    joined_clauses,
    judge_chinese,
    judge_unit,
    said_twice,
    sentences,
    translation_units,
    unit_of,
)
from papers_digest.core.models import Digest
from papers_digest.llm.translating import unit_messages
from papers_digest.reading.names import names_in, title_names

CASES = json.loads((DATA / "zh" / "units.json").read_text(encoding="utf-8"))["cases"]
RECORDED = json.loads((DATA / "llm" / "2504.01014-translation.json").read_text(encoding="utf-8"))
ANIMEGAMER = "AnimeGamer: Infinite Anime Life Simulation with Next Game State Prediction"


def case_unit(case: dict):
    names = tuple(title_names(case["english"])) if case["kind"] == "title" else ()
    return unit_of(case["english"], case["kind"], names)


def rules(problems) -> set[str]:
    return {p.rule for p in problems}


@pytest.mark.parametrize("case", [c for c in CASES if c["faithful"]], ids=lambda c: c["id"])
def test_a_faithful_translation_breaks_no_rule(case):
    assert judge_chinese(case_unit(case), case["chinese"]) == []


@pytest.mark.parametrize("case", [c for c in CASES if not c["faithful"]], ids=lambda c: c["id"])
def test_each_fault_of_the_review_breaks_its_rules(case):
    assert rules(judge_chinese(case_unit(case), case["chinese"])) == set(case["rules"])


# --- names as placeholders --------------------------------------------------------------------------------


SENTENCE = "With just 120 GPU hours, our vsGRPO-2B model, fine-tuned from Qwen2-VL-2B, can surpass GPT-4o."


def test_no_name_reaches_the_model_but_one_inside_a_glossary_term():
    unit = unit_of(SENTENCE)
    asked = "\n".join(m["content"] for m in unit_messages("system prompt", unit))
    assert [n for n in names_in(SENTENCE) if n in asked] == ["GPU"]  # of "GPU hours", given as "GPU 小时"


def test_names_come_back_where_the_model_put_their_placeholders():
    unit = unit_of(SENTENCE)
    answer = "仅用 120 GPU 小时，我们从 X2 微调得到的 X1 模型就能超过 X3。"
    assert (
        judge_unit(unit, answer)[0]
        == "仅用 120 GPU 小时，我们从 Qwen2-VL-2B 微调得到的 vsGRPO-2B 模型就能超过 GPT-4o。"
    )


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("仅用 120 GPU 小时，我们从 X2 微调得到的模型就能超过 X3。", "X1 (vsGRPO-2B) is missing"),
        ("仅用 120 GPU 小时，X1 从 X2 微调得到的 X1 模型就能超过 X3。", "X1 (vsGRPO-2B) is written 2 times"),
        ("仅用 120 GPU 小时，我们从 X2 微调得到的 X1 模型就能超过 X4。", "X4 is not a placeholder"),
    ],
    ids=["lost", "twice", "altered"],
)
def test_a_placeholder_lost_written_twice_or_altered_fails(answer, said):
    problems = judge_unit(unit_of(SENTENCE), answer)[1]
    assert [p.rule for p in problems if said in p.message] == ["zh_placeholder"]


def test_two_names_the_model_wrote_side_by_side_stay_two_words():
    protected = protect("MIM with VQ", ["MIM", "VQ"])
    assert protected.restore("X1X2方法") == "MIM VQ方法"


def test_a_name_inside_a_longer_name_is_that_names():
    assert protect("Qwen2-VL-7B beats Qwen2-VL", ["Qwen2-VL", "Qwen2-VL-7B"]).text == "X1 beats X2"


def test_web_addresses_are_placeholders_too():
    assert protect("Code: https://github.com/TencentARC/AnimeGamer.", []).text == "Code: X1."


def test_the_terms_of_a_unit_are_given_after_the_system_prompt_names_as_placeholders_its_english_alone():
    unit = unit_of("MergeAR performs KV Cache compression for efficient raster-order prediction.")
    system, user = unit_messages("The system prompt.", unit)
    assert (system["content"].splitlines()[3:], user["content"]) == (
        ["Terms: KV cache = KV 缓存; compression = 压缩; efficient = 高效; raster-order = 光栅顺序", "Keep: X1"],
        "X1 performs KV Cache compression for efficient raster-order prediction.",
    )


@pytest.mark.parametrize(
    ("english", "terms"),
    [
        # 2504.00999's method: the suffix said where it stands, in the unit's Terms
        ("MergeVQ adopts token merging in VQ-based generative models.", "X2-based = 基于 X2 的"),
        # after an ordinary word, the suffix alone: PaCoRe's idea in the 2026-01-13 run at 13bd1bd kept "outcome"
        # in English in all 8 rounds, told "outcome-based = 基于 outcome 的"
        ("Trained end-to-end with large-scale, outcome-based reinforcement learning.", "based = 基于"),
        # a -like compound is written by the program (X1式), its rendering a term; a unit with no suffix is told
        # of none: the system prompt's example of both came back as "MLLMs 式训练" in the 2026-01-13 run at 6f6e3a3
        ("R1-Zero-like training improves reasoning.", "like = 式"),
        ("Leading MLLMs perform significantly below human baselines.", None),
    ],
)
def test_a_compound_suffix_is_said_only_to_the_unit_that_has_one(english, terms):
    from pathlib import Path

    system, _ = unit_messages(Path("prompts/translate_zh.md").read_text(encoding="utf-8"), unit_of(english))
    said = [t for line in system["content"].splitlines() if line.startswith("Terms: ") for t in line[7:].split("; ")]
    assert [t for t in said if "based" in t or "like" in t] == ([terms] if terms else [])
    assert "式训练" not in system["content"] and "基于 X1 的模型" not in system["content"]


def test_a_common_acronym_asked_as_a_placeholder_may_come_back_as_its_words_chinese():
    # 2509.09677's problem on the 2025-09-15 listing: asked with X1 for LLMs, the answer wrote 大语言模型
    unit = unit_of("The paper explores the long-horizon execution of LLMs and asks whether scaling pays off.")
    rendered = judge_unit(unit, "该论文探讨了大语言模型的长时程执行，以及继续扩展是否值得。")[1]
    dropped = judge_unit(unit, "该论文探讨了长时程执行，以及继续扩展是否值得。")[1]
    assert (rendered, [p.rule for p in dropped]) == ([], ["zh_placeholder", "zh_name"])


def mind_after(answer: str) -> str:
    """The `Mind:` line of SENTENCE's unit asked again after `answer`."""
    unit = unit_of(SENTENCE)
    system, _ = unit_messages("", unit, judge_unit(unit, answer)[1])
    return next(line for line in system["content"].splitlines() if line.startswith("Mind: "))


def test_a_unit_asked_again_is_told_what_to_mind_with_names_still_placeholders():
    mind = mind_after("仅用 120 小时，我们从 X2 微调得到的 X1 模型 can 超过 X3。")
    # GPU of "GPU hours" is no mark (a name inside a glossary term): the hint names it rather than the marks
    assert mind == (
        "Mind: write GPU exactly as the English does, and no name it does not have; translate every English word "
        "(can = 可以 / 听头 / 会); use the Terms' Chinese (GPU hour = GPU 小时)"
    )


@pytest.mark.parametrize(
    ("word", "chinese"),
    [("illusion", ("幻景", "幻觉", "幻象")), ("imposes", ("强加", "予以", "强求")), ("standalone", ())],
)
def test_the_dictionary_gives_a_word_s_chinese_by_its_lemma_first_meanings_first(word, chinese):
    from papers_digest.reading.dictionary import chinese_for

    assert chinese_for(word) == chinese


def test_an_english_word_left_is_told_with_the_dictionary_s_chinese():
    """2509.09677's problem on the 2025-09-15 listing at 481993e: told only to translate every English word, the
    1.5B model left "illusion" in all 8 rounds (本文探讨了…，通过探索 illusion的收益递减)."""
    unit = unit_of(
        "The paper addresses the gap in understanding the long-term execution of large language models (LLMs) by "
        "exploring the illusion of diminishing returns."
    )
    left = judge_unit(unit, "该论文探讨了大语言模型长期执行的误解，通过探索 illusion的收益递减。")[1]
    system, _ = unit_messages("", unit, left)
    assert "translate every English word (illusion = 幻景 / 幻觉 / 幻象)" in system["content"]


@pytest.mark.parametrize(
    ("english", "answer", "said"),
    [
        # GlimpRouter's summary on the 2026-01-13 listing at 47e7336: "standalone" left in 8 rounds of 8, and it failed
        ("GlimpRouter achieves a 10.7% accuracy improvement and reduces inference latency by 25.9% compared to a "
         "standalone large model on AIME25.",
         "X1 比 standalone 大型模型在 X2 上提高了 10.7% 的准确率，并且减少了推理延迟 25.9%。",
         "GlimpRouter 比独立大型模型在 AIME25 上提高了 10.7% 的准确率，并且减少了推理延迟 25.9%。"),
        # beside Latin script the rendering keeps its space
        ("It beats a standalone LLM.", "它优于 standalone X1。", "它优于独立 LLM。"),
    ],
)  # fmt: skip
def test_a_glossary_term_left_in_english_is_rendered_by_the_program(english, answer, said):
    assert judge_unit(unit_of(english), answer) == (said, [])


@pytest.mark.parametrize(
    ("english", "answer", "left"),
    [
        # a term of several senses is the model's to choose: attention is 注意力 or 关注
        ("The method has attracted attention in recent years.", "该方法近年来引起了 attention。", "attention"),
        # a word the glossary does not hold stays a fault, told with the dictionary's Chinese
        ("It explores the illusion of diminishing returns.", "它探索了 illusion 的收益递减。", "illusion"),
    ],
)
def test_a_word_left_that_the_program_cannot_render_alone_is_asked_again(english, answer, left):
    chinese, problems = judge_unit(unit_of(english), answer)
    assert left in chinese
    assert "zh_english_word" in rules(problems)


@pytest.mark.parametrize(
    ("english", "answer", "rule"),
    [
        # the English said back (the simulator's wrong_language): not translated, whatever terms it holds
        ("A standalone framework", "A standalone framework", "zh_chinese"),
        # three words left: asked again
        ("A standalone model cuts inference latency and accuracy.", "独立模型降低了 inference latency 和 accuracy。",
         "zh_english_word"),
    ],
)  # fmt: skip
def test_an_answer_that_left_much_english_is_not_mended_into_chinese(english, answer, rule):
    chinese, problems = judge_unit(unit_of(english), answer)
    assert chinese == answer
    assert rule in rules(problems)


def test_understanding_is_not_said_as_a_misunderstanding():
    # 2509.09677's problem on the 2025-09-15 listing at 8f72912 came back as …长期执行的误解 ("a misunderstanding")
    unit = unit_of("The paper addresses the gap in understanding long-horizon execution.")
    assert "zh_term" in rules(judge_unit(unit, "该论文研究了长时程执行的误解。")[1])
    assert judge_unit(unit, "该论文探讨了对长时程执行理解的空白。")[1] == []


def test_a_lost_mark_is_named_by_its_mark_in_what_to_mind():
    mind = mind_after("仅用 120 GPU 小时，我们从 X2 微调得到的模型可以超过 X3。")
    assert mind == (
        "Mind: copy every mark of Keep exactly as written; write X1 exactly as the English does, and no name it does "
        "not have"
    )


def test_a_kept_term_is_a_placeholder_as_it_is_written():
    assert unit_of("It improves token efficiency of Tokens.").protected.names == {"X1": "token", "X2": "Tokens"}


# --- the units of a digest, and the digest they make ------------------------------------------------------


def test_a_field_is_split_into_sentences_but_not_after_an_abbreviation():
    text = "We compare with e.g. GPT-4o et al. on two tasks. Dr. GRPO wins by 2.5%. It is (Fig. 3) small."
    assert sentences(text) == [
        "We compare with e.g. GPT-4o et al. on two tasks.",
        "Dr. GRPO wins by 2.5%.",
        "It is (Fig. 3) small.",
    ]


def test_the_units_of_a_real_digest_cover_every_prose_field_and_the_title():
    english = Digest.model_validate(RECORDED["english"])
    units = translation_units(english, ANIMEGAMER)
    assert {u.path for u in units} == {"title"} | {path for path, _ in prose_fields(english)}


def test_a_unit_of_names_alone_needs_no_model():
    english = Digest.model_validate(RECORDED["english"])
    root = next(u for u in translation_units(english, ANIMEGAMER) if u.path == "mind_map.label")
    assert (root.english, root.needs_model, root.known_chinese) == ("AnimeGamer", False, "AnimeGamer")


@pytest.mark.parametrize(
    ("label", "known"),
    [
        ("Token merging", "Token 合并"),  # MergeVQ's idea: the 1.5B model wrote 词合并 in all 8 rounds of a sample run
        ("KV caches", "KV 缓存"),
        ("Test-time scaling", "测试时扩展"),
        ("Disentangled token merging", None),  # more than the term: asked
        ("Attention", None),  # a term of two senses: the model picks
        # a name, its suffix after it, then one term: 2504.00883's idea in the sample run at fa4ad3f, asked as
        # "X1式 training", came back as 训练 in all 8 rounds
        ("R1-Zero-like training", "R1-Zero式训练"),  # as the model's sentences write it
        ("MergeVQ framework", "MergeVQ 框架"),
        ("R1-Zero-like visual training", None),  # more than one term after the name: asked
        ("VQ-based tokenizer", None),  # a suffix said before its name: asked
    ],
)
def test_a_label_that_is_one_glossary_term_is_the_glossarys_rendering_not_asked(label, known):
    english = dict(
        RECORDED["english"], mind_map={"label": "AnimeGamer", "children": [{"label": label, "children": []}]}
    )
    digest = Digest.model_validate(english)
    (unit,) = [u for u in translation_units(digest, ANIMEGAMER) if u.path == "mind_map.children[0].label"]
    assert unit.known_chinese == known


def test_the_topic_the_title_names_is_asked_once_as_the_title_s_head():
    from papers_digest.llm.translating import asked_as

    # 2503.20783 in the sample run at 2d31e00: its topic, asked as a label, came back as 训练R1-Zero式
    title = "Understanding R1-Zero-Like Training: A Critical Perspective"
    english = dict(RECORDED["english"], mind_map={"label": "Understanding R1-Zero-Like Training", "children": []})
    units = translation_units(Digest.model_validate(english), title)
    head = next(u for u in units if u.path == "title" and u.index == 0)
    topic = next(u for u in units if u.path == "mind_map.label")
    sentence = unit_of("Understanding R1-Zero-Like Training", "sentence")
    assert asked_as(topic) == asked_as(head) != asked_as(sentence)


def test_the_assembled_digest_keeps_the_english_shape_numbers_and_sections():
    english = Digest.model_validate(RECORDED["english"])
    units = translation_units(english, ANIMEGAMER)
    chinese = assemble(english, units, {u.key: f"译文{i}。" for i, u in enumerate(units)})
    kept = Digest.model_validate({k: v for k, v in chinese.items() if k != "title"})
    assert [(r.numbers, r.sections) for r in kept.results] == [(r.numbers, r.sections) for r in english.results]


def test_the_assembled_digest_joins_a_fields_sentences_and_carries_the_title_its_head_and_rest_apart():
    """The title "AnimeGamer: Infinite Anime … with Next Game State Prediction" is asked as its head and its rest's
    two parts, joined by a Chinese colon and in Chinese order."""
    english = Digest.model_validate(RECORDED["english"])
    units = translation_units(english, ANIMEGAMER)
    chinese = assemble(english, units, {u.key: f"{u.path}-{u.index}" + "。" * (u.kind == "sentence") for u in units})
    assert (chinese["title"], chinese["one_sentence"]) == (
        "title-0：结合title-1的title-2",
        "one_sentence-0。one_sentence-1。",
    )


@pytest.mark.parametrize(
    ("title", "parts"),
    [
        # asked whole at d9e4f29: 视觉空间推理的改进通过R1-Zero式训练, the English order
        (
            "Improved Visual-Spatial Reasoning via R1-Zero-Like Training",
            [("R1-Zero-Like Training", "通过"), ("Visual-Spatial Reasoning", "改进")],
        ),
        (
            "TinyR1-32B-Preview: Boosting Accuracy with Branch-Merge Distillation",
            [("TinyR1-32B-Preview", ""), ("Branch-Merge Distillation", "：通过"), ("Accuracy", "提升")],
        ),
        # "by" before a gerund says how; a thing after its means is achieved (实现): asked whole on the 2026-01-13
        # listing at 50db840, 高效协同推理通过窥视一个 Token 的思想, the English order
        (
            "GlimpRouter: Efficient Collaborative Inference by Glimpsing One Token of Thoughts",
            [
                ("GlimpRouter", ""),
                ("Glimpsing One Token of Thoughts", "：通过"),
                ("Efficient Collaborative Inference", "实现"),
            ],
        ),
        ("Inference by Design", [("Inference by Design", "")]),  # "by" before no gerund says who or what
        ("A Benchmark with Real Tasks", [("Real Tasks", "结合"), ("Benchmark", "的")]),  # the article left out
        # more than a thing of a few words before "with": a clause, asked whole
        (
            "Language Models Think Too Much on Easy Questions with Long Contexts",
            [("Language Models Think Too Much on Easy Questions with Long Contexts", "")],
        ),
        # the verb of change said by the program: its part, asked as "Improved …", came back as the noun phrase
        # 视觉空间推理改进 in the sample run at 2eeabdd, and the title as 通过R1-Zero 式训练视觉空间推理改进
        ("Improved visual-spatial reasoning", [("visual-spatial reasoning", "改进的")]),
        ("Enhancing Reasoning", [("Reasoning", "增强")]),
        # a thing for a use, built on a base: asked whole at 2eeabdd, 统一框架：视觉生成和表示的解耦 token 合并和量化
        (
            "MergeVQ: A Unified Framework for Visual Generation and Representation with Disentangled Token "
            "Merging and Quantization",
            [
                ("MergeVQ", ""),
                ("Disentangled Token Merging and Quantization", "：基于"),
                ("Visual Generation and Representation", "、用于"),
                ("Unified Framework", "的"),
            ],
        ),
        ("Unified Framework for Visual Generation", [("Visual Generation", "用于"), ("Unified Framework", "的")]),
        # a gerund's phrase is no thing, and "for" does not reach across a colon
        ("Learning Representations for Reasoning", [("Learning Representations for Reasoning", "")]),
        (
            "Reinforcement Learning for Reasoning in Small LLMs: What Works and What Doesn't",
            [("Reinforcement Learning for Reasoning in Small LLMs: What Works and What Doesn't", "")],
        ),
        ("Improvement of Reasoning", [("Improvement of Reasoning", "")]),
        # "with" after a thing says what the thing has, not how it is done: 结合 B 的 A
        (
            "Forgetting Transformer: Softmax Attention with a Forget Gate",
            [("Forgetting Transformer", ""), ("a Forget Gate", "：结合"), ("Softmax Attention", "的")],
        ),
        # asked whole at 291fff1: 无限动漫游戏状态预测的模拟, the life and the next state lost
        (
            "AnimeGamer: Infinite Anime Life Simulation with Next Game State Prediction",
            [("AnimeGamer", ""), ("Next Game State Prediction", "：结合"), ("Infinite Anime Life Simulation", "的")],
        ),
    ],
)
def test_a_title_says_how_before_what_in_chinese(title, parts):
    english = Digest.model_validate(RECORDED["english"])
    units = [u for u in translation_units(english, title) if u.path == "title"]
    assert [(u.english, u.lead) for u in units] == parts


def test_a_label_translated_as_a_sentence_loses_its_full_stop():
    # PaCoRe's idea on the 2026-01-13 listing at 50db840
    label = "Synthesizes these messages to guide the next round"
    english = dict(RECORDED["english"], mind_map={"label": "AnimeGamer", "children": [{"label": label}]})
    digest = Digest.model_validate(english)
    units = translation_units(digest, ANIMEGAMER)
    answers = {u.key: "将这些消息整合起来，指导下一轮。" if u.kind == "label" else "译文。" for u in units}
    chinese = assemble(digest, units, answers)
    assert chinese["mind_map"]["children"][0]["label"] == "将这些消息整合起来，指导下一轮"
    assert chinese["one_sentence"].endswith("译文。")


def test_a_title_said_via_its_means_is_assembled_in_chinese_order():
    english = Digest.model_validate(RECORDED["english"])
    title = "Improved Visual-Spatial Reasoning via R1-Zero-Like Training"
    units = translation_units(english, title)
    answers = {u.key: u.known_chinese or ("视觉空间推理" if u.path == "title" else "译文。") for u in units}
    assert assemble(english, units, answers)["title"] == "通过R1-Zero式训练改进视觉空间推理"


# --- the whole translation: the real one of the 0.5B model (tests/data/llm) --------------------------------


def test_the_recorded_translations_changed_names_and_english_words_are_named():
    verdict = check_digest_zh(RECORDED["first_answer"], Digest.model_validate(RECORDED["english"]), ANIMEGAMER)
    found = {(p.rule, p.field) for p in verdict.problems}
    assert {("zh_name", "one_sentence"), ("zh_english_word", "one_sentence")} <= found  # "动漫Gamer … novel"


def test_a_long_sentence_is_cut_into_clauses_outside_brackets_never_into_short_pieces():
    text = (
        "MergeVQ is a unified framework (with merging, and quantization) for generation, which addresses the "
        "trade-off in a shared latent space; it integrates token merging, as shown."
    )
    assert clauses(text) == [
        "MergeVQ is a unified framework (with merging, and quantization) for generation,",
        "which addresses the trade-off in a shared latent space;",
        "it integrates token merging, as shown.",
    ]


def test_clauses_translated_apart_make_one_chinese_sentence():
    assert joined_clauses(["MergeVQ 是一个统一框架。", "它解决了权衡问题；", "并集成了 token 合并。"]) == (
        "MergeVQ 是一个统一框架，它解决了权衡问题，并集成了 token 合并。"
    )


def test_a_mark_written_right_after_a_figure_is_its_name_spaced_off():
    unit = unit_of("It uses 120 H100 GPUs.")
    assert judge_unit(unit, "它使用 120X1 X2。") == ("它使用 120 H100 GPUs。", [])


def test_a_names_suffix_rendered_after_it_is_written_by_the_program():
    """ "R1-Zero-Like" asked as "X1-Like": the 1.5B model kept "-Like" in English in all 8 rounds on the sample day
    (2504.00883's problem); the model now sees "X1式", the glossary's rendering, and a faithful answer passes."""
    unit = unit_of("The paper proposes a novel training method called R1-Zero-Like.")
    assert unit.protected.text == "The paper proposes a novel training method called X1式."
    chinese, problems = judge_unit(unit, "该论文提出了一种名为X1式的新训练方法。")
    assert (chinese, problems) == ("该论文提出了一种名为R1-Zero式的新训练方法。", [])
    kept = judge_unit(unit, "该论文提出了一种名为X1-Like的新训练方法。")[1]
    assert {p.rule for p in kept} >= {"zh_english_word"}  # "Like" left in English still fails
    assert unit_of("A VQ-based tokenizer.").protected.text == "A X1-based tokenizer."  # 基于 X 的: the model's


def test_a_sentence_that_ends_on_a_verb_with_no_object_is_asked_again():
    """GlimpRouter's finding on the 2026-01-13 listing at 40bd482 came back ending "…相比，实现了。" (achieved.) and
    passed; a verb of change may end a sentence (准确率提高了。), and so may a passive (被实现了。)."""
    unit = unit_of("GlimpRouter reduces inference latency by 25.9% compared to a standalone large model on AIME25.")
    ended = judge_chinese(unit, "GlimpRouter 的推断延迟减少 25.9%，与 AIME25 上的独立大型模型相比，实现了。")
    assert [p.rule for p in ended] == ["zh_unfinished"] and "实现了" in ended[0].text
    said = judge_chinese(unit, "与 AIME25 上的独立大型模型相比，GlimpRouter 将推理延迟降低了 25.9%。")
    assert said == []
    from papers_digest.checker.zh_words import ends_without_object

    assert [ends_without_object(t) for t in ("准确率提高了。", "这一目标被实现了。", "框架在两类任务中优于。")] == [
        None,
        None,
        "优于。",
    ]


PACORE_SUMMARY = (
    "PaCoRe enhances reasoning across various domains, notably pushing beyond frontier systems in mathematics, an 8B "
    "model achieving 94.5% on HMMT 2025, surpassing GPT-5's 93.2% by scaling effective TTC to approximately two "
    "million tokens."
)


def test_a_figure_said_in_words_and_a_beaten_rival_are_kept_in_chinese():
    """PaCoRe's summary on the 2026-01-13 listing at eeae767: "two million tokens" said 两倍 ("twice"), and GPT-5's
    93.2% made what surpasses (GPT-5 的 93.2% 超出了…); it passed."""
    from papers_digest.checker.zh_figures import word_figures_lost

    unit = unit_of(PACORE_SUMMARY)
    wrong = (
        "PaCoRe 在多个领域中增强了推理能力，特别是超越数学领域的前沿系统。例如，一个 8B 模型在 HMMT 2025 上达到了 "
        "94.5%，而 GPT-5 的 93.2% 超出了 TTC 的有效 tokens 的两倍。"
    )
    problems = judge_chinese(unit, wrong)
    assert {p.rule for p in problems} == {"zh_numbers", "zh_direction"}
    assert any("two million" in p.text for p in problems) and any("GPT-5" in p.text for p in problems)
    right = (
        "PaCoRe 在多个领域中增强了推理能力，尤其在数学上超越了前沿系统：一个 8B 模型在 HMMT 2025 上达到 94.5%，"
        "通过将有效 TTC 扩展到约两百万 token，超过了 GPT-5 的 93.2%。"
    )
    assert judge_chinese(unit, right) == []
    assert word_figures_lost("It reads hundreds of papers.", "它阅读了数百篇论文。") == []
    assert word_figures_lost("A 2 million token budget.", "200万 token 的预算。") == []


def test_a_sentence_that_ends_on_a_quality_after_its_words_is_asked_again():
    """MergeVQ's summary in the sample runs at 78e622b and eeae767: "while maintaining favorable token efficiency
    and inference speed" said …同时保持了token效率和推理速度的有利。, the quality after what it describes."""
    from papers_digest.checker.zh_words import ends_on_quality

    unit = unit_of(
        "MergeVQ achieves competitive performance on ImageNet while maintaining favorable token efficiency and "
        "inference speed."
    )
    ended = judge_chinese(unit, "MergeVQ在ImageNet上取得了有竞争力的表现，同时保持了token效率和推理速度的有利。")
    assert [p.rule for p in ended] == ["zh_unfinished"] and "的有利" in ended[0].text
    said = judge_chinese(unit, "MergeVQ在ImageNet上取得了有竞争力的表现，同时保持了有利的token效率和推理速度。")
    assert said == []
    whole = ("效果良好。", "这种设计是有利的。", "它的表现是出色的。")
    assert [ends_on_quality(t) for t in whole] == [None, None, None]


def test_a_glossary_word_no_word_list_has_left_in_english_is_caught():
    """GlimpRouter's finding on the 2026-01-13 listing at 2b51ce5 came back with "standalone 大模型" and passed:
    lemminflect's tables lack "standalone", so it read as an identifier, though the glossary renders it."""
    from papers_digest.checker.zh_words import EnglishFacts, english_words_left

    english = "GlimpRouter reduces inference latency by 25.9% compared to a standalone large model on AIME25."
    left = "与 AIME25 上的 standalone 大模型相比，GlimpRouter 将推理延迟降低了 25.9%。"
    said = "与 AIME25 上的独立大模型相比，GlimpRouter 将推理延迟降低了 25.9%。"
    facts = EnglishFacts.of(english)
    assert (english_words_left(left, facts), english_words_left(said, facts)) == (["standalone"], [])


def test_an_adverb_left_in_english_is_caught():
    """The sample's MergeVQ method at d9e4f29 came back with "从而 seamlessly连接" and passed: lemminflect's tables
    have no -ly adverbs, so "seamlessly" read as an identifier like "vllm". Its faithful rendering passes."""
    unit = unit_of("It integrates token merging to seamlessly connect image generation with representation learning.")
    left = judge_unit(unit, "它集成了 token 合并技术，从而 seamlessly连接图像生成与表示学习。")[1]
    assert [(p.rule, p.subjects) for p in left if p.rule == "zh_english_word"] == [("zh_english_word", ("seamlessly",))]
    assert judge_unit(unit, "它集成了 token 合并技术，从而无缝连接图像生成与表示学习。")[1] == []


def test_a_phrase_said_twice_is_caught_where_the_english_says_it_once():
    """The sample's MergeVQ summary at d9e4f29 (the model's real answer) said its tasks twice and passed."""
    english = (
        "MergeVQ, an AR generative model, performs comparably in both visual representation learning and image "
        "generation tasks with favorable token efficiency and inference speed."
    )
    unit = unit_of(english)
    twice = (
        "X1，一个 X2 生成模型，能够在视觉表示学习和图像生成任务中与视觉表示学习和图像生成任务相比，"
        "具有良好的 X3 效率和推理速度。"
    )
    assert "zh_added" in rules(judge_unit(unit, twice)[1])
    once = "X1 作为一个 X2 生成模型，在视觉表示学习和图像生成任务中表现相当，并具有良好的 X3 效率和推理速度。"
    assert judge_unit(unit, once)[1] == []
    # an English that says a phrase twice may be translated so
    english = "It improves the image generation quality of small models and the image generation quality of large ones."
    chinese = "它提高了小模型的图像生成质量和大模型的图像生成质量。"
    assert said_twice(chinese) is not None
    assert judge_unit(unit_of(english), chinese)[1] == []


@pytest.mark.parametrize(
    ("chinese", "extra"),
    [
        ("一个8B模型在HMMT 2025上达到94.5%，超过了GPT-5的93.2%，将有效TTC扩展到约200万个token。", []),
        ("一个8B模型在HMMT 2025上达到94.5%，超过了GPT-5的93.2%，将有效TTC扩展到约两百万个token。", []),
        # twenty million: PaCoRe's other answers at 8cf3c2e
        ("一个8B模型在HMMT 2025上达到94.5%，超过了GPT-5的93.2%，将有效TTC扩展到约2000万个token。", ["2000万"]),
    ],
)
def test_a_quantity_said_with_a_word_of_scale_may_be_written_with_a_chinese_magnitude(chinese, extra):
    """PaCoRe's summary on the 2026-01-13 listing at 8cf3c2e: "approximately two million tokens" written 200万
    failed `zh_numbers` as a figure the English lacks, and the paper's Chinese failed all 8 rounds."""
    from papers_digest.checker.zh_figures import number_difference

    english = (
        "An 8B model achieves 94.5% on HMMT 2025, surpassing GPT-5's 93.2% by scaling effective TTC to approximately "
        "two million tokens."
    )
    assert number_difference(english, chinese) == ([], extra)
    assert number_difference("It has 1.5 billion parameters.", "它有15亿个参数。") == ([], [])
    assert number_difference("It has 1.5 billion parameters.", "它有1.5亿个参数。") == ([], ["1.5亿"])


def test_a_number_that_reads_as_a_year_but_is_none_is_a_figure_the_english_lacks():
    """PaCoRe's takeaway on the 2026-01-13 listing at 661478b wrote "approximately two million tokens" as 约2000
    and passed, 2000 read as a year. A year is one in Chinese with 年 after it or a name before it."""
    from papers_digest.checker.zh_figures import number_difference

    english = "PaCoRe surpasses GPT-5's 93.2% performance by scaling effective TTC to approximately two million tokens."
    assert number_difference(english, "PaCoRe超越了GPT-5的93.2%性能，将tokens吞吐量提升至约2000。") == ([], ["2000"])
    year = ("In 2024, accuracy rose to 43.3% on AIME 2024.", "2024年，AIME 2024上的准确率升至43.3%。")
    assert number_difference(*year) == ([], [])


def test_a_multiple_invented_in_chinese_is_a_figure_not_a_year():
    """PaCoRe's finding on the 2026-01-13 listing at b3b0aff: "… to two million" came back as 放大2000倍 (2000
    times) and passed, 2000 read as a year."""
    unit = unit_of("PaCoRe outperforms GPT-5 in HMMT 2025 by scaling effective token count to two million.")
    invented = judge_unit(unit, "X1胜过X2在X3中，通过将有效X4计数放大2000倍。")[1]
    # 2000 added, and the English's "two million" said nowhere (no 万)
    assert [p.rule for p in invented] == ["zh_numbers", "zh_numbers"]
    assert judge_unit(unit_of("It is 12.5x faster than in 2024."), "它比 2024 年快 12.5 倍。")[1] == []


def test_a_common_acronym_said_as_its_words_term_by_term_is_kept():
    """The sample's 2504.00883 problem at f34a932: "… multi-modal large language models (MLLMs)" written
    多模态大语言模型, the acronym after it left out, failed all 8 rounds; its words are the glossary's two terms."""
    unit = unit_of("The paper studies the reasoning of multi-modal large language models (MLLMs).")
    assert judge_unit(unit, "该论文研究了多模态大语言模型的推理。")[1] == []
    assert "zh_name" in rules(judge_unit(unit, "该论文研究了大语言模型的推理。")[1])  # "multi-modal" lost


# --- a decrease said as one (rule zh_direction) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("english", "chinese", "lost"),
    [
        ("It needs 9.8% fewer steps and gains up to 9.0 points.", "它的执行步骤少 9.8%，最多提升 9.0 分。", []),
        ("It needs 9.8% fewer steps and gains up to 9.0 points.", "它的执行步骤多 9.8%，最多提升 9.0 分。", ["9.8%"]),
        # the decrease of another clause is not the figure's: 12% is an increase
        ("It improves accuracy by 12% while reducing cost.", "它将准确率提高 12%。", []),
        # "less than" bounds a figure, it says no change
        ("Error drops from 40.1% to 20.3% with less than 5% overhead.", "误差从 40.1% 降到 20.3%，开销不到 5%。", []),
        ("Error drops from 40.1% to 20.3%.", "误差从 40.1% 变成 20.3%。", ["40.1%", "20.3%"]),
        # a figure the Chinese does not write is zh_numbers' concern
        ("Latency drops by 25.9%.", "延迟下降了。", []),
    ],
)
def test_a_figure_the_english_says_went_down_is_said_to_go_down(english, chinese, lost):
    from papers_digest.checker.direction import decreases_lost

    assert decreases_lost(english, chinese) == lost


SURPASSING = "An 8B model achieves 94.5% on HMMT 2025, surpassing GPT-5's 93.2%."


@pytest.mark.parametrize(
    ("english", "chinese", "made"),
    [
        # the 2026-01-13 listing at 481993e: PaCoRe's summary, its beaten GPT-5 written as the one that surpasses
        (SURPASSING, "一个8B模型在HMMT 2025上获得了94.5%的精度，GPT-5超越了93.2%的性能。", ["GPT-5"]),
        (SURPASSING, "一个8B模型在HMMT 2025上达到94.5%，超过了GPT-5的93.2%。", []),
        (SURPASSING, "一个8B模型在HMMT 2025上达到94.5%，GPT-5的93.2%被超越。", []),
        ("Our vsGRPO-2B model can outperform GPT-4o.", "我们的 vsGRPO-2B 模型能够超过 GPT-4o。", []),
        ("Our vsGRPO-2B model can outperform GPT-4o.", "GPT-4o 优于我们的 vsGRPO-2B 模型。", ["GPT-4o"]),
        # a name the English makes a winner too is not read
        ("GPT-4o outperforms Claude, and Gemini outperforms GPT-4o.", "GPT-4o 优于 Claude，Gemini 优于 GPT-4o。", []),
    ],
)
def test_a_name_the_english_says_is_surpassed_is_not_made_the_winner(english, chinese, made):
    from papers_digest.checker.direction import beaten_made_winners

    assert beaten_made_winners(english, chinese) == made


R1_SUMMARY = (
    "R1-Zero-Like Training's minimalist recipe achieves 43.3% accuracy on AIME 2024 with a 7B base model, setting a "
    "new state of the art."
)


@pytest.mark.parametrize(
    ("english", "chinese", "added"),
    [
        # the sample run at 66e5049: the benchmark it is measured on said as what it is compared with
        (R1_SUMMARY, "R1-Zero式训练的极简配方达到43.3%的准确率，使用了7B基础模型，对比AIME 2024，创造新的最先进水平。",
         ["AIME 2024"]),
        (R1_SUMMARY, "R1-Zero式训练的极简配方使用7B基础模型，在AIME 2024上达到43.3%的准确率，创下新的最先进水平。", []),
        ("It outperforms GPT-4o by 3 points.", "与GPT-4o相比，它高出3分。", []),
        ("vsGRPO-7B performs similarly to LLaVA-NeXT-Video-72B.", "vsGRPO-7B 的性能与 LLaVA-NeXT-Video-72B 相似。", []),
        ("MergeVQ is evaluated on ImageNet.", "MergeVQ 与 ImageNet 相比进行了评估。", ["ImageNet"]),
        # the sample run at 661478b: a benchmark made a peer ("performs comparably … on ImageNet")
        (
            "MergeVQ performs comparably in both visual representation learning and image generation tasks, "
            "maintaining efficient token count and inference speed on ImageNet.",
            "视觉表示学习和图像生成任务中，MergeVQ与ImageNet在效率方面相当，维护了token的计数和推理速度。",
            ["ImageNet"],
        ),
        # the sample run at 4fd5b6c: "competitive performance on ImageNet" said as "the same performance as ImageNet"
        ("MergeVQ achieves competitive performance on ImageNet, demonstrating competitive visual representation "
         "learning and image generation.",
         "MergeVQ 达到了与 ImageNet 相同的性能，展示了视觉表示学习和图像生成的竞争力。", ["ImageNet"]),
        ("MergeVQ achieves competitive performance on ImageNet.", "MergeVQ 在 ImageNet 上取得了有竞争力的性能。", []),
        ("It reaches the same accuracy as GPT-4o.", "它达到了与 GPT-4o 相同的准确率。", []),
        # the sample run at 0bcf4a6: a word of the sentence made MergeVQ's peer by 和 ("MergeVQ and token alike")
        ("MergeVQ performs comparably in both visual representation learning and image generation tasks with "
         "comparable token efficiency and inference speed.",
         "视觉表示学习和图像生成任务中，MergeVQ 和 token 的性能相当，并且在效率和推理速度上都相当。", ["token"]),
        ("MergeVQ performs comparably in both visual representation learning and image generation tasks with "
         "comparable token efficiency and inference speed.",
         "MergeVQ 在视觉表示学习和图像生成任务中表现相当，token 效率和推理速度也相当。", []),
        ("vsGRPO-7B performs similarly to LLaVA-NeXT-Video-72B.", "vsGRPO-7B 和 LLaVA-NeXT-Video-72B 的性能相似。", []),
        ("It is on par with GPT-4o on MMLU and GSM8K.", "它在 MMLU 和 GSM8K 上与 GPT-4o 相当。", []),
    ],
)  # fmt: skip
def test_a_name_the_english_compares_nothing_with_is_not_compared_with(english, chinese, added):
    from papers_digest.checker.direction import comparisons_added

    assert comparisons_added(english, chinese) == added


def test_a_unit_that_makes_the_beaten_name_the_winner_or_adds_a_rival_is_asked_again():
    unit = unit_of(SURPASSING)
    inverted = judge_chinese(unit, "一个8B模型在HMMT 2025上获得了94.5%的精度，GPT-5超越了93.2%的性能。")
    assert [p.rule for p in inverted] == ["zh_direction"] and "超过GPT-5" in inverted[0].text
    assert judge_chinese(unit, "一个8B模型在HMMT 2025上达到94.5%，超过了GPT-5的93.2%。") == []
    unit = unit_of(R1_SUMMARY)
    rival = judge_chinese(
        unit, "R1-Zero式训练的极简配方达到43.3%的准确率，使用了7B基础模型，对比AIME 2024，创下新的最先进水平。"
    )
    assert [p.rule for p in rival] == ["zh_direction"] and "在 AIME 2024 上" in rival[0].text


def test_a_name_inside_a_glossary_term_stays_as_written_and_the_term_is_given():
    # make sample at the commit after 99f9b34: "120 X1 hours" (X1 = GPU) was written "120 小时的 X1 模型" in all
    # 8 rounds, vsGRPO-2B's placeholder dropped; the term "GPU hour = GPU 小时" is given instead
    unit = unit_of(SENTENCE)
    assert "120 GPU hours" in unit.protected.text and "GPU" not in unit.protected.names.values()
    faithful = "仅用 120 GPU 小时，我们从 Qwen2-VL-2B 微调得到的 vsGRPO-2B 模型就能超过 GPT-4o。"
    dropped = "仅用 120 小时，我们从 Qwen2-VL-2B 微调得到的 vsGRPO-2B 模型就能超过 GPT-4o。"
    assert judge_chinese(unit, faithful) == [] and {"zh_name", "zh_term"} <= rules(judge_chinese(unit, dropped))


MERGEVQ_PARITY = "MergeVQ is competitive in both visual representation learning and image generation tasks."


@pytest.mark.parametrize(
    ("english", "chinese", "claimed"),
    [
        # the sample run at e6798fc: "competitive results" said as 优秀的性能 ("excellent performance")
        (MERGEVQ_PARITY, "在视觉表示学习和图像生成任务中，MergeVQ 提供了优秀的性能。", True),
        (MERGEVQ_PARITY, "MergeVQ 在视觉表示学习和图像生成任务中优于其他方法。", True),
        # faithful: parity said as parity; a superiority or "the best" the English states may be said
        (MERGEVQ_PARITY, "MergeVQ 在视觉表示学习和图像生成任务中都具有竞争力。", False),
        ("The vsGRPO-7B model performs similarly to the best open-source model LLaVA-NeXT-Video-72B.",
         "vsGRPO-7B 模型与最佳开源模型 LLaVA-NeXT-Video-72B 的性能相似。", False),
        ("It is comparable in accuracy and 2× faster.", "它的准确率相当，速度快了2倍，更好。", False),
    ],
)  # fmt: skip
def test_a_parity_translated_as_superiority_is_asked_again(english, chinese, claimed):
    problems = [p for p in judge_chinese(unit_of(english), chinese) if p.rule == "zh_direction"]
    assert [("on a par" in p.text) for p in problems] == ([True] if claimed else [])


R1_NO_TEMPLATE = (
    "Using no template can dramatically improve the average performance by about 60% compared to traditional 4-shot "
    "prompting."
)


@pytest.mark.parametrize(
    ("english", "chinese", "lost"),
    [
        # the sample run at 7dc4d1a: "Using no template" said as 使用模板 ("using templates")
        (R1_NO_TEMPLATE, "使用模板可以显著提高平均性能，比传统4-shot提示提高约60%。", True),
        (R1_NO_TEMPLATE, "不使用模板可以显著提高平均性能，比传统4-shot提示提高约60%。", False),
        ("Qwen2.5 models perform best without templates.", "Qwen2.5模型在没有模板的情况下表现最好。", False),
        ("Qwen2.5 models perform best without templates.", "Qwen2.5模型在模板的情况下表现最好。", True),
    ],
)  # fmt: skip
def test_a_negation_the_chinese_drops_is_asked_again(english, chinese, lost):
    problems = [p for p in judge_chinese(unit_of(english), chinese) if "negation" in p.text]
    assert [p.rule for p in problems] == (["zh_direction"] if lost else [])


def test_a_benchmark_made_a_peer_by_kebi_is_asked_again():
    """The sample run at 7dc4d1a: "performs comparably on ImageNet" as 与 ImageNet 有可比性."""
    from papers_digest.checker.direction import comparisons_added

    english = "MergeVQ performs comparably on ImageNet in both visual representation learning and image generation."
    chinese = "MergeVQ 能够在视觉表示学习和图像生成任务中与 ImageNet 有可比性。"
    assert comparisons_added(english, chinese) == ["ImageNet"]
    assert comparisons_added(english, "MergeVQ 在 ImageNet 上的视觉表示学习和图像生成任务中表现相当。") == []


@pytest.mark.parametrize(
    ("english", "chinese", "gained"),
    [
        # the sample run at eb60280: "achieves favorable token efficiency" said as an improvement (改进)
        ("It also achieves favorable token efficiency and inference speed.",
         "它也实现了 token 的效率和推理速度的改进。", True),
        ("It also achieves favorable token efficiency and inference speed.",
         "它还具有良好的 token 效率和推理速度。", False),
        # a gain the English states, and a term whose rendering holds 增强, may be said
        ("It improves token efficiency by 12%.", "它将 token 效率提高了12%。", False),
        ("HANRAG is a retrieval-augmented generation framework.", "HANRAG 是一个检索增强生成框架。", False),
    ],
)  # fmt: skip
def test_a_gain_the_english_never_states_is_asked_again(english, chinese, gained):
    problems = [p for p in judge_chinese(unit_of(english), chinese) if "no gain" in p.text]
    assert [p.rule for p in problems] == (["zh_direction"] if gained else [])
