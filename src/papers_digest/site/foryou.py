"""The For you page's data: the recent papers a reader's follows are matched against in the browser, as JSON (pure)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from typing import Any

from papers_digest.site.tex import tex_text
from papers_digest.site.views import listed_fields

FOR_YOU_DAYS = 30  # the For you page gathers the followed papers of the latest 30 days
FOR_YOU_FILE = "foryou.json"  # written next to foryou.html at every publish (follow.js reads it)


def for_you_window(latest: str) -> tuple[str, str]:
    """The first and the last date of the For you page: the FOR_YOU_DAYS days up to the latest published one."""
    end = dt.date.fromisoformat(latest)
    return (end - dt.timedelta(days=FOR_YOU_DAYS - 1)).isoformat(), end.isoformat()


def for_you_json(rows: Iterable[Mapping[str, Any]], start: str, end: str) -> str:
    """db/archive.py recent_papers rows -> foryou.json: per paper its id, date, title (LaTeX as text) and the
    translation's title when it has one, areas, Hugging Face's keywords, authors and its path in the site (its page,
    or its entry on its day's page); the names of the areas they have, in English and Chinese. Compact: a month of
    papers is read by the browser at once."""
    papers, names = [], {}
    for row in rows:
        fields = listed_fields(row, 0)
        links = fields["links"]
        picked, arxiv_id = bool(row.get("picked")), fields["arxiv_id"]
        paper: dict[str, Any] = {"id": arxiv_id, "date": fields["date"], "title": tex_text(fields["title"])}
        title_zh = row.get("title_zh")
        if isinstance(title_zh, str) and title_zh.strip():
            paper["title_zh"] = tex_text(" ".join(title_zh.split()))
        paper |= {
            "areas": [a.slug for a in links.areas],
            "keywords": list(links.keywords),
            "authors": list(fields["authors"]),
            "path": f"{fields['date']}/{arxiv_id}.html" if picked else f"{fields['date']}/index.html#p-{arxiv_id}",
        }
        papers.append(paper)
        names.update({a.slug: [a.en, a.zh] for a in links.areas})
    document = {"since": start, "until": end, "areas": dict(sorted(names.items())), "papers": papers}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
