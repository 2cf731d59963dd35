"""Search over every published day: one Pagefind index per month (`pagefind/<YYYY-MM>/`), merged in the browser.

The bundle stays at Pagefind's default place, `pagefind/` at the site's root: there its runtime (pagefind.js,
its worker and WebAssembly) and a one-page index that the others merge into (the page is a stub the search
page leaves out of its results). A publish runs Pagefind on its own day, 20 pages, and keeps the result as the
day's part (`pagefind/days/<date>/`: its pages' fragments, and its words read for merging,
site/pagefind_merge.py); then the day's month index is merged again from the month's parts, by copying bytes,
without Pagefind. So a publish costs a day of Pagefind and a month of copying, whatever the size of the archive,
and the browser merges one index per month. Running Pagefind on a month at once cost 8 s and 357 MB, on the
whole site 53 s and 3.2 GB at 365 days (docs/site.md, "Search").
Pagefind's extended binary comes from its wheel (`pagefind[extended]`): nothing is downloaded at run time.
Every page is indexed as Chinese (`--force-language zh`): the extended build segments Chinese words, and
English words are still split at spaces (prefix matching instead of stemming).
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from papers_digest.site.pagefind_merge import SIGNATURE, MergeError, Part, merge, read_part
from papers_digest.site.views import DATE_RE

_MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
_OLD_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")  # a day's own index, as sites before the month merge had them

PAGEFIND_DIR = "pagefind"
PARTS_DIR = "days"  # under pagefind/: each day's part, what its month's index is merged from
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
    """The month indexes under pagefind/ (YYYY-MM), newest first: what search.html merges."""
    folder = Path(site) / PAGEFIND_DIR
    if not folder.is_dir():
        return []
    names = [p.name for p in folder.iterdir() if _MONTH_RE.match(p.name) and (p / "pagefind-entry.json").is_file()]
    return sorted(names, reverse=True)


def parted_days(site: str | Path) -> set[str]:
    """The dates with a part (the day indexed by Pagefind, ready to merge)."""
    folder = Path(site) / PAGEFIND_DIR / PARTS_DIR
    if not folder.is_dir():
        return set()
    return {p.name for p in folder.iterdir() if DATE_RE.match(p.name) and (p / "part.json").is_file()}


def index_days(site: str | Path, dates: set[str], published: set[str]) -> int:
    """Bring the search indexes up to date after `dates` were rendered: each date's part is built again (from
    its paper pages, by Pagefind), then the index of each month touched is merged again from its parts.
    `published`: every date of the site (the parts and indexes of others are removed). Returns the number of
    indexes built: days run through Pagefind, and months merged."""
    site = Path(site)
    parts = parted_days(site)
    merged = set(indexed_days(site))
    months = {d[:7] for d in dates} | {d[:7] for d in parts if d[:7] not in merged}
    for date in parts - published:
        shutil.rmtree(site / PAGEFIND_DIR / PARTS_DIR / date, ignore_errors=True)
        parts.discard(date)
        months.add(date[:7])
    # a day not indexed yet (a site from before parts) is indexed once, with its month
    unindexed = {d for d in published - parts - dates if d[:7] in months}
    built = _index_days(site, sorted(dates | unindexed))
    for month in sorted(months):
        days = {d for d in published if d.startswith(f"{month}-")}
        built += _merge_month(site, month, sorted(parted_days(site) & days))
    for old in (site / PAGEFIND_DIR).iterdir() if (site / PAGEFIND_DIR).is_dir() else ():
        gone = _MONTH_RE.match(old.name) and not any(d.startswith(f"{old.name}-") for d in published)
        if _OLD_RE.match(old.name) or gone:
            shutil.rmtree(old, ignore_errors=True)
    return built


def _index_days(site: Path, dates: list[str]) -> int:
    """(Re)build the parts of `dates`, one Pagefind process per day, as many at once as there are cores: a
    day's Pagefind is mostly its own start and one core's work (`papers site` into an empty folder runs it on
    every day of the archive)."""
    if not dates:
        return 0
    binary = _binary()
    _ensure_root(site, binary)  # once, before the days
    if len(dates) == 1:
        return _index_day(site, binary, dates[0])
    with (
        ThreadPoolExecutor(max_workers=min(len(dates), os.cpu_count() or 1)) as pool,
        tqdm(total=len(dates), desc="search index", unit="day", dynamic_ncols=True, disable=len(dates) < 8) as bar,
    ):
        built = 0
        for one in pool.map(functools.partial(_index_day, site, binary), dates):
            built += one
            bar.update()
        return built


def _index_day(site: Path, binary: Path, date: str) -> int:
    """(Re)build the part of `date` from its paper pages, with the Pagefind `binary` (its runtime already at the
    root: _index_days); removed when it has none.

    Pagefind walks the whole folder it is given, whatever the glob (a year's site is 7,000 pages and the
    indexes' files), so it is given a folder of links to these pages alone, under their own paths."""
    target = site / PAGEFIND_DIR / PARTS_DIR / date
    folder = site / date
    pages = [p for p in folder.glob("*.html") if p.name != "index.html"] if folder.is_dir() else []
    if not pages:
        shutil.rmtree(target, ignore_errors=True)
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{date}.", dir=target.parent) as tmp:
        only = Path(tmp) / "site"
        for page in pages:
            link = only / date / page.name
            link.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(page, link)  # no copy: the same file under the path it has in the site
            except OSError:
                shutil.copyfile(page, link)
        built = Path(tmp) / "bundle"
        _run(binary, only, built, glob="*/*.html")
        part = _read_bundle(built)
        out = Path(tmp) / "part"
        out.mkdir()
        os.replace(built / "fragment", out / "fragment")
        (out / "part.bin.gz").write_bytes(gzip.compress(part.data, 6, mtime=0))
        (out / "part.json").write_text(json.dumps(part.to_json(), ensure_ascii=False), encoding="utf-8")
        _swap(out, target)
    return 1


def _read_bundle(bundle: Path) -> Part:
    """A bundle Pagefind wrote, as a Part (site/pagefind_merge.py)."""
    try:
        entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
        (language,) = entry["languages"].values()
        meta = _unpack(bundle / f"pagefind.{language['hash']}.pf_meta")
        chunks = {p.name.removesuffix(".pf_index"): _unpack(p) for p in (bundle / "index").glob("*.pf_index")}
        return read_part(meta, chunks)
    except (OSError, ValueError, KeyError, MergeError) as exc:
        raise SearchIndexError(f"pagefind wrote an index this merge does not read: {exc}") from None


def _unpack(path: Path) -> bytes:
    data = gzip.decompress(path.read_bytes())
    if not data.startswith(SIGNATURE):
        raise MergeError(f"{path.name} is not a Pagefind file")
    return data[len(SIGNATURE) :]


def _merge_month(site: Path, month: str, dates: list[str]) -> int:
    """Merge `pagefind/<month>/` again from the parts of `dates` (its days, in order); removed when none."""
    target = site / PAGEFIND_DIR / month
    if not dates:
        shutil.rmtree(target, ignore_errors=True)
        return 0
    parts, names = [], []
    taken: dict[str, Path] = {}
    for date in dates:
        folder = site / PAGEFIND_DIR / PARTS_DIR / date
        try:
            words = json.loads((folder / "part.json").read_text(encoding="utf-8"))
            part = Part.from_json(words, gzip.decompress((folder / "part.bin.gz").read_bytes()))
        except (OSError, EOFError, ValueError, KeyError) as exc:
            raise SearchIndexError(f"the search part of {date} is unreadable: {exc}") from None
        mine = []
        for fragment, _ in part.pages:  # two days' pages may share a short hash: the later one is renamed
            name = fragment if fragment not in taken else f"{fragment}{date.replace('-', '')}"
            taken[name] = folder / "fragment" / f"{fragment}.pf_fragment"
            mine.append(name)
        parts.append(part)
        names.append(mine)
    try:
        merged = merge(parts, LANGUAGE, names)
    except MergeError as exc:
        raise SearchIndexError(f"the month {month} could not be merged: {exc}") from None
    with tempfile.TemporaryDirectory(prefix=f".{month}.", dir=site / PAGEFIND_DIR) as tmp:
        out = Path(tmp) / "index"
        (out / "fragment").mkdir(parents=True)
        (out / "index").mkdir()
        for name, source in taken.items():
            link = out / "fragment" / f"{name}.pf_fragment"
            try:
                os.link(source, link)
            except OSError:
                shutil.copyfile(source, link)
        for chunk, data in merged.chunks.items():
            (out / "index" / f"{chunk}.pf_index").write_bytes(gzip.compress(SIGNATURE + data, 6, mtime=0))
        (out / f"pagefind.{merged.meta_hash}.pf_meta").write_bytes(gzip.compress(SIGNATURE + merged.meta, 6, mtime=0))
        entry = json.loads((site / PAGEFIND_DIR / "pagefind-entry.json").read_text(encoding="utf-8"))
        entry["languages"] = {LANGUAGE: {"hash": merged.meta_hash, "wasm": None, "page_count": merged.page_count}}
        (out / "pagefind-entry.json").write_text(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        _swap(out, target)
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


@functools.cache  # once per process: `papers site` indexes every day
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
