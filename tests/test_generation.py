"""Checked generation against the engine simulator over real HTTP: retry path, failures, concurrency."""

import asyncio
import json
import time

import pytest
from conftest import SAMPLE_DATE, abstract_docs, chat_calls, make_params, sample_papers

from papers_devtools.sim.faults import Fault
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.core.models import GenerationResult
from papers_digest.llm.generation import EndpointDown, digest_tokens, longest_first, paper_tokens
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.translating import generate_translations

DIGEST_PROMPT = load_prompt("prompts/digest_en_json.md")
TRANSLATE_PROMPT = load_prompt("prompts/translate_zh.md")
DOCS = abstract_docs(sample_papers())
FIRST = DOCS[0]  # 2504.00999 MergeVQ
LONGEST = max(DOCS, key=paper_tokens)  # the paper the scheduler starts first


def run_digests(base_url: str, docs=DOCS, **llm) -> list[GenerationResult]:
    params = make_params(llm={"asking": "json", "base_url": base_url, "model": "sim-digest", **llm})
    return asyncio.run(generate_digests(params, SAMPLE_DATE, docs, DIGEST_PROMPT, lambda r: None))


def by_id(results: list[GenerationResult]) -> dict[str, GenerationResult]:
    return {r.arxiv_id: r for r in results}


def test_every_paper_gets_a_checked_digest_and_translation(engine):
    sim, base_url = engine
    english = run_digests(base_url)
    assert {r.arxiv_id for r in english} == {d.arxiv_id for d in DOCS}
    assert all(r.status == "done" and len(r.calls) == 1 for r in english)
    call = english[0].calls[0]
    assert call.status == "ok" and call.attempt == 1 and call.prompt_tokens > 0 and call.completion_tokens > 0
    assert call.latency_s >= 0 and call.ended_at >= call.started_at
    params = make_params(llm={"asking": "json", "base_url": base_url, "model": "sim-digest"})
    chinese = asyncio.run(generate_translations(params, SAMPLE_DATE, english, TRANSLATE_PROMPT, lambda r: None))
    assert all(r.status == "done" for r in chinese)
    # one request per English digest, then one per translation unit
    assert sim.stats.requests == len(DOCS) + sum(len(r.calls) for r in chinese)


def test_a_rejected_answer_is_repaired_in_its_conversation_asking_only_for_the_result_that_failed(engine):
    """The English repair (llm/repair.py): the retry resends the conversation (the paper and the rejected
    answer, in the prefix cache) and asks for the failed result alone, not a whole new digest."""
    sim, base_url = engine
    [clean] = run_digests(base_url, docs=[FIRST])
    sim.reset_stats()
    sim.add_fault(Fault(kind="wrong_numbers", match=FIRST.title, on="first", times=1))
    params = make_params(llm={"asking": "json", "base_url": base_url, "model": "sim-digest", "reuse": False})
    [result] = asyncio.run(generate_digests(params, SAMPLE_DATE, [FIRST], DIGEST_PROMPT, lambda r: None))
    assert result.status == "done"
    assert [(c.attempt, c.status, c.repair) for c in result.calls] == [(1, "rejected", False), (2, "ok", True)]
    assert "appears nowhere in the paper" in result.calls[0].error
    assert result.calls[0].checker_rules == ["number_unknown"]
    _, retry = [r for r in sim.stats.records if r.path.endswith("/completions")]
    assert retry.messages == 4  # system, paper, the rejected answer, the problems and the fields asked for
    # The retry resends the first request as its prefix: the simulated prefix cache serves most of it.
    assert result.calls[1].cached_tokens >= result.calls[0].prompt_tokens * 0.8
    assert result.calls[1].completion_tokens < result.calls[0].completion_tokens / 3  # one result, not a digest
    assert result.digest == clean.digest  # the repaired result put back into the first answer
    [rejected] = [json.loads(a) for a in result.rejected_answers]
    assert rejected["results"][0]["numbers"][0] == "987654.321" and rejected["method"] == clean.digest["method"]


def test_a_problem_of_the_whole_digest_is_retried_with_the_whole_conversation(engine):
    """A digest whose shape is wrong has no field to mend alone: the retry asks for the whole digest again."""
    sim, base_url = engine
    sim.add_fault(Fault(kind="wrong_schema", match=FIRST.title, on="first", times=1))
    result = by_id(run_digests(base_url))[FIRST.arxiv_id]
    assert result.status == "done"
    assert result.calls[0].checker_rules == ["schema"]
    assert not result.calls[1].repair  # llm_calls.repair: the whole answer was asked for
    assert result.calls[1].completion_tokens > result.calls[0].completion_tokens / 2  # a whole digest again


def test_a_figure_invented_in_a_finding_binds_the_repaired_result_to_its_sections_figures(engine):
    """The repair asks with a tighter schema: the 0.5B model repeats its first answer on a retry whatever the
    problems say, so the grammar must keep it from writing the invented figure again."""
    from papers_devtools.sim.routes import schema_fingerprint
    from papers_digest.checker.paper import read_paper
    from papers_digest.checker.problems import Problem
    from papers_digest.checker.schema import digest_fields_schema, digest_schema, retry_digest_schema

    sim, base_url = engine
    sim.add_fault(Fault(kind="prose_number", match=FIRST.title, on="first", times=1))
    result = run_digests(base_url, docs=[FIRST], structured_output=True)[0]
    assert result.status == "done"
    assert result.calls[0].checker_rules == ["prose_number"] and "'987654.321'" in result.calls[0].error
    first, retry = [r.schema_sha for r in sim.stats.records if r.path.endswith("/completions")]
    facts = read_paper(FIRST)
    problems = [Problem("prose_number", "results[0].finding", "'987654.321' appears nowhere")]
    repair = digest_fields_schema(facts, ["results[0]"], problems)
    assert first == schema_fingerprint({"json_schema": {"schema": digest_schema(facts)}})
    assert retry == schema_fingerprint({"json_schema": {"schema": repair}})
    bound = retry_digest_schema(facts, problems)["properties"]["results"]["items"]
    assert repair["properties"] == {"results[0]": bound} != digest_schema(facts)["properties"]["results"]["items"]


def test_a_translation_unit_that_failed_is_asked_again_alone_with_its_problems(engine):
    """llm/translating.py: the unit the sim answered in English is asked again afresh, alone (what to mind in its
    request: tests/test_translation.py), the other units once; the translation is done."""
    sim, base_url = engine
    [english] = run_digests(base_url, docs=[FIRST])
    sim.reset_stats()
    sim.add_fault(Fault(kind="wrong_language", request="translate", on="first", times=1))
    params = make_params(llm={"base_url": base_url, "model": "sim-digest"})
    [chinese] = asyncio.run(generate_translations(params, SAMPLE_DATE, [english], TRANSLATE_PROMPT, lambda r: None))
    rejected = [c for c in chinese.calls if c.status == "rejected"]
    again = [c for c in chinese.calls if c.attempt == 2]
    assert (chinese.status, [c.checker_rules for c in rejected], [c.repair for c in again]) == (
        "done",
        [["zh_chinese"]],
        [True],
    )


def test_a_second_failure_marks_the_paper_failed_with_the_problems(engine):
    sim, base_url = engine
    sim.add_fault(Fault(kind="bad_section", match=FIRST.title, times=2))
    results = by_id(run_digests(base_url))
    failed = results[FIRST.arxiv_id]
    assert failed.status == "failed"
    assert failed.digest is None
    assert len(failed.calls) == 2 and all(c.status == "rejected" for c in failed.calls)
    assert "failed the checks 2 times" in failed.error and "is not a section of the paper" in failed.error
    assert failed.problems
    # what the model wrote is kept for reading the failure: both answers, as the checker judged them
    assert [json.loads(a)["results"][0]["sections"] for a in failed.rejected_answers] == [["99.9"], ["99.9"]]
    others = [r for r in results.values() if r.arxiv_id != FIRST.arxiv_id]
    assert all(r.status == "done" for r in others)  # one paper failing leaves the others alone


def test_an_http_error_fails_only_that_paper_and_keeps_status_and_body(engine):
    sim, base_url = engine
    body = "engine exploded: " + "x" * 900
    sim.add_fault(Fault(kind="http_error", status=400, body=body, match=FIRST.title, times=5))
    results = by_id(run_digests(base_url))
    failed = results[FIRST.arxiv_id]
    assert failed.status == "failed"
    assert failed.error == f"LLM call failed: HTTP 400: {body[:500]}"
    assert [c.status for c in failed.calls] == ["error"]  # 400 is not transient: no retry
    assert all(r.status == "done" for i, r in results.items() if i != FIRST.arxiv_id)


def test_transient_errors_are_retried_and_every_try_is_recorded(engine):
    sim, base_url = engine
    sim.add_fault(Fault(kind="http_error", status=503, body="busy", match=FIRST.title, times=2))
    result = by_id(run_digests(base_url))[FIRST.arxiv_id]
    assert result.status == "done"
    assert [(c.attempt, c.retry, c.status, c.http_status) for c in result.calls] == [
        (1, 0, "error", 503),
        (1, 1, "error", 503),
        (1, 2, "ok", 200),
    ]


def test_the_per_call_timeout_comes_from_params(engine):
    sim, base_url = engine
    sim.add_fault(Fault(kind="slow", delay_s=2.0, match=FIRST.title, times=-1))
    failed = by_id(run_digests(base_url, docs=[FIRST], timeout_s=0.3))[FIRST.arxiv_id]
    assert failed.status == "failed" and "timed out after 0.3 s" in failed.error  # the client gave up at 0.3 s
    # retry.attempts = 3 in the test params, then one quick probe, which the endpoint answers
    assert chat_calls(sim) == 4 and failed.error.endswith("(the endpoint answers other requests)")


def test_when_the_probe_times_out_too_the_stage_stops(engine):
    sim, base_url = engine
    sim.add_fault(Fault(kind="slow", delay_s=2.0, times=-1))
    with pytest.raises(EndpointDown, match=r"timed out after 0.3 s"):
        run_digests(base_url, docs=[FIRST], timeout_s=0.3)
    assert chat_calls(sim) == 4  # three tries of the paper, one of the probe


def chats_in_started_order(sim: EngineSim):
    return sorted((r for r in sim.stats.records if r.path.endswith("/completions")), key=lambda r: r.started)


def test_a_checker_retry_is_sent_before_the_first_attempts_still_waiting(engine):
    """One slot: the paper that starts first (the longest) gets its retry before every paper still waiting,
    not after all of them (llm/slots.py). The slot its first answer freed went to the next paper while
    the checker read it."""
    sim, base_url = engine
    sim.add_fault(Fault(kind="wrong_numbers", match=LONGEST.title, on="first", times=1))
    results = by_id(run_digests(base_url, concurrency=1))
    assert all(r.status == "done" for r in results.values())
    chats = chats_in_started_order(sim)
    assert [r.messages for r in chats] == [2, 2, 4] + [2] * (len(DOCS) - 2)  # a retry has 4 messages
    assert results[LONGEST.arxiv_id].calls[1].cached_tokens >= results[LONGEST.arxiv_id].calls[0].prompt_tokens * 0.8


@pytest.mark.parametrize("concurrency", [1, 2])
def test_the_longest_papers_start_first_so_a_long_one_listed_last_does_not_run_alone_at_the_end(engine, concurrency):
    """The longest paper listed last still starts in the first wave, and the rest follow longest first."""
    sim, base_url = engine
    listed = [doc for doc in DOCS if doc is not LONGEST] + [LONGEST]
    results = by_id(run_digests(base_url, docs=listed, concurrency=concurrency))
    assert all(r.status == "done" for r in results.values())
    prompts = [r.prompt_tokens for r in chats_in_started_order(sim)]
    assert len(prompts) == len(DOCS)
    assert max(prompts) in prompts[:concurrency]
    assert prompts[concurrency:] == sorted(prompts[concurrency:], reverse=True)


def test_papers_of_the_same_size_keep_their_list_order():
    assert longest_first(["bb", "a", "cc", "d", "eee"], len) == ["eee", "bb", "cc", "a", "d"]


def test_translations_start_with_the_longest_english_digest(engine):
    """One slot: the papers' first units are asked in the order of their English digests' sizes."""
    _, base_url = engine
    params = make_params(llm={"base_url": base_url, "model": "sim-digest", "concurrency": 1})
    english = run_digests(base_url)
    chinese = asyncio.run(generate_translations(params, SAMPLE_DATE, english, TRANSLATE_PROMPT, lambda r: None))
    started = sorted(chinese, key=lambda r: min(c.started_at for c in r.calls))
    assert [r.arxiv_id for r in started] == [r.arxiv_id for r in longest_first(english, digest_tokens)]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_calls_overlap_up_to_the_configured_concurrency_and_never_more(concurrency):
    sim = EngineSim(model="sim-digest", latency_s=0.3)
    docs = abstract_docs(sample_papers())[:6]
    with BackgroundServer(sim.app) as server:
        started = time.monotonic()
        results = run_digests(f"{server.url}/v1", docs=docs, concurrency=concurrency)
        wall = time.monotonic() - started
    assert all(r.status == "done" for r in results)
    # the engine saw `concurrency` calls at once, never more; how fast that is belongs in bench/, not here
    # (an upper bound on wall time flaked next to a compile)
    assert sim.stats.max_in_flight == concurrency
    assert wall >= 0.3 * 6 / concurrency  # six 0.3 s calls, `concurrency` at a time at best


def test_a_sentence_that_keeps_failing_is_asked_clause_by_clause_and_joined(engine):
    """The sim answers the whole `problem` sentence in English every time; from the round after
    SPLIT_AFTER_ROUND its clauses are asked apart (the fault does not match them), pass, and make the sentence."""
    from papers_digest.checker.units import clauses
    from papers_digest.llm.translating import SPLIT_AFTER_ROUND

    sim, base_url = engine
    [english] = run_digests(base_url, docs=[FIRST])
    first, second = clauses(english.digest["problem"])[:2]
    across = f"{' '.join(first.split()[-2:])} {' '.join(second.split()[:2])}"  # words of both clauses
    sim.add_fault(Fault(kind="wrong_language", request="translate", match=across, times=-1))
    params = make_params(llm={"base_url": base_url, "model": "sim-digest"})
    [chinese] = asyncio.run(generate_translations(params, SAMPLE_DATE, [english], TRANSLATE_PROMPT, lambda r: None))
    rejected = sorted(c.attempt for c in chinese.calls if c.status == "rejected")
    assert (chinese.status, rejected) == ("done", list(range(1, SPLIT_AFTER_ROUND + 1)))
