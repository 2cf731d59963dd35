"""Debian's headless Chromium for the site's tests, and a folder served over HTTP on 127.0.0.1 for it."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
MISSING = "chromium/chromedriver not installed (apt-get install chromium chromium-driver; .ci/run does)"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Tests talk only to servers on 127.0.0.1: any other host (a page's image from Hugging Face) does not resolve,
    # so nothing leaves the machine and the page shows what it shows when an image fails.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
)


def have_chromium() -> bool:
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


@contextlib.contextmanager
def chromium(*, keep_dialogs: bool = False) -> Iterator[Any]:
    """A selenium driver of Debian's Chromium through its chromedriver (selenium downloads nothing when given
    both), in a profile of its own, 1280 x 900; `keep_dialogs` leaves an alert open for the test to see."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if keep_dialogs:
        options.set_capability("unhandledPromptBehavior", "ignore")
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: Any) -> list[str]:
    """The page's severe console messages since the last call, but for a resource of another host than 127.0.0.1
    that did not load: the tests' browser resolves no other host (CHROMIUM_FLAGS), so a page's images from Hugging
    Face fail there, as they would offline; anything else (a script error, a missing file of the site) is kept."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE"
        and not (entry.get("source") == "network" and "net::ERR_NAME_NOT_RESOLVED" in entry["message"])
    ]


def serious_axe_violations(driver: Any) -> list[str]:
    """What axe-core finds serious or critical on the driver's page, one line each: its rule, what it asks, how many
    elements and the first of them. axe-core comes with axe-selenium-python (the dev extra)."""
    import axe_selenium_python

    axe = Path(axe_selenium_python.__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
    driver.execute_script(axe.read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));"
    )
    if not isinstance(found, list):
        raise AssertionError(f"axe-core failed: {found}")
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']}; {len(v['nodes'])} node(s), e.g. {v['nodes'][0]['target']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


@contextlib.contextmanager
def serve_folder(folder: Path, requested: list[str] | None = None) -> Iterator[str]:
    """A folder over HTTP on 127.0.0.1, as `python -m http.server -d data/site` serves it -> its URL (browsers
    load no module script from file://, so the site's search needs a server). `requested`, when given, gets
    the path of every GET, the requests of Pagefind's worker included (the page's own timeline lacks them)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if requested is not None:
                requested.append(self.path)
            super().do_GET()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
