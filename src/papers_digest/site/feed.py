"""The Atom feed of the latest days: one entry per digested paper, with stable ids (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from urllib.parse import urljoin, urlsplit

from papers_digest.site.views import DayView, SiteError

DEFAULT_BASE_URL = "http://localhost:8000/"
FEED_FILE = "feed.xml"
FEED_DAYS = 7  # the feed carries the latest days; the site keeps every day
FEED_ID = "tag:papers-digest,2025:feed"
FEED_TITLE = "papers-digest: daily paper digests"


@dataclass(frozen=True)
class FeedEntry:
    id: str
    title: str
    url: str
    updated: str
    summary: str


@dataclass(frozen=True)
class Feed:
    id: str
    updated: str
    self_url: str
    site_url: str
    entries: tuple[FeedEntry, ...]
    title: str = FEED_TITLE


def build_feed(days: Iterable[DayView], base_url: str, limit_days: int = FEED_DAYS) -> Feed:
    """The Atom feed of the latest `limit_days` days: one entry per done paper, newest day first (pure).

    `days` is read lazily, newest first, and only its first `limit_days` days: it may load them one by one."""
    base = normalise_base_url(base_url)
    return make_feed([entry for day in islice(days, limit_days) for entry in feed_entries(day, base)], base)


def feed_entries(day: DayView, base_url: str) -> list[FeedEntry]:
    """A day's entries: one per done paper, in the day's order (pure)."""
    base = normalise_base_url(base_url)
    return [
        FeedEntry(
            # Stable across re-renders and base URLs: a reader never sees an entry twice.
            id=f"tag:papers-digest,{paper.date}:{paper.arxiv_id}",
            title=paper.title,
            url=urljoin(base, paper.path),
            updated=paper.generated_at or f"{paper.date}T00:00:00Z",
            summary=paper.en.one_sentence,
        )
        for paper in day.papers
        if paper.done and paper.en is not None
    ]


def make_feed(
    entries: Iterable[FeedEntry],
    base_url: str,
    *,
    path: str = FEED_FILE,
    page: str = "index.html",
    feed_id: str = FEED_ID,
    title: str = FEED_TITLE,
) -> Feed:
    """The feed around its entries, updated when the newest of them was (pure); `path` and `page`, the feed's
    and its page's paths in the site, for another feed than the site's (a topic's)."""
    base = normalise_base_url(base_url)
    entries = tuple(entries)
    return Feed(
        id=feed_id,
        updated=max((e.updated for e in entries), default="1970-01-01T00:00:00Z"),
        self_url=urljoin(base, path),
        site_url=urljoin(base, page),
        entries=entries,
        title=title,
    )


def normalise_base_url(base_url: str) -> str:
    """The site's public address, ending in `/`; only the feed needs it (pages link relatively)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SiteError(f"--base-url must be an absolute http(s) URL, got {base_url!r}")
    return base_url if base_url.endswith("/") else base_url + "/"
