"""The day's digest as a push to chats: its top papers, one line each, and the link to the day on the site (pure)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from urllib.parse import urljoin

from papers_digest.site.archive import AreaRef
from papers_digest.site.days import DayView
from papers_digest.site.feed import normalise_base_url
from papers_digest.site.subscribers import EVERY_PAPER, Interests, personal_day, why_text
from papers_digest.site.tex import tex_text
from papers_digest.site.views import PaperView

PUSH_AREAS = 3  # the day's commonest areas the push names


@dataclass(frozen=True)
class DayPush:
    title: str
    body: str


def day_push(
    day: DayView, base_url: str, *, papers: int = 5, lang: str = "en", interests: Interests = EVERY_PAPER
) -> DayPush:
    """The day's first `papers` done papers by upvotes, each `n. title: its one sentence` in `lang` (en | zh: the
    translation's title where it has one, as the Chinese feed) on one line, LaTeX as Unicode text; how many more
    there are; the day's commonest areas; and the day's page at `base_url` (site.base_url). A subscriber's papers
    (`interests`) come first, each saying what it matched, after a line saying how many are theirs or that none is."""
    done = [p for p in day.papers if p.done]
    personal = personal_day(day, interests)
    lines = personal.lines(lang)
    for n, (paper, why) in enumerate(personal.ordered[:papers], start=1):
        said = why_text(why, lang)
        lines.append(f"{n}. {_paper_line(paper, lang)}" + (f" ({said})" if said else ""))
    if len(done) > papers:
        more = len(done) - papers
        lines.append(f"…… 另有 {more} 篇" if lang == "zh" else f"… and {more} more")
    if areas := _areas_line(done, lang):
        lines.append(areas)
    lines.append(urljoin(normalise_base_url(base_url), day.path))
    return DayPush(
        title=f"papers-digest {day.date}: {len(done)} paper{'' if len(done) == 1 else 's'}", body="\n".join(lines)
    )


def _paper_line(paper: PaperView, lang: str) -> str:
    digest = paper.zh if lang == "zh" else paper.en
    title = (paper.title_zh or paper.title) if lang == "zh" else paper.title
    colon = "：" if lang == "zh" else ": "
    sentence = f"{colon}{_one_line(digest.one_sentence)}" if digest is not None else ""
    return f"{_one_line(title)}{sentence}"


def _areas_line(done: list[PaperView], lang: str) -> str:
    """`Areas: Reasoning (3), Agents (2)`: the areas of the day's done papers, most papers first (a tie: the one a
    higher-ranked paper has first), as the pages name them; empty when none has an area."""
    counts = Counter(area.slug for paper in done if paper.links for area in paper.links.areas)
    if not counts:
        return ""
    named = [(AreaRef(slug), n) for slug, n in counts.most_common(PUSH_AREAS)]
    if lang == "zh":
        return "领域：" + "、".join(f"{area.zh}（{n}）" for area, n in named)
    return "Areas: " + ", ".join(f"{area.en} ({n})" for area, n in named)


def _one_line(text: str) -> str:
    return " ".join(tex_text(text).split())
