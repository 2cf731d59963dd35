"""Related papers in SQL: papers' stored terms and how many papers hold each, the best-scored others, and the lists
the writer stored (read for the pages)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from papers_digest.day.terms import QUERY_POSTINGS
from papers_digest.db.archive import listed_columns
from papers_digest.db.reading import reading
from papers_digest.db.sqlite_library import sqlite_utils

ScoreQuery = Mapping[str, Mapping[str, float]]  # a paper -> its query terms and their weights (day/terms.py)


def stored_terms(
    db: sqlite_utils.Database, arxiv_ids: list[str]
) -> tuple[dict[str, dict[str, float]], dict[str, int], int]:
    """These papers' stored terms and weights; how many papers hold each of those terms (up to QUERY_POSTINGS + 1);
    how many done papers there are. On the writer's connection: it sees the day being written."""
    weights: dict[str, dict[str, float]] = {}
    for row in db.query(
        "select arxiv_id, term, weight from paper_terms where arxiv_id in (select value from json_each(?))",
        [json.dumps(arxiv_ids)],
    ):
        weights.setdefault(row["arxiv_id"], {})[row["term"]] = row["weight"]
    terms = json.dumps(sorted({t for w in weights.values() for t in w}))
    # Counted up to one more than a query may read (day/terms.py QUERY_POSTINGS): a commoner term is never taken, so
    # its exact count does not matter, and counting stays within the day's terms, whatever the archive.
    df = {
        row["term"]: row["n"]
        for row in db.query(
            "select t.value as term, (select count(*) from (select 1 from paper_terms p where p.term = t.value "
            "limit ?)) as n from json_each(?) t",
            [QUERY_POSTINGS + 1, terms],
        )
    }
    documents = next(db.query("select count(*) as n from papers where status = 'done'"))["n"]
    return weights, df, documents


def best_scored(db: sqlite_utils.Database, queries: ScoreQuery, limit: int) -> dict[str, list[tuple[str, float]]]:
    """For each paper, the `limit` other papers with stored terms of highest score (the sum, over its query terms,
    of the term's query weight times the other paper's stored weight), best first, ties to the lower arXiv id. It
    reads the stored rows of the query terms, no more (day/terms.py keeps them within a budget)."""
    pairs = [[paper, term, weight] for paper, terms in queries.items() for term, weight in terms.items()]
    if not pairs:
        return {}
    scored = (
        "select json_extract(q.value, '$[0]') as paper, t.arxiv_id as other, "
        "sum(json_extract(q.value, '$[2]') * t.weight) as score "
        "from json_each(?) q join paper_terms t on t.term = json_extract(q.value, '$[1]') "
        "where t.arxiv_id != json_extract(q.value, '$[0]') group by paper, other"
    )
    ranked = (
        "select paper, other, score, row_number() over (partition by paper order by score desc, other) as n "
        f"from ({scored})"
    )
    found: dict[str, list[tuple[str, float]]] = {}
    for row in db.query(f"select * from ({ranked}) where n <= ? order by paper, n", [json.dumps(pairs), limit]):
        found.setdefault(row["paper"], []).append((row["other"], row["score"]))
    return found


def related_rows(db_path: str | Path, arxiv_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The related papers the writer stored for these papers, best first, each as the archive pages list a paper
    (db/archive.py); a paper no longer done (or gone) is left out."""
    with reading(db_path) as db:
        if "related" not in db.table_names() or not arxiv_ids:
            return {}
        stored = list(
            db.query(
                "select arxiv_id, other from related where arxiv_id in (select value from json_each(?)) "
                "order by arxiv_id, rank",
                [json.dumps(arxiv_ids)],
            )
        )
        others = json.dumps(sorted({r["other"] for r in stored}))
        listed = {
            r["arxiv_id"]: r
            for r in db.query(
                f"select {listed_columns(db)} from papers p where p.status = 'done' "
                "and p.arxiv_id in (select value from json_each(?))",
                [others],
            )
        }
        found: dict[str, list[dict[str, Any]]] = {}
        for row in stored:
            if row["other"] in listed:
                found.setdefault(row["arxiv_id"], []).append(listed[row["other"]])
        return found


def days_relating(db_path: str | Path, arxiv_ids: list[str]) -> set[str]:
    """The dates of the papers whose stored related papers include one of these (whose pages link to them)."""
    with reading(db_path) as db:
        if "related" not in db.table_names() or not arxiv_ids:
            return set()
        sql = (
            "select distinct p.date from related r join papers p on p.arxiv_id = r.arxiv_id "
            "where r.other in (select value from json_each(?))"
        )
        return {r["date"] for r in db.query(sql, [json.dumps(arxiv_ids)])}
