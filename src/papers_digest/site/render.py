"""Rendering the site: every page and the feed into a folder, written only when changed, via Jinja2."""

from __future__ import annotations

import datetime as dt
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from papers_digest.core.models import ARXIV_ID_RE
from papers_digest.db.queries import site_rows
from papers_digest.site.feed import DEFAULT_BASE_URL, FEED_FILE, Feed, build_feed, normalise_base_url
from papers_digest.site.views import DATE_RE, DayView, SiteError, build_days

# XML 1.0 forbids C0 controls other than tab/LF/CR, surrogates and U+FFFE/U+FFFF; one of them in model
# output would make the feed unparseable, so they are dropped from every rendered value.
_XML_INVALID_RE = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


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
    rows = site_rows(path)
    return build_days(papers=rows.papers, digests=rows.digests, listed=rows.listed, run_dates=rows.run_dates)


def make_environment() -> Environment:
    """Jinja2 with autoescaping for .html and .xml: model output is untrusted text, never markup."""
    env = Environment(
        loader=PackageLoader("papers_digest.site", "templates"),
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
    yield "style.css", (resources.files("papers_digest.site") / "templates" / "style.css").read_text(encoding="utf-8")
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


def _xml_safe(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return _XML_INVALID_RE.sub("", value)
    return value
