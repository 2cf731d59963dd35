"""papers.db opened for reading: by one query function, and closed when it returns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from papers_digest.db.sqlite_library import sqlite_utils


@contextmanager
def reading(db_path: str | Path) -> Iterator[sqlite_utils.Database]:
    """The database for one function's queries, closed at its end. Left to the garbage collector, an open
    connection keeps the write-ahead log from being folded back, and a plain copy of papers.db then misses the
    latest writes (docs/database.md, "Reading while the pipeline writes")."""
    db = sqlite_utils.Database(Path(db_path))
    try:
        yield db
    finally:
        db.close()
