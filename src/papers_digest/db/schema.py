"""The database's tables, keys and column types, defined once (the writer creates them, readers name them)."""

from __future__ import annotations

import typing

from papers_digest.core.models import CallRecord
from papers_digest.db.published import PUBLISHED_COLUMNS, PUBLISHED_TABLE
from papers_digest.db.sqlite_library import sqlite_utils

TABLES = ("papers", "digests", "llm_calls", "runs", "day_items")  # paper_terms is the related papers' index
# A call's place among its paper's calls of one stage (`call`, db/rows.py): a digest asked in steps and a
# translation asked unit by unit make many calls of one attempt.
CALL_KEY = ("date", "arxiv_id", "stage", "call")
# JSON text columns: sqlite-utils would write a list as JSON itself, but the rows spell it out (db/rows.py).
DIGEST_COLUMNS: dict[str, type] = {
    "arxiv_id": str,
    "lang": str,
    "date": str,
    "digest": str,  # the digest's JSON object
    # English rows: for each result, where each of its numbers stands in a cited section, as JSON
    # `[[{"number", "section", "sentence"}, …], …]` (core/models.py Evidence); null for Chinese rows.
    "evidence": str,
}


# What Hugging Face's listing says of a paper (db/rows.py listing_columns), in `papers` and `day_items` alike: the
# day's pages show every listed paper (#39). JSON lists and objects as text; null where the listing gives none.
LISTING_COLUMNS: dict[str, type] = {
    "title": str,
    "upvotes": int,
    "authors": str,  # JSON list
    "summary": str,  # the abstract
    "ai_summary": str,  # Hugging Face's one-sentence summary
    "keywords": str,  # JSON list: HF's ai_keywords as written
    "areas": str,  # JSON list of area slugs (day/areas.py), best first; "[]" when none
    "github_repo": str,
    "github_stars": int,
    "project_page": str,
    "organization": str,  # JSON {"name", "fullname"}: the HF organisation the paper is listed under
    "thumbnail": str,  # HF's thumbnail of the paper (an image URL)
    "comments": int,  # comments on its HF page
    "published_at": str,  # when arXiv published it (ISO-8601), as Hugging Face lists it: the citation's date
}
DAY_ITEM_COLUMNS: dict[str, type] = {
    "date": str,
    "arxiv_id": str,
    **LISTING_COLUMNS,
    "rank": int,  # by upvotes, then arXiv id
    "picked": bool,
    "excluded_since": str,  # the earlier date it was digested on, when that kept it from being picked
}


# Every column of `papers` typed up front: the list stage queries them (the retry queue) also on a database
# whose days so far had no paper, where sqlite-utils would not have added them yet.
PAPER_COLUMNS: dict[str, type] = {
    "arxiv_id": str,
    "date": str,
    **LISTING_COLUMNS,
    "status": str,  # done | failed
    "error": str,
    "version": int,
    "fulltext_source": str,  # html | trimmed | abstract
    "fulltext_dropped": str,  # JSON list of section tags
    "fulltext_tokens": int,
    "fulltext_reason": str,
    "model": str,
    "prompt_version": str,
    "sections": str,  # JSON list of {tag, title, anchor}
    "generated_at": str,
    "backfilled_from": str,
}


def ensure_schema(db: sqlite_utils.Database) -> None:
    """Create the tables other tools read, with their key columns, if they do not exist yet, and add the
    typed columns a database written by an older version lacks."""
    db["papers"].create(PAPER_COLUMNS, pk="arxiv_id", if_not_exists=True)
    db["digests"].create(DIGEST_COLUMNS, pk=("arxiv_id", "lang"), if_not_exists=True)
    # Every column typed up front: sqlite-utils would guess TEXT for a column that is null in the first rows.
    db["llm_calls"].create(call_columns(), pk=CALL_KEY, if_not_exists=True)
    if list(db["llm_calls"].pks) != list(CALL_KEY):  # a database written before calls were numbered
        _add_missing_columns(db, "llm_calls", call_columns())
        db["llm_calls"].transform(pk=CALL_KEY)
    db["runs"].create(
        {"date": str, "papers": int, "prompt_tokens": int, "completion_tokens": int, "elapsed_s": float},
        pk="date",
        if_not_exists=True,
    )
    db["day_items"].create(DAY_ITEM_COLUMNS, pk=("date", "arxiv_id"), if_not_exists=True)
    db[PUBLISHED_TABLE].create(PUBLISHED_COLUMNS, pk="date", if_not_exists=True)
    # A done paper's terms and their weights (day/terms.py), for its related papers (db/related.py): keyed by
    # term first, without a rowid, so a term's papers are one range of the table and nothing more is stored.
    db.execute(
        "create table if not exists paper_terms (term text not null, arxiv_id text not null, weight real not null, "
        "primary key (term, arxiv_id)) without rowid"
    )
    db["paper_terms"].create_index(["arxiv_id"], if_not_exists=True)
    # Each done paper's related papers, best first (rank 1-5), as found when its day was written (db/writer.py).
    related = {"arxiv_id": str, "rank": int, "other": str, "score": float}
    db["related"].create(related, pk=("arxiv_id", "rank"), if_not_exists=True)
    _add_missing_columns(db, "papers", PAPER_COLUMNS)
    _add_missing_columns(db, "digests", DIGEST_COLUMNS)
    _add_missing_columns(db, "day_items", DAY_ITEM_COLUMNS)
    _add_missing_columns(db, "llm_calls", call_columns())
    db["llm_calls"].create_index(["arxiv_id"], if_not_exists=True)
    db["papers"].create_index(["date"], if_not_exists=True)
    db["day_items"].create_index(["arxiv_id"], if_not_exists=True)  # a paper's latest listing (db/archive.py)


def call_columns() -> dict[str, type]:
    """The `llm_calls` columns and types, from CallRecord's fields, and the call's number (CALL_KEY)."""
    return {**_column_types(CallRecord), "call": int}


def _column_types(model: type[CallRecord]) -> dict[str, type]:
    """Column types from the model's fields (`int | None` -> int; Literal and str -> str; a list or a dict,
    such as `checker_rules`, -> str: it is stored as JSON text)."""
    types: dict[str, type] = {}
    for name, info in model.model_fields.items():
        options = typing.get_args(info.annotation) or (info.annotation,)
        if any(typing.get_origin(t) in (list, dict) for t in (info.annotation, *options)):
            types[name] = str
        else:
            types[name] = next((t for t in (bool, int, float) if t in options), str)
    return types


def _add_missing_columns(db: sqlite_utils.Database, table: str, columns: dict[str, type]) -> None:
    """Add the declared columns a table made by an older version lacks, with their declared types."""
    have = db[table].columns_dict
    for name, kind in columns.items():
        if name not in have:
            db[table].add_column(name, kind)
