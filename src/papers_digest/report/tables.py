"""The run report's tables: a day's files and calls as pandas frames (notebooks/run_report.ipynb shows them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from papers_digest.checker.paper import read_paper
from papers_digest.checker.problems import RULES
from papers_digest.checker.substance import distinct_findings, longest_copy
from papers_digest.core.artefacts import read_jsonl, read_model
from papers_digest.core.models import CallRecord, Digest, Evidence, RunRecord
from papers_digest.core.params import EngineParams
from papers_digest.day.files import DayFiles, paper_outcome
from papers_digest.day.metrics import QUANTILES, calls_frame
from papers_digest.db.queries import day_totals
from papers_digest.db.rows import paper_rows

# What the model was given, in words; values a newer fulltext stage adds are shown as they are.
SOURCE_LABELS = {"html": "full text", "trimmed": "trimmed", "abstract": "abstract only"}
# The report holds the longest prompt against the engine's context window (engine.context_tokens).
DEFAULT_CONTEXT_BUDGET: int = EngineParams.model_fields["context_tokens"].default


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


def load_run(day_dir: str | Path) -> RunRecord:
    """data/<date>/run.json, the run's DVC metrics."""
    return read_model(Path(day_dir) / "run.json", RunRecord)


def load_calls(day_dir: str | Path) -> pd.DataFrame:
    """data/<date>/calls.jsonl as one row per LLM call (see `calls_frame` for the added columns)."""
    return calls_frame(read_jsonl(Path(day_dir) / "calls.jsonl", CallRecord))


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
    if run.cost_usd is not None:
        rows.append(("Cost at llm.price (USD)", f"{run.cost_usd:,.4f}"))
        rows.append(("Cost per paper picked (USD)", cost_per_paper(run) or "no paper"))
    return pd.DataFrame(rows, columns=["metric", "value"]).set_index("metric").rename_axis(None)


def cost_per_paper(run: RunRecord) -> str | None:
    """The day's cost over the papers picked, in USD; None when unpriced or no paper was picked."""
    if run.cost_usd is None or not run.papers:
        return None
    return f"{run.cost_usd / run.papers:,.4f}"


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


CHECKER_COLUMNS = ["rule", "description", "stage", "first_attempt", "retry", "answers"]


def checker_outcomes(calls: pd.DataFrame) -> pd.DataFrame:
    """Which checker rules the rejected answers broke: for each rule and stage, how many first answers
    (attempt 1) and retries (attempt ≥ 2) broke it, with the rule's description (`RULES`), the rule most
    broken over both stages first. An answer counts once per rule it broke; accepted answers and calls
    without an answer break none."""
    counts: dict[tuple[str, str], list[int]] = {}
    for stage, attempt, rules in zip(calls["stage"], calls["attempt"], calls["checker_rules"], strict=True):
        for rule in dict.fromkeys(rules if isinstance(rules, list | tuple) else ()):
            counts.setdefault((rule, stage), [0, 0])[0 if attempt <= 1 else 1] += 1
    rows = [
        {
            "rule": rule,
            "description": RULES.get(rule, "(a rule this version of the checker does not know)"),
            "stage": stage,
            "first_attempt": first,
            "retry": retry,
            "answers": first + retry,
        }
        for (rule, stage), (first, retry) in counts.items()
    ]
    table = pd.DataFrame(rows, columns=CHECKER_COLUMNS)
    # The most broken rule first (over both stages), its stages together, the stage it broke most in first.
    rule_total = table.groupby("rule")["answers"].transform("sum")
    order = sorted(
        range(len(table)),
        key=lambda i: (-rule_total.iloc[i], table["rule"].iloc[i], -table["answers"].iloc[i], table["stage"].iloc[i]),
    )
    return table.iloc[order].reset_index(drop=True)


READER_COLUMNS = ["arxiv_id", "findings", "distinct_findings", "longest_copied_run", "repaired"]


def what_readers_got(files: DayFiles) -> pd.DataFrame:
    """Per done paper, what its readers got beyond passing the checker: how many findings it has and how many
    of them differ (checker/substance.py's measure), the most consecutive words of the paper one field copies
    (against the text the model was given; None without it), and which stages a repair of fields mended."""
    rows = []
    for arxiv_id, english in files.english.items():
        if english.digest is None or paper_outcome(files, arxiv_id)[0] != "done":
            continue
        digest = Digest.model_validate(english.digest)
        doc = files.fulltext.get(arxiv_id)
        chinese = files.chinese.get(arxiv_id)
        calls = [*english.calls, *(chinese.calls if chinese else [])]
        rows.append(
            {
                "arxiv_id": arxiv_id,
                "findings": len(digest.results),
                "distinct_findings": distinct_findings(digest),
                "longest_copied_run": longest_copy(digest, read_paper(doc)) if doc else None,
                "repaired": ", ".join(dict.fromkeys(c.stage for c in calls if c.repair)) or "no",
            }
        )
    return pd.DataFrame(rows, columns=READER_COLUMNS)


FINDING_COLUMNS = ["arxiv_id", "field", "written", "section", "role", "written from"]


def findings_with_evidence(files: DayFiles) -> pd.DataFrame:
    """Per done paper, its summary and each finding next to the sentence of the paper it was written from (the
    evidence the site shows under a finding) and that sentence's role as the program read it, so a reader of
    the report can judge what the digest says against what the paper says."""
    rows = []
    for arxiv_id, english in files.english.items():
        if english.digest is None or paper_outcome(files, arxiv_id)[0] != "done":
            continue
        digest = Digest.model_validate(english.digest)
        summary = english.sources.get("one_sentence", [])
        rows.append(_written_row(arxiv_id, "summary", digest.one_sentence, summary[0] if summary else None, ""))
        for i, (result, evidence) in enumerate(
            zip(digest.results, english.evidence or [[]] * len(digest.results), strict=False)
        ):
            rows.append(_written_row(arxiv_id, f"finding {i + 1}", result.finding, evidence[0] if evidence else None,
                                     ", ".join(result.sections)))  # fmt: skip
    return pd.DataFrame(rows, columns=FINDING_COLUMNS)


def _written_row(arxiv_id: str, field: str, written: str, source: Evidence | None, sections: str) -> dict[str, Any]:
    return {
        "arxiv_id": arxiv_id,
        "field": field,
        "written": written,
        "section": source.section if source else sections,
        "role": (source.role or "") if source else "",
        "written from": source.sentence if source else "",
    }


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
    """Cached prompt tokens by stage, attempt and what the call asked for (`first answer`; a checker retry's
    `fields` alone or the `whole answer` again, from llm_calls.repair), over the calls whose engine reported
    them (empty if none): the seed's C3-3 question is whether a retry, which resends the first call as its
    prefix, hits the cache. An English repair resends the whole conversation, a translation's only the system
    prompt (docs/performance.md)."""
    reported = calls.dropna(subset=["cached_tokens", "prompt_tokens"])
    repair = reported.get("repair", pd.Series(False, index=reported.index)).eq(True)  # absent in older records
    asked = reported["attempt"].gt(1).map({False: "first answer", True: "whole answer"}).mask(repair, "fields")
    rows = []
    for (stage, attempt, kind), group in reported.groupby(["stage", "attempt", asked.rename("asked")], sort=True):
        prompt = int(group["prompt_tokens"].sum())
        cached = int(group["cached_tokens"].sum())
        rows.append(
            {
                "stage": stage,
                "attempt": attempt,
                "asked": kind,
                "calls": len(group),
                "prompt_tokens": prompt,
                "cached_tokens": cached,
                "cached_share": cached / prompt if prompt else 0.0,
            }
        )
    columns = ["stage", "attempt", "asked", "calls", "prompt_tokens", "cached_tokens", "cached_share"]
    return pd.DataFrame(rows, columns=columns)


# --- checking the report against the database ----------------------------------------------------------


def db_check(db_path: str | Path, run: RunRecord) -> pd.DataFrame:
    """run.json's totals beside the database's: the `runs` row and sums over `llm_calls` for the date."""
    totals = day_totals(db_path, run.date)
    if totals is None:
        return pd.DataFrame()
    in_runs_row, in_calls = totals
    rows = []
    for key in ("papers", "papers_done", "papers_failed", "llm_calls", "prompt_tokens", "completion_tokens"):
        mine = getattr(run, key)
        in_runs = None if in_runs_row is None else int(in_runs_row[key])
        in_call_rows = int(in_calls[key]) if key in in_calls else None
        agree = in_runs == mine and (in_call_rows is None or in_call_rows == mine)
        rows.append({"metric": key, "run.json": mine, "db runs": in_runs, "db llm_calls": in_call_rows, "agree": agree})
    return pd.DataFrame(rows).set_index("metric")
