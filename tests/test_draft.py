"""Evidence first (#38): the candidate sentences of the sample day's papers, the draft the model writes and
the digest the program builds from it, judged by the one checker; and the draft way through the simulator."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import SAMPLE_DATE, make_params
from test_checker import R1, doc

from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.checker.candidates import evidence_candidates
from papers_digest.checker.draft import (
    candidate_evidence,
    evidence_problems,
    merge_parts,
    parts_of,
    read_draft,
)
from papers_digest.checker.english import check_digest_en
from papers_digest.checker.paper import read_paper
from papers_digest.checker.problems import Problem
from papers_digest.core.models import FulltextDoc
from papers_digest.llm.drafting import draft_message
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.generating import generate

VSI = "2504.00883"  # an abstract with one figure sentence and a code-link sentence


@pytest.fixture(scope="module")
def abstracts() -> dict[str, FulltextDoc]:
    return {key: doc(f"abs:{key}") for key in ("2504.00883", "2504.00999", "2504.01014")}


@pytest.fixture(scope="module")
def r1() -> FulltextDoc:
    return doc(R1)


def test_an_abstracts_candidates_are_its_sentences_but_the_code_link(abstracts):
    candidates = evidence_candidates(abstracts[VSI])
    sentences = [c.sentence for c in candidates]
    assert sentences[0].startswith("Increasing attention has been placed")
    assert any("12.1%" in s for s in sentences)
    assert not any("code and dataset will be available" in s.casefold() for s in sentences)
    assert [c.index for c in candidates] == list(range(1, len(candidates) + 1))
    assert {c.section for c in candidates} == {"Abstract"}


def test_a_full_texts_candidates_are_sentences_of_prose_that_state_figures(r1):
    candidates = evidence_candidates(r1)
    assert 3 <= len(candidates) <= 16
    assert candidates[0].section == "Abstract" and "43.3%" in candidates[0].sentence
    assert len({c.section for c in candidates}) >= 4  # spread over the paper, not one table
    for c in candidates:
        assert c.figures, c.sentence
        assert "|" not in c.sentence and "=" not in c.sentence  # no table rows, no code
    message = draft_message(r1, candidates)
    assert len(message) < len(r1.text) / 3  # the opening and the candidates, not the whole paper


def _draft(findings: str, summary: str = "The recipe reaches a new best score with a small model.") -> str:
    return (
        "PROBLEM: Reinforcement learning recipes for reasoning hide biases that inflate answer lengths.\n"
        "METHOD: The authors study base models and the optimiser, then remove two normalisation terms.\n"
        f"FINDINGS:\n{findings}\n"
        f"SUMMARY: {summary}\n"
        "LIMITATIONS:\n- Only math benchmarks were tried.\n"
        "TAKEAWAYS:\n- Check the template before blaming the optimiser.\n"
        "TOPIC: Reasoning with RL\n"
        "IDEAS:\n- base models\n- unbiased optimiser\n"
    )


def test_the_program_takes_a_findings_numbers_and_section_from_the_sentence_it_names(r1):
    candidates = evidence_candidates(r1)
    first = candidates[0]
    draft = read_draft(_draft(f"[{first.index}] The minimalist recipe scores 43.3% on the AIME test."), candidates)
    assert draft.problems == []
    result = draft.digest["results"][0]
    assert result == {"sections": ["Abstract"], "numbers": ["43.3%"], "finding": result["finding"]}
    evidence = candidate_evidence(draft.reported, draft.digest["results"])
    assert [e.sentence for e in evidence[0]] == [first.sentence]  # what the site shows: the sentence it came from
    assert json.loads(draft.answer())["mind_map"]["children"][1]["label"] == "unbiased optimiser"


def test_a_finding_that_names_no_candidate_is_matched_to_the_sentence_it_rewords(abstracts):
    candidates = evidence_candidates(abstracts[VSI])
    line = "- Our vsGRPO-2B model, fine-tuned from Qwen2-VL-2B, can outperform the base model by 12.1%."
    draft = read_draft(_draft(line), candidates)
    assert draft.problems == [] and "12.1%" in draft.reported[0].sentence


@pytest.mark.parametrize(
    ("findings", "expected"),
    [
        ("[99] A finding.", "[99] is not a candidate"),
        ("[7] Gains of 12.1% over the base.\n[7] The same gain again.", "reported twice"),
        ("Something with no candidate at all here.", "names no candidate"),
    ],
)
def test_a_draft_of_the_wrong_form_is_rejected_saying_what_to_mend(abstracts, findings, expected):
    draft = read_draft(_draft(findings), evidence_candidates(abstracts[VSI]))
    assert draft.digest is None and any(expected in p.message for p in draft.problems)
    missing = read_draft(_draft("[7] x").replace("SUMMARY: ", "In short: "), evidence_candidates(abstracts[VSI]))
    assert any("no SUMMARY: part" in p.message for p in missing.problems)


def test_a_finding_owes_its_sentence_its_own_words_and_only_its_figures(abstracts):
    candidates = evidence_candidates(abstracts[VSI])
    seven = next(c for c in candidates if "12.1%" in c.sentence)
    copied = read_draft(_draft(f"[{seven.index}] {seven.sentence}"), candidates)
    assert [p.rule for p in evidence_problems(copied.digest["results"], copied.reported)] == ["copied"]
    foreign = read_draft(_draft(f"[{seven.index}] The small model gains 43.3% over its base model."), candidates)
    problems = evidence_problems(foreign.digest["results"], foreign.reported)
    assert [p.rule for p in problems] == ["finding_number"] and "'43.3%'" in problems[0].message


def test_the_checker_judges_the_built_digest_as_any_other(abstracts):
    """A digest built from a draft still breaks today's rules when the draft does: the summary restating the
    problem is `repeated`, as it is in a JSON answer."""
    doc = abstracts[VSI]
    candidates = evidence_candidates(doc)
    seven = next(c for c in candidates if "12.1%" in c.sentence)
    text = _draft(
        f"[{seven.index}] Trained for a few GPU hours, the small model beats its base by 12.1% and GPT-4o too.",
        summary="Reinforcement learning recipes for reasoning hide biases that inflate answer lengths.",
    )
    draft = read_draft(text, candidates)
    verdict = check_digest_en(draft.answer(), read_paper(doc))
    assert "repeated" in {p.rule for p in verdict.problems}


def test_a_repair_asks_for_the_failed_parts_alone_and_puts_them_back(abstracts):
    candidates = evidence_candidates(abstracts[VSI])
    text = _draft("[7] The small model beats its base model by 12.1% after a short training run.")
    reported = read_draft(text, candidates).reported
    problems = [
        Problem("repeated", "one_sentence: 'x' repeats problem: say it in its own words"),
        Problem("copied", "limitations[0]: copies 9 words of the paper"),
    ]
    assert parts_of(problems, reported) == ["SUMMARY", "LIMITATIONS"]
    assert parts_of([Problem("json", "the reply is not valid JSON")], reported) is None
    merged = merge_parts(text, "SUMMARY: A short run lifts spatial reasoning.\nPROBLEM: ignored.", ["SUMMARY"])
    again = read_draft(merged, candidates).digest
    assert again["one_sentence"] == "A short run lifts spatial reasoning."
    assert again["problem"].startswith("Reinforcement learning recipes")  # not asked: kept


def test_the_simulator_answers_a_draft_request_and_the_day_is_done(abstracts, r1):
    """The draft way end to end over HTTP: the simulator's drafts pass, and each result carries the sentence
    it names as its evidence."""
    sim = EngineSim(model="sim")
    docs = [r1, *abstracts.values()]
    params = make_params(llm={"asking": "draft", "model": "sim", "reuse": False})
    with BackgroundServer(sim.app) as server:
        run = params.model_copy(update={"llm": params.llm.model_copy(update={"base_url": f"{server.url}/v1"})})
        results = asyncio.run(
            generate("digest_en", run, SAMPLE_DATE, docs, load_prompt("prompts/digest_en_draft.md"), lambda r: None)
        )
    assert sorted(r.status for r in results) == ["done"] * len(docs)
    for result in results:
        doc = next(d for d in docs if d.arxiv_id == result.arxiv_id)
        sentences = {c.sentence for c in evidence_candidates(doc)}
        assert result.evidence and all(e.sentence in sentences for evidence in result.evidence for e in evidence)
