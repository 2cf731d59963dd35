"""The `llm_calls` table keeps every call: asked in steps, one attempt (a round) makes a call per part, so a call
is keyed by its start too, and a database keyed before that is rekeyed when it is opened for writing."""

from __future__ import annotations

import sqlite_utils

from papers_digest.db.schema import CALL_KEY, call_columns, ensure_schema

OLD_KEY = ("date", "arxiv_id", "stage", "attempt", "retry")


def _call(started_at: float) -> dict:
    return {"date": "2025-04-03", "arxiv_id": "2504.00999", "stage": "digest_en", "attempt": 1, "retry": 0,
            "status": "ok", "started_at": started_at, "ended_at": started_at + 1, "latency_s": 1.0}  # fmt: skip


def test_two_calls_of_one_round_are_two_rows(tmp_path):
    db = sqlite_utils.Database(tmp_path / "papers.db")
    ensure_schema(db)
    db["llm_calls"].insert_all([_call(1.0), _call(2.0)], pk=CALL_KEY, replace=True)
    assert db["llm_calls"].count == 2


def test_a_database_keyed_before_steps_is_rekeyed_with_its_rows(tmp_path):
    db = sqlite_utils.Database(tmp_path / "papers.db")
    db["llm_calls"].create(call_columns(), pk=OLD_KEY)
    db["llm_calls"].insert(_call(1.0))
    ensure_schema(db)
    assert (db["llm_calls"].pks, db["llm_calls"].count) == (list(CALL_KEY), 1)
