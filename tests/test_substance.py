"""Digests that say something (issue #27): the rules on the shapes the real 0.5B model wrote on the sample day,
the margins of their thresholds on faithful digests, the cut-back to whole sentences, the retry that asks for
the failed fields alone, and the simulator's "repeating" fault driven end to end over HTTP."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest
from conftest import DATA, SAMPLE_DATE, abstract_docs, make_params, sample_papers
from test_checker import CHINESE, HAND, MERGEVQ, PAGES, R1, VSI, auto_digest, doc, en, facts, judge_en

from papers_devtools.sim.answers import build_digest, translate
from papers_devtools.sim.faults import Fault
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.checker.chinese import ZH_RATIO, ZH_RULES, check_digest_zh, must_be_chinese, zh_ratio
from papers_digest.checker.english import ENGLISH_RULES, check_digest_en, prose_fields
from papers_digest.checker.paper import read_paper
from papers_digest.checker.passages import longest_run
from papers_digest.checker.problems import RULES, rules_broken
from papers_digest.checker.schema import digest_schema
from papers_digest.checker.substance import COPY_WORDS, REPEAT_SHARE, overlap
from papers_digest.checker.zh_words import ZH_TEXT_RULES
from papers_digest.core.models import Digest
from papers_digest.llm.prompting import digest_messages, load_prompt
from papers_digest.llm.repair import digest_repair
from papers_digest.pipeline.digesting import generate_digests

SHAPES = json.loads((DATA / "checker" / "sample_bad_digests.json").read_text(encoding="utf-8"))
RECORDED = json.loads((DATA / "llm" / "2504.01014-translation.json").read_text(encoding="utf-8"))
ABSTRACTS = {d.arxiv_id: d for d in abstract_docs(sample_papers())}
KEYS = {"2504.00999": MERGEVQ, "2504.00883": VSI, "2503.20783": R1}


def animegamer_verdict():
    return check_digest_en(json.dumps(RECORDED["english"]), read_paper(ABSTRACTS["2504.01014"]))


def found(verdict) -> set[tuple[str, str]]:
    return {(p.rule, p.field) for p in verdict.problems}


# --- the sample day's shapes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arxiv_id", "expected"),
    [
        ("2504.00999", {("repeated", "results[1].finding"), ("repeated", "results[5].finding"),
                        ("repeated", "one_sentence"), ("copied", "problem"), ("copied", "one_sentence")}),
        ("2504.00883", {("number_unrelated", "results[1].numbers"), ("number_unrelated", "results[2].numbers"),
                        ("cut_off", "results[2].finding")}),
        ("2503.20783", {("title_restated", "problem"), ("packaging", "results[0].finding"),
                        ("packaging", "results[2].finding"), ("repeated", "results[2].finding"),
                        ("number_unrelated", "results[0].numbers"), ("copied", "results[1].finding")}),
    ],
)  # fmt: skip
def test_the_sample_days_empty_digests_are_rejected_by_the_rule_that_names_their_fault(arxiv_id, expected):
    verdict = judge_en(SHAPES[arxiv_id]["digest"], KEYS[arxiv_id])
    assert verdict.digest is None
    assert expected <= found(verdict), sorted(found(verdict))


def test_the_real_animegamer_digest_is_rejected_for_repeats_packaging_and_copies():
    """The offline model's English digest of 2504.01014 (tests/data/llm), which passed every earlier rule."""
    problems = found(animegamer_verdict())
    assert {("repeated", f"results[{i}].finding") for i in (3, 4, 5)} <= problems
    assert {("packaging", "results[2].finding"), ("packaging", "results[5].finding")} <= problems
    assert {("copied", "one_sentence"), ("copied", "method"), ("copied", "results[0].finding")} <= problems


def test_every_problem_of_the_new_rules_names_its_field_so_the_retry_asks_for_those_fields_alone():
    verdict = animegamer_verdict()
    assert all(p.field for p in verdict.problems)
    system = load_prompt("prompts/digest_en_json.md")[0]
    document = ABSTRACTS["2504.01014"]
    repair = digest_repair(
        digest_messages(system, document), read_paper(document), json.dumps(RECORDED["english"]), verdict.problems
    )
    assert repair is not None
    assert set(repair.fields) == {
        "one_sentence", "problem", "method", "limitations[2]", "takeaways[0]",
        "results[0]", "results[2]", "results[3]", "results[4]", "results[5]",
    }  # fmt: skip
    assert "results[1]" not in repair.fields  # the finding said once is kept


def test_the_results_asked_for_follow_the_input_one_of_an_abstract_three_of_a_full_text():
    """Never more findings than the input holds claims (#38): an abstract with one finding gives one, so one
    result of an abstract passes; a full text with many sections that state figures still gives three."""
    abstract = ABSTRACTS["2504.00999"]
    answer = build_digest(digest_messages("system", abstract)[1]["content"])
    one = {**answer, "results": answer["results"][:1]}
    assert check_digest_en(json.dumps(one), read_paper(abstract)).digest is not None
    none = {**answer, "results": []}
    assert "results_count" in rules_broken(check_digest_en(json.dumps(none), read_paper(abstract)).problems)
    full = {**en(R1), "results": en(R1)["results"][:2]}
    verdict = judge_en(full, R1)
    assert "results_count" in rules_broken(verdict.problems)
    assert any(p.rule == "results_count" and "at least 3" in p.message for p in verdict.problems)
    for document, expected in ((abstract, (1, 3)), (doc(R1), (3, 6))):
        results = digest_schema(read_paper(document))["properties"]["results"]
        assert (results["minItems"], results["maxItems"]) == expected


def test_a_field_cut_at_its_cap_is_cut_back_to_its_last_full_sentence():
    one_sentence = RECORDED["english"]["one_sentence"]
    assert len(one_sentence) == 300 and one_sentence.endswith("which can be used")
    answer = {**en(MERGEVQ), "one_sentence": "MergeVQ adds token merging to vector-quantized models, and one model "
              "serves both generation and representation learning. It introduces decoupled top-k semantics, which "
              "can be used"}  # fmt: skip
    verdict = judge_en(answer, MERGEVQ)
    assert verdict.digest is not None, verdict.problems
    assert verdict.digest.one_sentence.endswith("representation learning.")  # what the reader gets


def test_a_phrase_without_a_full_stop_is_not_taken_for_a_cut():
    """The offline model's limitations are phrases ("It neglects historical visual context"): whole clauses of
    the abstract, not cut. A copy that stops before the paper's clause does is."""
    answer = {**en(VSI), "limitations": ["It relies on the curated VSI-100k dataset"]}
    assert judge_en(answer, VSI).problems == []
    cut = {**en(VSI), "results": [*en(VSI)["results"][:2], {**en(VSI)["results"][2], "finding": "We compare vsGRPO "
           "to supervised fine-tuning and direct preference optimization baselines and observe strong"}]}  # fmt: skip
    assert ("cut_off", "results[2].finding") in found(judge_en(cut, VSI))


# --- the thresholds' margins on faithful digests -------------------------------------------------------------


def faithful_english() -> list[tuple[str, dict]]:
    return [(key, en(key)) for key in HAND] + [(key, auto_digest(key)) for key in PAGES]


def test_faithful_summaries_copy_well_under_the_copy_threshold():
    longest = max(
        longest_run(text, facts(key).passages)
        for key, answer in faithful_english()
        for path, text in prose_fields(Digest.model_validate(answer), findings=False)
        if not path.endswith(".label")
    )
    assert longest <= 8 < COPY_WORDS


def test_faithful_fields_overlap_well_under_the_repeat_threshold():
    def fields(answer: dict) -> list[str]:
        return [answer["problem"], answer["method"], *(r["finding"] for r in answer["results"]), answer["one_sentence"]]

    most = max(overlap(a, b) for _, answer in faithful_english() for a, b in itertools.combinations(fields(answer), 2))
    assert most < REPEAT_SHARE / 2


def test_faithful_and_real_translations_are_within_the_length_ratio():
    pairs = [(english, chinese) for english, chinese in CHINESE.values()]
    pairs.append((RECORDED["english"], json.loads(RECORDED["first_answer"])))
    low, high = ZH_RATIO
    ratios = []
    for english, chinese in pairs:
        source = dict(prose_fields(Digest.model_validate(english)))
        for path, text in prose_fields(Digest.model_validate(chinese)):
            if must_be_chinese(source[path], label=path.endswith(".label")):
                ratios.append(zh_ratio(text, source[path]))
    assert low * 2 <= min(ratios) and max(ratios) <= high / 2, (min(ratios), max(ratios))


def test_two_labels_that_share_a_term_are_no_repetition_and_a_label_written_twice_is():
    # the sample day's 2504.00883 from a bare clone (the commit after 78fbe6c): "MLLMs的视觉空间推理" holds 5 of its
    # 6 character pairs in the next label's Chinese, and all 8 rounds of that label failed zh_repeated
    english = Digest.model_validate(
        {
            "one_sentence": "x", "problem": "x", "method": "x", "results": [], "limitations": [], "takeaways": [],
            "mind_map": {"label": "Visual-spatial reasoning", "children": [
                {"label": "Study visual-spatial reasoning of MLLMs", "children": []},
                {"label": "Identify CoT prompts cannot activate visual-spatial reasoning", "children": []},
            ]},
        }
    )  # fmt: skip

    def translated(first: str, second: str) -> Digest:
        chinese = english.model_dump()
        chinese["mind_map"]["children"][0]["label"], chinese["mind_map"]["children"][1]["label"] = first, second
        return Digest.model_validate(chinese)

    from papers_digest.checker.chinese import zh_repeated

    assert zh_repeated(translated("MLLMs的视觉空间推理", "识别CoT提示不能激活视觉空间推理"), english) == []
    twice = zh_repeated(translated("识别CoT提示不能激活视觉空间推理", "识别CoT提示不能激活视觉空间推理"), english)
    assert [(p.rule, p.field) for p in twice] == [("zh_repeated", "mind_map.children[1].label")]


def test_a_finding_that_says_what_the_summary_says_may_read_as_its_translation():
    """VideoDR on the 2026-01-13 listing at 2b51ce5: its finding says in other words what its summary says, its
    faithful Chinese is the summary's in part, and it failed zh_repeated in all 8 rounds."""
    from papers_digest.checker.chinese import zh_repeated

    summary = (
        "Further analysis reveals that goal drift and long-horizon consistency are the core bottlenecks in the "
        "paper's video deep research benchmark on open web for agentic video reasoning."
    )
    finding = "Agentic video reasoning's core bottlenecks are goal drift and long-term consistency."
    result = {"finding": finding, "numbers": [], "sections": ["Abstract"]}
    english = Digest.model_validate(
        {
            "one_sentence": summary, "problem": "Answers to questions about videos are spread across the open web.",
            "method": "x", "results": [result], "limitations": [],
            "takeaways": [], "mind_map": {"label": "VideoDR", "children": []},
        }
    )  # fmt: skip
    chinese = english.model_dump()
    chinese["one_sentence"] = "进一步分析表明，目标漂移和长期一致性是论文在开放网络上的智能体视频推理基准中的核心瓶颈。"
    chinese["results"][0]["finding"] = "智能体视频推理的核心瓶颈是目标漂移和长期一致性。"
    assert zh_repeated(Digest.model_validate(chinese), english) == []
    chinese["problem"] = chinese["one_sentence"]  # a field that differs in English still fails
    assert [p.field for p in zh_repeated(Digest.model_validate(chinese), english)] == ["problem"]


def test_the_real_translation_of_two_findings_as_the_one_sentence_is_named():
    verdict = check_digest_zh(RECORDED["first_answer"], Digest.model_validate(RECORDED["english"]))
    assert ("zh_repeated", "results[0].finding") in found(verdict)
    assert ("zh_repeated", "takeaways[0]") not in found(verdict)  # it translates its own English, the same text


def test_the_rule_tables_list_every_rule_one_function_each():
    """The checker's rules, one function each (#28): the English and the translation tables (of the fields and
    of their words), with the rules judged elsewhere (parsing: json, schema; the conversation: length, echo; what
    a field asked in steps owes its sentence: scope, summary_figure, finding_doing; a label or a finding asked in
    steps: label, term; a translation unit alone: zh_placeholder, zh_added, zh_direction, zh_unfinished), are
    every rule the report knows."""
    tables = [*ENGLISH_RULES, *ZH_RULES, *ZH_TEXT_RULES]
    elsewhere = {"json", "schema", "length", "echo", "scope", "summary_figure", "finding_doing", "label", "term"}
    elsewhere |= {"zh_placeholder", "zh_added", "zh_direction", "zh_unfinished"}
    assert {name for name, _ in tables} | elsewhere == set(RULES)
    assert all(callable(rule) and rule.__doc__ for _, rule in tables)
    assert len({id(rule) for _, rule in tables}) == len(tables)


# --- the simulator: faithful answers pass, the "repeating" fault is caught or mended ---------------------------


@pytest.mark.parametrize("key", [*PAGES, *(f"abs:{i}" for i in ABSTRACTS)])
def test_the_simulators_faithful_digest_and_translation_pass_every_rule(key):
    document = doc(key)
    answer = build_digest(digest_messages("system", document)[1]["content"])
    verdict = check_digest_en(json.dumps(answer), read_paper(document))
    assert verdict.problems == [] and verdict.digest is not None
    chinese = check_digest_zh(json.dumps(translate(answer), ensure_ascii=False), verdict.digest)
    assert chinese.problems == []


TARGET = ABSTRACTS["2504.00999"]  # MergeVQ, the paper the 0.5B model wrote nothing but its first sentence for
DOCS = [TARGET, ABSTRACTS["2504.00883"]]


def run_digests(sim: EngineSim) -> dict:
    with BackgroundServer(sim.app) as server:
        llm = {"asking": "json", "base_url": f"{server.url}/v1", "model": "sim-digest", "timeout_s": 5}
        params = make_params(llm=llm)
        results = asyncio.run(
            generate_digests(params, SAMPLE_DATE, DOCS, load_prompt("prompts/digest_en_json.md"), lambda _r: None)
        )
    return {r.arxiv_id: r for r in results}


def test_a_repeating_copying_answer_is_mended_field_by_field_into_a_digest_that_passes():
    sim = EngineSim()
    sim.add_fault(Fault(kind="repeating", request="digest", on="first", match=TARGET.title))
    mended = run_digests(sim)[TARGET.arxiv_id]
    assert mended.status == "done"
    first, retry = mended.calls
    assert {"repeated", "copied", "title_restated"} <= set(first.checker_rules)
    assert retry.repair  # asked for the failed fields alone
    digest = Digest.model_validate(mended.digest)
    assert len({r.finding for r in digest.results}) == len(digest.results)
    assert check_digest_en(json.dumps(mended.digest), read_paper(TARGET)).problems == []


def test_a_model_that_keeps_repeating_itself_ends_failed_with_the_rules_named():
    sim = EngineSim()
    sim.add_fault(Fault(kind="repeating", request="digest", match=TARGET.title, times=-1))
    results = run_digests(sim)
    failed = results[TARGET.arxiv_id]
    assert failed.status == "failed" and failed.error_kind == "checker"
    assert "repeats" in failed.error and "copies" in failed.error and "restates the title" in failed.error
    assert {"repeated", "copied", "title_restated"} <= set(rules_broken_of(failed))
    assert results[DOCS[1].arxiv_id].status == "done"  # the other paper is not affected


def rules_broken_of(result) -> list[str]:
    return [rule for call in result.calls for rule in call.checker_rules]


def test_rules_broken_lists_each_rule_once():
    verdict = animegamer_verdict()
    assert rules_broken(verdict.problems) == list(dict.fromkeys(p.rule for p in verdict.problems))
