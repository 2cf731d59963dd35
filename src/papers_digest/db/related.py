"""The read queries of related papers: papers' stored terms, how many papers hold each, the best-scored others."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlite_utils

from papers_digest.db.archive import listed_columns

ScoreQuery = Mapping[str, Mapping[str, float]]  # a paper -> its query terms and their weights (day/terms.py)


def _db(db_path: str | Path) -> sqlite_utils.Database | None:
    db = sqlite_utils.Database(Path(db_path))
    return db if {"paper_terms", "papers"} <= set(db.table_names()) else None


def stored_terms(db_path: str | Path, arxiv_ids: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, int], int]:
    """These papers' stored terms and weights; how many papers hold each of those terms; how many papers have terms
    at all. Each term's papers are one range of the table: the cost is the papers holding these terms, not the
    archive."""
    db = _db(db_path)
    if db is None or not arxiv_ids:
        return {}, {}, 0
    weights: dict[str, dict[str, float]] = {}
    for row in db.query(
        "select arxiv_id, term, weight from paper_terms where arxiv_id in (select value from json_each(?))",
        [json.dumps(arxiv_ids)],
    ):
        weights.setdefault(row["arxiv_id"], {})[row["term"]] = row["weight"]
    terms = json.dumps(sorted({t for w in weights.values() for t in w}))
    df = {
        row["term"]: row["n"]
        for row in db.query(
            "select term, count(*) as n from paper_terms where term in (select value from json_each(?)) group by term",
            [terms],
        )
    }
    documents = next(db.query("select count(*) as n from papers where status = 'done'"))["n"]
    return weights, df, documents


def best_scored(db_path: str | Path, queries: ScoreQuery, limit: int) -> dict[str, list[dict[str, Any]]]:
    """For each paper, the `limit` other done papers of highest score (the sum, over its query terms, of the term's
    query weight times the other paper's stored weight), best first, ties to the lower arXiv id; each as the
    archive pages list a paper (db/archive.py), with its `score`."""
    db = _db(db_path)
    pairs = [[paper, term, weight] for paper, terms in queries.items() for term, weight in terms.items()]
    if db is None or not pairs:
        return {}
    scored = (
        "select json_extract(q.value, '$[0]') as paper, t.arxiv_id as other, "
        "sum(json_extract(q.value, '$[2]') * t.weight) as score "
        "from json_each(?) q join paper_terms t on t.term = json_extract(q.value, '$[1]') "
        "where t.arxiv_id != json_extract(q.value, '$[0]') group by paper, other"
    )
    ranked = (
        f"select paper, other, score, row_number() over (partition by paper order by score desc, other) as n "
        f"from ({scored})"
    )
    best = list(
        db.query(
            f"select paper, other, score from ({ranked}) where n <= ? order by paper, n", [json.dumps(pairs), limit]
        )
    )
    others = json.dumps(sorted({r["other"] for r in best}))
    listed = {
        r["arxiv_id"]: r
        for r in db.query(
            f"select {listed_columns(db)} from papers p where p.arxiv_id in (select value from json_each(?))", [others]
        )
    }
    found: dict[str, list[dict[str, Any]]] = {}
    for row in best:
        if row["other"] in listed:
            found.setdefault(row["paper"], []).append({**listed[row["other"]], "score": row["score"]})
    return found
