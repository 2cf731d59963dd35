"""The one database writer: a day's rows -> papers.db in one transaction (idempotent upserts)."""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from papers_digest.core.models import RunRecord
from papers_digest.day.areas import paper_areas
from papers_digest.day.files import DayFiles
from papers_digest.db.published import PUBLISHED_TABLE
from papers_digest.db.rows import call_rows, day_item_rows, digest_rows, paper_rows
from papers_digest.db.schema import CALL_KEY, ensure_schema


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
        db["llm_calls"].insert_all(call_rows(files), pk=CALL_KEY, alter=True, replace=True)
        db.execute("delete from day_items where date = ?", [date])
        db["day_items"].insert_all(day_item_rows(files), pk=("date", "arxiv_id"), alter=True)
        db["runs"].upsert(run.model_dump(), pk="date", alter=True)
        file_under_areas(db)


def file_under_areas(db: sqlite_utils.Database) -> int:
    """Give the rows of `papers` and `day_items` written before areas existed (#39) their areas, from the title,
    keywords and abstract they hold; how many rows got them. Rows written since always have `areas` ("[]" for
    none), so this reads nothing else after the first time."""
    filled = 0
    for table, key in (("papers", "arxiv_id"), ("day_items", "date || ' ' || arxiv_id")):
        rows = list(db.query(f"select {key} as k, title, keywords, summary from {table} where areas is null"))
        updates = [
            (json.dumps(paper_areas(r["title"] or "", _keywords(r["keywords"]), r["summary"] or "")), r["k"])
            for r in rows
        ]
        db.conn.executemany(f"update {table} set areas = ? where {key} = ?", updates)
        filled += len(rows)
    return filled


def _keywords(text: str | None) -> list[str]:
    try:
        value = json.loads(text) if text else []
    except json.JSONDecodeError:
        return []
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def record_published(db_path: str | Path, date: str, fingerprint: str) -> None:
    """Record that `date` is in the database and on the site from the files of this fingerprint
    (day/fingerprint.py); written after both, so a publish killed before it is done again."""
    db = sqlite_utils.Database(db_path)
    ensure_schema(db)
    with db.conn:
        db[PUBLISHED_TABLE].upsert({"date": date, "fingerprint": fingerprint}, pk="date")


def record_engine_start(db_path: str | Path, date: str, kind: str, startup_s: float) -> None:
    """Add a managed engine's start-up time to the day's run record (the batch paid for it)."""
    db = sqlite_utils.Database(db_path)
    if "runs" not in db.table_names() or not db["runs"].count_where("date = ?", [date]):
        return
    with db.conn:
        db["runs"].update(date, {"engine_kind": kind, "engine_startup_s": round(startup_s, 3)}, alter=True)
