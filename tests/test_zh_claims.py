"""What a Chinese translation adds that its English does not say (checker/zh_claims.py): a size the program takes
out, the authors' "we" it says as 作者, and a level said low that the unit is asked again for; on the recorded
answers that showed each, and on faithful ones that must stay as they are."""

from __future__ import annotations

import pytest

from papers_digest.checker.direction import benchmarks_made_owners, cost_raised
from papers_digest.checker.units import judge_unit, unit_of
from papers_digest.checker.zh_claims import (
    in_the_papers_voice,
    level_dropped,
    level_turned,
    means_added,
    question_added,
    said_of_itself,
    with_achieving_said,
    with_acronym_after_its_words,
    with_change_as_verb,
    with_comparison_in_chinese,
    with_competitive_said,
    with_paper_said_as_article,
    with_place_marked,
    with_state_said_after,
    with_the_paper_said,
    without_added_size,
    without_english_possessive,
)
from papers_digest.checker.zh_order import (
    with_comparison_first,
    with_means_said_after,
    with_origin_before_its_name,
    with_place_joined,
)
from papers_digest.reading.glossary import terms_in

# InfGen's takeaway and its Chinese, the 2025-09-15 listing at 17c45b1: "reduced" came back as 显著减少
INFGEN = "InfGen enables high-resolution image synthesis with reduced 4K generation time."
INFGEN_ZH = "InfGen 提供了高分辨率图像合成，而 4K 生成时间显著减少。"


def test_a_size_the_english_does_not_claim_is_taken_out():
    assert without_added_size(INFGEN_ZH, INFGEN) == "InfGen 提供了高分辨率图像合成，而 4K 生成时间减少。"


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        # the 2026-01-13 listing's BabyVision: "significantly below" is the paper's
        (
            "Empirical results and human evaluation reveal that leading MLLMs perform significantly below human "
            "baselines.",
            "实证结果和人工评估表明，领先的 MLLMs 的表现显著低于人类基准线。",
        ),
        ("Leading MLLMs perform far below human baselines.", "领先的 MLLMs 的表现远远低于人类基准线。"),
        # "large language models" is a kind of model: 大语言模型 is no size, and it is not one of the words
        ("Large language models reason in steps.", "大语言模型分步推理。"),
    ],
    ids=["significantly", "far", "large-language-models"],
)
def test_a_size_the_english_claims_stays(english, chinese):
    assert without_added_size(chinese, english) == chinese


def test_the_adjective_goes_with_its_particle():
    english = "R1-Zero-like training improves visual-spatial reasoning."
    assert without_added_size("R1-Zero式训练带来了明显的视觉空间推理提升。", english) == (
        "R1-Zero式训练带来了视觉空间推理提升。"
    )
    assert without_added_size("R1-Zero式训练大大地提高了视觉空间推理能力。", english) == (
        "R1-Zero式训练提高了视觉空间推理能力。"
    )


def test_we_is_the_authors_where_the_english_says_no_we():
    # 2504.00883's method in a sample run at 9fdd730 went on in the authors' voice
    english = "The paper proposes a method to improve visual-spatial reasoning in MLLMs."
    assert in_the_papers_voice("该论文提出了一种方法，我们用它改进 MLLMs 的视觉空间推理。", english) == (
        "该论文提出了一种方法，作者用它改进 MLLMs 的视觉空间推理。"
    )


def test_we_stays_where_the_english_says_our():
    english = "With just 120 GPU hours, our vsGRPO-2B model can surpass GPT-4o."
    chinese = "仅用 120 GPU 小时，我们的 vsGRPO-2B 模型便能超过 GPT-4o。"
    assert in_the_papers_voice(chinese, english) == chinese


def test_a_level_said_low_where_the_english_says_high_fails():
    # modelled on InfGen's takeaway in a run of the 2025-09-15 listing at 45e7f15: 低分辨率 for "high-resolution"
    assert level_turned("InfGen 实现了低分辨率图像合成，并缩短了 4K 生成时间。", INFGEN) == "低分辨率"


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        (INFGEN, "InfGen 实现了高分辨率图像合成，并降低了 4K 生成时间。"),
        ("InfGen generates high-resolution images with reduced latency.", "InfGen 以低延迟生成高分辨率图像。"),
        ("It maps low-resolution inputs to high-resolution images.", "它把低分辨率输入映射为高分辨率图像。"),
        ("LoRA trains low-rank adapters.", "LoRA 训练低秩适配器。"),
    ],
    ids=["faithful", "reduced-latency", "both-levels", "not-levelled"],
)
def test_a_level_the_english_says_passes(english, chinese):
    assert level_turned(chinese, english) is None


INFGEN_SUMMARY = (
    "InfGen achieves high-resolution image synthesis with reduced 4K generation time, demonstrating its capability "
    "to improve models into the arbitrary high-resolution era."
)


def test_a_level_the_chinese_drops_fails():
    # InfGen's summary on the 2025-09-15 listing at 5fe895a: the first "high-resolution" said 分辨率, no 高
    chinese = "InfGen 提高了分辨率图像合成的效率，同时减少了 4K 生成时间，证明了其有能力将模型提升到任意高分辨率的时代"
    assert level_dropped(chinese, INFGEN_SUMMARY) == "分辨率"
    problems = judge_unit(unit_of(INFGEN_SUMMARY), chinese.replace("InfGen", "X1") + "。")[1]
    assert [p.rule for p in problems] == ["zh_direction"]


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        (INFGEN_SUMMARY, "InfGen 以更短的 4K 生成时间实现了高分辨率图像合成，证明它能把模型带入任意高分辨率的时代。"),
        # the English says the noun without a level too: the Chinese may
        ("It turns arbitrary resolution inputs into high-resolution images.", "它把任意分辨率的输入变为高分辨率图像。"),
        ("It is resolution-agnostic.", "它与分辨率无关。"),
        ("X-Part achieves high fidelity shape decomposition.", "X-Part 实现了高保真度的形状分解。"),
    ],
    ids=["faithful", "bare-in-english", "no-level", "fidelity"],
)
def test_a_level_the_chinese_keeps_passes(english, chinese):
    assert level_dropped(chinese, english) is None


def test_a_unit_answer_comes_back_mended_and_passes():
    chinese, problems = judge_unit(unit_of(INFGEN), "X1 提供了高分辨率图像合成，而 4K 生成时间显著减少。")
    assert (chinese, problems) == ("InfGen 提供了高分辨率图像合成，而 4K 生成时间减少。", [])


def test_a_unit_answer_that_says_low_for_high_is_asked_again():
    problems = judge_unit(unit_of(INFGEN), "X1 实现了低分辨率图像合成，并缩短了 4K 生成时间。")[1]
    # the glossary's high-resolution (高分辨率) is not said either
    assert [p.rule for p in problems] == ["zh_direction", "zh_term"]


# GlimpRouter's summary and PaCoRe's problem, the 2026-01-13 listing at 17c45b1: each came back with 通过 ("by way
# of") where the English names no means, and passed
GLIMPROUTER = (
    "GlimpRouter achieves a 10.7% accuracy improvement and a 25.9% latency reduction compared to a standalone large "
    "model on AIME25."
)
GLIMPROUTER_ZH = "GlimpRouter通过10.7%的准确率提高和25.9%的延迟减少，相对于AIME25的独立大型模型进行了比较。"
GLIMPROUTER_SUMMARY = (
    "GlimpRouter achieves a 10.7% accuracy improvement and reduces inference latency by 25.9% compared to a "
    "standalone large model on AIME25."
)
PACORE = (
    "PaCoRe tackles the challenge of contemporary language models' inability to scale test-time compute (TTC) "
    "beyond sequential reasoning under a fixed context window."
)
PACORE_ZH = "PaCoRe通过解决当代语言模型在测试时无法扩展计算能力（TTC）的问题，超越固定上下文窗口的顺序推理。"


@pytest.mark.parametrize(("english", "chinese"), [(GLIMPROUTER, GLIMPROUTER_ZH), (PACORE, PACORE_ZH)])
def test_a_means_the_english_does_not_name_fails(english, chinese):
    assert means_added(chinese, english) == "通过"


def test_by_before_a_figure_is_no_means():
    # GlimpRouter's summary on the 2026-01-13 listing at ec47d1d: "reduces inference latency by 25.9%" names no means
    answer = "在AIME25上，与一个独立的大型模型相比，GlimpRouter通过10.7%的准确率改进和减少推理延迟25.9%。"
    assert means_added(answer, GLIMPROUTER_SUMMARY) == "通过"
    assert means_added("它通过蒸馏将延迟降低了约 25.9%。", "It cuts latency by about 25.9% by distillation.") is None


def test_with_before_a_quantity_changed_is_no_means():
    # InfGen's summary and finding on the 2025-09-15 listing at 47e7336: "with reduced 4K generation time"
    assert means_added("InfGen通过减少4K生成时间实现了高分辨率图像合成。", INFGEN) == "通过"
    assert means_added("它通过强化学习提高了准确率。", "It improves accuracy with reinforcement learning.") is None
    # an increase the program does not say as a state stays a means: a rule it cannot mend would fail the paper
    assert means_added("它通过提高准确率实现了扩展。", "It scales with improved accuracy.") is None


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # InfGen's summary and finding on the 2025-09-15 listing at 8f72912, rounds 1 and 5 of 8
        ("X1通过减少4K生成时间实现了高分辨率图像合成，证明其有能力将模型提升到任意高分辨率时代。",
         "InfGen实现了高分辨率图像合成，且4K生成时间减少，证明其有能力将模型提升到任意高分辨率时代。"),
        ("X1 能够通过减少 4K 生成时间来实现高分辨率图像合成。", "InfGen 能够实现高分辨率图像合成，且4K 生成时间减少。"),
    ],
)  # fmt: skip
def test_a_quantity_changed_said_as_a_means_is_said_as_the_state_it_is(answer, said):
    english = (
        "InfGen achieves high-resolution image synthesis with reduced 4K generation time, demonstrating its "
        "capability to improve models into the arbitrary high-resolution era."
    )
    assert judge_unit(unit_of(english), answer) == (said, [])
    # where the English names a means, 通过 may be its own
    by = "InfGen reaches 4K synthesis by replacing its decoder, with reduced generation time."
    assert with_state_said_after("InfGen通过减少生成时间实现了4K合成。", by) == "InfGen通过减少生成时间实现了4K合成。"


def test_a_means_the_english_names_passes():
    # PaCoRe's summary in the same run: "by scaling" is 通过
    english = "An 8B model achieves 94.5% on HMMT 2025 by scaling effective TTC to about two million tokens."
    assert means_added("一个 8B 模型通过将有效 TTC 扩展到约两百万 token，在 HMMT 2025 上达到 94.5%。", english) is None


def test_a_unit_answer_with_a_means_added_is_asked_again():
    answer = GLIMPROUTER_ZH.replace("GlimpRouter", "X1").replace("AIME25", "X2")
    assert "zh_added" in {p.rule for p in judge_unit(unit_of(GLIMPROUTER), answer)[1]}


def test_leading_is_a_glossary_term_and_leading_to_another():
    # BabyVision's "Leading MLLMs" came back as MLLMs… in every run of the 2026-01-13 listing: a claim about all
    english = "Leading MLLMs perform below human baselines."
    problems = judge_unit(unit_of(english), "X1在人类基准线下表现不佳。")[1]
    assert [p.subjects for p in problems if p.rule == "zh_term"] == [("leading = 领先",)]
    assert judge_unit(unit_of(english), "领先的 X1 的表现低于人类基准线。")[1] == []
    assert "leading to" in [t.en for t in terms_in("errors leading to failure")]


@pytest.mark.parametrize(
    "answer",
    [
        # R1-Zero's third finding, the sample run at 2162664: 7 of its 8 rounds left "compared to"
        "不使用模板可以提高平均性能约60% compared to传统的4-shot提示。",
        "不使用模板可以提高平均性能约60%， compared to传统的4-shot提示。",
    ],
)
def test_compared_to_left_in_english_is_said_in_chinese(answer):
    english = "Not using any template boosts average performance by about 60% compared to traditional 4-shot prompting."
    chinese, problems = judge_unit(unit_of(english), answer)
    assert chinese == "与传统的4-shot提示相比，不使用模板可以提高平均性能约60%。"  # said first, as Chinese does
    assert [p.rule for p in problems] == []


def test_a_cost_said_raised_where_the_english_improves_it_is_asked_again():
    # GlimpRouter's takeaway on the 2026-01-13 listing at fa54def, no figure to read a decrease by
    english = (
        "GlimpRouter improves inference accuracy and latency by allocating computation based on a glimpse of thought."
    )
    problems = judge_unit(unit_of(english), "X1通过分配计算资源来提高推理准确性和延迟。")[1]
    assert [p.rule for p in problems] == ["zh_direction"]
    assert judge_unit(unit_of(english), "X1通过根据一瞥思考分配计算，提高了推理准确性并降低了延迟。")[1] == []


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        (GLIMPROUTER, "GlimpRouter 的准确率提高了 10.7%，延迟减少了 25.9%。"),
        (GLIMPROUTER, "GlimpRouter 实现了 10.7% 的准确率提高和 25.9% 的延迟减少。"),
        ("Longer contexts increase latency.", "更长的上下文会增加延迟。"),
    ],
    ids=["reduced-after", "noun-phrases", "english-raises"],
)
def test_a_cost_the_english_raises_or_the_chinese_lowers_passes(english, chinese):
    assert cost_raised(english, chinese) is None


def test_a_place_without_its_at_gets_one():
    # R1-Zero's summary in the sample run at c3dbd96: "AIME 2024上，" a clause of its own
    english = (
        "R1-Zero-Like Training's minimalist recipe achieves 43.3% accuracy on AIME 2024 with a 7B base model, "
        "setting a new state-of-the-art."
    )
    answer = "R1-Zero式训练的极简配方达到43.3%的准确率，使用7B基础模型，AIME 2024上，创造新的最先进水平。"
    assert judge_unit(unit_of(english), answer)[0] == (
        "R1-Zero式训练的极简配方达到43.3%的准确率，使用7B基础模型，在AIME 2024上创造新的最先进水平。"
    )
    assert with_place_marked("在AIME 2024上，它达到43.3%。") == "在AIME 2024上，它达到43.3%。"
    assert with_place_marked("它在Qwen2.5上训练。") == "它在Qwen2.5上训练。"


@pytest.mark.parametrize(
    ("english", "answer", "said"),
    [
        # GlimpRouter's summary on the 2026-01-13 listing at eeae767: 比较到 ("compared to") before its rival
        (GLIMPROUTER_SUMMARY, "X1 提高了 10.7% 的准确率，并将推理延迟减少了 25.9% 比较到 X2 上的独立大型模型。",
         "与AIME25 上的独立大型模型相比，GlimpRouter 提高了 10.7% 的准确率，并将推理延迟减少了 25.9%。"),
        # the same summary at d90ce44, round 6 of 8: "compared to" left in English before the benchmark's name
        (GLIMPROUTER, "X1 提高了 10.7% 的准确率，并降低了 25.9% 的延迟， compared to X2 上的独立大模型。",
         "与AIME25 上的独立大模型相比，GlimpRouter 提高了 10.7% 的准确率，并降低了 25.9% 的延迟。"),
        # the same summary at 47e7336, round 4 of 8: 比较 alone after the figure, "Standalone" left in English
        (GLIMPROUTER_SUMMARY, "X1 提高了 10.7% 的准确率，并减少了推理延迟 25.9% 比较 Standalone 大型模型在 X2 上。",
         "与独立大型模型在 AIME25 上相比，GlimpRouter 提高了 10.7% 的准确率，并减少了推理延迟 25.9%。"),
    ],
)  # fmt: skip
def test_compared_to_said_word_for_word_or_left_in_english_is_said_as_chinese_does(english, answer, said):
    chinese, problems = judge_unit(unit_of(english), answer)
    assert chinese == said
    assert problems == []
    assert with_comparison_in_chinese("It is 2× faster compared to GPT-4o.") == "It is 2× faster compared to GPT-4o."
    rather = "它在长视频上的表现比较好。"  # 比较 as "rather", after no figure
    assert with_comparison_in_chinese(rather) == rather


def test_a_benchmark_said_as_a_bare_clause_gets_its_place():
    # R1-Zero's summary in the sample run at 78e622b: "AIME 2024" a clause of its own, no 在 and no 上
    english = (
        "R1-Zero-Like Training's minimalist recipe achieves 43.3% accuracy on AIME 2024 with a 7B base model, "
        "setting a new state-of-the-art."
    )
    answer = "R1-Zero式训练的极简配方达到了43.3%的准确率，使用了7B基础模型，AIME 2024，创造新的最先进水平。"
    assert judge_unit(unit_of(english), answer)[0] == (
        "R1-Zero式训练的极简配方达到了43.3%的准确率，使用了7B基础模型，在AIME 2024上创造新的最先进水平。"
    )


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        # a list of names, each a name: the English says none of them "on"
        ("It compares GPT-4o, Claude and Gemini.", "它比较了GPT-4o，Claude，Gemini。"),
        # a name the English does not place
        ("MergeVQ, a novel framework, merges tokens.", "MergeVQ，一种新的框架，合并token。"),
        # already placed
        ("It reaches 43.3% on AIME 2024.", "它在AIME 2024上，达到43.3%。"),
    ],
    ids=["list", "apposition", "placed"],
)
def test_a_name_not_said_as_a_place_is_left(english, chinese):
    assert with_place_marked(chinese, english) == chinese


@pytest.mark.parametrize(
    ("chinese", "made"),
    [
        # GlimpRouter's summary on the 2026-01-13 listing at 0c20fad: AIME25 made the standalone model's owner
        ("GlimpRouter 提高了 10.7% 的准确率和减少了 25.9% 的延迟，相对于 AIME25 的独立大型模型。", ["AIME25"]),
        ("与 AIME25 上单独的大模型相比，GlimpRouter 的准确率提高了 10.7%，延迟降低了 25.9%。", []),
        ("在 AIME25 上，GlimpRouter 的准确率比独立大模型提高了 10.7%，延迟降低了 25.9%。", []),
    ],
    ids=["owner", "place", "at"],
)
def test_a_benchmark_is_where_it_was_measured_not_an_owner(chinese, made):
    assert benchmarks_made_owners(GLIMPROUTER, chinese) == made


def test_a_name_the_work_is_based_on_may_own():
    english = "X-Part is built on Hunyuan3D and improves part quality."
    assert benchmarks_made_owners(english, "X-Part 基于 Hunyuan3D 的框架，提高了部件质量。") == []


@pytest.mark.parametrize(
    ("english", "answer", "mended"),
    [
        # HANRAG's problem on the 2025-09-15 listing at 0c20fad, a heading
        ("The paper addresses the problem of noise accumulation in multi-hop question answering.",
         "多跳问答中的噪声累积问题。", "该论文探讨了多跳问答中的噪声累积问题。"),
        # R1-Zero's problem in the sample run at 17c45b1, a question no one asks
        ("The paper addresses the gap in understanding how reinforcement learning (RL) at scale can enhance the "
         "reasoning capabilities of large language models (LLMs) without the need for supervised fine-tuning.",
         "强化学习（RL）在大规模场景下如何增强大语言模型（LLMs）的推理能力，而无需进行监督微调。",
         "该论文探讨了强化学习（RL）在大规模场景下如何增强大语言模型（LLMs）的推理能力，而无需进行监督微调。"),
        # said already
        ("The paper addresses the problem of noise accumulation in multi-hop question answering.",
         "该研究关注多跳问答中的噪声累积问题。", "该研究关注多跳问答中的噪声累积问题。"),
        # 2509.09677's problem on the 2025-09-15 listing at 57fb7fa: the verb of study with no subject
        ("The paper studies the long-term execution of large language models.",
         "研究大语言模型的长期执行。", "该论文研究大语言模型的长期执行。"),
        # 2405.15071's on the 2024-05-27 listing at 53b670c
        ("The paper studies how transformers can learn implicit reasoning over parametric knowledge.",
         "研究如何让transformers通过参数知识进行隐式推理。", "该论文研究如何让transformers通过参数知识进行隐式推理。"),
        # Aya 23's summary on the 2024-05-27 listing at 5bea20d: the aim said as a heading
        ("The paper aims to explore the impact of allocating more capacity to fewer languages during pre-training.",
         "预训练模型中的语言分配问题：增加更多的容量给较少的语言。",
         "该论文探讨了预训练模型中的语言分配问题：增加更多的容量给较少的语言。"),
        # 2509.09677's method on the 2025-09-15 listing at 6f052a8: the paper's introducing left out
        ("The paper introduces a technique to assess long-term execution in large language models (LLMs).",
         "大语言模型评估长期执行的技术：追踪小精度提升对任务持续时间的影响。",
         "该论文提出了大语言模型评估长期执行的技术：追踪小精度提升对任务持续时间的影响。"),
        # said already, or said as what the thing is
        ("The paper introduces InfGen, a resolution-agnostic technique.", "该文介绍了InfGen，一种分辨率无关技术。",
         "该文介绍了InfGen，一种分辨率无关技术。"),
        ("The paper proposes InfGen, a resolution-agnostic technique.", "InfGen是一种分辨率无关的技术。",
         "InfGen是一种分辨率无关的技术。"),
        # a problem that opens on its topic, whose 研究 is a noun, stays
        ("The paper addresses the gap in research on agents.", "智能体研究中的空白。", "智能体研究中的空白。"),
        # and so does one whose 研究 is its subject: GlimpRouter's and VideoDR's on the 2026-01-13 listing at bd94e11
        ("The research investigates when reasoning steps need a large model.", "研究探讨了推理步骤何时需要大模型。",
         "研究探讨了推理步骤何时需要大模型。"),
        ("The paper addresses the gap in video question answering.", "研究论文关注视频问答中的一个缺口。",
         "研究论文关注视频问答中的一个缺口。"),
    ],
)  # fmt: skip
def test_a_problem_said_as_its_bare_topic_gets_the_papers_opening(english, answer, mended):
    assert with_the_paper_said(answer, english) == mended


def test_resolution_agnostic_is_not_said_without_resolution():
    # InfGen's method on the 2025-09-15 listing at 94b905f: 无分辨率的范式 ("a paradigm with no resolution")
    english = "The paper proposes InfGen, a resolution-agnostic paradigm for scalable image synthesis."
    problems = judge_unit(unit_of(english), "该论文提出X1，一种无分辨率的范式，用于可扩展的图像合成。")[1]
    assert "zh_term" in {p.rule for p in problems}
    assert judge_unit(unit_of(english), "该论文提出X1，一种与分辨率无关的可扩展图像合成范式。")[1] == []


def test_an_acronym_in_brackets_stands_after_the_words_it_stands_for():
    # R1-Zero's method in the sample runs at 17c45b1 and 9986f98: （RL） after 影响, "the effect"
    english = (
        "The paper introduces a technique to analyze the pretraining effects on base models and their influence on "
        "reinforcement learning (RL) performance."
    )
    answer = "该论文介绍了一种技术，用于分析预训练对基础模型的影响及其对强化学习性能的影响（RL）。"
    assert judge_unit(unit_of(english), answer)[0] == (
        "该论文介绍了一种技术，用于分析预训练对基础模型的影响及其对强化学习（RL）性能的影响。"
    )
    placed = "强化学习（RL）在大规模场景下如何增强大语言模型（LLMs）的推理能力。"
    english = "How reinforcement learning (RL) at scale can enhance the reasoning of large language models (LLMs)."
    assert with_acronym_after_its_words(placed, english) == placed


@pytest.mark.parametrize(
    ("chinese", "said"),
    [
        # PaCoRe's summary on the 2026-01-13 listing at de72281: "… by scaling effective TTC …" left last
        (
            "一个8B模型在HMMT 2025上取得94.5%的精度，超越GPT-5的93.2%，通过将有效的TTC放大到大约200万tokens。",
            "一个8B模型在HMMT 2025上取得94.5%的精度，超越GPT-5的93.2%，"
            "这是通过将有效的TTC放大到大约200万tokens实现的。",
        ),
        # AnimeGamer's takeaway, the sample run at de72281
        (
            "AnimeGamer 提供了一个更沉浸式和交互式的动漫体验，通过预测下一个游戏状态。",
            "AnimeGamer 提供了一个更沉浸式和交互式的动漫体验，这是通过预测下一个游戏状态实现的。",
        ),
        # a means with its own aim, a means said first, and 通过了 ("passed") are good Chinese as they stand
        ("该研究提出了新视角，通过分析推理的初始token来推断推理难度。", None),
        ("它通过预测下一个游戏状态提供了沉浸式体验。", None),
        ("该模型在测试中表现稳定，通过了全部检查。", None),
    ],
    ids=["pacore", "animegamer", "with-aim", "means-first", "passed"],
)
def test_a_means_left_after_its_result_is_said_as_chinese_says_it(chinese, said):
    assert with_means_said_after(chinese) == (said or chinese)


@pytest.mark.parametrize(
    ("chinese", "said"),
    [
        # GlimpRouter's summary on the 2026-01-13 listing, three runs to de72281
        (
            "GlimpRouter的准确率提高了10.7%，延迟减少了25.9%，相对于单独的大型模型在AIME25上。",
            "在AIME25上，与单独的大型模型相比，GlimpRouter的准确率提高了10.7%，延迟减少了25.9%。",
        ),
        ("第一句。它优于基线，与GPT-4o相比。", "第一句。与GPT-4o相比，它优于基线。"),  # only its own sentence moves
        # said first already, "in contrast", "as for", and a likeness are no closing comparison
        ("与基线相比，它提高了5%。", None),
        ("它提高了5%，相比之下基线没有变化。", None),
        ("它提高了5%，相对于小模型而言。", None),
        ("vsGRPO-7B 模型通过 Qwen2-VL-7B 训练，与最佳开源模型 LLaVA-NeXT-Video-72B 的性能相似。", None),
    ],
    ids=["glimprouter", "last-sentence", "first-already", "in-contrast", "as-for", "likeness"],
)
def test_a_comparison_left_after_its_result_is_said_first(chinese, said):
    assert with_comparison_first(chinese) == (said or chinese)


def test_a_unit_answer_with_its_comparison_last_comes_back_with_it_first_and_passes():
    english = (
        "GlimpRouter achieves a 10.7% accuracy improvement and a 25.9% latency reduction compared to a standalone "
        "large model on AIME25."
    )
    chinese, problems = judge_unit(
        unit_of(english), "X1的准确率提高了10.7%，延迟减少了25.9%，相对于单独的大型模型在X2上。"
    )
    assert chinese == "在AIME25上，与单独的大型模型相比，GlimpRouter的准确率提高了10.7%，延迟减少了25.9%。"
    assert problems == []


def test_video_dropped_from_its_chinese_is_asked_again_and_a_name_holding_it_is_no_term():
    # VideoDR's summary on the 2026-01-13 listing at de72281: "agentic video reasoning" said 智能体的推理
    english = "Goal drift and long-horizon consistency are the core bottlenecks in agentic video reasoning."
    assert [p.rule for p in judge_unit(unit_of(english), "智能体的推理中，目标漂移和长期一致性是瓶颈。")[1]] == [
        "zh_term"
    ]
    assert judge_unit(unit_of(english), "目标漂移和长期一致性是智能体视频推理的核心瓶颈。")[1] == []
    # the sample's 2504.00883 names LLaVA-NeXT-Video-72B: its "Video" is the name's, kept as written
    named = "The vsGRPO-7B model performs similarly to the best open-source model LLaVA-NeXT-Video-72B."
    assert judge_unit(unit_of(named), "X1 模型的性能与最佳开源模型 X2 相似。")[1] == []


@pytest.mark.parametrize(
    ("chinese", "said"),
    [
        ("…使用7B基础模型，在AIME 2024上，创造新的最先进水平。", "…使用7B基础模型，在AIME 2024上创造新的最先进水平。"),
        ("它的延迟减少了25.9%，在AIME25上。", "在AIME25上，它的延迟减少了25.9%。"),  # closing its sentence: said first
        ("在AIME 2024上，它达到43.3%。", None),  # opening the sentence, as Chinese says it
        ("在此基础上，作者提出了新方法。", None),
    ],
    ids=["between", "closing", "opening", "on-this-basis"],
)
def test_a_place_said_as_a_clause_of_its_own_is_joined_to_its_clause(chinese, said):
    assert with_place_joined(chinese) == (said or chinese)


VSGRPO = (
    "With just 120 GPU hours, vsGRPO-2B, fine-tuned from Qwen2-VL-2B, outperformed the base model by 12.1% and "
    "surpassed GPT-4o."
)


def test_a_models_origin_left_as_a_clause_is_said_before_its_name():
    # 2504.00883's summary in every sample run of 2026-12-06
    chinese, problems = judge_unit(unit_of(VSGRPO), "使用120个GPU小时，X1从X2微调，优于基础模型12.1%并超过X3。")
    assert chinese == "使用120个GPU小时，从Qwen2-VL-2B微调而来的vsGRPO-2B优于基础模型12.1%并超过GPT-4o。"
    assert problems == []
    seven = "The vsGRPO-7B model, trained from Qwen2-VL-7B, performs similarly to LLaVA-NeXT-Video-72B."
    answer = "vsGRPO-7B 模型通过 Qwen2-VL-7B 训练，与 LLaVA-NeXT-Video-72B 的性能相似。"
    said = "从Qwen2-VL-7B训练而来的vsGRPO-7B 模型与 LLaVA-NeXT-Video-72B 的性能相似。"
    assert with_origin_before_its_name(answer, seven) == said
    # no apposition in the English: the clause is the sentence's own
    plain = "vsGRPO-2B从Qwen2-VL-2B微调，然后用于评测。"
    assert with_origin_before_its_name(plain, "vsGRPO-2B is fine-tuned from Qwen2-VL-2B, then evaluated.") == plain


@pytest.mark.parametrize(
    ("english", "chinese", "mended"),
    [
        # SoT's takeaway on the 2025-03-10 listing at 57fb7fa: "paper" said as the material
        ("The Sketch-of-Thought paper demonstrates efficient LLM reasoning.",
         "Sketch-of-Thought 纸展示了高效的 LLM 推理。", "Sketch-of-Thought 论文展示了高效的 LLM 推理。"),
        ("This paper shows that X wins.", "该纸表明X获胜。", "该论文表明X获胜。"),
        # a sheet of paper the English speaks of, and an English with no paper, stay
        ("The paper prints the results on a sheet of paper.", "该论文把结果印在纸张上。", "该论文把结果印在纸张上。"),
        ("The robot folds origami.", "机器人折纸。", "机器人折纸。"),
    ],
)  # fmt: skip
def test_a_paper_is_an_article_not_the_material(english, chinese, mended):
    assert with_paper_said_as_article(chinese, english) == mended


@pytest.mark.parametrize(
    ("chinese", "mended"),
    [
        # R1-Searcher's method on the 2025-03-10 listing at 57fb7fa
        ("提高LLMs’的搜索能力。", "提高LLMs的搜索能力。"),
        ("超过GPT-4o's性能。", "超过GPT-4o的性能。"),
        ("超过GPT-4o’s 的性能。", "超过GPT-4o的性能。"),
        # an apostrophe inside a name, or before no Chinese, stays
        ("使用 Don't-Stop 方法。", "使用 Don't-Stop 方法。"),
    ],
)
def test_an_english_possessive_left_in_chinese_is_said_with_de(chinese, mended):
    assert without_english_possessive(chinese) == mended


@pytest.mark.parametrize(
    ("chinese", "mended"),
    [
        # MergeVQ's summary in the sample run at 256f0d6
        ("MergeVQ在ImageNet上取得了竞争力的表现。", "MergeVQ在ImageNet上取得了有竞争力的表现。"),
        ("展现出竞争力的性能", "展现出有竞争力的性能"),
        # said right, or the noun before 的 ("the gain of competitiveness"), stays
        ("取得了有竞争力的表现", "取得了有竞争力的表现"),
        ("取得了具有竞争力的结果", "取得了具有竞争力的结果"),
        ("模型竞争力的提升", "模型竞争力的提升"),
    ],
)
def test_competitive_after_a_verb_of_achieving_is_said_as_a_quality(chinese, mended):
    assert with_competitive_said(chinese) == mended


@pytest.mark.parametrize(
    ("english", "chinese", "mended"),
    [
        # GlimpRouter's summary on the 2026-01-13 listing at bd94e11
        (
            "GlimpRouter achieves a 10.7% accuracy improvement on AIME25.",
            "GlimpRouter 提出了 10.7% 的准确率提升。",
            "GlimpRouter 实现了 10.7% 的准确率提升。",
        ),
        # an English that proposes keeps 提出
        (
            "The paper proposes GlimpRouter, which achieves a 10.7% improvement.",
            "该论文提出了GlimpRouter，实现了10.7%的提升。",
            "该论文提出了GlimpRouter，实现了10.7%的提升。",
        ),
    ],
)
def test_achieves_said_as_proposes_is_said_as_achieves(english, chinese, mended):
    assert with_achieving_said(chinese, english) == mended


# SoT's summary on the 2025-03-10 listing at 57fb7fa: no verb after the means
SOT = (
    "SoT achieves token reductions of 76% with negligible accuracy impact across 15 reasoning datasets with multiple "
    "languages and multimodal scenarios."
)


def test_a_change_said_as_a_means_before_while_is_the_verb():
    said = with_change_as_verb("SoT通过减少76%的token，同时对15种多语言和多模态推理数据集的准确率几乎没有影响。", SOT)
    assert said == "SoT减少了76%的token，同时对15种多语言和多模态推理数据集的准确率几乎没有影响。"
    # a means the English says stays a means
    english = "SoT cuts cost by reducing tokens by 76% while keeping accuracy."
    chinese = "SoT通过减少76%的token，同时保持准确率。"
    assert with_change_as_verb(chinese, english) == chinese
    # a main verb after the means: a sentence already
    chinese = "SoT通过减少76%的token实现了高效推理。"
    assert with_change_as_verb(chinese, SOT) == chinese


def test_a_question_the_english_does_not_ask_is_rejected():
    # Aya 23's summary on the 2024-05-27 listing at 53b670c
    english = "The paper aims to explore the impact of allocating more capacity to fewer languages during pre-training."
    asked = "预训练中分配更多容量给较少的语言有什么影响？"
    assert question_added(asked, english) == "？"
    assert "zh_added" in {p.rule for p in judge_unit(unit_of(english), asked)[1]}
    stated = "该论文旨在探讨在预训练中将更多容量分配给较少语言的影响。"
    assert question_added(stated, english) is None
    assert question_added("模型能否推理？", "Can models reason?") is None


def test_grokked_is_kept_as_written_not_understood():
    # 2405.15071's summary on the 2024-05-27 listing at 53b670c: "fully grokked" said 完全理解, "fully understand";
    # asked for 顿悟 at 5bea20d, the 1.5B model failed the paper in 8 rounds. The term is kept, a placeholder.
    english = "Fully grokked transformers achieve near-perfect accuracy on a challenging reasoning task."
    unit = unit_of(english)
    assert "grokked" in unit.protected.names.values()
    chinese, problems = judge_unit(unit, "完全X1的X2在一项具有挑战性的推理任务上达到了接近完美的准确率。")
    assert problems == [] and "grokked" in chinese


def test_a_word_said_of_itself_is_rejected():
    # Aya 23's problem on the 2024-05-27 listing at 5bea20d
    english = "Aya 23 explores the impact of increasing the capacity to fewer languages in pre-training."
    doubled = "Aya 23 探索了增加预训练中语言数量的能力对影响的影响。"
    assert said_of_itself(doubled) == "影响的影响"
    assert "zh_added" in {p.rule for p in judge_unit(unit_of(english), doubled)[1]}
    assert said_of_itself("Aya 23 探索了在预训练中为较少语言增加容量的影响。") is None
    assert said_of_itself("该论文调整了语言模型的模型参数。") is None


def test_generalizing_said_yibanhua_is_the_same_sense():
    # 2405.15071's method on the 2024-05-27 listing at d0fd7f4: 一般化电路 for "generalizing circuit", 8 rounds failed
    english = "It reveals the connection between systematicity and the configuration of the generalizing circuit."
    assert judge_unit(unit_of(english), "它揭示了系统性与一般化电路配置之间的联系。")[1] == []
    problems = judge_unit(unit_of(english), "它揭示了系统性与通用化电路配置之间的联系。")[1]
    assert "zh_term" in {p.rule for p in problems}  # "universalized" is another sense


def test_visual_cues_left_in_english_are_rendered():
    # VideoDR's problem on the 2026-01-13 listing at 6f3c891: "cues" left in 4 of 8 rounds, 线索 in the others
    english = "Videos provide localized visual cues but verifiable answers are distributed across the open web."
    chinese, problems = judge_unit(unit_of(english), "视频提供局部视觉 cues，但可验证的答案分布在开放网络上。")
    assert problems == []
    assert "线索" in chinese and "cues" not in chinese
