"""The run record of a day (run.json, the `runs` row) and the call statistics it shares with the report (pure)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from papers_digest.core.models import CallRecord, RunRecord
from papers_digest.core.params import Price
from papers_digest.day.files import GENERATION_STAGES, DayFiles, model_saw, outcome_detail, paper_outcome

CALL_COLUMNS = list(CallRecord.model_fields)
QUANTILES = {"p50": 0.5, "p90": 0.9}


def run_record(files: DayFiles, price: Price | None = None) -> RunRecord:
    """The day's totals (pure: the same files and price always give the same record, so publishing a day
    again leaves the database as it was; `elapsed_s` is the stages' own recorded times, publish excluded)."""
    picked = files.day.picked
    outcomes = [paper_outcome(files, i)[0] for i in picked]
    details = [outcome_detail(files.english, files.chinese, i) for i in picked]
    rules = Counter(rule for _, broken in details for rule in broken)
    calls = files.calls
    completion = sum(c.completion_tokens or 0 for c in calls)
    # Tokens decoded in this run: answers reused from the store cost the engine nothing now.
    fresh_completion = sum(c.completion_tokens or 0 for c in calls if not c.from_store)
    generation_s = sum(files.stages[s].elapsed_s for s in GENERATION_STAGES if s in files.stages)
    elapsed = files.day.elapsed_s + sum(s.elapsed_s for s in files.stages.values())
    docs = [files.fulltext[i] for i in picked if i in files.fulltext]
    return RunRecord(
        date=files.day.date,
        papers=len(picked),
        papers_done=outcomes.count("done"),
        papers_failed=outcomes.count("failed"),
        fulltext_html=sum(d.source == "html" for d in docs),
        fulltext_abstract=sum(d.source == "abstract" for d in docs),
        llm_calls=len(calls),
        llm_call_errors=sum(c.status == "error" for c in calls),
        retries=sum(c.attempt > 1 or c.retry > 0 for c in calls),
        prompt_tokens=sum(c.prompt_tokens or 0 for c in calls),
        completion_tokens=completion,
        cached_tokens=sum(c.cached_tokens or 0 for c in calls),
        elapsed_s=round(elapsed, 3),
        generation_s=round(generation_s, 3),
        generated_tok_s=round(fresh_completion / generation_s, 2) if generation_s > 0 else 0.0,
        llm_calls_rejected=sum(c.status == "rejected" for c in calls),
        checker_retries=sum(c.attempt > 1 for c in calls),
        transport_retries=sum(c.retry > 0 for c in calls),
        llm_calls_from_store=sum(c.from_store for c in calls),
        reasoning_tokens=sum(c.reasoning_tokens or 0 for c in calls),
        fulltext_trimmed=sum(model_saw(files, i)[0] == "trimmed" for i in picked),
        context_errors=sum(c.error_kind == "context_length" for c in calls),
        cost_usd=calls_cost(calls, price) if price is not None else None,
        papers_done_first_answer=sum(outcome == "done_first_answer" for outcome, _ in details),
        failed_by_rule=dict(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0]))),
        **prefix_cache_totals(files),
        **call_metrics(calls),
    )


def calls_cost(calls: Iterable[CallRecord], price: Price) -> float:
    """What these calls cost at `price`, in USD: only those sent over HTTP (store answers cost nothing)."""
    sent = [c for c in calls if not c.from_store]
    return price.cost_usd(
        prompt_tokens=sum(c.prompt_tokens or 0 for c in sent),
        cached_tokens=sum(c.cached_tokens or 0 for c in sent),
        completion_tokens=sum(c.completion_tokens or 0 for c in sent),
    )


def prefix_cache_totals(files: DayFiles) -> dict[str, float]:
    """The generation stages' prefix-cache figures, added up (a gauge's last value for SGLang)."""
    figures = [files.stages[s].prefix_cache for s in GENERATION_STAGES if s in files.stages]
    queries = sum(f.get("prefix_cache_queries", 0.0) for f in figures)
    hits = sum(f.get("prefix_cache_hits", 0.0) for f in figures)
    if queries > 0:
        return {
            "prefix_cache_queries": queries,
            "prefix_cache_hits": hits,
            "prefix_cache_hit_rate": round(hits / queries, 4),
        }
    rates = [f["prefix_cache_hit_rate"] for f in figures if "prefix_cache_hit_rate" in f]
    return {"prefix_cache_hit_rate": rates[-1]} if rates else {}


# --- call statistics: the one definition the run record and the report share ---------------------


def calls_frame(calls: Iterable[CallRecord]) -> pd.DataFrame:
    """Calls as a frame, by start time, one column per CallRecord field (`checker_rules`: the list of rule
    ids a rejected answer broke, [] otherwise), plus `context_tokens` (prompt + completion: the KV a request
    holds at its end), `start_s`/`end_s` (seconds since the day's first call) and `group` (stage and attempt)."""
    frame = pd.DataFrame([c.model_dump() for c in calls], columns=CALL_COLUMNS)
    for column in ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens", "http_status"):
        frame[column] = frame[column].astype("Int64")  # nullable: engines do not always report these
    frame = frame.sort_values("started_at", kind="stable").reset_index(drop=True)
    frame["context_tokens"] = frame["prompt_tokens"] + frame["completion_tokens"]
    first = frame["started_at"].min() if len(frame) else 0.0
    frame["start_s"] = frame["started_at"] - first
    frame["end_s"] = frame["ended_at"] - first
    frame["group"] = frame["stage"] + " attempt " + frame["attempt"].astype(str)
    return frame


def http_calls(calls: pd.DataFrame) -> pd.DataFrame:
    """Calls that went over HTTP: answers from the store took no engine time, so timing excludes them."""
    return calls[~calls["from_store"].astype(bool)]


def latency_percentiles(calls: pd.DataFrame) -> pd.DataFrame:
    """Latency p50/p90/max in seconds by stage, and over all calls (row `all`); HTTP calls only."""
    timed = http_calls(calls)
    parts = [(stage, group["latency_s"]) for stage, group in timed.groupby("stage", sort=True)]
    parts.append(("all", timed["latency_s"]))
    rows = []
    for name, values in parts:
        row: dict[str, Any] = {"stage": name, "calls": len(values)}
        for label, q in QUANTILES.items():
            row[f"{label}_s"] = float(values.quantile(q)) if len(values) else 0.0
        row["max_s"] = float(values.max()) if len(values) else 0.0
        rows.append(row)
    return pd.DataFrame(rows).set_index("stage")


def in_flight_over_time(calls: pd.DataFrame) -> pd.DataFrame:
    """HTTP calls in flight after each moment a call started or ended (`t_s` since the first call).

    Changes at the same instant are netted, so a call that ends exactly when the next starts does not
    count as an overlap (concurrency 1 stays 1)."""
    timed = http_calls(calls)
    if timed.empty:
        return pd.DataFrame({"t_s": [0.0], "in_flight": [0]})
    events = pd.concat(
        [
            pd.DataFrame({"t_s": timed["start_s"], "change": 1}),
            pd.DataFrame({"t_s": timed["end_s"], "change": -1}),
        ]
    )
    steps = events.groupby("t_s", sort=True)["change"].sum().cumsum()
    return pd.DataFrame({"t_s": steps.index.astype(float), "in_flight": steps.to_numpy().astype(int)})


def seconds_in_flight(calls: pd.DataFrame) -> pd.Series:
    """Seconds of the calls' span spent with each number of HTTP calls in flight (index: 0, 1, 2, ...). At
    concurrency > 1 the seconds at 1 are the stretches where one call ran alone: what batching could not help."""
    steps = in_flight_over_time(calls)
    durations = steps["t_s"].diff().shift(-1).fillna(0.0)  # each level holds until the next change
    return durations.groupby(steps["in_flight"]).sum().rename("seconds")


def call_metrics(calls: Sequence[CallRecord]) -> dict[str, Any]:
    """The distribution figures run.json carries (percentiles, peak in flight, cached share), computed by the
    same functions the report uses, so the report and `dvc exp show` never disagree."""
    frame = calls_frame(calls)
    latency = latency_percentiles(frame).loc["all"]
    reported = frame.dropna(subset=["cached_tokens", "prompt_tokens"])
    prompt = int(reported["prompt_tokens"].sum())
    return {
        "latency_p50_s": round(float(latency["p50_s"]), 3),
        "latency_p90_s": round(float(latency["p90_s"]), 3),
        "latency_max_s": round(float(latency["max_s"]), 3),
        "max_in_flight": int(in_flight_over_time(frame)["in_flight"].max()),
        "calls_reporting_cache": len(reported),
        "cached_share": round(int(reported["cached_tokens"].sum()) / prompt, 4) if prompt else 0.0,
    }
