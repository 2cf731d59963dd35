"""Each paper's related papers in the archive, by TF-IDF over the digests' terms (docs/site.md, "Related papers")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from papers_digest.day.terms import query_weights
from papers_digest.db.related import best_scored, stored_terms
from papers_digest.site.archive import ListedPaper, listed_paper

RELATED_PAPERS = 5  # a paper page lists at most this many


def related_papers(
    db: Path, arxiv_ids: Iterable[str], limit: int = RELATED_PAPERS
) -> dict[str, tuple[ListedPaper, ...]]:
    """For each of these papers that has stored terms (a done paper), the `limit` done papers of the whole archive
    whose digests are nearest to its own: its best terms by TF-IDF (day/terms.py) scored against every other
    paper's stored terms in one SQL query. Reads the stored rows of the terms these papers hold, never the archive's
    text (db/related.py)."""
    weights, df, documents = stored_terms(db, sorted(set(arxiv_ids)))
    queries = {paper: query_weights(terms, df, documents) for paper, terms in weights.items()}
    return {paper: tuple(listed_paper(row) for row in rows) for paper, rows in best_scored(db, queries, limit).items()}
