"""The readers' view of every day: a static bilingual site and an Atom feed, rendered from papers.db."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from itertools import zip_longest
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import sqlite_utils
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
from pydantic import ValidationError

from papers_digest.checker import Digest, MindMapNode
from papers_digest.io import ArtefactError
from papers_digest.models import ARXIV_ID_RE

DEFAULT_BASE_URL = "http://localhost:8000/"
FEED_FILE = "feed.xml"
FEED_DAYS = 7  # the feed carries the latest days; the site keeps every day
FEED_ID = "tag:papers-digest,2025:feed"
ARXIV = "https://arxiv.org"
HTML_SOURCES = ("html", "trimmed")  # the model saw arXiv's HTML, so section anchors exist there
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# XML 1.0 forbids C0 controls other than tab/LF/CR, surrogates and U+FFFE/U+FFFF; one of them in model
# output would make the feed unparseable, so they are dropped from every rendered value.
_XML_INVALID_RE = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


Linker = Callable[[str], "SectionLink"]  # a section tag of the paper -> its link


class SiteError(ArtefactError):
    """The database cannot be rendered (missing, or a row that would make an unsafe file name)."""


@dataclass(frozen=True)
class SectionLink:
    """A section a result cites, linked to its place in the arXiv HTML (or the abstract page)."""

    tag: str
    title: str
    url: str


@dataclass(frozen=True)
class Source:
    """What the model saw: the full text, the full text trimmed (with the dropped sections), or the abstract."""

    kind: str  # html | trimmed | abstract | unknown
    label: str
    reason: str | None = None
    dropped: tuple[SectionLink, ...] = ()


@dataclass(frozen=True)
class ResultView:
    finding: str
    numbers: tuple[str, ...]
    sections: tuple[SectionLink, ...]


@dataclass(frozen=True)
class MindMap:
    label: str
    children: tuple[MindMap, ...] = ()


@dataclass(frozen=True)
class DigestView:
    """One language of a digest, as shown; `lang` is the HTML language tag (`en`, `zh-Hans`)."""

    lang: str
    one_sentence: str
    problem: str
    method: str
    results: tuple[ResultView, ...]
    limitations: tuple[str, ...]
    takeaways: tuple[str, ...]
    mind_map: MindMap
    model: str | None
    prompt_version: str | None


@dataclass(frozen=True)
class PaperView:
    """A paper of a day. `en`/`zh` are set only for a done paper: a failed one never shows a summary."""

    arxiv_id: str
    date: str
    title: str
    authors: tuple[str, ...]
    upvotes: int
    rank: int
    status: str  # done | failed
    error: str | None
    abstract: str
    model: str | None
    prompt_version: str | None
    generated_at: str | None  # ISO-8601 UTC, when the English digest was generated
    source: Source
    abs_url: str
    html_url: str | None
    en: DigestView | None = None
    zh: DigestView | None = None

    @property
    def done(self) -> bool:
        return self.en is not None and self.zh is not None

    @property
    def path(self) -> str:
        """The page's path inside the site folder."""
        return f"{self.date}/{self.arxiv_id}.html"

    def result_pairs(self) -> list[tuple[ResultView | None, ResultView | None]]:
        """English and Chinese results side by side (the checker keeps their counts equal)."""
        if self.en is None or self.zh is None:
            return []
        return list(zip_longest(self.en.results, self.zh.results))


@dataclass(frozen=True)
class DayView:
    date: str
    papers: tuple[PaperView, ...]  # ranked by upvotes, ties to the lower arXiv id
    listed: int  # papers Hugging Face listed that day (0 when unknown)

    @property
    def path(self) -> str:
        return f"{self.date}/index.html"

    @property
    def done(self) -> int:
        return sum(p.done for p in self.papers)

    @property
    def failed(self) -> int:
        return len(self.papers) - self.done


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


@dataclass(frozen=True)
class SiteSummary:
    """What render_site did."""

    out_dir: Path
    days: int
    papers: int
    feed_entries: int
    written: int  # files created or changed
    unchanged: int
    removed: int  # pages of papers or days no longer in the database


def render_site(db_path: str | Path, out_dir: str | Path, *, base_url: str = DEFAULT_BASE_URL) -> SiteSummary:
    """Render every day of the database into `out_dir`: index, day pages, paper pages, style.css, feed.xml.

    Each file is written via a temporary file and a rename, and only when its content changed, so a
    crash never leaves a half-written page and a static server or rsync sees only real changes.
    """
    base = normalise_base_url(base_url)
    days = load_days(db_path)
    out = Path(out_dir)
    env = make_environment()
    counts = {"written": 0, "unchanged": 0}
    kept: set[Path] = set()
    feed = build_feed(days, base)
    for rel, text in _site_files(env, days, feed):
        target = out / rel
        kept.add(target)
        counts["written" if _write_if_changed(target, text) else "unchanged"] += 1
    removed = _remove_stale(out, kept)
    return SiteSummary(
        out_dir=out,
        days=len(days),
        papers=sum(len(d.papers) for d in days),
        feed_entries=len(feed.entries),
        written=counts["written"],
        unchanged=counts["unchanged"],
        removed=removed,
    )


def load_days(db_path: str | Path) -> list[DayView]:
    """Every day of the database, newest first."""
    path = Path(db_path)
    if not path.is_file():
        raise SiteError(f"{path}: no database (run the pipeline or `papers rebuild-db` first)")
    db = sqlite_utils.Database(path)
    tables = set(db.table_names())

    def rows(sql: str, table: str) -> list[dict[str, Any]]:
        return list(db.query(sql)) if table in tables else []

    listed = {r["date"]: r["n"] for r in rows("select date, count(*) as n from day_items group by date", "day_items")}
    return build_days(
        papers=rows("select * from papers", "papers"),
        digests=rows("select * from digests", "digests"),
        listed=listed,
        run_dates=[r["date"] for r in rows("select date from runs", "runs")],
    )


def build_days(
    papers: Iterable[Mapping[str, Any]],
    digests: Iterable[Mapping[str, Any]],
    listed: Mapping[str, int] | None = None,
    run_dates: Iterable[str] = (),
) -> list[DayView]:
    """Database rows -> days, newest first, each with its papers ranked by upvotes (pure)."""
    listed = listed or {}
    by_paper: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in digests:
        by_paper.setdefault(row["arxiv_id"], {})[row["lang"]] = row
    by_date: dict[str, list[Mapping[str, Any]]] = {d: [] for d in run_dates}
    for row in papers:
        by_date.setdefault(row["date"], []).append(row)
    days = []
    for date in sorted(by_date, reverse=True):
        if not DATE_RE.match(date):
            raise SiteError(f"papers.db: not a date (YYYY-MM-DD): {date!r}")
        ranked = sorted(by_date[date], key=lambda r: (-(r.get("upvotes") or 0), r["arxiv_id"]))
        views = tuple(paper_view(r, by_paper.get(r["arxiv_id"], {}), rank) for rank, r in enumerate(ranked, 1))
        days.append(DayView(date=date, papers=views, listed=listed.get(date, 0)))
    return days


def paper_view(row: Mapping[str, Any], digests: Mapping[str, Mapping[str, Any]], rank: int = 1) -> PaperView:
    """One `papers` row and its `digests` rows (by lang) -> the paper as shown (pure)."""
    arxiv_id = row["arxiv_id"]
    if not ARXIV_ID_RE.match(arxiv_id or ""):
        raise SiteError(f"papers.db: not an arXiv id: {arxiv_id!r}")
    version = row.get("version")
    source_kind = row.get("fulltext_source")
    sections = {s["tag"]: s for s in _json_list(row.get("sections")) if isinstance(s, dict) and "tag" in s}

    def link(tag: str) -> SectionLink:
        section = sections.get(tag, {})
        url = section_url(arxiv_id, version, source_kind, section.get("anchor"))
        return SectionLink(tag=tag, title=section.get("title") or "", url=url)

    status, error = row.get("status") or "failed", row.get("error")
    views: dict[str, DigestView] = {}
    if status == "done":
        for lang in ("en", "zh"):
            if lang not in digests:
                status, error = "failed", f"the {lang} digest is missing from the database"
                break
            try:
                views[lang] = digest_view(digests[lang], link)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "(top level)"
                status, error = "failed", f"the stored {lang} digest is not a valid digest: {where}: {first['msg']}"
                break
    if status != "done":
        views = {}
    return PaperView(
        arxiv_id=arxiv_id,
        date=row["date"],
        title=row.get("title") or arxiv_id,
        authors=tuple(str(a) for a in _json_list(row.get("authors"))),
        upvotes=row.get("upvotes") or 0,
        rank=rank,
        status=status,
        error=error,
        abstract=row.get("summary") or "",
        model=row.get("model"),
        prompt_version=row.get("prompt_version"),
        generated_at=row.get("generated_at"),
        source=source_view(
            source_kind, row.get("fulltext_reason"), _json_list(row.get("fulltext_dropped")), link, version
        ),
        abs_url=f"{ARXIV}/abs/{arxiv_id}",
        html_url=section_url(arxiv_id, version, source_kind, None) if source_kind in HTML_SOURCES else None,
        en=views.get("en"),
        zh=views.get("zh"),
    )


def section_url(arxiv_id: str, version: int | None, source: str | None, anchor: str | None) -> str:
    """Where a cited section is: `https://arxiv.org/html/<id>v<version>#<anchor>`; the abstract page when
    the model saw only the abstract (arXiv has no HTML of the paper)."""
    if source not in HTML_SOURCES:
        return f"{ARXIV}/abs/{arxiv_id}"
    page = f"{ARXIV}/html/{arxiv_id}" + (f"v{version}" if version else "")
    return f"{page}#{quote(anchor, safe='.-_')}" if anchor else page


def source_view(
    kind: str | None,
    reason: str | None = None,
    dropped: Iterable[Any] = (),
    link: Linker | None = None,
    version: int | None = None,
) -> Source:
    """`papers.fulltext_source` (+ reason, + dropped section tags) -> what the model saw, in words."""
    html = "arXiv HTML" + (f" v{version}" if version else "")
    if kind == "html":
        return Source(kind="html", label=f"Full text ({html})")
    if kind == "trimmed":
        tags = [str(d["tag"]) if isinstance(d, dict) else str(d) for d in dropped]
        links = tuple(link(t) if link else SectionLink(tag=t, title="", url="") for t in tags)
        label = f"Full text ({html}), trimmed to fit the model's context"
        return Source(kind="trimmed", label=label, reason=reason, dropped=links)
    if kind == "abstract":
        return Source(kind="abstract", label="Abstract only", reason=reason)
    return Source(kind="unknown", label="Not recorded", reason=reason)


def digest_view(row: Mapping[str, Any], link: Linker) -> DigestView:
    """A `digests` row -> one language of the digest; raises ValidationError when it is not a digest."""
    digest = Digest.model_validate_json(row["digest"])
    return DigestView(
        lang=HTML_LANG.get(row["lang"], row["lang"]),
        one_sentence=digest.one_sentence,
        problem=digest.problem,
        method=digest.method,
        results=tuple(
            ResultView(finding=r.finding, numbers=tuple(r.numbers), sections=tuple(link(t) for t in r.sections))
            for r in digest.results
        ),
        limitations=tuple(digest.limitations),
        takeaways=tuple(digest.takeaways),
        mind_map=_mind_map(digest.mind_map),
        model=row.get("model"),
        prompt_version=row.get("prompt_version"),
    )


def build_feed(days: Iterable[DayView], base_url: str, limit_days: int = FEED_DAYS) -> Feed:
    """The Atom feed of the latest `limit_days` days: one entry per done paper, newest day first (pure)."""
    base = normalise_base_url(base_url)
    entries = []
    for day in list(days)[:limit_days]:
        for paper in day.papers:
            if paper.done and paper.en is not None:
                entries.append(
                    FeedEntry(
                        # Stable across re-renders and base URLs: a reader never sees an entry twice.
                        id=f"tag:papers-digest,{paper.date}:{paper.arxiv_id}",
                        title=paper.title,
                        url=urljoin(base, paper.path),
                        updated=paper.generated_at or f"{paper.date}T00:00:00Z",
                        summary=paper.en.one_sentence,
                    )
                )
    updated = max((e.updated for e in entries), default="1970-01-01T00:00:00Z")
    return Feed(
        id=FEED_ID,
        updated=updated,
        self_url=urljoin(base, FEED_FILE),
        site_url=urljoin(base, "index.html"),
        entries=tuple(entries),
    )


def normalise_base_url(base_url: str) -> str:
    """The site's public address, ending in `/`; only the feed needs it (pages link relatively)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SiteError(f"--base-url must be an absolute http(s) URL, got {base_url!r}")
    return base_url if base_url.endswith("/") else base_url + "/"


def make_environment() -> Environment:
    """Jinja2 with autoescaping for .html and .xml: model output is untrusted text, never markup."""
    env = Environment(
        loader=PackageLoader("papers_digest", "templates"),
        autoescape=select_autoescape(["html", "xml"]),
        undefined=StrictUndefined,
        finalize=_xml_safe,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["when"] = format_when
    return env


def format_when(iso: str | None) -> str:
    """`2025-04-03T06:15:09Z` -> `2025-04-03 06:15 UTC`."""
    if not iso:
        return "unknown"
    try:
        moment = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _site_files(env: Environment, days: list[DayView], feed: Feed) -> Iterator[tuple[str, str]]:
    yield "style.css", (resources.files("papers_digest") / "templates" / "style.css").read_text(encoding="utf-8")
    yield "index.html", env.get_template("index.html").render(days=days, root="")
    day_page, paper_page = env.get_template("day.html"), env.get_template("paper.html")
    for day in days:
        yield day.path, day_page.render(day=day, root="../")
        for paper in day.papers:
            yield paper.path, paper_page.render(paper=paper, day=day, root="../")
    yield FEED_FILE, env.get_template("feed.xml").render(feed=feed)


def _write_if_changed(path: Path, text: str) -> bool:
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; a web server running as another user must read them
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _remove_stale(out: Path, kept: set[Path]) -> int:
    """Remove pages of days or papers no longer in the database, and temporary files of a crashed run.

    Only paths of the site's own shape (`<date>/index.html`, `<date>/<arxiv id>.html`) are candidates,
    so a mistaken `--out` never deletes someone else's HTML.
    """
    if not out.is_dir():
        return 0
    removed = 0
    for leftover in [*out.glob(".*.tmp"), *out.glob("*/.*.tmp")]:
        leftover.unlink()
    for folder in (f for f in out.iterdir() if f.is_dir() and DATE_RE.match(f.name)):
        for page in folder.glob("*.html"):
            if page not in kept and (page.stem == "index" or ARXIV_ID_RE.match(page.stem)):
                page.unlink()
                removed += 1
        if not any(folder.iterdir()):
            folder.rmdir()
    return removed


def _mind_map(node: MindMapNode) -> MindMap:
    return MindMap(label=node.label, children=tuple(_mind_map(c) for c in node.children))


def _json_list(text: str | None) -> list[Any]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return []
    return value if isinstance(value, list) else []


def _xml_safe(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return _XML_INVALID_RE.sub("", value)
    return value
