"""The day's digest as a push to chats: its top papers, one line each, and the link to the day on the site (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin

from papers_digest.site.days import DayView
from papers_digest.site.feed import normalise_base_url


@dataclass(frozen=True)
class DayPush:
    title: str
    body: str


def day_push(day: DayView, base_url: str, *, papers: int = 5, lang: str = "en") -> DayPush:
    """The day's first `papers` done papers by upvotes, each `n. title: its one sentence` in `lang` (en | zh)
    on one line, how many more there are, and the day's page at `base_url` (site.base_url)."""
    done = [p for p in day.papers if p.done]
    lines = []
    for n, paper in enumerate(done[:papers], start=1):
        digest = paper.zh if lang == "zh" else paper.en
        sentence = f": {_one_line(digest.one_sentence)}" if digest is not None else ""
        lines.append(f"{n}. {_one_line(paper.title)}{sentence}")
    if len(done) > papers:
        lines.append(f"… and {len(done) - papers} more")
    lines.append(urljoin(normalise_base_url(base_url), day.path))
    return DayPush(
        title=f"papers-digest {day.date}: {len(done)} paper{'' if len(done) == 1 else 's'}", body="\n".join(lines)
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())
