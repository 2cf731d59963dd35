"""Search over every published day: Pagefind indexes merged in the browser, one per day of the latest month
(`pagefind/<date>/`) and one per earlier month (`pagefind/<YYYY-MM>/`).

The bundle stays at Pagefind's default place, `pagefind/` at the site's root: there its runtime (pagefind.js,
its worker and WebAssembly) and a one-page index that the others merge into (the page is a stub the search
page leaves out of its results). A publish indexes its own day, 20 pages, so its cost does not grow with the
archive; once a month is over, the first publish after it folds that month's day indexes into one (a
month of pages, also bounded), because each index merged costs the browser time on the first query.
Indexing the whole site each publish cost 53 s and 3.2 GB at 365 days (docs/site.md, "Search").
Pagefind's extended binary comes from its wheel (`pagefind[extended]`): nothing is downloaded at run time.
Every page is indexed as Chinese (`--force-language zh`): the extended build segments Chinese words, and
English words are still split at spaces (prefix matching instead of stemming).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from papers_digest.site.views import DATE_RE

_NAME_RE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")  # a day's index or a month's

PAGEFIND_DIR = "pagefind"
STUB_PAGE = "pagefind-stub.html"  # the root index's one page; site.js filters it out of the results
RUNTIME_GLOBS = ("pagefind*.js", "pagefind*.css", "wasm.*.pagefind")  # kept once, at the root
LANGUAGE = "zh"
TIMEOUT_S = 300.0


class SearchIndexError(RuntimeError):
    """Pagefind is missing or failed: the pages are written, search lacks the day."""


def pagefind_binary() -> Path | None:
    """The Pagefind executable of the installed wheel, the extended build (Chinese segmentation) first."""
    for module in ("pagefind_bin_extended", "pagefind_bin"):
        try:
            found = __import__(module).get_executable()
        except (ImportError, FileNotFoundError):
            continue
        return Path(found)
    return None


def indexed_days(site: str | Path) -> list[str]:
    """The indexes under pagefind/, days (YYYY-MM-DD) and months (YYYY-MM), newest first: what search.html merges."""
    folder = Path(site) / PAGEFIND_DIR
    if not folder.is_dir():
        return []
    names = [p.name for p in folder.iterdir() if _NAME_RE.match(p.name) and (p / "pagefind-entry.json").is_file()]
    return sorted(names, reverse=True)


def index_days(site: str | Path, dates: set[str], published: set[str]) -> int:
    """Bring the indexes up to date after `dates` were rendered: a date of a month already folded rebuilds that
    month's index, any other date its own; then each month before the latest published one that still has
    day indexes is folded into one. `published`: every date of the site (the indexes of others are removed).
    Returns the number of indexes built."""
    site = Path(site)
    latest = max(published, default="")[:7]
    have = set(indexed_days(site))
    months = {d[:7] for d in dates if d[:7] in have or d[:7] < latest}
    months |= {name[:7] for name in have if DATE_RE.match(name) and name[:7] < latest}
    built = 0
    for date in sorted(d for d in dates if d[:7] not in months):
        built += _index(site, date, [date])
    for month in sorted(months):
        built += _index(site, month, sorted(d for d in published if d.startswith(f"{month}-")))
        for day in have:
            if DATE_RE.match(day) and day[:7] == month:
                shutil.rmtree(site / PAGEFIND_DIR / day, ignore_errors=True)
    for name in set(indexed_days(site)):
        if name not in published and name not in {d[:7] for d in published}:
            shutil.rmtree(site / PAGEFIND_DIR / name, ignore_errors=True)
    return built


def _index(site: Path, name: str, dates: list[str]) -> int:
    """(Re)build `pagefind/<name>/` from the paper pages of `dates`; removed when they have none.

    Pagefind walks the whole folder it is given, whatever the glob (a year's site is 7,000 pages and the
    indexes' files), so it is given a folder of links to these pages alone, under their own paths."""
    binary = _binary()
    target = site / PAGEFIND_DIR / name
    _ensure_root(site, binary)
    pages = [p for d in dates if (site / d).is_dir() for p in (site / d).glob("*.html") if p.name != "index.html"]
    if not pages:
        shutil.rmtree(target, ignore_errors=True)
        return 0
    with tempfile.TemporaryDirectory(prefix=f".{name}.", dir=site / PAGEFIND_DIR) as tmp:
        only = Path(tmp) / "site"
        for page in pages:
            link = only / page.parent.name / page.name
            link.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(page, link)  # no copy: the same file under the path it has in the site
            except OSError:
                shutil.copyfile(page, link)
        built = Path(tmp) / "bundle"
        _run(binary, only, built, glob="*/*.html")
        for pattern in RUNTIME_GLOBS:  # the root has them once
            for extra in built.glob(pattern):
                extra.unlink()
        _swap(built, target)
    return 1


def _binary() -> Path:
    binary = pagefind_binary()
    if binary is None:
        raise SearchIndexError("Pagefind is not installed (pip install 'pagefind[extended]')")
    return binary


def _ensure_root(site: Path, binary: Path) -> None:
    """Pagefind's runtime and the stub index at pagefind/, once per Pagefind version."""
    root = site / PAGEFIND_DIR
    version = _version(binary)
    entry = root / "pagefind-entry.json"
    if entry.is_file() and (root / "pagefind.js").is_file():
        try:
            if json.loads(entry.read_text(encoding="utf-8")).get("version") == version:
                return
        except (OSError, json.JSONDecodeError):
            pass
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".root.", dir=root) as tmp:
        stub_site = Path(tmp) / "site"
        stub_site.mkdir()
        (stub_site / STUB_PAGE).write_text(
            '<!doctype html><html lang="zh"><head><title>papers-digest</title></head>'
            "<body><main data-pagefind-body>papers-digest</main></body></html>",
            encoding="utf-8",
        )
        built = Path(tmp) / "bundle"
        _run(binary, stub_site, built, glob=STUB_PAGE)
        for name in ("index", "fragment"):
            shutil.rmtree(root / name, ignore_errors=True)
        for old in root.glob("pagefind.*.pf_meta"):
            old.unlink()
        for item in sorted(built.iterdir(), key=lambda p: p.name == "pagefind-entry.json"):  # the entry last
            os.replace(item, root / item.name)


def _run(binary: Path, site: Path, output: Path, *, glob: str) -> None:
    command = [str(binary), "--site", str(site), "--glob", glob, "--output-path", str(output)]
    command += ["--force-language", LANGUAGE, "--silent"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SearchIndexError(f"pagefind did not run: {exc}") from None
    if done.returncode != 0 or not (output / "pagefind-entry.json").is_file():
        why = (done.stderr or done.stdout).strip().splitlines()
        raise SearchIndexError(f"pagefind exited with {done.returncode}: {why[-1] if why else 'no output'}")


def _version(binary: Path) -> str:
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip().rsplit(" ", 1)[-1]


def _swap(built: Path, target: Path) -> None:
    """Put the new bundle in place of the old one: a rename each, the old one removed after."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(built, target)
    shutil.rmtree(old, ignore_errors=True)
