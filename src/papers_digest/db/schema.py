"""The database's tables, keys and column types, defined once (the writer creates them, readers name them)."""

from __future__ import annotations

import typing

import sqlite_utils

from papers_digest.core.models import CallRecord

TABLES = ("papers", "digests", "llm_calls", "runs", "day_items")
CALL_KEY = ("date", "arxiv_id", "stage", "attempt", "retry")


def ensure_schema(db: sqlite_utils.Database) -> None:
    """Create the tables other tools read, with their key columns, if they do not exist yet."""
    db["papers"].create(
        {"arxiv_id": str, "date": str, "title": str, "upvotes": int, "status": str, "error": str},
        pk="arxiv_id",
        if_not_exists=True,
    )
    db["digests"].create(
        {"arxiv_id": str, "lang": str, "date": str, "digest": str},
        pk=("arxiv_id", "lang"),
        if_not_exists=True,
    )
    # Every column typed up front: sqlite-utils would guess TEXT for a column that is null in the first rows.
    db["llm_calls"].create(_column_types(CallRecord), pk=CALL_KEY, if_not_exists=True)
    db["runs"].create(
        {"date": str, "papers": int, "prompt_tokens": int, "completion_tokens": int, "elapsed_s": float},
        pk="date",
        if_not_exists=True,
    )
    db["day_items"].create(
        {"date": str, "arxiv_id": str, "title": str, "upvotes": int, "rank": int, "picked": bool},
        pk=("date", "arxiv_id"),
        if_not_exists=True,
    )
    db["llm_calls"].create_index(["arxiv_id"], if_not_exists=True)
    db["papers"].create_index(["date"], if_not_exists=True)


def _column_types(model: type[CallRecord]) -> dict[str, type]:
    """Column types from the model's fields (`int | None` -> int; Literal and str -> str)."""
    types: dict[str, type] = {}
    for name, info in model.model_fields.items():
        options = typing.get_args(info.annotation) or (info.annotation,)
        types[name] = next((t for t in (bool, int, float) if t in options), str)
    return types


