"""The read queries of the archive pages: papers by topic, topic counts, a period's top papers (SQL only)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

# A paper's topics as a JSON array for json_each, whatever the column holds.
_TOPICS = "json_each(case when json_valid(p.topics) then p.topics else '[]' end) t"


def _listed(db: sqlite_utils.Database) -> str:
    """The columns the archive pages list a paper with; each digest's one-sentence summary read in SQL."""
    if "digests" not in db.table_names():
        return "p.arxiv_id, p.date, p.title, p.upvotes, p.status, p.generated_at, null as en, null as zh"
    one = "(select json_extract(d.digest, '$.one_sentence') from digests d where d.arxiv_id = p.arxiv_id and d.lang = "
    return f"p.arxiv_id, p.date, p.title, p.upvotes, p.status, p.generated_at, {one}'en') as en, {one}'zh') as zh"


def _db(db_path: str | Path, column: str = "topics") -> sqlite_utils.Database | None:
    """The database when its `papers` table has `column` (an older one, not yet upgraded, may not)."""
    db = sqlite_utils.Database(Path(db_path))
    if "papers" not in db.table_names() or column not in db["papers"].columns_dict:
        return None
    return db


def topics_on(db_path: str | Path, date: str) -> set[str]:
    """The topics of a date's papers."""
    db = _db(db_path)
    if db is None:
        return set()
    sql = f"select distinct t.value as topic from papers p, {_TOPICS} where p.date = ?"
    return {r["topic"] for r in db.query(sql, [date]) if isinstance(r["topic"], str)}


def papers_by_topic(
    db_path: str | Path, topics: list[str] | None, limit: int
) -> dict[str, tuple[int, list[dict[str, Any]]]]:
    """Per topic (all of them when `topics` is None): how many papers have it, and the latest `limit` of them
    (newest date first, then by upvotes and arXiv id). One pass over the papers' topic lists."""
    db = _db(db_path)
    if db is None or topics == []:
        return {}
    wanted = "where t.value in (select value from json_each(?))" if topics is not None else ""
    # Rank first, then read the kept papers' columns and summaries once each: a frequent topic has thousands of
    # papers, and a paper is kept on the pages of several topics (its summaries are read from its digest's JSON).
    ranked = (
        "select p.arxiv_id as id, t.value as topic, count(*) over topic as total, "
        "row_number() over (topic order by p.date desc, coalesce(p.upvotes, 0) desc, p.arxiv_id) as n "
        f"from papers p, {_TOPICS} {wanted} window topic as (partition by t.value)"
    )
    sql = f"select r.id, r.topic, r.total from ({ranked}) r where r.n <= ? order by r.topic, r.n"
    kept = list(db.query(sql, [json.dumps(topics), limit] if topics is not None else [limit]))
    ids = json.dumps(sorted({r["id"] for r in kept}))
    columns = "where p.arxiv_id in (select value from json_each(?))"
    papers = {r["arxiv_id"]: r for r in db.query(f"select {_listed(db)} from papers p {columns}", [ids])}
    found: dict[str, tuple[int, list[dict[str, Any]]]] = {}
    for row in kept:
        found.setdefault(row["topic"], (row["total"], []))[1].append(papers[row["id"]])
    return found


def topic_counts(db_path: str | Path, min_papers: int = 1) -> tuple[list[dict[str, Any]], int]:
    """The topics with at least `min_papers` papers, with that number and their latest date (most papers
    first, then by name), and how many topics have fewer."""
    db = _db(db_path)
    if db is None:
        return [], 0
    sql = (
        f"select t.value as topic, count(*) as papers, max(p.date) as latest from papers p, {_TOPICS} "
        "where t.type = 'text' group by t.value order by papers desc, topic"
    )
    counted = list(db.query(sql))
    kept = [r for r in counted if r["papers"] >= min_papers]
    return kept, len(counted) - len(kept)


def top_papers(db_path: str | Path, start: str, end: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The dates from `start` to `end` (inclusive) with papers, and their top `limit` papers by upvotes (ties
    to the lower arXiv id)."""
    db = _db(db_path, "date")
    if db is None:
        return 0, []
    days = next(db.query("select count(distinct date) as n from papers where date between ? and ?", [start, end]))
    rows = db.query(
        f"select {_listed(db)} from papers p where p.date between ? and ? "
        "order by coalesce(p.upvotes, 0) desc, p.arxiv_id limit ?",
        [start, end, limit],
    )
    return days["n"], list(rows)
