"""The digest asked in steps (#38, llm.asking: steps): the questions file, how a judged draft's problems map
back to the steps that wrote them, and the conversation over real HTTP, against the 1.5B model's recorded
answers for the sample day's MergeVQ abstract and against the simulator."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import SAMPLE_DATE, make_params
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from test_checker import R1, doc

from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.checker.candidates import evidence_candidates
from papers_digest.checker.draft import draft_path, judge_draft, read_draft
from papers_digest.checker.paper import read_paper
from papers_digest.checker.problems import Problem
from papers_digest.core.errors import ConfigError
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.steps import (
    SECTIONS,
    draft_text,
    finding_key,
    finding_repeated,
    one_line,
    opening,
    picked,
    read_step_prompts,
    rewrite_messages,
    step_of_request,
    steps_to_mend,
)
from papers_digest.llm.stepwise import _Paper
from papers_digest.pipeline.generating import generate, run_generation_stage

STEPS_PROMPT = "prompts/digest_en_steps.md"
MERGEVQ = "abs:2504.00999"
# The 1.5B model's answers to the steps on the MergeVQ abstract (2026-12-04, greedy, llama-server): its METHOD
# copies the abstract's clauses (runs of 29 and more words); asked to rewrite that opening without the paper in
# view, it wrote REWRITTEN (longest run of the paper's words: 0).
RECORDED = {
    "PROBLEM": "This paper addresses the trade-off between image generation quality and representation learning "
    "and efficiency in visual generation and representation learning.",
    "METHOD": "The paper proposes MergeVQ, a unified framework for visual generation and representation learning "
    "that incorporates token merging techniques into VQ-based generative models. During pre-training, it decouples "
    "top-k semantics from latent space with the token merge module after self-attention blocks in the encoder for "
    "subsequent Look-up Free Quantization (LFQ) and global alignment.",
    "PICK": "1, 5",
    "FINDING [1]": "Masked Image Modeling (MIM) with Vector Quantization (VQ) has shown great success in both "
    "self-supervised pre-training and image generation.",
    "FINDING [5]": "MergeAR introduces KV Cache compression for efficient raster-order prediction in the "
    "second-stage generation of MergeVQ.",
    "SUMMARY": "The experiments on ImageNet show that the merged tokens keep the generator competitive while "
    "spending fewer tokens.",
    "LIMITATIONS": "This paper's method doesn't tell us if it can do well in both visual learning and image "
    "generation tasks.",
    "TAKEAWAYS": "Fewer, merged tokens can serve both image generation and representation learning.",
    "TOPIC": "Unified visual tokenizers",
    "IDEAS": "- Token merging in VQ\n- KV Cache compression\n- Shared latent space",
}
REWRITTEN = (
    "The paper introduces MergeVQ, a framework that combines token merging with VQ-based models for visual "
    "generation and representation learning."
)


@pytest.fixture(scope="module")
def prompts():
    return read_step_prompts(load_prompt(STEPS_PROMPT)[0], STEPS_PROMPT)


def test_the_questions_file_has_every_step_and_a_missing_one_is_named(prompts, tmp_path):
    assert set(prompts.sections) >= set(SECTIONS)
    assert prompts.system.startswith("You explain research papers")
    broken = load_prompt(STEPS_PROMPT)[0].replace("## PICK", "## CHOOSE")
    with pytest.raises(ValueError, match=r"steps\.md: missing ## PICK"):
        read_step_prompts(broken, "steps.md")


def test_a_stage_asked_in_steps_with_a_broken_questions_file_stops_with_one_line(tmp_path, prompts):
    (tmp_path / "steps.md").write_text("You explain papers.\n\n## PROBLEM\nWhat problem?\n", encoding="utf-8")
    params = make_params(llm={"asking": "steps", "model": "m", "base_url": "http://127.0.0.1:9/v1"})
    (tmp_path / "params.yaml").write_text(json.dumps(params.model_dump(mode="json")), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"steps\.md: missing ## METHOD"):
        run_generation_stage(
            "digest_en",
            date=SAMPLE_DATE,
            params_path=str(tmp_path / "params.yaml"),
            prompt_path="prompts/digest_en.md",
            out=str(tmp_path / "out"),
            store_path=str(tmp_path / "store"),
            load_inputs=list,
            steps_prompt_path=str(tmp_path / "steps.md"),
        )


def test_the_picked_candidates_are_the_numbers_named_once_in_order():
    candidates = evidence_candidates(doc(MERGEVQ))
    assert [c.index for c in picked("Sentences 6, 2 and [6]; 99 is none.", candidates, 3)] == [6, 2]
    assert [c.index for c in picked("1, 2, 3, 4, 5", candidates, 3)] == [1, 2, 3]
    assert picked("none of them", candidates, 3) == []


def test_the_answers_make_a_draft_the_checker_reads_with_echoed_names_and_quotes_taken_off():
    mergevq = doc(MERGEVQ)
    candidates = evidence_candidates(mergevq)
    answers = dict(RECORDED, PROBLEM=f'PROBLEM: "{RECORDED["PROBLEM"]}"', METHOD=REWRITTEN)
    findings = picked(answers["PICK"], candidates, 3)
    draft = read_draft(draft_text(answers, findings), candidates)
    assert draft.digest is not None and draft.problems == []
    assert draft.digest["problem"] == RECORDED["PROBLEM"]
    assert [r["sections"] for r in draft.digest["results"]] == [["Abstract"], ["Abstract"]]
    assert [c.index for c in draft.reported] == [1, 5]
    assert [child["label"] for child in draft.digest["mind_map"]["children"]] == [
        "Token merging in VQ",
        "KV Cache compression",
        "Shared latent space",
    ]
    verdict = judge_draft(draft_text(answers, findings), candidates, read_paper(mergevq))
    assert verdict.digest is not None, verdict.problems


def test_the_question_said_back_is_taken_off_a_finding():
    said = "The sentence shows that vsGRPO-2B outperforms the base model by 12.1% and surpasses GPT-4o."
    assert one_line(said) == "vsGRPO-2B outperforms the base model by 12.1% and surpasses GPT-4o."
    assert one_line("Sentence [7] indicates that the KL penalty matters.") == "The KL penalty matters."
    assert one_line("A sentence shows nothing here.") == "A sentence shows nothing here."
    quoted = 'The sentence "With just 120 GPU hours" shows that the model beats GPT-4o.'  # the 0.5B model's
    assert one_line(quoted) == "The model beats GPT-4o."


def test_each_problem_goes_back_to_the_step_that_wrote_it():
    candidates = evidence_candidates(doc(MERGEVQ))
    findings = [candidates[0], candidates[4]]
    problems = [
        Problem("copied", "method: copies 43 words of the paper"),
        Problem("repeated", "results[1].finding: 'x' repeats results[0].finding: say what else"),
        Problem("title_restated", "one_sentence: 'x' restates the title"),
        Problem("copied", "limitations[0]: copies 19 words of the paper"),
        Problem("echo", "mind_map.children[1].label: repeats the instructions"),
        Problem("results_count", "results: 1 of at least 3: report 3 or more different findings"),
        Problem("draft", "the draft has no TOPIC: part: write it on its own line"),
    ]
    mend = steps_to_mend(problems, findings, draft_path)
    assert list(mend) == ["METHOD", finding_key(candidates[4]), "SUMMARY", "LIMITATIONS", "IDEAS", "PICK", "TOPIC"]
    assert mend["METHOD"] == [problems[0]]


def test_a_rewrite_carries_the_answers_opening_and_nothing_of_the_paper(prompts):
    messages = rewrite_messages(prompts, "METHOD", RECORDED["METHOD"])
    sent = " ".join(m["content"] for m in messages)
    assert "During pre-training" not in sent  # the second sentence would take it past 40 words
    assert RECORDED["METHOD"].split(". ")[0] in sent
    assert "Title:" not in sent and "Masked Image Modeling" not in sent
    assert "at most 40 words" in sent and "Do not write these words" not in sent
    named = rewrite_messages(prompts, "METHOD", RECORDED["METHOD"], (read_paper(doc(MERGEVQ)).passages,))
    copied = "incorporates token merging techniques into vq based generative models"  # of its first sentence
    assert f'Do not write these words in a row: "{copied}".' in named[1]["content"]
    assert opening("One two three. Four five six. Seven.", 6) == "One two three. Four five six."


def _scripted_engine(seen: list[list[dict[str, str]]], answers: dict[str, str] = RECORDED) -> Starlette:
    """An engine answering each step with the recorded answer, a rewrite with the recorded rewrite."""

    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        messages = body["messages"]
        seen.append(messages)
        user = messages[1]["content"]
        step = step_of_request(user)
        content = answers[step] if step is not None else REWRITTEN
        return JSONResponse(
            {
                "id": f"c{len(seen)}",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 400, "completion_tokens": 30, "total_tokens": 430},
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def test_a_part_that_copied_the_paper_is_rewritten_without_the_paper_and_the_digest_passes():
    """The recorded METHOD copies the abstract: the first round fails on it alone (`copied`), the second asks
    for its rewrite with no paper in view, and the digest passes with the rewrite, every other part kept."""
    mergevq = doc(MERGEVQ)
    seen: list[list[dict[str, str]]] = []
    params = make_params(llm={"asking": "steps", "model": "m", "reuse": False})
    with BackgroundServer(_scripted_engine(seen)) as server:
        run = params.model_copy(update={"llm": params.llm.model_copy(update={"base_url": f"{server.url}/v1"})})
        (result,) = asyncio.run(generate("digest_en", run, SAMPLE_DATE, [mergevq], load_prompt(STEPS_PROMPT), print))
    assert result.status == "done", result.problems
    assert result.digest["method"] == REWRITTEN
    assert result.digest["problem"] == RECORDED["PROBLEM"]
    assert len(seen) == 11  # PROBLEM, METHOD, PICK, two findings, five later parts; then the rewrite
    rewrite = seen[-1][1]["content"]
    assert step_of_request(rewrite) is None and "Masked Image Modeling" not in rewrite  # no paper in view
    assert "Do not write these words in a row" in rewrite  # the copied words, named
    first_method = result.calls[1]
    assert first_method.status == "rejected" and first_method.checker_rules == ["copied"]
    assert (result.calls[-1].attempt, result.calls[-1].repair) == (2, True)
    assert len(result.rejected_answers) == 1
    sentences = {c.sentence for c in evidence_candidates(mergevq)}
    assert all(e.sentence in sentences for evidence in result.evidence for e in evidence)


def test_a_finding_the_summary_repeats_is_dropped_where_enough_remain_and_nothing_is_asked_again():
    """As the 1.5B model did on the sample day (2503.20783, 2026-12-05): asked to sum up the findings, it wrote
    one of them again, and four rounds of rewriting the summary did not mend it. The summary says what that
    finding says: with more findings than the paper needs, that finding goes and the summary stays."""
    answers = {**RECORDED, "METHOD": REWRITTEN, "SUMMARY": RECORDED["FINDING [5]"]}
    seen: list[list[dict[str, str]]] = []
    params = make_params(llm={"asking": "steps", "model": "m", "reuse": False})
    with BackgroundServer(_scripted_engine(seen, answers)) as server:
        run = params.model_copy(update={"llm": params.llm.model_copy(update={"base_url": f"{server.url}/v1"})})
        prompt = load_prompt(STEPS_PROMPT)
        (result,) = asyncio.run(generate("digest_en", run, SAMPLE_DATE, [doc(MERGEVQ)], prompt, print))
    assert result.status == "done", result.problems
    assert result.digest["one_sentence"] == RECORDED["FINDING [5]"]
    assert [r["finding"] for r in result.digest["results"]] == [RECORDED["FINDING [1]"]]
    assert len(seen) == 10  # every part once; the second round asked nothing
    [rejected] = [call for call in result.calls if call.status == "rejected"]  # the summary, in round 1
    assert rejected.checker_rules == ["repeated"] and "repeats results[1].finding" in (rejected.error or "")
    problem = Problem("repeated", "one_sentence: 'x' repeats results[1].finding: say it in its own words")
    assert finding_repeated([problem]) == 1
    assert finding_repeated([Problem("repeated", "method: 'x' repeats problem: say it in its own words")]) is None


def test_a_finding_the_summary_repeats_is_the_one_of_the_judged_draft_when_another_went_in_the_same_round():
    """A round's problems name the results of the draft judged: a finding dropped for repeating another before
    the summary is mended does not shift which finding the summary's problem means."""
    first, second, third = evidence_candidates(doc(MERGEVQ))[:3]
    state = _Paper(None, None, None, "", None, [], fewest=1, most=4)  # type: ignore[arg-type]  # these mends ask nothing
    state.findings = [first, second, third]
    state.judged = list(state.findings)
    again = "say what else the paper found, not the same sentence again"
    asyncio.run(
        state.mend(
            finding_key(second),
            [Problem("repeated", f"results[1].finding: 'x' repeats results[0].finding: {again}")],
            2,
        )
    )
    asyncio.run(
        state.mend("SUMMARY", [Problem("repeated", "one_sentence: 'x' repeats results[2].finding: say it anew")], 2)
    )
    assert state.findings == [first]


def test_the_simulator_answers_every_step_and_the_day_is_done():
    """The steps way end to end over HTTP on the simulator (what `make sample-sim` and the DVC tests run)."""
    docs = [doc(R1), doc(MERGEVQ), doc("abs:2504.00883")]
    params = make_params(llm={"asking": "steps", "model": "sim", "reuse": False})
    with BackgroundServer(EngineSim(model="sim").app) as server:
        run = params.model_copy(update={"llm": params.llm.model_copy(update={"base_url": f"{server.url}/v1"})})
        results = asyncio.run(generate("digest_en", run, SAMPLE_DATE, docs, load_prompt(STEPS_PROMPT), lambda r: None))
    assert sorted(r.status for r in results) == ["done"] * len(docs), [r.problems for r in results]
    for result in results:
        assert len(result.digest["results"]) >= 1
        assert all(call.attempt == 1 for call in result.calls)  # passed on the first round


def test_the_stage_lists_the_questions_file_as_a_dependency():
    stage = Path("dvc.yaml").read_text(encoding="utf-8")
    assert f"--steps-prompt {STEPS_PROMPT}" in stage and f"- {STEPS_PROMPT}" in stage


def test_the_report_shows_each_finding_next_to_the_sentence_it_was_written_from():
    """#38 item 8: the run report's table of findings and their evidence, for a digest built from the recorded
    answers (its findings report candidates [1] and [5])."""
    from papers_digest.core.models import DayList, GenerationResult
    from papers_digest.day.files import DayFiles
    from papers_digest.report import tables

    mergevq = doc(MERGEVQ)
    candidates = evidence_candidates(mergevq)
    answers = dict(RECORDED, METHOD=REWRITTEN)
    verdict = judge_draft(draft_text(answers, picked("1, 5", candidates, 3)), candidates, read_paper(mergevq))
    assert verdict.digest is not None, verdict.problems

    def result(stage: str, digest: dict, evidence: list) -> GenerationResult:
        return GenerationResult(arxiv_id=mergevq.arxiv_id, stage=stage, status="done", digest=digest,
                                evidence=evidence, model="m", prompt_version="v")  # fmt: skip

    files = DayFiles(
        day=DayList(date=SAMPLE_DATE, limit=4, papers=[], picked=[mergevq.arxiv_id]),
        fulltext={mergevq.arxiv_id: mergevq},
        english={mergevq.arxiv_id: result("digest_en", verdict.digest.model_dump(), verdict.evidence)},
        chinese={mergevq.arxiv_id: result("translate_zh", {}, [])},
    )
    table = tables.findings_with_evidence(files)
    assert table["finding"].tolist() == [RECORDED["FINDING [1]"], RECORDED["FINDING [5]"]]
    assert table["written from"].tolist() == [candidates[0].sentence, candidates[4].sentence]
    assert set(table["section"]) == {"Abstract"}


def test_a_finding_that_speaks_of_its_numbered_sentence_is_rejected_as_an_echo():
    """The 0.5B model asked in steps wrote its findings about 'the sentence' (recorded on the sample day,
    2026-12-04): a reader never saw the numbered candidates, so such a finding is the prompt's frame said
    back (rule `echo`), while a finding about a sentence encoder is not."""
    mergevq = doc(MERGEVQ)
    candidates = evidence_candidates(mergevq)
    facts = read_paper(mergevq)
    framed = (
        'The sentence [5] reads: "As for the second-stage generation, MergeAR performs KV Cache compression for '
        'efficient raster-order prediction."'
    )
    for finding, rejected in ((framed, True), ("The sentence encoder keeps the KV Cache small.", False)):
        answers = dict(RECORDED, METHOD=REWRITTEN, **{"FINDING [5]": finding})
        verdict = judge_draft(draft_text(answers, picked("1, 5", candidates, 3)), candidates, facts)
        echoes = [p for p in verdict.problems if p.rule == "echo" and p.field == "results[1].finding"]
        assert bool(echoes) is rejected, verdict.problems
