"""Fault injection over real HTTP on 127.0.0.1: every fault ends in a clear state, the other papers unaffected.

HF and arXiv faults come from the replay server, LLM faults from the engine simulator. Each case names
what the user sees: a stage error in one line, or the paper `done` / `failed` with a reason in words.
"""

import asyncio
import itertools
import time
from collections.abc import Callable

import pytest
from conftest import (
    SAMPLE_DATE,
    SAMPLE_DIR,
    abstract_docs,
    make_params,
    sample_papers,
)

from papers_devtools.sim.faults import Fault
from papers_devtools.sim.replay import Replay, ReplayFault, no_html_page
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.core.models import FulltextDoc, GenerationResult
from papers_digest.core.pacing import held
from papers_digest.core.store import STORE_ENV, Store
from papers_digest.llm.conversation import EndpointDown, QuotaExhausted
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.translating import MAX_ROUNDS
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.fulltexts import date_turn, fetch_fulltexts, prefetch_pages
from papers_digest.pipeline.listing import list_day
from papers_digest.pipeline.translating import generate_translations
from papers_digest.sources.hf import HfError

HTML_ID = "2503.20783"  # the sample paper with a recorded page
PICKS = [p for p in sample_papers() if p.arxiv_id in ("2504.00999", "2504.00883", HTML_ID)]


@pytest.fixture
def site():
    replay = Replay(SAMPLE_DIR / "hf", SAMPLE_DIR / "arxiv")
    with BackgroundServer(replay.app) as server:
        yield replay, server.url


def _source_params(url: str, **source):
    return make_params(source={"hf_url": url, "arxiv_url": url, "arxiv_interval_s": 0, "timeout_s": 0.5, **source})


# --- Hugging Face ---------------------------------------------------------------------------------


def _list(url: str, **source):
    return asyncio.run(list_day(_source_params(url, **source), SAMPLE_DATE, {}))


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (ReplayFault(target="hf", kind="http_error", status=503, times=-1), "HF API answered HTTP 503 after 3 tries"),
        (ReplayFault(target="hf", kind="http_error", status=404, body="Not Found", times=-1), "HTTP 404 for"),
        (ReplayFault(target="hf", kind="slow", delay_s=2.0, times=-1), "timed out after 0.5 s"),
        (ReplayFault(target="hf", kind="malformed", times=-1), "is not JSON"),
        (ReplayFault(target="hf", kind="reset", times=-1), "broke off mid-answer"),
    ],
)
def test_hf_failures_stop_the_list_stage_with_one_clear_line(site, fault, message):
    replay, url = site
    replay.add_fault(fault)
    with pytest.raises(HfError) as info:
        _list(url)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["http_error", "slow", "reset"])
def test_a_passing_hf_failure_is_retried(site, kind):
    replay, url = site
    replay.add_fault(ReplayFault(target="hf", kind=kind, delay_s=2.0 if kind == "slow" else 0.0))
    day = _list(url)
    assert len(day.picked) == 4
    assert replay.requests["hf"] == 2


def test_an_empty_day_picks_nothing(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="hf", kind="empty"))
    day = _list(url)
    assert day.papers == [] and day.picked == []


def test_duplicate_items_are_listed_once(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="hf", kind="duplicates"))
    day = _list(url)
    assert len(day.papers) == 12
    assert day.picked == ["2504.00999", "2504.00883", "2504.01014", "2503.20783"]


def test_items_with_missing_fields_are_skipped_or_defaulted(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="hf", kind="missing_fields"))
    day = _list(url)
    # The first item lost its id: skipped and counted. Others lost title/upvotes: the item title is gone
    # too, so they cannot be shown and are skipped; the rest are complete.
    assert day.invalid_items == 6
    assert len(day.papers) == 6
    assert all(p.title for p in day.papers)


# --- arXiv ----------------------------------------------------------------------------------------


def _fetch(url: str, **source) -> dict[str, FulltextDoc]:
    docs = asyncio.run(fetch_fulltexts(_source_params(url, **source), PICKS, lambda d: None))
    return {d.arxiv_id: d for d in docs}


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (ReplayFault(target="arxiv", kind="http_error", status=404, body=no_html_page(HTML_ID)), "no HTML version"),
        (ReplayFault(target="arxiv", kind="http_error", status=200, body=no_html_page(HTML_ID)), "no HTML version"),
        (ReplayFault(target="arxiv", kind="stub"), "holds no sections"),
        (ReplayFault(target="arxiv", kind="http_error", status=503, times=-1), "HTTP 503"),
        (ReplayFault(target="arxiv", kind="slow", delay_s=2.0, times=-1), "timed out after 0.5 s"),
        (ReplayFault(target="arxiv", kind="reset", times=-1), "broke off mid-answer"),
        (ReplayFault(target="arxiv", kind="huge", size_mb=20), "over 15 MB"),
    ],
)
def test_arxiv_failures_fall_back_to_the_abstract_with_the_reason(site, fault, reason):
    replay, url = site
    replay.add_fault(fault.model_copy(update={"match": HTML_ID}))
    docs = _fetch(url)
    doc = docs[HTML_ID]
    assert doc.source == "abstract"
    assert reason in doc.reason
    assert doc.text == f"[§Abstract]\n{next(p.summary for p in PICKS if p.arxiv_id == HTML_ID)}"
    assert [d.source for i, d in docs.items() if i != HTML_ID] == ["abstract", "abstract"]  # unaffected: no HTML


def test_a_passing_arxiv_failure_is_retried(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="arxiv", kind="http_error", status=502, match=HTML_ID))
    assert _fetch(url)[HTML_ID].source == "html"


def test_broken_html_still_yields_the_sections_it_has(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="arxiv", kind="malformed", match=HTML_ID))
    doc = _fetch(url)[HTML_ID]
    assert doc.source == "html"
    assert doc.tags[:2] == ["Abstract", "1"]
    assert "G" not in doc.tags  # the page was cut off before the appendices


def test_a_large_page_under_the_limit_is_read(site):
    replay, url = site
    replay.add_fault(ReplayFault(target="arxiv", kind="huge", size_mb=20, match=HTML_ID))
    doc = _fetch(url, max_page_mb=25)[HTML_ID]
    assert doc.source == "html"
    assert len(doc.text) > 10_000_000


# --- the LLM --------------------------------------------------------------------------------------

DOCS = abstract_docs(sample_papers()[:3])
TARGET = DOCS[0]


def _generate(
    sim: EngineSim,
    stage: str = "digest_en",
    retry: dict | None = None,
    on_result: Callable[[GenerationResult], None] = lambda _result: None,
    edit_english: Callable[[GenerationResult], None] = lambda _result: None,
    **llm,
) -> dict[str, GenerationResult]:
    with BackgroundServer(sim.app) as server:
        params = make_params(
            llm={"asking": "json", "base_url": f"{server.url}/v1", "model": "sim-digest", "timeout_s": 0.5, **llm},
            retry=retry or {},
        )
        english = asyncio.run(
            generate_digests(params, SAMPLE_DATE, DOCS, load_prompt("prompts/digest_en_json.md"), on_result)
        )
        if stage == "digest_en":
            return {r.arxiv_id: r for r in english}
        for result in english:
            edit_english(result)
        chinese = asyncio.run(
            generate_translations(params, SAMPLE_DATE, english, load_prompt("prompts/translate_zh.md"), on_result)
        )
        return {r.arxiv_id: r for r in chinese}


def _others_done(results: dict[str, GenerationResult]) -> bool:
    return all(r.status == "done" for i, r in results.items() if i != TARGET.arxiv_id)


# A paper's own failures: the rest of the day goes on, that paper is failed with the reason.
LLM_FAILURES = [
    (Fault(kind="context_length", engine="vllm", times=-1), "does not fit the model's context", "context_length"),
    (Fault(kind="context_length", engine="sglang", times=-1), "does not fit the model's context", "context_length"),
    (Fault(kind="context_length", engine="llama-cpp", times=-1), "does not fit the model's context", "context_length"),
    (Fault(kind="context_length", engine="openai", times=-1), "does not fit the model's context", "context_length"),
    (Fault(kind="invalid_json", times=-1), "not valid JSON", "checker"),
    (Fault(kind="wrong_schema", times=-1), "method: missing", "checker"),
    (Fault(kind="wrong_numbers", times=-1), "appears nowhere in the paper", "checker"),
    (Fault(kind="bad_section", times=-1), "is not a section of the paper", "checker"),
    (Fault(kind="length", times=-1), "cut off at the token limit", "checker"),
    (Fault(kind="empty", times=-1), "the reply is empty", "checker"),
]
QUOTA_BODY = '{"error":{"code":"insufficient_quota"}}'
# "Try later" failures that outlast the transient retries. On every request (the one-token probe included)
# they are an outage: no paper's result, the stage stops. On one paper's requests alone, that paper fails.
TRY_LATER = [
    (Fault(kind="rate_limit", times=-1, retry_after_s=0.01), "HTTP 429"),
    (Fault(kind="http_error", status=500, times=-1), "HTTP 500"),
    (Fault(kind="http_error", status=503, times=-1), "HTTP 503"),
    (Fault(kind="slow", delay_s=2.0, times=-1), "timed out after 0.5 s"),
    (Fault(kind="reset", times=-1), "broke off mid-answer"),
]


@pytest.mark.parametrize(("fault", "reason"), TRY_LATER, ids=lambda v: getattr(v, "kind", None))
def test_an_endpoint_that_keeps_failing_stops_the_stage_and_fails_no_paper(fault, reason):
    sim = EngineSim()
    sim.add_fault(fault)  # every request: the papers' and the probe's
    handed_over: list[GenerationResult] = []
    with pytest.raises(EndpointDown, match=r"the LLM endpoint stopped answering after 0 of 3 papers") as caught:
        _generate(sim, on_result=handed_over.append)
    assert reason in str(caught.value) and "finished answers are kept; run again when it is back" in str(caught.value)
    assert handed_over == []  # nothing is recorded as a paper's result


@pytest.mark.parametrize(("fault", "reason"), TRY_LATER, ids=lambda v: getattr(v, "kind", None))
def test_a_paper_whose_calls_keep_failing_fails_alone_while_the_endpoint_answers_others(fault, reason):
    sim = EngineSim()
    sim.add_fault(fault.model_copy(update={"match": TARGET.title}))
    results = _generate(sim)
    failed = results[TARGET.arxiv_id]
    assert failed.status == "failed"
    assert reason in failed.error and failed.error.endswith("(the endpoint answers other requests)")
    assert failed.calls and all(c.status == "error" for c in failed.calls)
    assert _others_done(results)


def test_quota_exhaustion_stops_the_stage_with_one_line_that_names_it():
    sim = EngineSim()
    sim.add_fault(Fault(kind="http_error", status=429, match=TARGET.title, times=-1, body=QUOTA_BODY))
    handed_over: list[GenerationResult] = []
    with pytest.raises(QuotaExhausted) as caught:
        _generate(sim, concurrency=1, on_result=handed_over.append)
    message = str(caught.value)
    assert message.startswith("the LLM account's quota is exhausted after ") and "insufficient_quota" in message
    assert "\n" not in message and TARGET.arxiv_id not in {r.arxiv_id for r in handed_over}
    assert sum(r.status == 429 for r in sim.stats.records) == 1  # asked once, never again, and not probed


@pytest.mark.parametrize(("fault", "reason", "kind"), LLM_FAILURES, ids=lambda v: getattr(v, "kind", None))
def test_llm_failures_mark_only_that_paper_failed_with_a_reason(fault, reason, kind):
    sim = EngineSim()
    sim.add_fault(fault.model_copy(update={"match": TARGET.title}))
    results = _generate(sim)
    failed = results[TARGET.arxiv_id]
    assert failed.status == "failed"
    assert reason in failed.error
    assert failed.error_kind == kind
    assert _others_done(results)


def test_a_context_error_keeps_the_engines_token_counts():
    sim = EngineSim()
    sim.add_fault(Fault(kind="context_length", engine="llama-cpp", match=TARGET.title, times=-1))
    failed = _generate(sim)[TARGET.arxiv_id]
    call = failed.calls[0]
    assert call.error_kind == "context_length"
    assert call.context_tokens and call.prompt_tokens and call.prompt_tokens > call.context_tokens
    assert len(failed.calls) == 1  # a context error is not retried as if it were transient


def test_retry_after_is_honoured_up_to_the_cap():
    sim = EngineSim()
    sim.add_fault(Fault(kind="rate_limit", retry_after_s=0.4, match=TARGET.title))
    started = time.monotonic()
    results = _generate(sim, retry={"max_wait_s": 1.0})
    assert time.monotonic() - started >= 0.4
    done = results[TARGET.arxiv_id]
    assert done.status == "done"
    assert [(c.retry, c.http_status) for c in done.calls] == [(0, 429), (1, 200)]


@pytest.mark.parametrize(
    "fault",
    [
        Fault(kind="rate_limit", retry_after_s=0.01),
        Fault(kind="http_error", status=503),
        Fault(kind="reset"),
        Fault(kind="slow", delay_s=2.0),
        Fault(kind="invalid_json"),
        Fault(kind="wrong_numbers"),
        Fault(kind="fence", times=-1),
    ],
    ids=lambda f: f.kind,
)
def test_passing_llm_failures_end_done(fault):
    sim = EngineSim()
    sim.add_fault(fault.model_copy(update={"match": TARGET.title}))
    results = _generate(sim)
    assert all(r.status == "done" for r in results.values())


def test_an_english_digest_written_in_chinese_is_rejected():
    sim = EngineSim()
    sim.add_fault(Fault(kind="wrong_language", request="digest", match=TARGET.title, times=-1))
    failed = _generate(sim)[TARGET.arxiv_id]
    assert failed.status == "failed"
    assert "not in English" in failed.error


def test_a_translation_in_the_wrong_language_is_retried_then_failed():
    """The units of the title (and the mind map's root, the same words) answered in English every time: asked
    again in each round (llm/translating.py MAX_ROUNDS), then the paper fails, naming the rule. (Its name,
    MergeVQ, never reaches the model: the fault matches the title's words.)"""
    sim = EngineSim()
    sim.add_fault(Fault(kind="wrong_language", request="translate", match="Unified Framework", times=-1))
    results = _generate(sim, stage="translate_zh")
    failed = results[TARGET.arxiv_id]
    assert failed.status == "failed"
    assert "not translated, it is mostly English" in failed.error
    assert {c.attempt for c in failed.calls if c.status == "rejected"} == set(range(1, MAX_ROUNDS + 1))
    assert _others_done(results)


def test_a_title_the_model_leaves_in_english_is_left_out_and_the_paper_is_done():
    """The same title's words answered in English every time, its mind map's topic another (HANRAG's on the
    2025-09-15 listing): after MAX_ROUNDS rounds the digest is done without a Chinese title (the page shows the
    paper's own), its rejected answers recorded."""

    def topic_of_its_own(result: GenerationResult) -> None:
        if result.arxiv_id == TARGET.arxiv_id:
            assert result.digest is not None
            result.digest["mind_map"]["label"] = "MergeVQ"

    sim = EngineSim()
    sim.add_fault(Fault(kind="wrong_language", request="translate", match="Unified Framework", times=-1))
    results = _generate(sim, stage="translate_zh", edit_english=topic_of_its_own)
    done = results[TARGET.arxiv_id]
    assert done.status == "done" and done.digest is not None
    assert "title" not in done.digest and done.digest["mind_map"]["label"] == "MergeVQ"
    assert {c.attempt for c in done.calls if c.status == "rejected"} == set(range(1, MAX_ROUNDS + 1))
    assert _others_done(results)


def test_arxiv_requests_keep_their_interval_across_processes(tmp_path):
    """Two processes fetching at once through one pace file (as the dates of a parallel backfill do) start
    their requests at least the interval apart, all of them together."""
    import subprocess
    import sys

    script = (
        "import asyncio, sys, time\n"
        "from pathlib import Path\n"
        "from papers_digest.core.pacing import Pacer\n"
        "async def main():\n"
        "    pacer = Pacer(0.3, Path(sys.argv[1]))\n"
        "    for _ in range(3):\n"
        "        async with pacer.turn():\n"
        "            print(time.time(), flush=True)\n"
        "asyncio.run(main())\n"
    )
    pace = tmp_path / "store" / "arxiv.pace"
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(pace)], stdout=subprocess.PIPE, text=True) for _ in range(2)
    ]
    starts = sorted(float(line) for w in workers for line in w.communicate(timeout=60)[0].split())
    assert len(starts) == 6
    assert min(b - a for a, b in itertools.pairwise(starts)) >= 0.3 - 0.005


def test_each_hop_of_arxivs_redirect_to_the_latest_version_keeps_the_pace(site):
    """arXiv sends /html/<id> on to /html/<id>v<n>: two requests to arXiv, each at its own turn."""
    replay, url = site
    doc = _fetch(url, arxiv_interval_s=0.3)[HTML_ID]
    assert doc.source != "abstract" and doc.version is not None and f"/html/{HTML_ID}v{doc.version}" in doc.url
    requested = sorted(replay.arxiv_times)
    assert len(requested) > len(PICKS)  # a redirect was followed
    assert min(b - a for a, b in itertools.pairwise(requested)) >= 0.3 - 0.005


def test_two_dates_fetch_their_full_texts_one_date_after_the_other(site, tmp_path):
    """Two fulltext stages at once through one store (two workers of a parallel backfill, each date with papers
    of its own): one date's texts all come before the other's, each request still the interval apart, so the
    first date can generate while the second fetches, instead of both waiting for all four texts."""
    import os
    import subprocess
    import sys

    replay, url = site
    script = (
        "import asyncio, sys, time\n"
        "from pathlib import Path\n"
        "from papers_digest.core.models import Paper\n"
        "from papers_digest.core.params import Params\n"
        "from papers_digest.core.store import stage_store\n"
        "from papers_digest.pipeline.fulltexts import fetch_fulltexts\n"
        "params = Params.model_validate_json(Path(sys.argv[1]).read_text())\n"
        "papers = [Paper.model_validate_json(line) for line in Path(sys.argv[2]).read_text().splitlines()]\n"
        "done = lambda doc: print(doc.arxiv_id, time.time(), flush=True)\n"
        "time.sleep(max(0.0, float(sys.argv[4]) - time.time()))  # both start together\n"
        "asyncio.run(fetch_fulltexts(params, papers, done, stage_store(sys.argv[3])))\n"
    )
    (tmp_path / "params.json").write_text(_source_params(url, arxiv_interval_s=0.3).model_dump_json())
    papers = sample_papers()[:4]
    halves = {"a": papers[:2], "b": papers[2:]}
    for name, half in halves.items():
        (tmp_path / f"{name}.jsonl").write_text("\n".join(p.model_dump_json() for p in half))
    env = {**os.environ, STORE_ENV: str(tmp_path / "shared")}  # as the backfill's workers get it
    start = time.time() + 3.0

    def worker(name: str) -> subprocess.Popen:
        files = [str(tmp_path / "params.json"), str(tmp_path / f"{name}.jsonl"), str(tmp_path / f"workspace-{name}")]
        command = [sys.executable, "-c", script, *files, str(start)]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    workers = {name: worker(name) for name in halves}
    said = {name: w.communicate(timeout=60)[0].splitlines() for name, w in workers.items()}
    waited = [name for name, lines in said.items() if any("waiting for its turn" in line for line in lines)]
    assert len(waited) == 1  # the second to come says why it waits
    done = {name: [line.split() for line in lines if "waiting" not in line] for name, lines in said.items()}
    assert {name: [i for i, _ in rows] for name, rows in done.items()} == {
        name: [p.arxiv_id for p in half] for name, half in halves.items()
    }
    first, second = sorted(([float(t) for _, t in rows] for rows in done.values()), key=min)
    assert max(first) < min(second)  # not interleaved: a's two, then b's (or b's, then a's)
    assert not any((tmp_path / f"workspace-{name}").exists() for name in halves)  # the environment's store only
    requested = sorted(replay.arxiv_times)
    assert len(requested) >= 4 and min(b - a for a, b in itertools.pairwise(requested)) >= 0.3 - 0.005  # the pace


def test_pages_fetched_ahead_leave_the_dates_stage_nothing_to_ask_and_no_turn_to_wait_for(site, tmp_path):
    """A parallel backfill fetches each date's pages into the store ahead of its experiment, at the pace: the
    date's fulltext stage then makes 0 requests and does not wait for the date turn, even while another date
    holds it, and gets the same texts as a stage that fetched them itself."""
    import threading

    replay, url = site
    params = _source_params(url, arxiv_interval_s=0.2)
    store = Store(tmp_path / "store")
    asked = asyncio.run(prefetch_pages(params, PICKS, store))
    requested = sorted(replay.arxiv_times)
    assert asked == len(requested) >= len(PICKS)  # each page once, a redirect's hop counted
    assert min(b - a for a, b in itertools.pairwise(requested)) >= 0.2 - 0.005
    assert asyncio.run(prefetch_pages(params, PICKS, store)) == 0  # nothing twice

    docs: list[FulltextDoc] = []
    with held(date_turn(store)):  # another date fetching

        def stage() -> None:
            asyncio.run(fetch_fulltexts(params, PICKS, docs.append, store))

        worker = threading.Thread(target=stage, daemon=True)
        worker.start()
        worker.join(timeout=30)
        assert not worker.is_alive(), "the stage waited for a turn it did not need"
    assert len(replay.arxiv_times) == len(requested)  # 0 requests more
    fetched_itself = _fetch(url)
    assert {d.arxiv_id: d.model_dump(exclude={"counted_by"}) for d in docs} == {
        i: d.model_dump(exclude={"counted_by"}) for i, d in fetched_itself.items()
    }
