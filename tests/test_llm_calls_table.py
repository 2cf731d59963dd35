"""The `llm_calls` table keeps every call: a translation asked unit by unit (and a digest asked in steps) makes
many calls of one attempt, each its own row, numbered within its paper's stage (db/rows.py, db/schema.py)."""

from __future__ import annotations

import sqlite_utils
from readers_archive import day_files

from papers_digest.day.metrics import run_record
from papers_digest.db.schema import CALL_KEY, ensure_schema
from papers_digest.db.writer import write_day

DATE = "2025-04-01"


def units_of_one_attempt(date: str = DATE):
    """A day whose first paper's translation made five calls, all of its first round (attempt 1)."""
    files = day_files(date)
    paper = next(iter(files.chinese))
    first = files.chinese[paper].calls[0]
    calls = [first.model_copy(update={"status": "ok", "started_at": first.started_at + i}) for i in range(5)]
    files.chinese[paper] = files.chinese[paper].model_copy(update={"calls": calls})
    return files, paper


def test_every_call_of_a_translation_asked_unit_by_unit_is_a_row(tmp_path):
    files, paper = units_of_one_attempt()
    write_day(tmp_path / "papers.db", files, run_record(files))
    rows = sqlite_utils.Database(tmp_path / "papers.db").query(
        "select call from llm_calls where arxiv_id = ? and stage = 'translate_zh' order by call", [paper]
    )
    assert [r["call"] for r in rows] == [0, 1, 2, 3, 4]


def test_a_database_keyed_by_attempt_is_rekeyed_by_call_and_keeps_its_rows(tmp_path):
    db = sqlite_utils.Database(tmp_path / "papers.db")
    old = {"date": DATE, "arxiv_id": "2504.00001", "stage": "digest_en", "attempt": 1, "retry": 0, "status": "ok"}
    db["llm_calls"].insert(old, pk=("date", "arxiv_id", "stage", "attempt", "retry"))
    ensure_schema(db)
    assert (db["llm_calls"].pks, db["llm_calls"].count) == (list(CALL_KEY), 1)
