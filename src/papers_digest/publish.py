"""The one database writer: a day's files -> papers.db (idempotent upserts), and the run record."""

from __future__ import annotations

import datetime as dt
import json
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from papers_digest.io import STAGE_INFO, read_folder, read_model
from papers_digest.models import (
    CallRecord,
    DayList,
    FulltextDoc,
    GenerationResult,
    Paper,
    PaperStatus,
    RunRecord,
    StageInfo,
)

GENERATION_STAGES = ("digest_en", "translate_zh")
LANG_OF_STAGE = {"digest_en": "en", "translate_zh": "zh"}
CALL_KEY = ("date", "arxiv_id", "stage", "attempt", "retry")


@dataclass
class DayFiles:
    """Everything the pipeline wrote for one date."""

    day: DayList
    fulltext: dict[str, FulltextDoc]
    english: dict[str, GenerationResult]
    chinese: dict[str, GenerationResult]
    stages: dict[str, StageInfo] = field(default_factory=dict)

    @property
    def calls(self) -> list[CallRecord]:
        return [c for results in (self.english, self.chinese) for r in results.values() for c in r.calls]


def load_day(list_path: Path, fulltext_dir: Path, digest_en_dir: Path, digest_zh_dir: Path) -> DayFiles:
    stages = {}
    for name, folder in (
        ("fulltext", fulltext_dir),
        ("digest_en", digest_en_dir),
        ("translate_zh", digest_zh_dir),
    ):
        info_path = Path(folder) / STAGE_INFO
        if info_path.exists():
            stages[name] = read_model(info_path, StageInfo)
    return DayFiles(
        day=read_model(list_path, DayList),
        fulltext=read_folder(fulltext_dir, FulltextDoc),
        english=read_folder(digest_en_dir, GenerationResult),
        chinese=read_folder(digest_zh_dir, GenerationResult),
        stages=stages,
    )


def paper_outcome(files: DayFiles, arxiv_id: str) -> tuple[PaperStatus, str | None]:
    """done only when both languages passed their checks; otherwise failed with the first reason."""
    for stage, results in (("digest_en", files.english), ("translate_zh", files.chinese)):
        result = results.get(arxiv_id)
        if result is None:
            note = files.stages[stage].note if stage in files.stages else None
            return "failed", f"{stage}: not generated" + (f" ({note})" if note else "")
        if result.status == "failed":
            return "failed", f"{stage}: {result.error}"
    return "done", None


def run_record(files: DayFiles, publish_s: float = 0.0) -> RunRecord:
    """The day's totals (pure)."""
    # report.py builds on this module, so it is imported here; it holds the one definition of the
    # percentiles, peak in flight and cached share that the run report prints.
    from papers_digest.report import call_metrics

    picked = files.day.picked
    outcomes = [paper_outcome(files, i)[0] for i in picked]
    calls = files.calls
    completion = sum(c.completion_tokens or 0 for c in calls)
    # Tokens decoded in this run: answers reused from the store cost the engine nothing now.
    fresh_completion = sum(c.completion_tokens or 0 for c in calls if not c.from_store)
    generation_s = sum(files.stages[s].elapsed_s for s in GENERATION_STAGES if s in files.stages)
    elapsed = files.day.elapsed_s + sum(s.elapsed_s for s in files.stages.values()) + publish_s
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
        fulltext_trimmed=sum(r["fulltext_source"] == "trimmed" for r in paper_rows(files)),
        context_errors=sum(c.error_kind == "context_length" for c in calls),
        **prefix_cache_totals(files),
        **call_metrics(calls),
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


def paper_rows(files: DayFiles) -> list[dict[str, Any]]:
    rows = []
    by_id = {p.arxiv_id: p for p in [*files.day.papers, *files.day.backfill]}
    for arxiv_id in files.day.picked:
        paper = by_id[arxiv_id]
        doc = files.fulltext.get(arxiv_id)
        english = files.english.get(arxiv_id)
        status, error = paper_outcome(files, arxiv_id)
        # What the model saw: the fitted text, less what a context error made the digest stage drop.
        dropped = [*(doc.dropped if doc else []), *(english.refit_dropped if english else [])]
        source = doc.source if doc else None
        if dropped and source == "html":
            source = "trimmed"
        rows.append(
            {
                "arxiv_id": arxiv_id,
                "date": files.day.date,
                "title": paper.title,
                "upvotes": paper.upvotes,
                "status": status,
                "error": error,
                "authors": json.dumps(paper.authors, ensure_ascii=False),
                "summary": paper.summary,
                "version": doc.version if doc else None,
                "fulltext_source": source,
                "fulltext_dropped": json.dumps(dropped) if dropped else None,
                "fulltext_tokens": (english.refit_tokens if english else None) or (doc.tokens if doc else None),
                "fulltext_reason": doc.reason if doc else None,
                "model": english.model if english else None,
                "prompt_version": english.prompt_version if english else None,
                # For the site: links to each cited section, and when the digest was written.
                "sections": json.dumps(
                    [s.model_dump(include={"tag", "title", "anchor"}) for s in doc.sections], ensure_ascii=False
                )
                if doc
                else None,
                "generated_at": generated_at(english),
                "backfilled_from": files.day.backfill_from.get(arxiv_id),
            }
        )
    return rows


def generated_at(result: GenerationResult | None) -> str | None:
    """When a digest was generated (ISO-8601 UTC): its last call's end, preferring real HTTP answers."""
    if result is None or not result.calls:
        return None
    # A call answered from the store is stamped with the rerun's time, not the original answer's.
    answered = [c for c in result.calls if not c.from_store] or result.calls
    ended = max(c.ended_at for c in answered)
    return dt.datetime.fromtimestamp(ended, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def digest_rows(files: DayFiles) -> list[dict[str, Any]]:
    rows = []
    for stage, results in (("digest_en", files.english), ("translate_zh", files.chinese)):
        for result in results.values():
            if result.status == "done" and result.digest is not None:
                rows.append(
                    {
                        "arxiv_id": result.arxiv_id,
                        "lang": LANG_OF_STAGE[stage],
                        "date": files.day.date,
                        "digest": json.dumps(result.digest, ensure_ascii=False),
                        "model": result.model,
                        "prompt_version": result.prompt_version,
                    }
                )
    return rows


def day_item_rows(files: DayFiles) -> list[dict[str, Any]]:
    ranked = sorted(files.day.papers, key=lambda p: (-p.upvotes, p.arxiv_id))
    picked = set(files.day.picked)
    return [
        {
            "date": files.day.date,
            "arxiv_id": p.arxiv_id,
            "title": p.title,
            "upvotes": p.upvotes,
            "rank": rank,
            "picked": p.arxiv_id in picked,
            "excluded_since": files.day.excluded.get(p.arxiv_id),
        }
        for rank, p in enumerate(ranked, start=1)
    ]


def write_day(db_path: str | Path, files: DayFiles, run: RunRecord) -> None:
    """Upsert one day into the database in a single transaction; running it twice changes nothing."""
    db = sqlite_utils.Database(db_path)
    ensure_schema(db)
    date = files.day.date
    rows = paper_rows(files)
    with db.conn:
        # A paper can appear on several days; a later day's row wins over an earlier one.
        newer = {
            r["arxiv_id"]
            for r in db.query(
                "select arxiv_id from papers where date > ? and arxiv_id in (select value from json_each(?))",
                [date, json.dumps([row["arxiv_id"] for row in rows])],
            )
        }
        db["papers"].upsert_all([r for r in rows if r["arxiv_id"] not in newer], pk="arxiv_id", alter=True)
        db.execute("delete from digests where date = ?", [date])
        db["digests"].upsert_all(
            [r for r in digest_rows(files) if r["arxiv_id"] not in newer], pk=("arxiv_id", "lang"), alter=True
        )
        db.execute("delete from llm_calls where date = ?", [date])
        db["llm_calls"].insert_all([c.model_dump() for c in files.calls], pk=CALL_KEY, alter=True, replace=True)
        db.execute("delete from day_items where date = ?", [date])
        db["day_items"].insert_all(day_item_rows(files), pk=("date", "arxiv_id"), alter=True)
        db["runs"].upsert(run.model_dump(), pk="date", alter=True)


def ensure_schema(db: sqlite_utils.Database) -> None:
    """Create the tables other tools read, with their key columns, if they do not exist yet."""
    db["papers"].create(
        {"arxiv_id": str, "date": str, "title": str, "upvotes": int, "status": str, "error": str},
        pk="arxiv_id",
        if_not_exists=True,
    )
    db["digests"].create(
        {"arxiv_id": str, "lang": str, "date": str, "digest": str},
        pk=("arxiv_id", "lang"),
        if_not_exists=True,
    )
    # Every column typed up front: sqlite-utils would guess TEXT for a column that is null in the first rows.
    db["llm_calls"].create(_column_types(CallRecord), pk=CALL_KEY, if_not_exists=True)
    db["runs"].create(
        {"date": str, "papers": int, "prompt_tokens": int, "completion_tokens": int, "elapsed_s": float},
        pk="date",
        if_not_exists=True,
    )
    db["day_items"].create(
        {"date": str, "arxiv_id": str, "title": str, "upvotes": int, "rank": int, "picked": bool},
        pk=("date", "arxiv_id"),
        if_not_exists=True,
    )
    db["llm_calls"].create_index(["arxiv_id"], if_not_exists=True)
    db["papers"].create_index(["date"], if_not_exists=True)


def record_engine_start(db_path: str | Path, date: str, kind: str, startup_s: float) -> None:
    """Add a managed engine's start-up time to the day's run record (the batch paid for it)."""
    db = sqlite_utils.Database(db_path)
    if "runs" not in db.table_names() or not db["runs"].count_where("date = ?", [date]):
        return
    with db.conn:
        db["runs"].update(date, {"engine_kind": kind, "engine_startup_s": round(startup_s, 3)}, alter=True)


def _column_types(model: type[CallRecord]) -> dict[str, type]:
    """Column types from the model's fields (`int | None` -> int; Literal and str -> str)."""
    types: dict[str, type] = {}
    for name, info in model.model_fields.items():
        options = typing.get_args(info.annotation) or (info.annotation,)
        types[name] = next((t for t in (bool, int, float) if t in options), str)
    return types


def failed_recently(db_path: str | Path, date: str, days: int) -> list[tuple[Paper, str]]:
    """The retry queue: papers whose latest attempt failed before `date` and that first failed at most
    `days` dates earlier (a paper that keeps failing is not carried along for ever), oldest first, with
    that first date."""
    path = Path(db_path)
    if days <= 0 or not path.exists():
        return []
    db = sqlite_utils.Database(path)
    if "papers" not in db.table_names():
        return []
    since = (dt.date.fromisoformat(date) - dt.timedelta(days=days)).isoformat()
    first = "coalesce(backfilled_from, date)" if "backfilled_from" in db["papers"].columns_dict else "date"
    rows = db.query(
        f"select arxiv_id, {first} as first_failed, title, upvotes, summary, authors from papers "
        f"where status = 'failed' and {first} >= ? and date < ? order by first_failed, arxiv_id",
        [since, date],
    )
    return [
        (
            Paper(
                arxiv_id=row["arxiv_id"],
                title=row["title"],
                summary=row["summary"] or "",
                upvotes=row["upvotes"] or 0,
                authors=json.loads(row["authors"] or "[]"),
            ),
            row["first_failed"],
        )
        for row in rows
    ]


def digested_before(db_path: str | Path, date: str) -> dict[str, str]:
    """arXiv ids digested (status done) on a date before `date` -> that date; {} without a database."""
    path = Path(db_path)
    if not path.exists():
        return {}
    db = sqlite_utils.Database(path)
    if "papers" not in db.table_names():
        return {}
    return {
        row["arxiv_id"]: row["date"]
        for row in db.query("select arxiv_id, date from papers where status = 'done' and date < ?", [date])
    }
