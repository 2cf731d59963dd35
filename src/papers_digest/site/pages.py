"""Rendering the archive pages from SQL: area pages and feeds, the area index, week and month pages, trends, For you."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import urljoin

from jinja2 import Environment
from markupsafe import Markup

from papers_digest.day.areas import all_areas
from papers_digest.db.archive import area_counts, area_weeks, areas_on, papers_by_area, recent_papers, top_papers
from papers_digest.site import trends
from papers_digest.site.archive import (
    AREA_FEED_ENTRIES,
    AREA_PAGE_PAPERS,
    AREAS_FOLDER,
    TOP_PAPERS,
    AreaCount,
    AreaPage,
    AreaRef,
    ListedPaper,
    Period,
    PeriodPage,
    SiteNav,
    listed_paper,
    periods_of,
)
from papers_digest.site.cite import bibtex, citation, ris
from papers_digest.site.feed import Feed, FeedEntry, make_feed
from papers_digest.site.foryou import FOR_YOU_DAYS, FOR_YOU_FILE, for_you_json, for_you_window
from papers_digest.site.tex import tex_text

AREAS_INDEX = f"{AREAS_FOLDER}/index.html"
FOR_YOU_PAGE = "foryou.html"
ARCHIVE_FOLDERS = (AREAS_FOLDER, "weeks", "months")
AREA_FILES = (".html", ".xml", ".bib", ".ris")  # an area's page, its feed and its papers' citations
# An area chip as the day pages write it (a topic chip, before areas): what a day's page linked to before this publish.
_CHIP_RE = re.compile(r'<a class="(?:area|topic)" href="\.\./topics/([a-z0-9-]+)\.html"')
_PERIOD_RE = re.compile(r"^(\d{4}-W\d{2}|\d{4}-\d{2})$")
_SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def archive_files(
    env: Environment,
    db: Path,
    nav: SiteNav,
    base_url: str,
    *,
    areas: Iterable[str] | None = None,
    periods: Iterable[Period] | None = None,
) -> Iterator[tuple[str, str]]:
    """The pages of these areas (each with its feed) and of these weeks and months, and the area index; every
    area and period of the site when None. An area or period with no paper left yields nothing."""
    known = {a.slug for a in all_areas()}
    wanted = None if areas is None else sorted(set(areas) & known)
    area_page, period_page = env.get_template("topic.html"), env.get_template("period.html")
    # A paper is on the page of each of its areas (up to 5): its entry is rendered once (Markup, escaped by the
    # macro) and reused, so a publish into a year renders each listed paper once, not once per area.
    item, items, listed = env.get_template("listing.html").make_module().item, {}, {}
    for slug, (total, rows) in sorted(papers_by_area(db, wanted, AREA_PAGE_PAPERS).items()):
        if slug not in known:
            continue
        papers = tuple(listed.get(r["arxiv_id"]) or listed.setdefault(r["arxiv_id"], listed_paper(r)) for r in rows)
        page = AreaPage(area=AreaRef(slug), total=total, papers=papers)
        shown = [_item(items, item, p) for p in page.papers]
        yield page.area.path, area_page.render(page=page, items=shown, root="../", path=page.area.path)
        yield page.area.feed_path, env.get_template("feed.xml").render(feed=area_feed(page, base_url))
        cites = [citation(p) for p in page.papers]
        yield page.area.file_path(".bib"), bibtex(cites)
        yield page.area.file_path(".ris"), ris(cites)
    counts = [AreaCount(AreaRef(r["area"]), r["papers"], r["latest"]) for r in area_counts(db) if r["area"] in known]
    yield AREAS_INDEX, env.get_template("topics.html").render(areas=counts, root="../", path=AREAS_INDEX)
    if periods is not None:  # and the periods beside them: their links to the one before and after
        periods = list(dict.fromkeys([*periods, *(q for p in periods for q in nav.beside(p) if q)]))
    for period in [*nav.weeks(), *nav.months()] if periods is None else periods:
        days, rows = top_papers(db, *period.range, TOP_PAPERS)
        if days:
            page = PeriodPage(period=period, days=days, papers=tuple(listed_paper(r) for r in rows))
            yield period.path, period_page.render(page=page, nav=nav, root="../", path=period.path)


def reader_files(env: Environment, db: Path, latest: str | None) -> Iterator[tuple[str, str]]:
    """The trends page and the For you page with its data, of the latest weeks and days up to `latest` (the newest
    published date; None: an empty site): two queries over those dates only, whatever the archive's size."""
    if latest:
        first, last = for_you_window(latest)
        data = for_you_json(recent_papers(db, first, last), first, last)
        shown = trends.build_trends(area_weeks(db, *trends.trends_window(latest)), latest)
    else:
        data, shown = for_you_json([], "", ""), None
    yield FOR_YOU_FILE, data
    yield FOR_YOU_PAGE, env.get_template("foryou.html").render(days=FOR_YOU_DAYS, root="", path=FOR_YOU_PAGE)
    yield (
        trends.TRENDS_FILE,
        env.get_template("trends.html").render(
            trends=shown,
            weeks=trends.TREND_WEEKS,
            recent_weeks=trends.RECENT_WEEKS,
            before_weeks=trends.BEFORE_WEEKS,
            min_papers=trends.RISING_MIN_PAPERS,
            bar_width=trends.BAR_WIDTH,
            bar_height=trends.BAR_HEIGHT,
            root="",
            path=trends.TRENDS_FILE,
        ),
    )


def area_feed(page: AreaPage, base_url: str) -> Feed:
    """An area's Atom feed: its latest digested papers, each with its one sentence in English and Chinese, with the
    same entry ids as the site's feed."""
    latest = [p for p in page.papers if p.done][:AREA_FEED_ENTRIES]
    entries = [
        FeedEntry(
            id=f"tag:papers-digest,{p.date}:{p.arxiv_id}",
            title=tex_text(p.title),
            url=urljoin(base_url, p.path),
            updated=p.generated_at or f"{p.date}T00:00:00Z",
            summary=tex_text(p.en or ""),
            content=str(
                Markup('<p>{}</p><p lang="zh-Hans">{}</p><p><a href="{}">The digest, with the evidence</a></p>').format(
                    tex_text(p.en or ""), tex_text(p.zh or ""), urljoin(base_url, p.path)
                )
            ),
        )
        for p in latest
    ]
    return make_feed(
        entries,
        base_url,
        path=page.area.feed_path,
        page=page.area.path,
        feed_id=f"tag:papers-digest,2025:topic:{page.area.slug}",
        title=f"papers-digest: {page.area.en} · {page.area.zh}",
    )


def touched_by(db: Path, out: Path, date: str) -> tuple[set[str], list[Period]]:
    """What publishing `date` changes beyond its own pages: the areas its papers have now and those its page
    linked to before (a paper may have left the day or changed areas), and its week and month (archive_files adds
    the weeks and months beside them)."""
    return areas_on(db, date) | linked_areas(out / date / "index.html"), list(periods_of(date))


def linked_areas(day_page: Path) -> set[str]:
    """The slugs of the area (or, before areas, topic) pages a day's page, as written before, links to."""
    try:
        text = day_page.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    return set(_CHIP_RE.findall(text))


def remove_stale_archive(
    out: Path, kept: set[Path], areas: Iterable[str] | None = None, periods: Iterable[Period] | None = None
) -> int:
    """Remove archive pages no longer written: of these areas and periods, or with None, any of the site's own
    shape (`topics/<slug>.html|xml|bib|ris`, `weeks/<YYYY-Www>.html`, `months/<YYYY-MM>.html`) not in `kept`, the pages
    of the topics before areas among them."""
    if areas is None or periods is None:
        candidates = [
            page
            for folder in ARCHIVE_FOLDERS
            if (out / folder).is_dir()
            for page in (out / folder).iterdir()
            if page.suffix in AREA_FILES
            and (_PERIOD_RE.match(page.stem) if folder != AREAS_FOLDER else _SLUG_RE.match(page.stem))
        ]
    else:
        refs = [AreaRef(a) for a in areas if _SLUG_RE.match(a)]
        candidates = [out / r.file_path(s) for r in refs for s in AREA_FILES] + [out / p.path for p in periods]
    removed = 0
    for page in candidates:
        if page not in kept and page.name != "index.html" and page.is_file():
            page.unlink()
            removed += 1
    return removed


def _item(items: dict[str, Markup], item: object, paper: ListedPaper) -> Markup:
    if paper.arxiv_id not in items:
        items[paper.arxiv_id] = item(paper, "../")  # type: ignore[operator]
    return items[paper.arxiv_id]
