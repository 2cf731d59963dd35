"""Search over every published day: Pagefind's own indexes, one per month and language, merged in the browser.

Each month has two indexes, both built by Pagefind (its Python API) from that month's paper pages:
`pagefind/<YYYY-MM>/en/` holds the pages without their Chinese blocks, indexed as English (stemmed), and
`pagefind/<YYYY-MM>/zh/` the pages without their English blocks, indexed as Chinese, each Chinese character a
word (`spaced`: the browser cuts a Chinese search into other words than Pagefind's build cuts a page into, so
a word is matched as its characters in a row). Which blocks are which comes from the pages' own `lang`
attributes. At `pagefind/` sits Pagefind's
runtime (pagefind.js, its worker and WebAssembly) with a one-page English index for the month indexes to merge
into (its page is a stub site.js leaves out of the results). A publish indexes its month again, and nothing
else: its cost is a month of pages, whatever the size of the archive (docs/site.md, "Search").
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from papers_digest.site.views import DATE_RE

PAGEFIND_DIR = "pagefind"
STUB_PAGE = "pagefind-stub.html"  # the root index's one page; site.js filters it out of the results
# The stub's one word, which no reader types: the stub never matches a search.
STUB_HTML = (
    '<!doctype html><html lang="en"><head><title>papersdigestsearchstub</title></head>'
    "<body><main data-pagefind-body>papersdigestsearchstub</main></body></html>"
)
INDEX_FILES = ("pagefind-entry.json", "index", "fragment", "filter")  # with pagefind.*.pf_meta: an index's own files
# Chinese, Japanese (kana) and Korean characters: as site.js's CJK, which searches them in the Chinese indexes
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_EDGE_RE = re.compile(f"(?<=[{CJK}])(?=\\S)|(?<=\\S)(?=[{CJK}])")
_MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
TIMEOUT_S = 300.0  # for a month's indexes: a Pagefind process that stops answering never holds up a publish


@dataclass(frozen=True)
class Language:
    """One of a month's indexes: Pagefind's language for it, the blocks of the other language it leaves out,
    and whether Pagefind reads the pages with each CJK character spaced apart (`spaced`)."""

    code: str
    exclude: str  # a CSS selector: the elements of the other language
    by_character: bool = False

    def config(self) -> dict:
        return {"force_language": self.code, "exclude_selectors": [self.exclude]}


LANGUAGES = (Language("en", "[lang|=zh]"), Language("zh", "[lang|=en]", by_character=True))


class SearchIndexError(RuntimeError):
    """Pagefind is missing or failed: the pages are written, search lacks their month."""


def pagefind_binary() -> Path | None:
    """The Pagefind executable the Python API runs: the extended build of the wheel (Chinese segmentation) first."""
    from pagefind.service import get_executable

    return get_executable()


def indexed_months(site: str | Path) -> list[str]:
    """The months with their indexes in every language (YYYY-MM), newest first: what site.js merges."""
    folder = Path(site) / PAGEFIND_DIR
    if not folder.is_dir():
        return []
    names = [p.name for p in folder.iterdir() if _MONTH_RE.match(p.name) and _is_indexed(p)]
    return sorted(names, reverse=True)


def index_months(site: str | Path, dates: Iterable[str], published: set[str]) -> int:
    """Bring the search indexes up to date after the pages of `dates` were written: the month of each is indexed
    again by Pagefind, and so is any month of `published` (every date of the site) without its indexes; the
    indexes of months with no date left are removed. Returns the number of months indexed."""
    site = Path(site)
    months = {d[:7] for d in dates} | {d[:7] for d in published}.difference(indexed_months(site))
    root = site / PAGEFIND_DIR
    for old in root.iterdir() if root.is_dir() else ():
        # a month no longer published, and what earlier layouts left: each day's index or part (days/)
        gone = _MONTH_RE.match(old.name) and not any(d.startswith(f"{old.name}-") for d in published)
        if gone or DATE_RE.match(old.name) or old.name == "days":
            shutil.rmtree(old, ignore_errors=True)
    pages = {month: _month_pages(site, month) for month in sorted(months)}
    for month in [m for m, found in pages.items() if not found]:
        shutil.rmtree(root / month, ignore_errors=True)
        del pages[month]
    if not pages and not (indexed_months(site) and _root_stale(root)):
        return 0
    if pagefind_binary() is None:
        raise SearchIndexError("Pagefind is not installed (pip install 'pagefind[extended]')")
    root.mkdir(parents=True, exist_ok=True)
    try:
        asyncio.run(_index_all(site, pages))
    except SearchIndexError:
        raise
    except Exception as exc:  # the service answers errors as bare Exceptions (pagefind/service)
        raise SearchIndexError(f"pagefind failed: {exc}") from None
    return len(pages)


def _is_indexed(month: Path) -> bool:
    return all((month / lang.code / "pagefind-entry.json").is_file() for lang in LANGUAGES)


def _month_pages(site: Path, month: str) -> list[Path]:
    """The paper pages of `month` (its days' pages but their index.html), in date order."""
    days = sorted(p for p in site.glob(f"{month}-*") if p.is_dir() and DATE_RE.match(p.name))
    return [page for day in days for page in sorted(day.glob("*.html")) if page.name != "index.html"]


async def _index_all(site: Path, pages: dict[str, list[Path]]) -> None:
    """Index each month in every language with one Pagefind process (its Python API's service): a month's
    languages at once (each a core's work), the months one after the other (each holds its pages in memory).
    Indexes another Pagefind version wrote are indexed again too, and the runtime at the root written anew."""
    from pagefind.service import PagefindService

    root = site / PAGEFIND_DIR
    queue, version = list(pages), None
    async with PagefindService() as service:
        while queue:
            month = queue.pop(0)
            with tempfile.TemporaryDirectory(prefix=f".{month}.", dir=root) as tmp:
                out = Path(tmp) / "out"
                built = asyncio.gather(
                    *(_index(service, lang, _copied(Path(tmp), lang, site, pages[month]), out) for lang in LANGUAGES)
                )
                try:
                    await asyncio.wait_for(built, TIMEOUT_S)
                except TimeoutError:
                    raise SearchIndexError(f"pagefind took over {TIMEOUT_S:.0f} s on {month}") from None
                _swap(out, root / month)
            if version is None:
                version = _version(root / month / LANGUAGES[0].code)
                for other in indexed_months(site):
                    if other not in pages and _version(root / other / LANGUAGES[0].code) != version:
                        pages[other] = _month_pages(site, other)
                        queue.append(other)
        if _root_stale(root):
            await asyncio.wait_for(_write_root(service, root), TIMEOUT_S)


def spaced(html: str) -> str:
    """`html` with a space before and after each CJK character (where there is none): Pagefind then indexes each
    as a word, and the browser finds a Chinese word as its characters one after the other (an exact search),
    whatever words a segmenter would cut it into."""
    return _CJK_EDGE_RE.sub(" ", html)


def _copied(tmp: Path, lang: Language, site: Path, pages: list[Path]) -> Path:
    """A folder of these pages alone, under their paths in the site, for `lang`'s index: Pagefind walks the whole
    folder it is given, whatever the glob (a year's site is 7,000 pages and the indexes' files). Hard links, or
    the pages `spaced`."""
    folder = tmp / f"pages-{lang.code}"
    for page in pages:
        copy = folder / page.relative_to(site)
        copy.parent.mkdir(parents=True, exist_ok=True)
        if lang.by_character:
            copy.write_text(spaced(page.read_text(encoding="utf-8")), encoding="utf-8")
            continue
        try:
            os.link(page, copy)
        except OSError:
            shutil.copyfile(page, copy)
    return folder


async def _index(service, lang: Language, pages: Path, out: Path) -> None:
    out = out / lang.code
    index = await service.create_index(lang.config())
    added = await index.add_directory(str(pages), glob="*/*.html")
    if not added.get("page_count"):  # an index of no page: the browser's merge of it would fail every search
        raise SearchIndexError(f"pagefind found no page to index in {lang.code}")
    await index.write_files(output_path=str(out))
    await index.delete_index()
    if not (out / "pagefind-entry.json").is_file():
        raise SearchIndexError(f"pagefind wrote no {lang.code} index")
    for item in out.iterdir():  # the runtime is written once, at the root: a month keeps its index alone
        if item.name not in INDEX_FILES and not item.name.endswith(".pf_meta"):
            shutil.rmtree(item) if item.is_dir() else item.unlink()


async def _write_root(service, root: Path) -> None:
    """Pagefind's runtime and the stub's index at pagefind/ (the entry last: a reader never gets a new entry with
    old files). English: the stub's language chooses the WebAssembly every index is searched with, and the
    English one stems the words searched as the English indexes' words were."""
    index = await service.create_index({"force_language": "en"})
    await index.add_html_file(content=STUB_HTML, url=f"/{STUB_PAGE}")
    with tempfile.TemporaryDirectory(prefix=".root.", dir=root) as tmp:
        await index.write_files(output_path=tmp)
        for name in ("index", "fragment", "filter"):
            shutil.rmtree(root / name, ignore_errors=True)
        for old in root.glob("pagefind.*.pf_meta"):
            old.unlink()
        for item in sorted(Path(tmp).iterdir(), key=lambda p: p.name == "pagefind-entry.json"):
            os.replace(item, root / item.name)
    await index.delete_index()


def _root_stale(root: Path) -> bool:
    """Whether the runtime and stub at the root are missing, not the English stub, or of another Pagefind version
    than the newest month's indexes."""
    months = sorted((p for p in root.iterdir() if _MONTH_RE.match(p.name)), reverse=True) if root.is_dir() else []
    newest = _version(months[0] / LANGUAGES[0].code) if months else None
    return not (root / "pagefind.js").is_file() or _languages(root) != ["en"] or _version(root) != newest


def _version(bundle: Path) -> str | None:
    """The Pagefind version that wrote the index at `bundle`; None when it has none."""
    return _entry(bundle).get("version")


def _languages(bundle: Path) -> list[str]:
    return sorted(_entry(bundle).get("languages") or {})


def _entry(bundle: Path) -> dict:
    try:
        entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return entry if isinstance(entry, dict) else {}


def _swap(built: Path, target: Path) -> None:
    """Put the new folder in place of the old one: a rename each, the old one removed after."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(built, target)
    shutil.rmtree(old, ignore_errors=True)
