"""The site's ways through the archive as plain data: a paper's links and areas, day-to-day navigation, and
the area, week and month pages (pure)."""

from __future__ import annotations

import bisect
import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from papers_digest.day.areas import MAX_AREAS, area_of

ARXIV = "https://arxiv.org"
HF_PAPERS = "https://huggingface.co/papers"
HF = "https://huggingface.co"
TOP_PAPERS = 10  # a week's or a month's page: its top papers by upvotes
AREA_PAGE_PAPERS = 100  # an area's page lists its latest papers, across all days
AREA_FEED_ENTRIES = 20  # an area's feed: its latest digested papers
AREAS_FOLDER = "topics"  # where the topic pages were: their addresses, and feed subscriptions, stay


@dataclass(frozen=True)
class AreaRef:
    """An area (day/areas.py) and its page, `topics/<slug>.html`, with its feed next to it."""

    slug: str

    @property
    def en(self) -> str:
        area = area_of(self.slug)
        return area.en if area else self.slug

    @property
    def zh(self) -> str:
        area = area_of(self.slug)
        return area.zh if area else self.slug

    @property
    def path(self) -> str:
        return f"{AREAS_FOLDER}/{self.slug}.html"

    @property
    def feed_path(self) -> str:
        return f"{AREAS_FOLDER}/{self.slug}.xml"

    def file_path(self, suffix: str) -> str:
        """Its page (`.html`), its feed (`.xml`), its papers' BibTeX (`.bib`) or RIS (`.ris`)."""
        return f"{AREAS_FOLDER}/{self.slug}{suffix}"


@dataclass(frozen=True)
class Organization:
    name: str  # the Hugging Face handle
    fullname: str

    @property
    def url(self) -> str:
        return f"{HF}/{self.name}"


@dataclass(frozen=True)
class PaperLinks:
    """Where else a paper is: arXiv (abstract, PDF), its Hugging Face page, and what the listing gave: code with
    its stars, a project page, an organisation, the thumbnail and comment count; its keywords and areas."""

    abs_url: str
    pdf_url: str
    hf_url: str
    code_url: str | None = None
    stars: int | None = None
    project_url: str | None = None
    organization: Organization | None = None
    thumbnail: str | None = None
    comments: int | None = None
    keywords: tuple[str, ...] = ()  # Hugging Face's, as written: searchable on the paper's page, not chips
    areas: tuple[AreaRef, ...] = ()

    @property
    def code_label(self) -> str:
        """`github.com/owner/repo` for a link's text."""
        parts = urlsplit(self.code_url or "")
        return (parts.netloc.removeprefix("www.") + parts.path.rstrip("/")) or (self.code_url or "")


def paper_links(row: Mapping[str, Any]) -> PaperLinks:
    """A `papers` or `day_items` row -> its links, extras and areas; a column an older database lacks reads as not
    given. Only http(s) addresses become links or images: the listing's text is not trusted to be a URL."""
    arxiv_id = row["arxiv_id"]
    stars, comments = row.get("github_stars"), row.get("comments")
    org = _json_value(row.get("organization"))
    name = org.get("name") if isinstance(org, dict) else None
    fullname = org.get("fullname") if isinstance(org, dict) else None
    return PaperLinks(
        abs_url=f"{ARXIV}/abs/{arxiv_id}",
        pdf_url=f"{ARXIV}/pdf/{arxiv_id}",
        hf_url=f"{HF_PAPERS}/{arxiv_id}",
        code_url=_web_url(row.get("github_repo")),
        stars=stars if isinstance(stars, int) and _web_url(row.get("github_repo")) else None,
        project_url=_web_url(row.get("project_page")),
        organization=Organization(name=name, fullname=fullname if isinstance(fullname, str) else name)
        if isinstance(name, str) and name
        else None,
        thumbnail=_web_url(row.get("thumbnail")),
        comments=comments if isinstance(comments, int) else None,
        keywords=tuple(_strings(row.get("keywords"))),
        areas=tuple(AreaRef(a) for a in area_slugs(row.get("areas"))),
    )


def area_slugs(text: str | None) -> list[str]:
    """A `papers.areas` value (JSON list of slugs) -> the areas the vocabulary still has, at most MAX_AREAS."""
    return [a for a in _strings(text) if area_of(a)][:MAX_AREAS]


# --- navigation: days, weeks, months ---------------------------------------------------------------------


def week_key(date: str) -> str:
    """`2026-01-01` -> `2026-W01` (ISO week: Monday to Sunday, the week's year)."""
    year, week, _ = dt.date.fromisoformat(date).isocalendar()
    return f"{year}-W{week:02d}"


def week_range(key: str) -> tuple[str, str]:
    """`2026-W01` -> its Monday and Sunday."""
    year, week = key.split("-W")
    monday = dt.date.fromisocalendar(int(year), int(week), 1)
    return monday.isoformat(), (monday + dt.timedelta(days=6)).isoformat()


def month_range(key: str) -> tuple[str, str]:
    """`2026-02` -> its first and last day."""
    first = dt.date.fromisoformat(f"{key}-01")
    following = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return first.isoformat(), (following - dt.timedelta(days=1)).isoformat()


@dataclass(frozen=True)
class Period:
    """A week (`2026-W01`) or a month (`2026-01`) and its page."""

    kind: str  # week | month
    key: str

    @property
    def path(self) -> str:
        return f"{self.kind}s/{self.key}.html"

    @property
    def range(self) -> tuple[str, str]:
        return week_range(self.key) if self.kind == "week" else month_range(self.key)

    @property
    def title(self) -> str:
        start, end = self.range
        if self.kind == "week":
            return f"Week {self.key} ({start} to {end})"
        return f"{dt.date.fromisoformat(start):%B %Y}"


def periods_of(date: str) -> tuple[Period, Period]:
    """The week and the month a date belongs to."""
    return Period("week", week_key(date)), Period("month", date[:7])


@dataclass(frozen=True)
class SiteNav:
    """The dates the site shows, oldest first: each day's previous and next day, and every week and month."""

    dates: tuple[str, ...] = ()

    @classmethod
    def of(cls, dates: Iterable[str]) -> SiteNav:
        return cls(tuple(sorted(set(dates))))

    def prev(self, date: str) -> str | None:
        """The latest date before `date` (whether or not `date` itself is shown)."""
        i = bisect.bisect_left(self.dates, date)
        return self.dates[i - 1] if i > 0 else None

    def next(self, date: str) -> str | None:
        i = bisect.bisect_right(self.dates, date)
        return self.dates[i] if i < len(self.dates) else None

    def week(self, date: str) -> Period:
        return periods_of(date)[0]

    def month(self, date: str) -> Period:
        return periods_of(date)[1]

    def weeks(self) -> list[Period]:
        """Every week with a shown date, newest first."""
        return [Period("week", k) for k in sorted({week_key(d) for d in self.dates}, reverse=True)]

    def months(self) -> list[Period]:
        return [Period("month", k) for k in sorted({d[:7] for d in self.dates}, reverse=True)]

    def beside(self, period: Period) -> tuple[Period | None, Period | None]:
        """The week (or month) before and after `period` that have a shown date."""
        keys = [p.key for p in reversed(self.weeks() if period.kind == "week" else self.months())]
        before, after = bisect.bisect_left(keys, period.key), bisect.bisect_right(keys, period.key)
        return (
            Period(period.kind, keys[before - 1]) if before > 0 else None,
            Period(period.kind, keys[after]) if after < len(keys) else None,
        )


# --- the pages of an area and of a week or month -----------------------------------------------------------


@dataclass(frozen=True)
class ListedPaper:
    """A paper as an area, week or month page lists it: a link to its page and its one-sentence summaries."""

    arxiv_id: str
    date: str
    title: str
    upvotes: int
    done: bool
    en: str | None  # the English one-sentence summary (done papers only)
    zh: str | None
    generated_at: str | None
    title_zh: str | None = None  # the translation's title, when it has one
    picked: bool = True  # False: Hugging Face listed it, no day picked it: it has no page, only its day's entry
    authors: tuple[str, ...] = ()  # for its citation (site/cite.py)
    published_at: str | None = None  # when arXiv published it, as Hugging Face listed it

    @property
    def path(self) -> str:
        """Its page, or its entry on its day's page."""
        return f"{self.date}/{self.arxiv_id}.html" if self.picked else f"{self.date}/index.html#p-{self.arxiv_id}"


@dataclass(frozen=True)
class AreaPage:
    area: AreaRef
    total: int  # papers in the area, across all days
    papers: tuple[ListedPaper, ...]  # the latest AREA_PAGE_PAPERS, newest day first


@dataclass(frozen=True)
class AreaCount:
    area: AreaRef
    papers: int
    latest: str  # the latest date with a paper in it


@dataclass(frozen=True)
class PeriodPage:
    period: Period
    days: int  # dates of the period the site shows
    papers: tuple[ListedPaper, ...]  # the top TOP_PAPERS by upvotes


def listed_paper(row: Mapping[str, Any]) -> ListedPaper:
    """A row of db/archive.py's queries -> the paper as listed; a summary counts only for a done paper."""
    done = row.get("status") == "done" and bool(row.get("en")) and bool(row.get("zh"))
    return ListedPaper(
        arxiv_id=row["arxiv_id"],
        date=row["date"],
        title=row.get("title") or row["arxiv_id"],
        upvotes=row.get("upvotes") or 0,
        done=done,
        en=row.get("en") if done else None,
        zh=row.get("zh") if done else None,
        generated_at=row.get("generated_at"),
        title_zh=row.get("title_zh") if done and isinstance(row.get("title_zh"), str) else None,
        picked=row.get("status") != "listed",
        authors=tuple(_strings(row.get("authors"))),
        published_at=row.get("published_at") if isinstance(row.get("published_at"), str) else None,
    )


def _web_url(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    parts = urlsplit(value)
    return value if parts.scheme in ("http", "https") and parts.netloc else None


def _strings(text: Any) -> list[str]:
    value = _json_value(text)
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _json_value(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
