"""A day's publish fingerprint in papers.db, read with the standard library: all that a no-op publish costs."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

PUBLISHED_TABLE = "published"  # date -> the fingerprint of the files it was last published from
PUBLISHED_COLUMNS = {"date": str, "fingerprint": str}


def published_fingerprint(db_path: str | Path, date: str) -> str | None:
    """The fingerprint `date` was last published with, or None (no database, an older one, not published)."""
    path = Path(db_path)
    if not path.is_file():
        return None
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        try:
            row = conn.execute(f"select fingerprint from {PUBLISHED_TABLE} where date = ?", [date]).fetchone()
        except sqlite3.OperationalError:  # a database written before the table existed
            return None
    return row[0] if row else None
