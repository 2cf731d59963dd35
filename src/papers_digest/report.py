"""Tables behind the analyst notebooks: a day's files and the database as pandas frames, and the capacity planner."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from papers_digest import perfmodel
from papers_digest.io import read_jsonl, read_model
from papers_digest.models import CallRecord, RunRecord
from papers_digest.params import EngineParams
from papers_digest.perfmodel import GIB, Gpu, ModelShape
from papers_digest.publish import DayFiles, load_day, paper_rows

CALL_COLUMNS = list(CallRecord.model_fields)
# What the model was given, in words; values a newer fulltext stage adds are shown as they are.
SOURCE_LABELS = {"html": "full text", "trimmed": "trimmed", "abstract": "abstract only"}
QUANTILES = {"p50": 0.5, "p90": 0.9}
# The report holds the longest prompt against the engine's context window (engine.context_tokens).
DEFAULT_CONTEXT_BUDGET: int = EngineParams.model_fields["context_tokens"].default
DB_TABLES = ("papers", "digests", "llm_calls", "runs", "day_items")


# --- loading a day ---------------------------------------------------------------------------------


def project_path(path: str | Path) -> Path:
    """`path` if it exists, else the same path under the project root (the folder above holding dvc.yaml):
    papermill runs a notebook in the root, but Jupyter starts its kernel in notebooks/."""
    given = Path(path)
    if given.exists() or given.is_absolute():
        return given
    for folder in [Path.cwd(), *Path.cwd().parents]:
        if (folder / "dvc.yaml").is_file():
            return folder / given
    return given


def load_day_dir(day_dir: str | Path) -> DayFiles:
    """The per-date files the pipeline wrote (list, full texts, both digest folders)."""
    day = Path(day_dir)
    return load_day(day / "list.json", day / "fulltext", day / "digest_en", day / "digest_zh")


def load_run(day_dir: str | Path) -> RunRecord:
    """data/<date>/run.json, the run's DVC metrics."""
    return read_model(Path(day_dir) / "run.json", RunRecord)


def load_calls(day_dir: str | Path) -> pd.DataFrame:
    """data/<date>/calls.jsonl as one row per LLM call (see `calls_frame` for the added columns)."""
    return calls_frame(read_jsonl(Path(day_dir) / "calls.jsonl", CallRecord))


def calls_frame(calls: Iterable[CallRecord]) -> pd.DataFrame:
    """Calls as a frame, by start time, plus `context_tokens` (prompt + completion: the KV a request holds
    at its end), `start_s`/`end_s` (seconds since the day's first call) and `group` (stage and attempt)."""
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


def papers_table(files: DayFiles) -> pd.DataFrame:
    """One row per picked paper: outcome, what the model saw of it (as the database records it), whether
    the retry queue brought it back, and its calls' token totals."""
    calls = calls_frame(files.calls)
    rows = []
    for row in paper_rows(files):
        doc = files.fulltext.get(row["arxiv_id"])
        own = calls[calls["arxiv_id"] == row["arxiv_id"]]
        dropped = json.loads(row["fulltext_dropped"] or "[]")
        saw = source_label(row["fulltext_source"]) if doc else "nothing (no full text)"
        rows.append(
            {
                "arxiv_id": row["arxiv_id"],
                "title": row["title"],
                "status": row["status"],
                "model_saw": f"{saw} (dropped {', '.join(dropped)})" if dropped else saw,
                "text_chars": len(doc.text) if doc else 0,
                "sections": len(doc.sections) if doc else 0,
                "fulltext_reason": doc.reason if doc else None,
                "backfilled": f"backfilled: failed on {row['backfilled_from']}" if row["backfilled_from"] else "",
                "calls": len(own),
                "prompt_tokens": int(own["prompt_tokens"].sum()),
                "completion_tokens": int(own["completion_tokens"].sum()),
                "error": row["error"],
            }
        )
    return pd.DataFrame(rows, columns=PAPER_COLUMNS)


PAPER_COLUMNS = [
    "arxiv_id",
    "title",
    "status",
    "model_saw",
    "text_chars",
    "sections",
    "fulltext_reason",
    "backfilled",
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "error",
]


def source_label(source: str | None) -> str:
    return SOURCE_LABELS.get(source or "", source or "unknown")


# --- the run report's tables -----------------------------------------------------------------------


def summary(run: RunRecord) -> pd.DataFrame:
    """The day's totals as printed in the report: metric -> value, from run.json (what `dvc exp show` lists)."""
    cached = (
        f"{run.cached_tokens:,} ({run.cached_share:.1%} of the prompts on {run.calls_reporting_cache:,} calls)"
        if run.calls_reporting_cache
        else "not reported by the engine"
    )
    rows = [
        ("Papers picked", f"{run.papers:,}"),
        ("Papers done", f"{run.papers_done:,}"),
        ("Papers failed", f"{run.papers_failed:,}"),
        ("LLM calls", f"{run.llm_calls:,}"),
        ("Calls answered from the store", f"{run.llm_calls_from_store:,}"),
        ("Calls that failed (error)", f"{run.llm_call_errors:,}"),
        ("Answers rejected by the checker", f"{run.llm_calls_rejected:,}"),
        ("Retries (all)", f"{run.retries:,}"),
        ("Checker retries (attempt 2)", f"{run.checker_retries:,}"),
        ("Transport retries", f"{run.transport_retries:,}"),
        ("Prompt tokens", f"{run.prompt_tokens:,}"),
        ("Completion tokens", f"{run.completion_tokens:,}"),
        ("Cached prompt tokens", cached),
        ("Reasoning tokens", f"{run.reasoning_tokens:,}"),
        ("Wall time of the stages (s)", f"{run.elapsed_s:,.1f}"),
        ("Generation stages (s)", f"{run.generation_s:,.1f}"),
        ("Generated tokens/s", f"{run.generated_tok_s:,.1f}"),
        ("Latency p50 / p90 / max (s)", f"{run.latency_p50_s:.2f} / {run.latency_p90_s:.2f} / {run.latency_max_s:.2f}"),
        ("Peak calls in flight", f"{run.max_in_flight:,}"),
    ]
    return pd.DataFrame(rows, columns=["metric", "value"]).set_index("metric").rename_axis(None)


def token_stats(calls: pd.DataFrame) -> pd.DataFrame:
    """Prompt and completion tokens per call, by stage and attempt: count, p50, p90, max."""
    rows = []
    for (stage, attempt), group in calls.groupby(["stage", "attempt"], sort=True):
        row: dict[str, Any] = {"stage": stage, "attempt": attempt, "calls": len(group)}
        for kind in ("prompt_tokens", "completion_tokens"):
            values = group[kind].dropna().astype(float)
            for name, q in QUANTILES.items():
                row[f"{kind}_{name}"] = round(values.quantile(q)) if len(values) else None
            row[f"{kind}_max"] = int(values.max()) if len(values) else None
        rows.append(row)
    return pd.DataFrame(rows)


def longest_prompt(calls: pd.DataFrame, context_budget_tokens: int = DEFAULT_CONTEXT_BUDGET) -> dict[str, Any] | None:
    """The call with the longest prompt, set against the context budget (None when no call reported tokens)."""
    known = calls.dropna(subset=["prompt_tokens"])
    if known.empty:
        return None
    row = known.loc[known["prompt_tokens"].astype(int).idxmax()]
    prompt = int(row["prompt_tokens"])
    completion = None if pd.isna(row["completion_tokens"]) else int(row["completion_tokens"])
    return {
        "arxiv_id": row["arxiv_id"],
        "stage": row["stage"],
        "attempt": int(row["attempt"]),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "context_budget_tokens": context_budget_tokens,
        "share_of_budget": prompt / context_budget_tokens,
        "headroom_tokens": context_budget_tokens - prompt,
    }


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


def retries_and_failures(calls: pd.DataFrame) -> pd.DataFrame:
    """Every call that was not a first try answered well: errors, rejected answers, and the retries."""
    odd = calls[(calls["status"] != "ok") | (calls["attempt"] > 1) | (calls["retry"] > 0)]
    table = odd[["arxiv_id", "stage", "attempt", "retry", "status", "http_status", "finish_reason", "error"]].copy()
    table["reason"] = [
        call_reason(s, h, e) for s, h, e in zip(odd["status"], odd["http_status"], odd["error"], strict=True)
    ]
    return table.drop(columns="error").reset_index(drop=True)


def failure_reasons(calls: pd.DataFrame) -> pd.DataFrame:
    """Calls that failed or were rejected, counted by stage, status and reason."""
    table = retries_and_failures(calls)
    table = table[table["status"] != "ok"]
    counts = table.groupby(["stage", "status", "reason"], sort=True).size().rename("calls")
    return counts.reset_index().sort_values("calls", ascending=False, kind="stable").reset_index(drop=True)


def call_reason(status: str, http_status: Any, error: str | None) -> str:
    """A short reason for a call's outcome: the HTTP status of an error, else the first problem named."""
    if status == "ok":
        return "answer accepted"
    first = (error or "").split("; ")[0].strip()
    if status == "error" and not pd.isna(http_status) and int(http_status) >= 400:
        return f"HTTP {int(http_status)}"
    return first[:160] or status


def fulltext_coverage(papers: pd.DataFrame) -> pd.DataFrame:
    """How many papers the model saw in full, trimmed or as the abstract only (whatever sources exist)."""
    counts = papers.groupby("model_saw", sort=True).size().rename("papers")
    return counts.reset_index().sort_values("papers", ascending=False, kind="stable").reset_index(drop=True)


def cache_share(calls: pd.DataFrame) -> pd.DataFrame:
    """Cached prompt tokens by stage and attempt, over the calls whose engine reported them (empty if none):
    the seed's C3-3 question is whether a retry, which resends the first call as its prefix, hits the cache."""
    reported = calls.dropna(subset=["cached_tokens", "prompt_tokens"])
    rows = []
    for (stage, attempt), group in reported.groupby(["stage", "attempt"], sort=True):
        prompt = int(group["prompt_tokens"].sum())
        cached = int(group["cached_tokens"].sum())
        rows.append(
            {
                "stage": stage,
                "attempt": attempt,
                "calls": len(group),
                "prompt_tokens": prompt,
                "cached_tokens": cached,
                "cached_share": cached / prompt if prompt else 0.0,
            }
        )
    return pd.DataFrame(rows, columns=["stage", "attempt", "calls", "prompt_tokens", "cached_tokens", "cached_share"])


# --- the capacity planner (DESIGN.md §4, formulas in perfmodel) --------------------------------------


def context_quantiles(calls: pd.DataFrame) -> pd.Series:
    """Measured context per request (prompt + completion tokens) at p50, p90 and max; empty if none known."""
    known = calls["context_tokens"].dropna().astype(float)
    if known.empty:
        return pd.Series(dtype=int, name="context_tokens")
    values = {name: round(known.quantile(q)) for name, q in QUANTILES.items()}
    values["max"] = int(known.max())
    return pd.Series(values, name="context_tokens")


def request_kv(calls: pd.DataFrame, model: ModelShape, gpu: Gpu, memory_fraction: float = 0.9) -> pd.DataFrame:
    """Per measured context (p50, p90, max): KV cache one request needs, how many such requests fit on the
    GPU next to the weights, and the bandwidth-bound decode ceiling alone and at that concurrency."""
    rows = []
    for name, context in context_quantiles(calls).items():
        fits = perfmodel.max_concurrency(model, gpu, int(context), memory_fraction)
        rows.append(
            {
                "context": name,
                "context_tokens": int(context),
                "kv_mib_per_request": model.kv_bytes(int(context)) / 2**20,
                "max_concurrency": fits,
                "ceiling_tok_s_at_1": perfmodel.decode_ceiling_tok_s(model, gpu, 1, int(context)),
                "ceiling_tok_s_at_max": perfmodel.decode_ceiling_tok_s(model, gpu, fits, int(context)),
            }
        )
    return pd.DataFrame(rows).set_index("context") if rows else pd.DataFrame()


def capacity_plan(
    calls: pd.DataFrame, model: ModelShape, gpu: Gpu, max_concurrency: int = 16, memory_fraction: float = 0.9
) -> pd.DataFrame:
    """For concurrency 1…max_concurrency, with every request at the measured p50/p90/max context: total KV
    (GiB), whether it fits beside the weights, decode step time and the tok/s ceiling (empty if no tokens)."""
    contexts = {name: int(v) for name, v in context_quantiles(calls).items()}
    if not contexts:
        return pd.DataFrame()
    fits_at_max = perfmodel.max_concurrency(model, gpu, contexts["max"], memory_fraction)
    rows = []
    for batch in range(1, max_concurrency + 1):
        row: dict[str, Any] = {"concurrency": batch}
        for name, context in contexts.items():
            row[f"kv_gib_{name}"] = batch * model.kv_bytes(context) / GIB
        row["fits_at_max"] = batch <= fits_at_max
        row["step_ms_p90"] = 1000 * perfmodel.decode_step_s(model, gpu, [contexts["p90"]] * batch)
        for name, context in contexts.items():
            row[f"ceiling_tok_s_{name}"] = perfmodel.decode_ceiling_tok_s(model, gpu, batch, context)
        rows.append(row)
    return pd.DataFrame(rows).set_index("concurrency")


def usable_kv_gib(model: ModelShape, gpu: Gpu, memory_fraction: float = 0.9) -> float:
    """GiB of KV cache the GPU holds after the weights (for the planner's plot)."""
    return perfmodel.kv_capacity_tokens(model, gpu, memory_fraction) * model.kv_bytes_per_token / GIB


# --- checking the report against the database ----------------------------------------------------------


def db_check(db_path: str | Path, run: RunRecord) -> pd.DataFrame:
    """run.json's totals beside the database's: the `runs` row and sums over `llm_calls` for the date."""
    path = Path(db_path)
    if not path.exists():
        return pd.DataFrame()
    with sqlite3.connect(path) as conn:
        runs = pd.read_sql_query("select * from runs where date = ?", conn, params=[run.date])
        calls = pd.read_sql_query(
            "select count(*) as llm_calls, coalesce(sum(prompt_tokens), 0) as prompt_tokens, "
            "coalesce(sum(completion_tokens), 0) as completion_tokens from llm_calls where date = ?",
            conn,
            params=[run.date],
        ).iloc[0]
    row = runs.iloc[0] if len(runs) else None
    rows = []
    for key in ("papers", "papers_done", "papers_failed", "llm_calls", "prompt_tokens", "completion_tokens"):
        mine = getattr(run, key)
        in_runs = None if row is None else int(row[key])
        in_calls = int(calls[key]) if key in calls.index else None
        agree = in_runs == mine and (in_calls is None or in_calls == mine)
        rows.append({"metric": key, "run.json": mine, "db runs": in_runs, "db llm_calls": in_calls, "agree": agree})
    return pd.DataFrame(rows).set_index("metric")


# --- the database, for the exploration notebook ----------------------------------------------------------


def load_db(db_path: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of papers.db as a frame; digests get `doc`, the digest parsed from its JSON text."""
    path = Path(db_path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: not found (run the pipeline first: `make sample` or `papers daily`)")
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
        tables = {t: pd.read_sql_query(f"select * from {t}", conn) for t in DB_TABLES if t in names}
    digests = tables.get("digests", pd.DataFrame(columns=["arxiv_id", "lang", "date", "digest"]))
    digests["doc"] = [json.loads(text) for text in digests["digest"]]
    tables["digests"] = digests
    return tables


def latest_date(tables: dict[str, pd.DataFrame]) -> str | None:
    runs = tables.get("runs")
    return None if runs is None or runs.empty else str(runs["date"].max())


def day_digests(tables: dict[str, pd.DataFrame], date: str) -> pd.DataFrame:
    """The papers of a date with their outcome and the one-sentence summary in both languages."""
    papers = tables["papers"]
    papers = papers[papers["date"] == date]
    table = papers[["arxiv_id", "title", "upvotes", "status", "fulltext_source", "error"]].copy()
    table["model_saw"] = [source_label(s) for s in table.pop("fulltext_source")]
    for lang in ("en", "zh"):
        sentences = {r.arxiv_id: r.doc.get("one_sentence") for r in _digests(tables, lang).itertuples()}
        table[f"one_sentence_{lang}"] = table["arxiv_id"].map(sentences)
    return table.sort_values("upvotes", ascending=False, kind="stable").reset_index(drop=True)


def search(tables: dict[str, pd.DataFrame], term: str) -> pd.DataFrame:
    """Papers whose title or a digest finding (either language) contains `term`, case-insensitive."""
    needle = term.casefold()
    papers = tables["papers"].set_index("arxiv_id")
    hits = []
    for row in papers.itertuples():
        if needle in str(row.title).casefold():
            hits.append(
                {"arxiv_id": row.Index, "date": row.date, "title": row.title, "where": "title", "text": row.title}
            )
    for digest in tables["digests"].itertuples():
        for result in digest.doc.get("results", []):
            finding = str(result.get("finding", ""))
            if needle in finding.casefold():
                hits.append(
                    {
                        "arxiv_id": digest.arxiv_id,
                        "date": digest.date,
                        "title": papers["title"].get(digest.arxiv_id),
                        "where": f"finding ({digest.lang})",
                        "text": finding,
                    }
                )
    return pd.DataFrame(hits, columns=["arxiv_id", "date", "title", "where", "text"])


def side_by_side(tables: dict[str, pd.DataFrame], arxiv_id: str) -> pd.DataFrame:
    """A paper's English and Chinese digests field by field (results and lists item by item)."""
    docs = {lang: _digests(tables, lang).set_index("arxiv_id")["doc"].get(arxiv_id) for lang in ("en", "zh")}
    if docs["en"] is None:
        raise KeyError(f"{arxiv_id}: no English digest in the database")
    rows = []
    for field, value in docs["en"].items():
        if field == "mind_map":
            continue
        other = (docs["zh"] or {}).get(field)
        if isinstance(value, list):
            for i, item in enumerate(value):
                zh_item = other[i] if isinstance(other, list) and i < len(other) else None
                if isinstance(item, dict):
                    rows.append((f"{field}[{i}]", item.get("finding", ""), (zh_item or {}).get("finding")))
                else:
                    rows.append((f"{field}[{i}]", item, zh_item))
        else:
            rows.append((field, value, other))
    return pd.DataFrame(rows, columns=["field", "en", "zh"]).set_index("field")


def daily_trends(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per date, from the `runs` table: papers, failure rate, calls and tokens per paper."""
    runs = tables["runs"].sort_values("date").set_index("date")
    trends = runs[["papers", "papers_done", "papers_failed", "llm_calls", "prompt_tokens", "completion_tokens"]].copy()
    papers = trends["papers"].where(trends["papers"] > 0)
    trends["failure_rate"] = (trends["papers_failed"] / papers).fillna(0.0)
    trends["tokens_per_paper"] = ((trends["prompt_tokens"] + trends["completion_tokens"]) / papers).fillna(0.0)
    return trends


def _digests(tables: dict[str, pd.DataFrame], lang: str) -> pd.DataFrame:
    digests = tables["digests"]
    return digests[digests["lang"] == lang]
