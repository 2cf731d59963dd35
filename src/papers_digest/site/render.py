"""Rendering the site, day by day: a day's pages, the index and the feed, written only when changed, via Jinja2."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import rjsmin
from jinja2 import Environment

from papers_digest.core.artefacts import write_text_atomic
from papers_digest.core.models import ARXIV_ID_RE
from papers_digest.day.status import DayStatus, day_status
from papers_digest.db.queries import site_day_rows, site_days, status_rows
from papers_digest.db.related import days_relating
from papers_digest.site.archive import ListedPaper, SiteNav
from papers_digest.site.cite import BIBTEX_FILE, RIS_FILE, bibtex, citation, meta_tags, ris
from papers_digest.site.days import DaySummary, DayView, build_days, build_index
from papers_digest.site.environment import make_environment
from papers_digest.site.feed import (
    DEFAULT_BASE_URL,
    FEED_DAYS,
    FEED_FILE,
    FEED_ZH_FILE,
    Feed,
    build_feeds,
    make_feeds,
    normalise_base_url,
)
from papers_digest.site.pages import archive_files, reader_files, remove_stale_archive, touched_by
from papers_digest.site.related import related_papers
from papers_digest.site.search import SearchIndexError, index_months, indexed_months
from papers_digest.site.views import DATE_RE, SiteError

STATUS_FILE = "status.html"  # one row per published date (day/status.py)
DAYS_FILE = "days.html"  # the calendar: every published day, by month; index.html shows the latest day's papers
STATIC_FILES = ("style.css", "site.js", "follow.js", "follow-settings.js")  # from templates/, the scripts minified
# A date folder's own files besides each paper's <arxiv id>.html|bib|ris: what a stale one may be removed as.
_DAY_FILE_STEMS = {".html": {"index"}, ".bib": {Path(BIBTEX_FILE).stem}, ".ris": {Path(RIS_FILE).stem}}
SEARCH_FILE = "search.json"  # the months indexed, for the search box of every page but search.html (site.js)


@dataclass(frozen=True)
class SiteSummary:
    """What render_site or render_day did."""

    out_dir: Path
    days: int
    papers: int
    feed_entries: int
    written: int  # files created or changed
    unchanged: int
    removed: int  # pages of papers or days no longer in the database
    indexed: int = 0  # months whose search indexes Pagefind built again
    search_error: str | None = None  # why a month's search indexes were not built (the pages are written anyway)


def render_site(
    db_path: str | Path, out_dir: str | Path, *, base_url: str = DEFAULT_BASE_URL, report_url: str = ""
) -> SiteSummary:
    """Render every day of the database into `out_dir`: the front page (the latest day's papers), the calendar,
    day pages, paper pages, the area, week and month pages, style.css and the feeds; remove the pages of days and
    papers no longer in it.

    Day by day: one day's rows and pages are in memory at a time, the calendar comes from aggregate queries.
    Each file is written via a temporary file and a rename, and only when its content changed, so a
    crash never leaves a half-written page and a static server or rsync sees only real changes. A month's
    search indexes are built again when one of its pages changed or it has none.
    """
    base = normalise_base_url(base_url)
    db = _database(db_path)
    index = build_index(site_days(db))
    site = _Site(Path(out_dir), make_environment(report_url, base), db)
    site.env.globals["nav"] = nav = SiteNav.of(s.date for s in index)
    latest: list[DayView] = []
    for i, summary in enumerate(index):
        day = load_day(db, summary.date)
        if day is not None:
            site.write_day(day)
            if i < FEED_DAYS:  # the index is newest first: these are the feeds' days, the first the front page's
                latest.append(day)
    feeds = make_feeds([p for day in latest for p in day.papers if p.done], base)
    removed = _remove_stale(site.out, site.kept)  # before indexing: a removed page leaves its day's index too
    site._write_all(archive_files(site.env, db, nav, base))  # every area, week and month
    removed += remove_stale_archive(site.out, site.kept)
    have = set(indexed_months(site.out))
    site.index_search({d for d in site.days if d in site.changed_days or d[:7] not in have})
    site.write_common(db, index, feeds, latest[0] if latest else None)
    return site.summary(index, feeds[0], removed)


def render_day(
    db_path: str | Path, out_dir: str | Path, date: str, *, base_url: str = DEFAULT_BASE_URL, report_url: str = ""
) -> SiteSummary:
    """Render what publishing `date` changed: its day page and paper pages, the front page, the calendar, the
    feeds and style.css; remove that day's pages of papers no longer listed for it. Other days' pages are left as
    they are, and only the rows needed are read: aggregates for the calendar, the latest days for the feeds.

    One exception: a paper the day took over from an earlier day (the retry queue lists a failed paper
    again; the later day's row wins) leaves that day, so a day with a page of one of its papers is
    rendered again too; and so is a day whose pages list one of the day's papers as related (a day written again:
    a new day's papers are in no earlier list). The search indexes of each day's month are built again: the cost
    of a month, not of the archive.
    """
    if not DATE_RE.match(date):
        raise SiteError(f"not a date (YYYY-MM-DD): {date!r}")
    base = normalise_base_url(base_url)
    db = _database(db_path)
    index = build_index(site_days(db))
    site = _Site(Path(out_dir), make_environment(report_url, base), db)
    site.env.globals["nav"] = nav = SiteNav.of(s.date for s in index)
    areas, periods = touched_by(db, site.out, date)  # read before the day's page is written again
    loaded = {date: load_day(db, date)}
    ids = [p.arxiv_id for p in loaded[date].papers] if loaded[date] else []
    # and the days whose pages list one of its papers as related (none for a new day: theirs were found before it)
    for other in sorted({*_days_with_pages_of(site.out, ids, besides=date), *days_relating(db, ids)}):
        loaded.setdefault(other, load_day(db, other))
    for day in loaded.values():
        if day is not None:
            site.write_day(day)
    # The days before and after link to this one (or, when it is gone, to each other): their day pages only.
    near = {d: load_day(db, d) for d in (nav.prev(date), nav.next(date)) if d and d not in loaded}
    site._write_all(next(_day_files(site.env, d)) for d in near.values() if d is not None)
    known = {**near, **loaded}
    latest = [known[s.date] if s.date in known else load_day(db, s.date) for s in index[:1]]
    later = (known[s.date] if s.date in known else load_day(db, s.date) for s in index[1:FEED_DAYS])
    feeds = build_feeds((d for d in (*latest, *later) if d is not None), base)
    removed = _remove_stale(site.out, site.kept, only=set(loaded))  # before indexing, as in render_site
    site._write_all(archive_files(site.env, db, nav, base, areas=areas, periods=periods))
    removed += remove_stale_archive(site.out, site.kept, areas, periods)
    site.index_search(set(loaded), published={s.date for s in index})
    site.write_common(db, index, feeds, latest[0] if latest else None)
    return site.summary(index, feeds[0], removed)


def load_day(db_path: str | Path, date: str) -> DayView | None:
    """One day of the database as its pages show it; None when the database has no paper or run of it."""
    rows = site_day_rows(db_path, date)
    days = build_days(
        papers=rows.papers,
        digests=rows.digests,
        items=rows.items,
        run_dates=rows.run_dates,
        calls=rows.calls,
        engines={date: rows.engine_kind},
    )
    return days[0] if days else None


@dataclass
class _Site:
    """The site folder being written: what was kept, written and left unchanged."""

    out: Path
    env: Environment
    db: Path
    kept: set[Path] = field(default_factory=set)
    written: int = 0
    unchanged: int = 0
    days: list[str] = field(default_factory=list)  # the dates written
    changed_days: set[str] = field(default_factory=set)  # the dates with a page created or changed
    indexed: int = 0
    search_error: str | None = None

    def write_day(self, day: DayView) -> None:
        """The day's pages and citation files, each paper page with its related papers as the archive has them now."""
        before = self.written
        related = related_papers(self.db, [p.arxiv_id for p in day.papers if p.done])
        self._write_all(_day_files(self.env, day, related))
        self.days.append(day.date)
        if self.written > before:
            self.changed_days.add(day.date)

    def index_search(self, dates: set[str], published: set[str] | None = None) -> None:
        """The search indexes of these dates' months, after their pages (site/search.py); a failure is kept for
        the summary, never raised: the pages are written, and the next publish or `papers site` indexes again."""
        try:
            self.indexed += index_months(self.out, dates, set(self.days) if published is None else published)
        except SearchIndexError as exc:
            self.search_error = str(exc)

    def write_common(self, db: Path, index: list[DaySummary], feeds: tuple[Feed, Feed], front: DayView | None) -> None:
        """After the day pages and their search indexes, so the front page, the calendar, the status page, the
        search page and the feeds never point to a page or an index not written yet."""
        status = [day_status(row) for row in status_rows(db)]
        self._write_all(_common_files(self.env, index, feeds, status, indexed_months(self.out), front))
        self._write_all(reader_files(self.env, db, index[0].date if index else None))

    def summary(self, index: list[DaySummary], feed: Feed, removed: int) -> SiteSummary:
        return SiteSummary(
            out_dir=self.out,
            days=len(index),
            papers=sum(d.count for d in index),
            feed_entries=len(feed.entries),
            written=self.written,
            unchanged=self.unchanged,
            removed=removed,
            indexed=self.indexed,
            search_error=self.search_error,
        )

    def _write_all(self, files: Iterable[tuple[str, str]]) -> None:
        for rel, text in files:
            target = self.out / rel
            self.kept.add(target)
            if _write_if_changed(target, text):
                self.written += 1
            else:
                self.unchanged += 1


def _days_with_pages_of(out: Path, arxiv_ids: list[str], besides: str) -> list[str]:
    """The dates, other than `besides`, whose folder holds a page of one of these papers."""
    if not arxiv_ids or not out.is_dir():
        return []
    pages = {f"{i}.html" for i in arxiv_ids}
    with os.scandir(out) as entries:  # one listing per folder, not a stat per page: a year has 7,000 pages
        folders = [f for f in entries if f.is_dir() and DATE_RE.match(f.name) and f.name != besides]
    return sorted(f.name for f in folders if not pages.isdisjoint(os.listdir(f.path)))


def _database(db_path: str | Path) -> Path:
    path = Path(db_path)
    if not path.is_file():
        raise SiteError(f"{path}: no database (run the pipeline or `papers rebuild-db` first)")
    return path


def _day_files(
    env: Environment, day: DayView, related: Mapping[str, tuple[ListedPaper, ...]] | None = None
) -> Iterator[tuple[str, str]]:
    """The day's page first (the days beside a published one take only it), its citation files, and each picked
    paper's page with its own citation files and its related papers."""
    yield day.path, env.get_template("day.html").render(day=day, root="../", path=day.path)
    cites = [citation(p) for p in day.shown]
    yield f"{day.date}/{BIBTEX_FILE}", bibtex(cites)
    yield f"{day.date}/{RIS_FILE}", ris(cites)
    paper_page = env.get_template("paper.html")
    for paper in day.papers:
        cite = citation(paper)
        tags, near = meta_tags(cite), (related or {}).get(paper.arxiv_id, ())
        yield (
            paper.path,
            paper_page.render(paper=paper, day=day, root="../", path=paper.path, citation_tags=tags, related=near),
        )
        yield f"{day.date}/{paper.arxiv_id}.bib", bibtex([cite])
        yield f"{day.date}/{paper.arxiv_id}.ris", ris([cite])


def _common_files(
    env: Environment,
    index: list[DaySummary],
    feeds: tuple[Feed, Feed],
    status: list[DayStatus],
    search_months: list[str],
    front: DayView | None,
) -> Iterator[tuple[str, str]]:
    for name in STATIC_FILES:
        yield name, static_file(name)
    yield "index.html", env.get_template("index.html").render(day=front, root="", path="")
    yield DAYS_FILE, env.get_template("days.html").render(days=index, root="", path=DAYS_FILE)
    yield (
        "search.html",
        env.get_template("search.html").render(search_months=search_months, root="", path="search.html"),
    )
    yield SEARCH_FILE, json.dumps({"months": search_months}) + "\n"
    priced = any(day.cost_usd is not None for day in status)
    yield STATUS_FILE, env.get_template("status.html").render(days=status, priced=priced, root="", path=STATUS_FILE)
    for name, feed in zip((FEED_FILE, FEED_ZH_FILE), feeds, strict=True):
        yield name, env.get_template("feed.xml").render(feed=feed)


def _write_if_changed(path: Path, text: str) -> bool:
    if path.is_file() and path.read_bytes() == text.encode("utf-8"):
        return False
    write_text_atomic(path, text)
    return True


def _remove_stale(out: Path, kept: set[Path], only: set[str] | None = None) -> int:
    """Remove pages of days or papers no longer in the database, and temporary files of a crashed run;
    with `only`, just in those dates' folders (and temporary files at the top).

    Only paths of the site's own shape (`<date>/index.html`, `<date>/<arxiv id>.html|bib|ris`,
    `<date>/citations.bib|ris`) are candidates, so a mistaken `--out` never deletes someone else's files.
    """
    if not out.is_dir():
        return 0
    if only is None:
        folders = [f for f in out.iterdir() if f.is_dir() and DATE_RE.match(f.name)]
        leftovers = [*out.glob(".*.tmp"), *out.glob("*/.*.tmp")]
    else:
        folders = [out / d for d in sorted(only) if DATE_RE.match(d) and (out / d).is_dir()]
        leftovers = [*out.glob(".*.tmp"), *(t for f in folders for t in f.glob(".*.tmp"))]
    for leftover in leftovers:
        leftover.unlink(missing_ok=True)
    removed = 0
    for folder in folders:
        for page in folder.iterdir():
            if page.suffix not in _DAY_FILE_STEMS or page in kept:
                continue
            if page.stem in _DAY_FILE_STEMS[page.suffix] or ARXIV_ID_RE.match(page.stem):
                page.unlink()
                removed += 1
        if not any(folder.iterdir()):
            folder.rmdir()
    return removed


def static_file(name: str) -> str:
    """A static file of templates/ as the site serves it: a script without its comments and spaces (rjsmin), so a
    page sends half the bytes (#47: follow and mute add at most 20 kB to a page); the sources keep their comments."""
    text = (resources.files("papers_digest.site") / "templates" / name).read_text(encoding="utf-8")
    return rjsmin.jsmin(text) + "\n" if name.endswith(".js") else text
