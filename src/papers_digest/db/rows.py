"""A day's files -> the rows of each table (pure): what the writer upserts and the report shows."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from typing import Any

from papers_digest.core.models import GenerationResult, Paper
from papers_digest.day.areas import paper_areas
from papers_digest.day.files import LANG_OF_STAGE, DayFiles, model_saw, paper_outcome
from papers_digest.day.terms import digest_words, term_weights


def paper_rows(files: DayFiles) -> list[dict[str, Any]]:
    rows = []
    by_id = {p.arxiv_id: p for p in [*files.day.papers, *files.day.backfill]}
    for arxiv_id in files.day.picked:
        paper = by_id[arxiv_id]
        doc = files.fulltext.get(arxiv_id)
        english = files.english.get(arxiv_id)
        status, error = paper_outcome(files, arxiv_id)
        source, dropped = model_saw(files, arxiv_id)
        rows.append(
            {
                "arxiv_id": arxiv_id,
                "date": files.day.date,
                **listing_columns(paper),
                "status": status,
                "error": error,
                "version": doc.version if doc else None,
                "fulltext_source": source,
                "fulltext_dropped": json.dumps(dropped) if dropped else None,
                "fulltext_tokens": (english.refit_tokens if english else None) or (doc.tokens if doc else None),
                "fulltext_reason": doc.reason if doc else None,
                "model": english.model if english else None,
                "prompt_version": english.prompt_version if english else None,
                # For the site: links to each cited section, and when the digest was written.
                "sections": json.dumps(
                    [s.model_dump(include={"tag", "title", "anchor"}) for s in doc.sections], ensure_ascii=False
                )
                if doc
                else None,
                "generated_at": generated_at(english),
                "backfilled_from": files.day.backfill_from.get(arxiv_id),
            }
        )
    return rows


def listing_columns(paper: Paper) -> dict[str, Any]:
    """What Hugging Face's listing says of a paper, as the columns `papers` and `day_items` share (db/schema.py
    LISTING_COLUMNS), with its areas (day/areas.py); null where the listing gives nothing."""
    return {
        "title": paper.title,
        "upvotes": paper.upvotes,
        "authors": json.dumps(paper.authors, ensure_ascii=False),
        "summary": paper.summary,
        "ai_summary": paper.ai_summary,
        "keywords": json.dumps(paper.ai_keywords, ensure_ascii=False) if paper.ai_keywords else None,
        "areas": json.dumps(paper_areas(paper.title, paper.ai_keywords, paper.summary)),
        "github_repo": paper.github_repo,
        "github_stars": paper.github_stars,
        "project_page": paper.project_page,
        "organization": paper.organization.model_dump_json() if paper.organization else None,
        "thumbnail": paper.thumbnail,
        "comments": paper.comments,
        "published_at": paper.published_at,
    }


def generated_at(result: GenerationResult | None) -> str | None:
    """When a digest was generated (ISO-8601 UTC): its last call's end, preferring real HTTP answers."""
    if result is None or not result.calls:
        return None
    # A call answered from the store is stamped with the rerun's time, not the original answer's.
    answered = [c for c in result.calls if not c.from_store] or result.calls
    ended = max(c.ended_at for c in answered)
    return dt.datetime.fromtimestamp(ended, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def digest_rows(files: DayFiles) -> list[dict[str, Any]]:
    rows = []
    for stage, results in (("digest_en", files.english), ("translate_zh", files.chinese)):
        for result in results.values():
            if result.status == "done" and result.digest is not None:
                rows.append(
                    {
                        "arxiv_id": result.arxiv_id,
                        "lang": LANG_OF_STAGE[stage],
                        "date": files.day.date,
                        "digest": json.dumps(result.digest, ensure_ascii=False),
                        "evidence": evidence_json(result),
                        "model": result.model,
                        "prompt_version": result.prompt_version,
                    }
                )
    return rows


def evidence_json(result: GenerationResult) -> str | None:
    """An English result's evidence as JSON text, one list per digest result (db/schema.py `evidence`);
    None for a Chinese result or one written before evidence was recorded."""
    if result.stage != "digest_en" or not result.evidence:
        return None
    return json.dumps([[e.model_dump() for e in found] for found in result.evidence], ensure_ascii=False)


def term_rows(arxiv_id: str, title: str, digest_json: str | None) -> list[dict[str, Any]]:
    """A done paper's `paper_terms` rows: each term of its title and English digest with its weight (day/terms.py);
    none when the stored digest is not a JSON object."""
    try:
        digest = json.loads(digest_json or "")
    except json.JSONDecodeError:
        return []
    if not isinstance(digest, dict):
        return []
    weights = term_weights(digest_words(title, digest))
    return [{"term": term, "arxiv_id": arxiv_id, "weight": weight} for term, weight in weights.items()]


def call_rows(files: DayFiles) -> list[dict[str, Any]]:
    """The day's LLM calls as `llm_calls` rows: `checker_rules` as JSON text (`[]` when none broke), `call` the
    call's place among its paper's calls of the stage (from 0, in the order they were made)."""
    made: Counter[tuple[str, str]] = Counter()
    rows = []
    for c in files.calls:
        rows.append(
            c.model_dump() | {"checker_rules": json.dumps(c.checker_rules), "call": made[(c.arxiv_id, c.stage)]}
        )
        made[(c.arxiv_id, c.stage)] += 1
    return rows


def day_item_rows(files: DayFiles) -> list[dict[str, Any]]:
    ranked = sorted(files.day.papers, key=lambda p: (-p.upvotes, p.arxiv_id))
    picked = set(files.day.picked)
    return [
        {
            "date": files.day.date,
            "arxiv_id": p.arxiv_id,
            **listing_columns(p),
            "rank": rank,
            "picked": p.arxiv_id in picked,
            "excluded_since": files.day.excluded.get(p.arxiv_id),
        }
        for rank, p in enumerate(ranked, start=1)
    ]
