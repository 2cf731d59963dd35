"""Search in the browser: how long a first and a next search take on a built site, and what they download.

    python bench/search.py data/site router 路由器
    python bench/search.py --smoke        # seconds: one search on a 3-day archive it builds

Serves the folder over HTTP on 127.0.0.1 to Debian's headless Chromium, its cache off (a reader's first visit),
and for each term, on fresh pages:
- opens `search.html`, which loads Pagefind and merges every month's English index as it opens (site.js records
  `data-loaded-ms`: from the page's script to every index merged; the Chinese indexes load with the first search
  of a Chinese word), then fills in the term and searches: site.js records `data-ms`, from the search to its
  results shown;
- opens `search.html?q=<term>`, as the box on every other page does: its search waits for the loading, so
  its `data-ms` includes it;
- then a second search on that page;
- and, on a fresh page again, the term typed into the search page's box key by key, KEY_INTERVAL_S apart (a
  fast typist), then Enter, as a reader searches: site.js asks Pagefind to preload the words' index chunks as
  they are typed, so `data-ms`, from Enter to the results shown, is the search itself and the excerpts;
- and, on a fresh page, the newest day's page: the term typed key by key into the box every page has, then
  Enter, which shows the results on that page. Pagefind loads from the first key, so `data-ms` (from Enter)
  includes whatever of the loading the typing did not cover.
Downloads are the bytes the server sent, the worker's requests included.
Needs the dev extra (selenium) and chromium.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
KEY_INTERVAL_S = 0.15  # about 80 words a minute


class _Counting(http.server.SimpleHTTPRequestHandler):
    served: ClassVar[list[tuple[str, int]]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.translate_path(self.path)
        self.served.append((self.path, os.path.getsize(path) if os.path.isfile(path) else 0))
        super().do_GET()


def _results_ms(driver, timeout_s: float = 60.0, attribute: str = "ms") -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ms = driver.execute_script(  # a day page has its results' list once Pagefind loaded
            f"const r = document.getElementById('search-results'); return r && r.dataset.{attribute}"
        )
        if ms:
            return int(ms)
        time.sleep(0.02)
    raise TimeoutError(driver.execute_script("return document.getElementById('search-status').textContent"))


def _search(driver, term: str) -> int:
    """Search `term` with the search page's form, as a reader would: ms from the search to its results."""
    driver.execute_script(
        "const f = document.getElementById('search-form'); document.getElementById('q').value = arguments[0];"
        "document.getElementById('search-results').removeAttribute('data-ms'); f.requestSubmit();",
        term,
    )
    return _results_ms(driver)


def _typed(driver, term: str, box_id: str = "q") -> int:
    """Type `term` into a box key by key, then Enter: ms from Enter to the results shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.ID, box_id)
    box.clear()
    for key in term:
        box.send_keys(key)
        time.sleep(KEY_INTERVAL_S)
    driver.execute_script("const r = document.getElementById('search-results'); if (r) r.removeAttribute('data-ms')")
    box.send_keys(Keys.ENTER)
    return _results_ms(driver)


def _kb(served: list[tuple[str, int]]) -> str:
    return f"{sum(n for _, n in served) / 1e3:.0f} ({len(served)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=Path, nargs="?", help="the built site folder")
    parser.add_argument("terms", nargs="*", help="words to search for, one search each")
    parser.add_argument("--smoke", action="store_true", help="seconds: one search on a 3-day archive built here")
    args = parser.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory(prefix="bench-search-") as work:
            measure(smoke_site(Path(work)), ["model"])
        return
    if args.site is None or not args.terms:
        parser.error("give the site folder and at least one term (or --smoke)")
    measure(args.site, args.terms)


def smoke_site(work: Path) -> Path:
    """The site of a 3-day archive of 2 papers a day (bench/archive.py's days), built by `papers site`."""
    from archive import build_archives

    year, month = work / "year", work / "month"
    build_archives(year, month, 4, 2, "2026-01-01", work)
    papers = str(Path(sys.executable).parent / "papers")
    subprocess.run([papers, "site", "--db", str(year / "papers.db"), "--out", str(work / "site")], check=True)
    return work / "site"


def measure(site: Path, terms: list[str]) -> None:
    """Serve `site` on 127.0.0.1 and print one row per term (the module's docstring says what each cell is)."""
    handler = functools.partial(_Counting, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    months = [p.name for p in (site / "pagefind").glob("20??-??") if (p / "en" / "pagefind-entry.json").is_file()]
    day = max(p.relative_to(site).as_posix() for p in site.glob("20??-??-??/index.html"))
    print(f"\n### Search in Chromium: {site}, {len(months)} months' indexes merged, per language; the box on {day}\n")
    print(
        "| term | results | search.html opened: loaded ms | its download kB (requests) | search typed after: ms "
        "| its download kB | search.html?q=: first search ms (loading included) | its download kB (requests) "
        "| next search ms | typed key by key, then Enter: ms | its download kB (requests) "
        "| a day page's box, typed, then Enter: ms | its download kB (requests) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for term in terms:
            print("| " + " | ".join(str(cell) for cell in _row(base, day, term)) + " |")
    finally:
        server.shutdown()


def _row(base: str, day: str, term: str) -> list[object]:
    """One term's cells: four fresh browsers, one per way a reader searches."""

    def opened(driver) -> tuple[int, list, int, list, int]:
        driver.get(base + "search.html")
        loaded = _results_ms(driver, attribute="loadedMs")
        loading = _taken()
        typed = _search(driver, term)
        found = driver.execute_script("return document.querySelectorAll('#search-results li').length")
        return loaded, loading, typed, _taken(), found

    def asked(driver) -> tuple[int, list, int]:
        driver.get(base + "search.html?q=" + term)
        first = _results_ms(driver)
        served = _taken()
        return first, served, _search(driver, term[:-1] if len(term) > 3 else term + " ")

    def keyed(driver) -> tuple[int, list]:
        driver.get(base + "search.html")
        _results_ms(driver, attribute="loadedMs")
        _taken()
        return _typed(driver, term), _taken()

    def boxed(driver) -> tuple[int, list]:
        driver.get(base + day)
        return _typed(driver, term, "site-search"), _taken()

    loaded, loading, typed, typed_served, found = _in_browser(opened)
    first, first_served, following = _in_browser(asked)
    (key_ms, key_served), (box_ms, box_served) = _in_browser(keyed), _in_browser(boxed)
    return [term, found, loaded, _kb(loading), typed, _kb(typed_served), first, _kb(first_served), following,
            key_ms, _kb(key_served), box_ms, _kb(box_served)]  # fmt: skip


def _taken() -> list[tuple[str, int]]:
    """What the server sent since the last call."""
    served = list(_Counting.served)
    _Counting.served.clear()
    return served


def _in_browser(steps: Any) -> Any:
    """`steps(driver)` in a new browser with a new profile: a cold cache, as on a reader's first visit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-bench-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    _Counting.served.clear()
    try:
        return steps(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
