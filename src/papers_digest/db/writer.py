"""The one database writer: a day's rows -> papers.db in one transaction (idempotent upserts), in WAL mode."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from papers_digest.core.models import RunRecord
from papers_digest.day.areas import paper_areas
from papers_digest.day.files import DayFiles
from papers_digest.day.terms import RELATED_PAPERS, query_weights
from papers_digest.db.published import PUBLISHED_TABLE
from papers_digest.db.related import best_scored, stored_terms
from papers_digest.db.rows import call_rows, day_item_rows, digest_rows, paper_rows, term_rows
from papers_digest.db.schema import CALL_KEY, ensure_schema
from papers_digest.db.sqlite_library import sqlite_utils

# How long a write waits for another writer or a checkpoint before it fails; readers never make it wait in
# WAL mode (docs/database.md, "Reading while the pipeline writes"). Python's own default is 5 s.
BUSY_TIMEOUT_S = 120.0


def write_day(db_path: str | Path, files: DayFiles, run: RunRecord) -> None:
    """Upsert one day into the database in a single transaction; running it twice changes nothing."""
    date = files.day.date
    rows = paper_rows(files)
    with _writing(db_path) as db:
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
        ids = [r["arxiv_id"] for r in rows if r["arxiv_id"] not in newer]
        relate(db, [*ids, *index_terms(db, ids)])


def index_terms(db: sqlite_utils.Database, arxiv_ids: list[str]) -> list[str]:
    """Store the terms of these papers' digests (day/terms.py) in `paper_terms`, for their related papers, in place
    of what they had: a done paper gets its terms, a failed one none; and those of every done paper that has none
    yet (a database written before related papers). Returns the ids of those others."""
    ids = json.dumps(arxiv_ids)
    db.execute("delete from paper_terms where arxiv_id in (select value from json_each(?))", [ids])
    rows = db.query(
        "select p.arxiv_id, p.title, d.digest from papers p "
        "join digests d on d.arxiv_id = p.arxiv_id and d.lang = 'en' "
        "where p.status = 'done' and (p.arxiv_id in (select value from json_each(?)) "
        "or not exists (select 1 from paper_terms t where t.arxiv_id = p.arxiv_id))",
        [ids],
    )
    earlier = []
    for row in list(rows):
        terms = term_rows(row["arxiv_id"], row["title"] or "", row["digest"])
        db.conn.executemany(
            "insert or replace into paper_terms (term, arxiv_id, weight) values (:term, :arxiv_id, :weight)", terms
        )
        if row["arxiv_id"] not in arxiv_ids:
            earlier.append(row["arxiv_id"])
    return earlier


def relate(db: sqlite_utils.Database, arxiv_ids: list[str]) -> None:
    """Store the related papers of these papers (those with terms: the done ones), found in the archive as the
    database holds it now, in place of what they had: a page shows them as found when its day was written."""
    ids = json.dumps(arxiv_ids)
    db.execute("delete from related where arxiv_id in (select value from json_each(?))", [ids])
    weights, df, documents = stored_terms(db, arxiv_ids)
    queries = {paper: query_weights(terms, df, documents) for paper, terms in weights.items()}
    found = best_scored(db, queries, RELATED_PAPERS)
    rows = [
        {"arxiv_id": paper, "rank": rank, "other": other, "score": round(score, 6)}
        for paper, others in found.items()
        for rank, (other, score) in enumerate(others, start=1)
    ]
    db["related"].insert_all(rows, pk=("arxiv_id", "rank"), replace=True)


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
    with _writing(db_path) as db:
        db[PUBLISHED_TABLE].upsert({"date": date, "fingerprint": fingerprint}, pk="date")


def record_engine_start(db_path: str | Path, date: str, kind: str, startup_s: float) -> None:
    """Add a managed engine's start-up time to the day's run record (the batch paid for it)."""
    if not Path(db_path).is_file():
        return
    with _writing(db_path) as db:
        if db["runs"].count_where("date = ?", [date]):
            db["runs"].update(date, {"engine_kind": kind, "engine_startup_s": round(startup_s, 3)}, alter=True)


def checkpoint(db_path: str | Path) -> None:
    """Fold the write-ahead log back into papers.db, so the file alone holds every committed day (a plain copy
    of it is complete). Never waits: past a reader still on an older snapshot it folds what it can, and the
    rest goes at the next checkpoint or when the last connection closes."""
    with closing(sqlite3.connect(Path(db_path), timeout=0)) as conn:
        conn.execute("pragma wal_checkpoint(truncate)")


def open_for_writing(db_path: str | Path) -> sqlite_utils.Database:
    """papers.db for writing: the schema in place, in WAL mode (kept by the file: readers never block a write
    and see each transaction whole or not at all), with a busy timeout for the rare second writer."""
    db = sqlite_utils.Database(sqlite3.connect(Path(db_path), timeout=BUSY_TIMEOUT_S))
    # A file written before WAL with a reader inside a transaction right now cannot switch (it needs the file
    # to itself): this write then waits for the reader as before, and the next one switches.
    with suppress(sqlite3.OperationalError):
        db.enable_wal()
    ensure_schema(db)
    return db


@contextmanager
def _writing(db_path: str | Path) -> Iterator[sqlite_utils.Database]:
    """One write transaction, taken at once (BEGIN IMMEDIATE): sqlite-utils' own calls inside it nest as
    savepoints, so a reader sees all of it or none."""
    db = open_for_writing(db_path)
    try:
        db.conn.execute("begin immediate")
        try:
            yield db
        except BaseException:
            db.rollback()
            raise
        db.commit()
    finally:
        db.close()
