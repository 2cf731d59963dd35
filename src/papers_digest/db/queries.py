"""The read queries of the database: what the list stage excludes and retries, what the site shows."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papers_digest.core.models import Organization, Paper
from papers_digest.db.reading import reading
from papers_digest.db.sqlite_library import sqlite_utils

# db/schema.py LISTING_COLUMNS beyond those every database has
_LISTING_EXTRAS = (
    "keywords", "github_repo", "github_stars", "project_page", "organization", "ai_summary", "thumbnail", "comments",
    "published_at",
)  # fmt: skip


@contextmanager
def _with_table(db_path: str | Path, table: str) -> Iterator[sqlite_utils.Database | None]:
    """The database when its file exists and holds `table`; None for a first run or an older database."""
    path = Path(db_path)
    if not path.exists():
        yield None
        return
    with reading(path) as db:
        yield db if table in db.table_names() else None


def failed_recently(db_path: str | Path, date: str, days: int) -> list[tuple[Paper, str]]:
    """The retry queue: papers whose latest attempt failed before `date` and that first failed at most
    `days` dates earlier (a paper that keeps failing is not carried along for ever), oldest first, with
    that first date."""
    if days <= 0:
        return []
    with _with_table(db_path, "papers") as db:
        if db is None:
            return []
        since = (dt.date.fromisoformat(date) - dt.timedelta(days=days)).isoformat()
        columns = db["papers"].columns_dict
        first = "coalesce(backfilled_from, date)" if "backfilled_from" in columns else "date"
        # What the listing gave beyond the title (#29's links, #39's thumbnail), so the retried paper keeps it.
        extras = "".join(f", {c}" if c in columns else f", null as {c}" for c in _LISTING_EXTRAS)
        rows = db.query(
            f"select arxiv_id, {first} as first_failed, title, upvotes, summary, authors{extras} from papers "
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
                    ai_keywords=json.loads(row["keywords"] or "[]"),
                    github_repo=row["github_repo"],
                    github_stars=row["github_stars"],
                    project_page=row["project_page"],
                    organization=Organization.model_validate_json(row["organization"]) if row["organization"] else None,
                    ai_summary=row["ai_summary"],
                    thumbnail=row["thumbnail"],
                    comments=row["comments"],
                    published_at=row["published_at"],
                ),
                row["first_failed"],
            )
            for row in rows
        ]


def digested_before(db_path: str | Path, date: str) -> dict[str, str]:
    """arXiv ids digested (status done) on a date before `date` -> that date; {} without a database."""
    with _with_table(db_path, "papers") as db:
        if db is None:
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
    with reading(path) as db:
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
    """What a day's pages are rendered from: its paper and digest rows, every paper listed, run dates."""

    papers: list[dict[str, Any]] = field(default_factory=list)
    digests: list[dict[str, Any]] = field(default_factory=list)
    # the date's day_items rows by rank, each with `paper_date` and `paper_status`: where its `papers` row is now
    items: list[dict[str, Any]] = field(default_factory=list)
    run_dates: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # the date's llm_calls rows (site/trust.py)
    engine_kind: str | None = None  # runs.engine_kind: the managed engine that served the date, if any


def site_day_rows(db_path: str | Path, date: str) -> SiteRows:
    """The rows of one date's pages: its papers, their digests (by arXiv id, whatever day wrote them), every paper
    Hugging Face listed, and whether it has a run record (tables not there yet read as empty)."""
    with reading(db_path) as db:
        tables = set(db.table_names())

        def rows(sql: str, table: str) -> list[dict[str, Any]]:
            return list(db.query(sql, [date])) if table in tables else []

        papers = rows("select * from papers where date = ?", "papers")
        digests = (
            rows("select * from digests where arxiv_id in (select arxiv_id from papers where date = ?)", "digests")
            if papers
            else []
        )
        where = "null as paper_date, null as paper_status from day_items d"
        if "papers" in tables:
            where = (
                "p.date as paper_date, p.status as paper_status from day_items d left join papers p using (arxiv_id)"
            )
        items = rows(f"select d.*, {where} where d.date = ? order by d.rank, d.arxiv_id", "day_items")
        calls = rows("select * from llm_calls where date = ?", "llm_calls")  # any schema version: read what is there
        engine = "engine_kind" in db["runs"].columns_dict if "runs" in tables else False
        kind = "engine_kind" if engine else "null"
        runs = rows(f"select date, {kind} as engine_kind from runs where date = ?", "runs")
        return SiteRows(
            papers=papers,
            digests=digests,
            items=items,
            run_dates=[r["date"] for r in runs],
            calls=calls,
            engine_kind=runs[0]["engine_kind"] if runs else None,
        )


def site_days(db_path: str | Path) -> list[dict[str, Any]]:
    """One row per date the site shows (a date with papers or a run record), newest first, from aggregate
    queries: `papers`, `done` (status done with both digests stored), `listed`, and the top paper by upvotes
    (then arXiv id) as `top_id`, `top_title`; no digest text is read."""
    with reading(db_path) as db:
        tables = set(db.table_names())
        days: dict[str, dict[str, Any]] = {}

        def day(date: str) -> dict[str, Any]:
            return days.setdefault(
                date, {"date": date, "papers": 0, "done": 0, "listed": 0, "top_id": None, "top_title": None}
            )

        if "runs" in tables:
            for row in db.query("select distinct date from runs"):
                day(row["date"])
        if "papers" in tables:
            both = " and ".join(
                f"exists (select 1 from digests d where d.arxiv_id = p.arxiv_id and d.lang = '{lang}')"
                for lang in ("en", "zh")
            )
            done = f"p.status = 'done' and {both}" if "digests" in tables else "0"
            # One pass over the papers: each date's counts, and its first paper by upvotes, then arXiv id.
            per_date = (
                f"select date, arxiv_id, title, count(*) over dates as papers, total({done}) over dates as done, "
                "row_number() over (partition by date order by coalesce(upvotes, 0) desc, arxiv_id) as rank "
                "from papers p window dates as (partition by date)"
            )
            for row in db.query(f"select * from ({per_date}) where rank = 1"):
                day(row["date"]).update(
                    papers=row["papers"], done=int(row["done"]), top_id=row["arxiv_id"], top_title=row["title"]
                )
        if "day_items" in tables:
            for row in db.query("select date, count(*) as n from day_items group by date"):
                if row["date"] in days:
                    days[row["date"]]["listed"] = row["n"]
        return [days[d] for d in sorted(days, reverse=True)]


def last_run_date(db_path: str | Path, before: str) -> str | None:
    """The latest date before or on `before` whose pipeline ran to the end (it has a run record)."""
    with _with_table(db_path, "runs") as db:
        if db is None:
            return None
        rows = list(db.query("select max(date) as last from runs where date <= ?", [before]))
        return rows[0]["last"] if rows else None


def run_summary(db_path: str | Path, date: str) -> tuple[int, int] | None:
    """(papers done, papers failed) of a date's run record, or None when there is none."""
    with _with_table(db_path, "runs") as db:
        if db is None:
            return None
        rows = list(db.query("select papers_done, papers_failed from runs where date = ?", [date]))
        return (rows[0]["papers_done"], rows[0]["papers_failed"]) if rows else None


def status_rows(db_path: str | Path, dates: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per date with a run record (only `dates`, when given), newest first: `listed` (from
    day_items), `picked`, `done`, `failed`, the tokens, `cost_usd` (null when unpriced or an older
    database) and `elapsed_s`: what the status page and the alerts read (day/status.py)."""
    with _with_table(db_path, "runs") as db:
        if db is None:
            return []
        columns = db["runs"].columns_dict
        cost = "r.cost_usd" if "cost_usd" in columns else "null"
        listed = "(select count(*) from day_items d where d.date = r.date)" if "day_items" in db.table_names() else "0"
        where = "where r.date in (select value from json_each(?))" if dates is not None else ""
        sql = (
            f"select r.date, {listed} as listed, r.papers as picked, r.papers_done as done, r.papers_failed as failed, "
            f"r.prompt_tokens, r.completion_tokens, {cost} as cost_usd, r.elapsed_s from runs r {where} "
            "order by r.date desc"
        )
        return list(db.query(sql, [json.dumps(dates)] if dates is not None else []))


def failure_reasons(db_path: str | Path, date: str, limit: int = 3) -> list[str]:
    """`<arxiv id>: <error>` of a date's first failed papers, by upvotes."""
    with _with_table(db_path, "papers") as db:
        if db is None:
            return []
        rows = db.query(
            "select arxiv_id, error from papers where date = ? and status = 'failed' "
            "order by coalesce(upvotes, 0) desc, arxiv_id limit ?",
            [date, limit],
        )
        return [f"{r['arxiv_id']}: {r['error'] or 'no reason recorded'}" for r in rows]
