"""Search in the browser: how long a first and a next search take on a built site, and what they download.

    python bench/search.py data/site router 路由器

Serves the folder over HTTP on 127.0.0.1, opens `search.html?q=<term>` in Debian's headless Chromium (a fresh
page each term, so each first search loads Pagefind and merges every index), reads the time site.js records
(`data-ms`: from the search to its results shown), and counts the bytes the server sent, the worker's
requests included. Then a second search on the same page. Needs the dev extra (selenium) and chromium.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class _Counting(http.server.SimpleHTTPRequestHandler):
    served: ClassVar[list[tuple[str, int]]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.translate_path(self.path)
        self.served.append((self.path, os.path.getsize(path) if os.path.isfile(path) else 0))
        super().do_GET()


def _results_ms(driver, timeout_s: float = 60.0) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ms = driver.execute_script("return document.getElementById('search-results').dataset.ms")
        if ms:
            return int(ms)
        time.sleep(0.02)
    raise TimeoutError(driver.execute_script("return document.getElementById('search-status').textContent"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=Path, help="the built site folder")
    parser.add_argument("terms", nargs="+", help="words to search for, one search each")
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    handler = functools.partial(_Counting, directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    profile = tempfile.mkdtemp(prefix="chromium-bench-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    indexes = len(list((args.site / "pagefind").glob("20*/pagefind-entry.json")))
    print(f"\n### Search in Chromium: {args.site}, {indexes} indexes merged\n")
    print("| term | results | first search ms | its download kB (requests) | next search ms | its download kB |")
    print("|---|---:|---:|---:|---:|---:|")
    try:
        for term in args.terms:
            driver.get(base + "index.html")
            driver.execute_script("localStorage.clear()")
            _Counting.served.clear()
            driver.get(base + "search.html?q=" + term)
            first = _results_ms(driver)
            found = driver.execute_script("return document.querySelectorAll('#search-results li').length")
            first_bytes = [n for path, n in _Counting.served if not path.startswith("/index.html")]
            _Counting.served.clear()
            driver.execute_script(
                "const f = document.getElementById('search-form'); document.getElementById('q').value = arguments[0];"
                "document.getElementById('search-results').removeAttribute('data-ms'); f.requestSubmit();",
                term[:-1] if len(term) > 3 else term + " ",
            )
            following = _results_ms(driver)
            next_kb = sum(n for _, n in _Counting.served) / 1e3
            print(
                f"| {term} | {found} | {first} | {sum(first_bytes) / 1e3:.0f} ({len(first_bytes)}) "
                f"| {following} | {next_kb:.0f} |"
            )
    finally:
        driver.quit()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
