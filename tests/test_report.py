"""The run report's tables on small sets of calls shaped like the sample day's real ones."""

import math
from pathlib import Path

import pandas as pd
import papermill
import pytest
from conftest import ROOT, SAMPLE_DATE

from papers_digest.checker.problems import RULES
from papers_digest.core.models import CallRecord
from papers_digest.day import metrics as day_metrics
from papers_digest.report import planner, tables
from papers_digest.report.perfmodel import GIB, Gpu, ModelShape

# The first call of the sample day as the pipeline recorded it (data/2025-04-03/calls.jsonl of `papers sample`).
REAL_CALL = CallRecord.model_validate(
    {
        "date": SAMPLE_DATE,
        "arxiv_id": "2503.20783",
        "stage": "digest_en",
        "attempt": 1,
        "retry": 0,
        "status": "ok",
        "error": None,
        "http_status": 200,
        "finish_reason": "stop",
        "prompt_tokens": 10295,
        "completion_tokens": 1173,
        "cached_tokens": 336,
        "reasoning_tokens": None,
        "started_at": 1796025340.743,
        "ended_at": 1796025341.018,
        "latency_s": 0.2752,
        "from_store": False,
    }
)
T0 = REAL_CALL.started_at


def call(start: float, end: float, **changes: object) -> CallRecord:
    """The real call, moved to [T0 + start, T0 + end] and changed as given."""
    fields = {"started_at": T0 + start, "ended_at": T0 + end, "latency_s": end - start, **changes}
    return REAL_CALL.model_copy(update=fields)


def frame(*calls: CallRecord) -> pd.DataFrame:
    return day_metrics.calls_frame(calls)


def test_in_flight_counts_overlapping_calls_and_back_to_back_calls_as_one():
    overlapping = frame(
        call(0, 2, arxiv_id="2504.00999"),
        call(0.5, 1.5, arxiv_id="2504.00883"),
        call(1, 3, arxiv_id="2504.01014"),
    )
    flight = day_metrics.in_flight_over_time(overlapping)
    assert flight["in_flight"].max() == 3
    assert list(flight["t_s"]) == pytest.approx([0, 0.5, 1, 1.5, 2, 3])
    assert list(flight["in_flight"]) == [1, 2, 3, 2, 1, 0]

    # concurrency 1: each call starts the moment the previous one ends
    serial = frame(*(call(i, i + 1, arxiv_id=f"2504.0099{i}") for i in range(3)))
    assert day_metrics.in_flight_over_time(serial)["in_flight"].max() == 1
    # an answer from the store made no HTTP request: it is never in flight
    stored = frame(call(0, 1), call(0.2, 0.2, from_store=True, arxiv_id="2504.00999"))
    assert day_metrics.in_flight_over_time(stored)["in_flight"].max() == 1


def test_latency_percentiles_by_stage_leave_store_answers_out():
    calls = frame(
        *(call(0, s, arxiv_id=f"2504.0099{i}") for i, s in enumerate([1.0, 2.0, 3.0, 4.0])),
        call(0, 10.0, stage="translate_zh"),
        call(5, 5.001, stage="translate_zh", arxiv_id="2504.00999", from_store=True),
    )
    table = day_metrics.latency_percentiles(calls)
    assert table.loc["digest_en", "calls"] == 4
    assert table.loc["digest_en", "p50_s"] == pytest.approx(2.5)  # linear interpolation, as numpy and pandas
    assert table.loc["digest_en", "p90_s"] == pytest.approx(3.7)
    assert table.loc["digest_en", "max_s"] == pytest.approx(4.0)
    assert table.loc["translate_zh", "calls"] == 1
    assert table.loc["all", "calls"] == 5
    assert table.loc["all", "max_s"] == pytest.approx(10.0)


def test_call_metrics_are_the_report_figures_rounded_for_run_json():
    calls = [call(0, 1.25), call(0.5, 2.0, arxiv_id="2504.00999"), call(3, 3.5, cached_tokens=None)]
    metrics = day_metrics.call_metrics(calls)
    table = day_metrics.latency_percentiles(day_metrics.calls_frame(calls))
    assert metrics["latency_p50_s"] == round(table.loc["all", "p50_s"], 3)
    assert metrics["latency_max_s"] == 1.5
    assert metrics["max_in_flight"] == 2
    # cached share only over the calls whose engine reported cached tokens
    assert metrics["calls_reporting_cache"] == 2
    assert metrics["cached_share"] == round(336 / 10295, 4)


def test_seconds_in_flight_show_the_stretch_where_one_call_ran_alone():
    calls = frame(
        call(0, 4, arxiv_id="2504.00999"),
        call(0, 10),  # the long paper: alone from 6 s
        call(1, 6, arxiv_id="2504.00883"),
    )
    seconds = day_metrics.seconds_in_flight(calls)
    assert seconds.to_dict() == {0: 0.0, 1: 4.0, 2: 1.0 + 2.0, 3: 3.0}
    assert seconds.sum() == 10.0  # the calls' span
    gap = frame(call(0, 1), call(3, 4, arxiv_id="2504.00883"))  # nothing in flight for 2 s
    assert day_metrics.seconds_in_flight(gap).to_dict() == {0: 2.0, 1: 2.0}


def test_retries_and_failures_give_the_reason_of_each_call():
    problem = "results[0].numbers: '987654.321' does not appear verbatim in the paper"
    calls = frame(
        call(0, 1, status="rejected", error=f"{problem}; results[1].sections: '99.9' is not a section"),
        call(1, 2, attempt=2, cached_tokens=10000, prompt_tokens=11500, repair=True),
        call(0, 0.1, arxiv_id="2504.00883", status="error", http_status=503, error="HTTP 503: busy", retry=0),
        call(0.2, 1, arxiv_id="2504.00883", retry=1),
        call(0, 2, arxiv_id="2504.01014"),
    )
    odd = tables.retries_and_failures(calls)
    assert list(zip(odd["arxiv_id"], odd["attempt"], odd["retry"], odd["status"], strict=True)) == [
        ("2503.20783", 1, 0, "rejected"),
        ("2504.00883", 1, 0, "error"),
        ("2504.00883", 1, 1, "ok"),
        ("2503.20783", 2, 0, "ok"),
    ]
    reasons = tables.failure_reasons(calls)
    assert set(zip(reasons["status"], reasons["reason"], reasons["calls"], strict=True)) == {
        ("rejected", problem, 1),
        ("error", "HTTP 503", 1),
    }
    # C3-3: the retry resends the first conversation, so the prefix cache serves most of it
    shares = tables.cache_share(calls).set_index(["stage", "attempt"])
    assert shares.loc[("digest_en", 2), "cached_share"] == pytest.approx(10000 / 11500)
    assert shares.loc[("digest_en", 2), "asked"] == "fields"  # the retry asked for the failed fields alone
    assert shares.loc[("digest_en", 1), "asked"] == "first answer"


def test_the_cache_share_of_a_checker_retry_is_told_apart_by_what_it_asked_for():
    calls = frame(
        call(0, 1, cached_tokens=0, prompt_tokens=5000),
        call(1, 2, attempt=2, cached_tokens=4000, prompt_tokens=6000, repair=True),
        call(0, 1, arxiv_id="2504.00883", cached_tokens=0, prompt_tokens=3000),
        call(1, 2, arxiv_id="2504.00883", attempt=2, cached_tokens=1000, prompt_tokens=4000),
    )
    shares = tables.cache_share(calls)
    rows = list(zip(shares["attempt"], shares["asked"], shares["calls"], shares["cached_share"], strict=True))
    assert rows == [(1, "first answer", 2, 0.0), (2, "fields", 1, 4000 / 6000), (2, "whole answer", 1, 0.25)]
    old = calls.drop(columns="repair")  # a frame from before llm_calls.repair: every retry counts as whole
    assert list(tables.cache_share(old)["asked"]) == ["first answer", "whole answer"]


def test_checker_outcomes_count_each_rule_on_the_first_answer_and_the_retry_per_stage():
    def rejected(start: float, rules: list[str], **changes: object) -> CallRecord:
        return call(start, start + 1, status="rejected", error="; ".join(rules), checker_rules=rules, **changes)

    calls = frame(
        rejected(0, ["number_unknown", "number_section"]),
        rejected(1, ["number_unknown"], attempt=2),  # the retry of the same paper broke it again
        rejected(0, ["number_unknown"], arxiv_id="2504.00999"),
        call(1, 2, arxiv_id="2504.00999", attempt=2),  # accepted on the retry: breaks nothing
        rejected(0, ["length"], arxiv_id="2504.00883", finish_reason="length"),
        rejected(0, ["zh_numbers", "zh_numbers"], stage="translate_zh"),  # counted once per answer
        rejected(0, ["length"], stage="translate_zh", arxiv_id="2504.00999"),
        rejected(1, ["length"], stage="translate_zh", arxiv_id="2504.00999", attempt=2),
        rejected(0, ["length"], stage="translate_zh", arxiv_id="2504.01014"),
        call(0, 1, arxiv_id="2504.01014", status="error", http_status=503, error="HTTP 503: busy"),
    )
    table = tables.checker_outcomes(calls)
    assert list(table.columns) == ["rule", "description", "stage", "first_attempt", "retry", "answers"]
    rows = list(zip(table["rule"], table["stage"], table["first_attempt"], table["retry"], strict=True))
    assert rows == [
        # 4 answers over both stages: the most broken rule first, its stages together, the larger first
        ("length", "translate_zh", 2, 1),
        ("length", "digest_en", 1, 0),
        ("number_unknown", "digest_en", 2, 1),
        ("number_section", "digest_en", 1, 0),  # ties: by rule id
        ("zh_numbers", "translate_zh", 1, 0),
    ]
    assert list(table["answers"]) == [3, 1, 3, 1, 1]
    descriptions = dict(zip(table["rule"], table["description"], strict=False))
    assert descriptions["length"] == RULES["length"] == "an answer that was not cut off at the token limit"
    assert descriptions["number_unknown"] == RULES["number_unknown"]

    # A day without rejected answers, or without calls: an empty table with the same columns.
    assert tables.checker_outcomes(frame(call(0, 1))).empty
    assert list(tables.checker_outcomes(frame()).columns) == list(table.columns)
    # A rule id a later checker dropped (calls.jsonl of an older day) still counts, described as unknown.
    (old,) = tables.checker_outcomes(frame(rejected(0, ["retired_rule"]))).itertuples()
    assert (old.rule, old.first_attempt) == ("retired_rule", 1) and "does not know" in old.description


def test_without_cache_reports_the_share_is_absent_rather_than_zero():
    calls = frame(call(0, 1, cached_tokens=None), call(0, 1, cached_tokens=None, stage="translate_zh"))
    assert tables.cache_share(calls).empty
    assert day_metrics.call_metrics([call(0, 1, cached_tokens=None)])["calls_reporting_cache"] == 0


def test_longest_prompt_is_set_against_the_context_budget():
    calls = frame(call(0, 1), call(0, 1, arxiv_id="2504.00999", prompt_tokens=30000, stage="translate_zh"))
    longest = tables.longest_prompt(calls, context_budget_tokens=32768)
    assert longest is not None
    assert (longest["arxiv_id"], longest["stage"], longest["prompt_tokens"]) == ("2504.00999", "translate_zh", 30000)
    assert longest["headroom_tokens"] == 2768
    failed_only = frame(call(0, 1, status="error", prompt_tokens=None, completion_tokens=None))
    assert tables.longest_prompt(failed_only) is None


def test_the_planner_reproduces_the_seeds_estimate_for_15000_token_contexts():
    # docs/design.md §4: Llama-3.1-8B bf16, 1 TB/s; B=1 18.0 ms ≤55 tok/s, B=2 20.0 ms ≤100, B=3 22.0 ms ≤137,
    # 14 requests need 25.6 GiB of KV.
    calls = frame(*(call(i, i + 1, prompt_tokens=12000, completion_tokens=3000) for i in range(3)))
    plan = planner.capacity_plan(calls, ModelShape(), Gpu(memory_bytes=80 * GIB), max_concurrency=14)
    assert list(plan.index) == list(range(1, 15))
    assert plan.loc[1, "step_ms_p90"] == pytest.approx(18.0, abs=0.05)
    assert plan.loc[2, "step_ms_p90"] == pytest.approx(20.0, abs=0.05)
    assert plan.loc[3, "step_ms_p90"] == pytest.approx(22.0, abs=0.05)
    assert math.floor(plan.loc[1, "ceiling_tok_s_max"]) == 55
    assert round(plan.loc[2, "ceiling_tok_s_max"]) == 100
    assert round(plan.loc[3, "ceiling_tok_s_max"]) == 137
    assert plan.loc[14, "kv_gib_max"] == pytest.approx(25.6, abs=0.05)
    assert plan["fits_at_max"].all()  # 80 GiB holds all of them

    # On the default 24 GiB GPU, 0.9 × 24 GiB − 16.06 GB leaves room for 3 such requests, not 4.
    small = planner.capacity_plan(calls, ModelShape(), Gpu(), max_concurrency=6)
    assert list(small["fits_at_max"]) == [True, True, True, False, False, False]
    per_request = planner.request_kv(calls, ModelShape(), Gpu())
    assert per_request.loc["max", "context_tokens"] == 15000
    assert per_request.loc["max", "kv_mib_per_request"] == pytest.approx(15000 * 128 / 1024)
    assert per_request.loc["max", "max_concurrency"] == 3


def test_the_planner_has_nothing_to_plan_without_token_counts():
    calls = frame(call(0, 1, status="error", prompt_tokens=None, completion_tokens=None))
    assert planner.capacity_plan(calls, ModelShape(), Gpu()).empty
    assert planner.request_kv(calls, ModelShape(), Gpu()).empty


def test_fulltext_sources_are_named_whatever_they_are():
    assert [tables.source_label(s) for s in ("html", "trimmed", "abstract", "pdf", None)] == [
        "full text",
        "trimmed",
        "abstract only",
        "pdf",
        "unknown",
    ]
    papers = pd.DataFrame({"model_saw": ["full text", "trimmed", "abstract only", "abstract only"]})
    coverage = tables.fulltext_coverage(papers)
    assert tuple(coverage.iloc[0]) == ("abstract only", 2)
    assert set(coverage["model_saw"]) == {"full text", "trimmed", "abstract only"}


def test_the_report_notebooks_planner_defaults_are_the_serving_models_defaults():
    params = papermill.inspect_notebook(str(ROOT / "notebooks" / "run_report.ipynb"))
    model, gpu = ModelShape(), Gpu()

    def default(name: str) -> float:
        return float(params[name]["default"])

    assert default("model_weight_bytes") == model.weight_bytes
    shape = [default(f"model_{k}") for k in ("layers", "kv_heads", "head_dim")]
    assert shape == [model.layers, model.kv_heads, model.head_dim]
    assert default("model_kv_dtype_bytes") == model.kv_dtype_bytes
    assert default("gpu_bandwidth_bytes_s") == gpu.bandwidth_bytes_s
    assert default("gpu_memory_gib") * GIB == gpu.memory_bytes
    assert default("context_budget_tokens") == tables.DEFAULT_CONTEXT_BUDGET


def test_a_day_without_calls_has_zero_figures_and_nothing_to_plan():
    # No endpoint configured: the stages make no call, and the report still renders.
    assert day_metrics.call_metrics([]) == {
        "latency_p50_s": 0.0,
        "latency_p90_s": 0.0,
        "latency_max_s": 0.0,
        "max_in_flight": 0,
        "calls_reporting_cache": 0,
        "cached_share": 0.0,
    }
    empty = frame()
    assert tables.longest_prompt(empty) is None
    assert tables.retries_and_failures(empty).empty and tables.cache_share(empty).empty
    assert planner.capacity_plan(empty, ModelShape(), Gpu()).empty


def test_what_readers_got_counts_distinct_findings_copied_words_and_repairs():
    """The sample day's MergeVQ digest in the 0.5B model's shape (its findings one sentence, twice), next to
    a faithful one mended by a repair: the table tells them apart."""
    import json

    from conftest import DATA, abstract_docs, sample_papers
    from test_checker import MERGEVQ, VSI, en

    from papers_digest.core.models import DayList, GenerationResult
    from papers_digest.day.files import DayFiles

    docs = {d.arxiv_id: d for d in abstract_docs(sample_papers())}
    shapes = json.loads((DATA / "checker" / "sample_bad_digests.json").read_text(encoding="utf-8"))
    sentence = docs["2504.00999"].text.split("\n", 1)[1].split(". ")[0] + "."
    echoed = {**en(MERGEVQ), "results": [{**r, "finding": sentence} for r in en(MERGEVQ)["results"][:2]]}
    echoed["results"].append(en(MERGEVQ)["results"][2])

    def result(arxiv_id: str, stage: str, digest: dict, *calls: CallRecord) -> GenerationResult:
        return GenerationResult(arxiv_id=arxiv_id, stage=stage, status="done", digest=digest, model="m",
                                prompt_version="v", calls=list(calls))  # fmt: skip

    mended = call(0, 1, arxiv_id="2504.00883", attempt=2, repair=True)
    files = DayFiles(
        day=DayList(date=SAMPLE_DATE, limit=4, papers=[], picked=["2504.00999", "2504.00883", "2503.20783"]),
        fulltext={i: docs[i] for i in ("2504.00999", "2504.00883")},
        english={
            "2504.00999": result("2504.00999", "digest_en", echoed, call(0, 1, arxiv_id="2504.00999")),
            "2504.00883": result("2504.00883", "digest_en", en(VSI), call(0, 1, arxiv_id="2504.00883"), mended),
            "2503.20783": result("2503.20783", "digest_en", shapes["2503.20783"]["digest"]),
        },
        chinese={
            "2504.00999": result("2504.00999", "translate_zh", {}),
            "2504.00883": result("2504.00883", "translate_zh", {}),
        },  # 2503.20783 has no translation: not done, not listed
    )
    table = tables.what_readers_got(files).set_index("arxiv_id")
    assert list(table.index) == ["2504.00999", "2504.00883"]
    assert table.loc["2504.00999", ["findings", "distinct_findings", "repaired"]].tolist() == [3, 2, "no"]
    assert table.loc["2504.00999", "longest_copied_run"] == 21  # the abstract's first sentence, whole (21 words)
    assert table.loc["2504.00883", ["findings", "distinct_findings", "repaired"]].tolist() == [3, 3, "digest_en"]
    assert table.loc["2504.00883", "longest_copied_run"] < 12


def test_a_priced_day_shows_its_cost_and_the_cost_per_paper():
    from papers_digest.core.models import RunRecord
    from papers_digest.core.params import Price

    calls = [REAL_CALL, REAL_CALL.model_copy(update={"attempt": 2, "from_store": True})]
    price = Price(input=0.15, cached_input=0.075, output=0.6)
    cost = day_metrics.calls_cost(calls, price)  # the store's answer costs nothing
    assert cost == round(((10295 - 336) * 0.15 + 336 * 0.075 + 1173 * 0.6) / 1e6, 6)
    zero = dict.fromkeys(("papers_done", "papers_failed", "fulltext_html", "fulltext_abstract", "llm_calls"), 0)
    totals = dict.fromkeys(("llm_call_errors", "retries", "prompt_tokens", "completion_tokens", "cached_tokens"), 0)
    timing = {"elapsed_s": 1.0, "generation_s": 1.0, "generated_tok_s": 1.0}
    run = RunRecord(date=SAMPLE_DATE, papers=2, cost_usd=cost, **zero, **totals, **timing)
    shown = tables.summary(run)["value"]
    assert shown["Cost at llm.price (USD)"] == f"{cost:,.4f}"
    assert shown["Cost per paper picked (USD)"] == tables.cost_per_paper(run) == f"{cost / 2:,.4f}"
    unpriced = run.model_copy(update={"cost_usd": None})
    assert tables.cost_per_paper(unpriced) is None and "Cost at llm.price (USD)" not in tables.summary(unpriced).index


def test_a_report_notebook_that_raises_fails_the_stage_with_the_cells_error_and_no_html(tmp_path):
    import subprocess
    import sys

    import nbformat

    notebook = tmp_path / "broken.ipynb"
    cells = [nbformat.v4.new_code_cell("date = ''"), nbformat.v4.new_code_cell("raise ValueError('no run for '+date)")]
    cells[0].metadata["tags"] = ["parameters"]
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=kernel), notebook)
    out = tmp_path / "day" / "report.ipynb"
    out.parent.mkdir()
    args = ["--date", SAMPLE_DATE, "--notebook", str(notebook), "--day-dir", str(out.parent), "--db", "x.db"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "stages/report.py"), *args, "--context-budget-tokens", "100", "--out", str(out)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    # the cell as the executed copy numbers it (papermill's injected parameters come first)
    assert f"report: error: {notebook}: cell In [3] of {out} raised ValueError: no run for {SAMPLE_DATE}" in done.stderr
    assert out.is_file() and not out.with_suffix(".html").exists()  # the executed copy shows where it stopped
    # the kernel's channels are Unix sockets: ipykernel's warning that TCP is unencrypted is not printed every run
    assert "without encryption" not in done.stderr, done.stderr


def test_the_kernel_talks_over_unix_sockets_where_their_paths_fit_and_tcp_where_they_do_not():
    from papers_digest.report.notebook import kernel_transport

    assert kernel_transport(Path("/root/.local/share/jupyter/runtime")) == "ipc"
    assert kernel_transport(Path("/home/" + "a" * 60 + "/.local/share/jupyter/runtime")) == "tcp"


def test_a_figures_alternative_text_is_its_axes_titles_or_says_it_is_a_chart():
    from matplotlib.figure import Figure

    from papers_digest.report.figures import alt_text

    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert alt_text(fig) == "A chart of this run"
    left.set_title("Prompt tokens per call")
    right.set_title("Completion tokens per call")
    assert alt_text(fig) == "Prompt tokens per call; Completion tokens per call"
