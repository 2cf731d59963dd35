"""The read queries of the archive pages: papers by area, area counts, top papers, recent papers, areas by week."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from papers_digest.db.reading import reading
from papers_digest.db.sqlite_library import sqlite_utils

# A paper's areas as a JSON array for json_each, whatever the column holds.
_AREAS = "json_each(case when json_valid(p.areas) then p.areas else '[]' end) t"


def _shown(columns: str = "areas, upvotes", between: bool = False) -> str:
    """Every paper the archive shows in its areas, as a subquery: those picked (`papers`, one row each, `picked` 1),
    and those Hugging Face listed but no day picked (`day_items`, the latest day that listed each, `picked` 0), so an
    area page lists every paper of its area; with `between`, only those of the dates between two parameters, each
    pair given twice (the bound keeps a query over recent weeks from reading the whole archive)."""
    dates = "and {}date between ? and ? " if between else ""
    return (
        f"(select arxiv_id, date, 1 as picked, {columns} from papers p where 1 {dates.format('p.')}union all "
        f"select d.arxiv_id, d.date, 0, {columns} from day_items d where 1 {dates.format('d.')}"
        "and not exists (select 1 from papers x where x.arxiv_id = d.arxiv_id) "
        "and d.date = (select max(y.date) from day_items y where y.arxiv_id = d.arxiv_id))"
    )


_SHOWN = _shown()


def listed_columns(db: sqlite_utils.Database, table: str = "papers") -> str:
    """The columns the archive pages list a paper with (and cite it by: its authors, arXiv's date); each digest's
    one-sentence summary (and the Chinese title, when the translation has one) read in SQL. A `day_items` row is a
    paper no day picked: `listed`."""
    dated = "p.published_at" if "published_at" in db[table].columns_dict else "null as published_at"
    if table == "day_items":
        return (
            f"p.arxiv_id, p.date, p.title, p.upvotes, p.authors, {dated}, 'listed' as status, null as generated_at, "
            "null as en, null as zh"
        )
    columns = f"p.arxiv_id, p.date, p.title, p.upvotes, p.authors, {dated}, p.status, p.generated_at"
    if "digests" not in db.table_names():
        return f"{columns}, null as en, null as zh, null as title_zh"
    one = "(select json_extract(d.digest, '$.one_sentence') from digests d where d.arxiv_id = p.arxiv_id and d.lang = "
    title = "(select json_extract(d.digest, '$.title') from digests d where d.arxiv_id = p.arxiv_id and d.lang = 'zh')"
    return f"{columns}, {one}'en') as en, {one}'zh') as zh, {title} as title_zh"


@contextmanager
def _db(db_path: str | Path, column: str = "areas") -> Iterator[sqlite_utils.Database | None]:
    """The database when `papers` and `day_items` have `column` (an older one, not yet upgraded, may not)."""
    with reading(db_path) as db:
        tables = db.table_names()
        yield None if any(t not in tables or column not in db[t].columns_dict for t in ("papers", "day_items")) else db


def areas_on(db_path: str | Path, date: str) -> set[str]:
    """The areas of the papers a date picked or listed."""
    with _db(db_path) as db:
        if db is None:
            return set()
        sql = (
            f"select distinct t.value as area from (select areas from papers where date = ? union all "
            f"select areas from day_items where date = ?) p, {_AREAS}"
        )
        return {r["area"] for r in db.query(sql, [date, date]) if isinstance(r["area"], str)}


def papers_by_area(
    db_path: str | Path, areas: list[str] | None, limit: int
) -> dict[str, tuple[int, list[dict[str, Any]]]]:
    """Per area (all of them when `areas` is None): how many papers it has, picked or only listed, and the latest
    `limit` of them (newest date first, then by upvotes and arXiv id). One pass over the papers' area lists."""
    with _db(db_path) as db:
        if db is None or areas == []:
            return {}
        wanted = "where t.value in (select value from json_each(?))" if areas is not None else ""
        # Rank first, then read the kept papers' columns and summaries once each: an area has thousands of papers,
        # and a paper is kept on the pages of several areas (its summaries are read from its digest's JSON).
        ranked = (
            "select p.arxiv_id as id, p.date, t.value as area, count(*) over area as total, "
            "row_number() over (area order by p.date desc, coalesce(p.upvotes, 0) desc, p.arxiv_id) as n "
            f"from {_SHOWN} p, {_AREAS} {wanted} window area as (partition by t.value)"
        )
        sql = f"select r.id, r.date, r.area, r.total from ({ranked}) r where r.n <= ? order by r.area, r.n"
        kept = list(db.query(sql, [json.dumps(areas), limit] if areas is not None else [limit]))
        ids = json.dumps(sorted({r["id"] for r in kept}))
        papers = {
            r["arxiv_id"]: r
            for r in db.query(
                f"select {listed_columns(db)} from papers p where p.arxiv_id in (select value from json_each(?))", [ids]
            )
        }
        listed = json.dumps(sorted({(r["id"], r["date"]) for r in kept if r["id"] not in papers}))
        for r in db.query(
            f"select {listed_columns(db, 'day_items')} from day_items p, json_each(?) k "
            "where p.arxiv_id = json_extract(k.value, '$[0]') and p.date = json_extract(k.value, '$[1]')",
            [listed],
        ):
            papers[r["arxiv_id"]] = r
        found: dict[str, tuple[int, list[dict[str, Any]]]] = {}
        for row in kept:
            found.setdefault(row["area"], (row["total"], []))[1].append(papers[row["id"]])
        return found


def area_counts(db_path: str | Path) -> list[dict[str, Any]]:
    """Every area with a paper, picked or only listed: how many papers and their latest date, most papers first,
    then by slug."""
    with _db(db_path) as db:
        if db is None:
            return []
        sql = (
            f"select t.value as area, count(*) as papers, max(p.date) as latest from {_SHOWN} p, {_AREAS} "
            "where t.type = 'text' group by t.value order by papers desc, area"
        )
        return list(db.query(sql))


def top_papers(db_path: str | Path, start: str, end: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The dates from `start` to `end` (inclusive) with papers, and their top `limit` papers by upvotes (ties
    to the lower arXiv id)."""
    with reading(db_path) as db:
        if "papers" not in db.table_names():
            return 0, []
        days = next(db.query("select count(distinct date) as n from papers where date between ? and ?", [start, end]))
        rows = db.query(
            f"select {listed_columns(db)} from papers p where p.date between ? and ? "
            "order by coalesce(p.upvotes, 0) desc, p.arxiv_id limit ?",
            [start, end, limit],
        )
        return days["n"], list(rows)


def recent_papers(db_path: str | Path, start: str, end: str) -> list[dict[str, Any]]:
    """Every paper the archive shows from `start` to `end` (inclusive), newest date first, then by upvotes and arXiv
    id: its title (and the translation's title, when it has one), authors, Hugging Face's keywords and areas (JSON
    text, as stored), and `picked` (1: it has a page of its own): what a reader's follows are matched against."""
    with _db(db_path) as db:
        if db is None:
            return []
        title_zh = "null"
        if "digests" in db.table_names():
            title_zh = (
                "(select json_extract(g.digest, '$.title') from digests g "
                "where g.arxiv_id = s.arxiv_id and g.lang = 'zh' and s.picked)"
            )
        shown = _shown("title, upvotes, authors, keywords, areas", between=True)
        sql = (
            f"select s.arxiv_id, s.date, s.picked, s.title, s.authors, s.keywords, s.areas, {title_zh} as title_zh "
            f"from {shown} s order by s.date desc, coalesce(s.upvotes, 0) desc, s.arxiv_id"
        )
        return list(db.query(sql, [start, end, start, end]))


def area_weeks(db_path: str | Path, start: str, end: str) -> list[dict[str, Any]]:
    """Papers per area per ISO week (`week`: its Monday) from `start` to `end`, each paper the archive shows counted
    once in each of its areas; and per week, with `area` null, its papers and the dates that had any (`days`). One
    aggregate query over those dates only."""
    with _db(db_path) as db:
        if db is None:
            return []
        week = "date(p.date, 'weekday 0', '-6 days')"  # a date's Sunday, less six days: its ISO week's Monday
        sql = (
            f"with p as {_shown('areas', between=True)} "
            f"select {week} as week, t.value as area, count(*) as papers, null as days from p, {_AREAS} "
            "where t.type = 'text' group by week, area union all "
            f"select {week}, null, count(*), count(distinct p.date) from p group by 1 order by week, area"
        )
        return list(db.query(sql, [start, end, start, end]))
