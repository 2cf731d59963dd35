"""Each paper's related papers, as the writer stored them when its day was written (docs/site.md, "Related papers")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from papers_digest.db.related import related_rows
from papers_digest.site.archive import ListedPaper, listed_paper


def related_papers(db: Path, arxiv_ids: Iterable[str]) -> dict[str, tuple[ListedPaper, ...]]:
    """For each of these papers, its related papers as listed (db/writer.py `relate` found them by TF-IDF over the
    digests' terms, day/terms.py): a page is rendered with them at once, whatever the size of the archive."""
    return {
        paper: tuple(listed_paper(r) for r in rows) for paper, rows in related_rows(db, sorted(set(arxiv_ids))).items()
    }
