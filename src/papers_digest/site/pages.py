"""Rendering the archive pages: topic pages and feeds, the topic index, week and month pages, from SQL."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import urljoin

from jinja2 import Environment

from papers_digest.db.archive import papers_by_topic, top_papers, topic_counts, topics_on
from papers_digest.site.archive import (
    TOP_PAPERS,
    TOPIC_FEED_ENTRIES,
    TOPIC_INDEX_MIN_PAPERS,
    TOPIC_PAGE_PAPERS,
    Period,
    PeriodPage,
    SiteNav,
    TopicCount,
    TopicPage,
    TopicRef,
    listed_paper,
    periods_of,
)
from papers_digest.site.feed import Feed, FeedEntry, make_feed

TOPICS_INDEX = "topics/index.html"
ARCHIVE_FOLDERS = ("topics", "weeks", "months")
# A topic chip as day.html writes it: what a day's page linked to before this publish.
_CHIP_RE = re.compile(r'<a class="topic" href="\.\./topics/[a-z0-9-]+\.html">([^<]*)</a>')
_PERIOD_RE = re.compile(r"^(\d{4}-W\d{2}|\d{4}-\d{2})$")
_SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def archive_files(
    env: Environment,
    db: Path,
    nav: SiteNav,
    base_url: str,
    *,
    topics: Iterable[str] | None = None,
    periods: Iterable[Period] | None = None,
) -> Iterator[tuple[str, str]]:
    """The pages of these topics (each with its feed) and of these weeks and months, and the topic index;
    every topic and period of the site when None. A topic or period with no paper left yields nothing."""
    wanted = None if topics is None else sorted(set(topics))
    topic_page, period_page = env.get_template("topic.html"), env.get_template("period.html")
    # A paper is on the page of each of its topics (about 8): its entry is rendered once (Markup, escaped by
    # the macro) and reused, so a publish into a year renders each listed paper once, not once per topic.
    item, items, listed = env.get_template("listing.html").make_module().item, {}, {}
    for name, (total, rows) in sorted(papers_by_topic(db, wanted, TOPIC_PAGE_PAPERS).items()):
        papers = tuple(listed.get(r["arxiv_id"]) or listed.setdefault(r["arxiv_id"], listed_paper(r)) for r in rows)
        page = TopicPage(topic=TopicRef(name), total=total, papers=papers)
        shown = [items.get(p.arxiv_id) or items.setdefault(p.arxiv_id, item(p, "../")) for p in page.papers]
        yield page.topic.path, topic_page.render(page=page, items=shown, root="../")
        yield page.topic.feed_path, env.get_template("feed.xml").render(feed=topic_feed(page, base_url))
    recurring, others = topic_counts(db, TOPIC_INDEX_MIN_PAPERS)
    counts = [TopicCount(TopicRef(r["topic"]), r["papers"], r["latest"]) for r in recurring]
    yield TOPICS_INDEX, env.get_template("topics.html").render(topics=counts, others=others, root="../")
    if periods is not None:  # and the periods beside them: their links to the one before and after
        periods = list(dict.fromkeys([*periods, *(q for p in periods for q in nav.beside(p) if q)]))
    for period in [*nav.weeks(), *nav.months()] if periods is None else periods:
        days, rows = top_papers(db, *period.range, TOP_PAPERS)
        if days:
            page = PeriodPage(period=period, days=days, papers=tuple(listed_paper(r) for r in rows))
            yield period.path, period_page.render(page=page, nav=nav, root="../")


def topic_feed(page: TopicPage, base_url: str) -> Feed:
    """A topic's Atom feed: its latest digested papers, with the same entry ids as the site's feed."""
    latest = [p for p in page.papers if p.done][:TOPIC_FEED_ENTRIES]
    entries = [
        FeedEntry(
            id=f"tag:papers-digest,{p.date}:{p.arxiv_id}",
            title=p.title,
            url=urljoin(base_url, p.path),
            updated=p.generated_at or f"{p.date}T00:00:00Z",
            summary=p.en or "",
        )
        for p in latest
    ]
    return make_feed(
        entries,
        base_url,
        path=page.topic.feed_path,
        page=page.topic.path,
        feed_id=f"tag:papers-digest,2025:topic:{page.topic.slug}",
        title=f"papers-digest: {page.topic.name}",
    )


def touched_by(db: Path, out: Path, date: str) -> tuple[set[str], list[Period]]:
    """What publishing `date` changes beyond its own pages: the topics its papers have now and those its page
    linked to before (a paper may have left the day or changed topics), and its week and month (archive_files
    adds the weeks and months beside them)."""
    return topics_on(db, date) | linked_topics(out / date / "index.html"), list(periods_of(date))


def linked_topics(day_page: Path) -> set[str]:
    """The topics a day's page, as written before, links to (its chips)."""
    try:
        text = day_page.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    return {html.unescape(name) for name in _CHIP_RE.findall(text)}


def remove_stale_archive(
    out: Path, kept: set[Path], topics: Iterable[str] | None = None, periods: Iterable[Period] | None = None
) -> int:
    """Remove archive pages no longer written: of these topics and periods, or with None, any of the site's
    own shape (`topics/<slug>.html|xml`, `weeks/<YYYY-Www>.html`, `months/<YYYY-MM>.html`) not in `kept`."""
    if topics is None or periods is None:
        candidates = [
            page
            for folder in ARCHIVE_FOLDERS
            if (out / folder).is_dir()
            for page in (out / folder).iterdir()
            if page.suffix in (".html", ".xml")
            and (_PERIOD_RE.match(page.stem) if folder != "topics" else _SLUG_RE.match(page.stem))
        ]
    else:
        refs = [TopicRef(t) for t in topics]
        candidates = [out / p for r in refs for p in (r.path, r.feed_path)] + [out / p.path for p in periods]
    removed = 0
    for page in candidates:
        if page not in kept and page.name != "index.html" and page.is_file():
            page.unlink()
            removed += 1
    return removed
