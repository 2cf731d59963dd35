"""The database as pandas frames for the exploration notebook: a day's digests, search, side by side, trends."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pandas as pd

from papers_digest.db.schema import TABLES
from papers_digest.report.tables import source_label


def load_db(db_path: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of papers.db as a frame; digests get `doc`, the digest parsed from its JSON text."""
    path = Path(db_path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: not found (run the pipeline first: `make sample` or `papers daily`)")
    with closing(sqlite3.connect(path)) as conn:
        names = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
        tables = {t: pd.read_sql_query(f"select * from {t}", conn) for t in TABLES if t in names}
    digests = tables.get("digests", pd.DataFrame(columns=["arxiv_id", "lang", "date", "digest"]))
    digests["doc"] = [json.loads(text) for text in digests["digest"]]
    tables["digests"] = digests
    return tables


def latest_date(tables: dict[str, pd.DataFrame]) -> str | None:
    runs = tables.get("runs")
    return None if runs is None or runs.empty else str(runs["date"].max())


def day_digests(tables: dict[str, pd.DataFrame], date: str) -> pd.DataFrame:
    """The papers of a date with their outcome and the one-sentence summary in both languages."""
    papers = tables["papers"]
    papers = papers[papers["date"] == date]
    table = papers[["arxiv_id", "title", "upvotes", "status", "fulltext_source", "error"]].copy()
    table["model_saw"] = [source_label(s) for s in table.pop("fulltext_source")]
    for lang in ("en", "zh"):
        sentences = {r.arxiv_id: r.doc.get("one_sentence") for r in _digests(tables, lang).itertuples()}
        table[f"one_sentence_{lang}"] = table["arxiv_id"].map(sentences)
    return table.sort_values("upvotes", ascending=False, kind="stable").reset_index(drop=True)


def search(tables: dict[str, pd.DataFrame], term: str) -> pd.DataFrame:
    """Papers whose title or a digest finding (either language) contains `term`, case-insensitive."""
    needle = term.casefold()
    papers = tables["papers"].set_index("arxiv_id")
    hits = []
    for row in papers.itertuples():
        if needle in str(row.title).casefold():
            hits.append(
                {"arxiv_id": row.Index, "date": row.date, "title": row.title, "where": "title", "text": row.title}
            )
    for digest in tables["digests"].itertuples():
        for result in digest.doc.get("results", []):
            finding = str(result.get("finding", ""))
            if needle in finding.casefold():
                hits.append(
                    {
                        "arxiv_id": digest.arxiv_id,
                        "date": digest.date,
                        "title": papers["title"].get(digest.arxiv_id),
                        "where": f"finding ({digest.lang})",
                        "text": finding,
                    }
                )
    return pd.DataFrame(hits, columns=["arxiv_id", "date", "title", "where", "text"])


def side_by_side(tables: dict[str, pd.DataFrame], arxiv_id: str) -> pd.DataFrame:
    """A paper's English and Chinese digests field by field (results and lists item by item)."""
    docs = {lang: _digests(tables, lang).set_index("arxiv_id")["doc"].get(arxiv_id) for lang in ("en", "zh")}
    if docs["en"] is None:
        raise KeyError(f"{arxiv_id}: no English digest in the database")
    rows = []
    for field, value in docs["en"].items():
        if field == "mind_map":
            continue
        other = (docs["zh"] or {}).get(field)
        if isinstance(value, list):
            for i, item in enumerate(value):
                zh_item = other[i] if isinstance(other, list) and i < len(other) else None
                if isinstance(item, dict):
                    rows.append((f"{field}[{i}]", item.get("finding", ""), (zh_item or {}).get("finding")))
                else:
                    rows.append((f"{field}[{i}]", item, zh_item))
        else:
            rows.append((field, value, other))
    return pd.DataFrame(rows, columns=["field", "en", "zh"]).set_index("field")


def daily_trends(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per date, from the `runs` table: papers, failure rate, calls and tokens per paper."""
    runs = tables["runs"].sort_values("date").set_index("date")
    trends = runs[["papers", "papers_done", "papers_failed", "llm_calls", "prompt_tokens", "completion_tokens"]].copy()
    papers = trends["papers"].where(trends["papers"] > 0)
    trends["failure_rate"] = (trends["papers_failed"] / papers).fillna(0.0)
    trends["tokens_per_paper"] = ((trends["prompt_tokens"] + trends["completion_tokens"]) / papers).fillna(0.0)
    return trends


def _digests(tables: dict[str, pd.DataFrame], lang: str) -> pd.DataFrame:
    digests = tables["digests"]
    return digests[digests["lang"] == lang]
