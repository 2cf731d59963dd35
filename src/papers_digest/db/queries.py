"""The read queries of the database: what the list stage excludes and retries, what the site shows."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from papers_digest.core.models import Paper


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


def day_totals(db_path: str | Path, date: str) -> tuple[dict[str, Any] | None, dict[str, int]] | None:
    """The `runs` row of a date (None if missing) and its `llm_calls` sums; None without a database."""
    path = Path(db_path)
    if not path.exists():
        return None
    db = sqlite_utils.Database(path)
    tables = set(db.table_names())
    runs = list(db.query("select * from runs where date = ?", [date])) if "runs" in tables else []
    calls: dict[str, int] = {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    if "llm_calls" in tables:
        calls = dict(
            next(
                db.query(
                    "select count(*) as llm_calls, coalesce(sum(prompt_tokens), 0) as prompt_tokens, "
                    "coalesce(sum(completion_tokens), 0) as completion_tokens from llm_calls where date = ?",
                    [date],
                )
            )
        )
    return (runs[0] if runs else None), calls


@dataclass
class SiteRows:
    """What the site is rendered from: every paper and digest row, papers listed per date, run dates."""

    papers: list[dict[str, Any]] = field(default_factory=list)
    digests: list[dict[str, Any]] = field(default_factory=list)
    listed: dict[str, int] = field(default_factory=dict)
    run_dates: list[str] = field(default_factory=list)


def site_rows(db_path: str | Path) -> SiteRows:
    """The rows the readers' site shows, from every day (tables that do not exist yet read as empty)."""
    db = sqlite_utils.Database(Path(db_path))
    tables = set(db.table_names())

    def rows(sql: str, table: str) -> list[dict[str, Any]]:
        return list(db.query(sql)) if table in tables else []

    return SiteRows(
        papers=rows("select * from papers", "papers"),
        digests=rows("select * from digests", "digests"),
        listed={r["date"]: r["n"] for r in rows("select date, count(*) as n from day_items group by 1", "day_items")},
        run_dates=[r["date"] for r in rows("select date from runs", "runs")],
    )
