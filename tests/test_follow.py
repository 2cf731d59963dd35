"""Readers III, the browser half (#47): follow and mute in the reader's browser, the For you page, trends, no broken
thumbnails; on archives of the recorded Hugging Face days written straight into the database (no DVC, no engine)."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, day_papers, wait_until
from test_site_archive import PUBLISHED, RECORDED, day_files, page, published, rows

from papers_devtools.testing.browser import console_errors, serious_axe_violations, serve_folder
from papers_digest.core.models import DayList
from papers_digest.day.areas import area_of
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.site.foryou import FOR_YOU_DAYS
from papers_digest.site.render import render_site
from papers_digest.site.trends import RECENT_WEEKS, RISING_MIN_PAPERS

pytestmark = pytest.mark.xdist_group("test_follow")

LATEST = max(PUBLISHED)
KEY = "papers-digest-follow"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The recorded days published one by one (tests/test_site_archive.py): the database and the site."""
    return published(tmp_path_factory.mktemp("follow"))


def shown_papers(db: Path) -> list[dict]:
    """Every paper the archive shows, as the area pages do: picked ones on their date, the others on the last date
    that listed them (computed here in Python, apart from the SQL under test)."""
    picked = rows(db, "select arxiv_id, date, title, authors, keywords, areas from papers")
    ids = {p["arxiv_id"] for p in picked}
    latest: dict[str, dict] = {}
    for item in rows(db, "select arxiv_id, date, title, authors, keywords, areas from day_items"):
        if item["arxiv_id"] not in ids and item["date"] >= latest.get(item["arxiv_id"], {"date": ""})["date"]:
            latest[item["arxiv_id"]] = item
    return [*picked, *latest.values()]


# ---------------------------------------------------------------- what the pages carry for the script


def test_a_days_cards_carry_each_papers_areas_keywords_and_authors(recorded):
    db, out = recorded
    cards = page(out / LATEST / "index.html").cssselect("ol.cards > li.paper")
    listed = {r["arxiv_id"]: r for r in rows(db, "select * from day_items where date = ?", [LATEST])}
    assert len(cards) == len(listed)
    for card in cards:
        row = listed[card.get("id").removeprefix("p-")]
        chips = [a.get("href").rsplit("/", 1)[-1].removesuffix(".html") for a in card.cssselect("p.topics a.area")]
        assert chips == json.loads(row["areas"])  # follow.js reads the areas from the chips' links
        assert [k for k in card.get("data-keywords").split("|") if k] == json.loads(row["keywords"] or "[]")
        (line,) = card.cssselect("p.authors")
        # the names the line shows, then those past them in its data-authors: every author, each sent once
        shown = (line.text or "").removesuffix(" · ").removesuffix(" et al.").split(", ")
        hidden = line.get("data-authors", "").split("|") if line.get("data-authors") else []
        assert [*shown, *hidden] == json.loads(row["authors"])


def test_every_page_links_the_trends_and_hides_for_you_until_the_script_shows_it(recorded):
    _, out = recorded
    for path in ("index.html", f"{LATEST}/index.html", "topics/index.html", "trends.html", "status.html"):
        header = page(out / path).cssselect("header.site")[0]
        assert header.cssselect("a.trends")[0].get("href").endswith("trends.html"), path
        (foryou,) = header.cssselect("a.foryou")
        assert foryou.get("hidden") is not None, path


def test_for_you_holds_every_paper_of_the_latest_30_days_with_a_link_that_resolves(recorded):
    db, out = recorded
    data = json.loads((out / "foryou.json").read_text(encoding="utf-8"))
    first = (dt.date.fromisoformat(LATEST) - dt.timedelta(days=FOR_YOU_DAYS - 1)).isoformat()
    assert (data["since"], data["until"]) == (first, LATEST)
    expected = {p["arxiv_id"]: p for p in shown_papers(db) if first <= p["date"] <= LATEST}
    assert sorted(p["id"] for p in data["papers"]) == sorted(expected)
    assert [p["date"] for p in data["papers"]] == sorted((p["date"] for p in data["papers"]), reverse=True)
    for paper in data["papers"]:
        row = expected[paper["id"]]
        assert (paper["date"], paper["areas"]) == (row["date"], json.loads(row["areas"]))
        assert paper["authors"] == json.loads(row["authors"] or "[]")
        assert paper["keywords"] == json.loads(row["keywords"] or "[]")
        target, _, anchor = paper["path"].partition("#")
        assert (out / target).is_file(), paper["path"]
        assert not anchor or page(out / target).get_element_by_id(anchor) is not None
        assert all(data["areas"][a] == [area_of(a).en, area_of(a).zh] for a in paper["areas"])


def test_for_you_leaves_out_the_days_before_its_30(tmp_path):
    db = tmp_path / "papers.db"
    old, new = "2025-11-01", "2026-01-05"  # 66 days apart
    for date, listing in ((old, RECORDED[0]), (new, RECORDED[-1])):
        files = day_files(date, listing)
        write_day(db, files, run_record(files))
    render_site(db, tmp_path / "site")
    data = json.loads((tmp_path / "site" / "foryou.json").read_text(encoding="utf-8"))
    assert {p["date"] for p in data["papers"]} == {new}


# ---------------------------------------------------------------- trends


def week_counts(db: Path) -> tuple[Counter, Counter]:
    """Papers per (Monday, area) and per Monday, counted here in Python from the rows."""
    per_area, per_week = Counter(), Counter()
    for paper in shown_papers(db):
        day = dt.date.fromisoformat(paper["date"])
        monday = (day - dt.timedelta(days=day.weekday())).isoformat()
        per_week[monday] += 1
        per_area.update((monday, a) for a in json.loads(paper["areas"]))
    return per_area, per_week


def trend_table(site: Path) -> tuple[list[str], dict[str, list[int]]]:
    """The trends page's table: its weeks (Mondays) and, by row name (English), the counts."""
    (table,) = page(site / "trends.html").cssselect("table.trends")
    weeks = [t.get("datetime") for t in table.cssselect("thead time")]
    counts = {
        tr.cssselect("th .ui[lang=en]")[0].text_content(): [int(td.text_content()) for td in tr.cssselect("td")]
        for tr in table.cssselect("tbody tr")
    }
    return weeks, counts


def test_trends_count_each_areas_papers_per_week_as_the_database_holds_them(recorded):
    db, out = recorded
    per_area, per_week = week_counts(db)
    weeks, counts = trend_table(out)
    assert len(weeks) == 26 and weeks[-1] == "2026-01-05"  # the latest date's week, last
    assert counts.pop("All papers") == [*(per_week[w] for w in weeks), sum(per_week.values())]
    by_name = {area_of(slug).en: slug for _, slug in per_area}
    assert set(counts) == set(by_name)
    for name, shown in counts.items():
        assert shown == [*(per_area[(w, by_name[name])] for w in weeks), sum(shown[:-1])], name


def listed_day(date: str, listing: str, n: int) -> DayFiles:
    """A recorded day listed again on `date`, its papers under ids of their own (the `n`-th day), none picked."""
    papers = [p.model_copy(update={"arxiv_id": f"2601.{n:02d}{i:03d}"}) for i, p in enumerate(day_papers(listing))]
    return DayFiles(day=DayList(date=date, limit=0, papers=papers, picked=[]), fulltext={}, english={}, chinese={})


@pytest.fixture(scope="module")
def weeks_archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Twelve Mondays: the 2025-09-15 listing on each of the first eight, the 2026-01-13 one on the last four."""
    folder = tmp_path_factory.mktemp("weeks")
    db = folder / "papers.db"
    for n in range(12):
        date = (dt.date(2025, 10, 13) + dt.timedelta(weeks=n)).isoformat()
        files = listed_day(date, "2025-09-15" if n < 8 else "2026-01-13", n)
        write_day(db, files, run_record(files))
    render_site(db, folder / "site")
    return db, folder / "site"


def test_the_rising_areas_are_those_whose_share_of_the_latest_weeks_grew_most(weeks_archive):
    db, out = weeks_archive
    per_area, per_week = week_counts(db)
    mondays = sorted(per_week)
    recent, before = mondays[-RECENT_WEEKS:], mondays[:-RECENT_WEEKS]
    total_recent, total_before = sum(per_week[w] for w in recent), sum(per_week[w] for w in before)
    growth = {}
    for slug in {a for _, a in per_area}:
        now, then = sum(per_area[(w, slug)] for w in recent), sum(per_area[(w, slug)] for w in before)
        if now >= RISING_MIN_PAPERS and now / total_recent > then / total_before:
            growth[slug] = (now / total_recent) / (then / total_before) if then else float("inf")
    expected = sorted(growth, key=lambda s: (-growth[s], -sum(per_area[(w, s)] for w in recent), s))[:5]
    assert expected, "the recorded listings differ: some area's share grew"
    shown = [a.get("href") for a in page(out / "trends.html").cssselect("ol.rising > li > a")]
    assert shown == [f"topics/{slug}.html" for slug in expected]


def test_the_trends_chart_draws_a_row_of_bars_per_area_scaled_to_its_busiest_week(weeks_archive):
    _, out = weeks_archive
    root = page(out / "trends.html")
    _, counts = trend_table(out)
    counts.pop("All papers")
    rows_shown = root.cssselect("ol.trend-rows > li")
    assert len(rows_shown) == len(counts)
    for row in rows_shown:
        name = row.cssselect("a.area .ui[lang=en]")[0].text_content()
        (svg,) = row.cssselect("svg")
        assert svg.get("aria-hidden") == "true"  # the table below says it in words
        heights = [float(r.get("height")) for r in svg.cssselect("rect")]
        weekly = [n for n in counts[name][:-1] if n]
        assert len(heights) == len(weekly) and max(heights) == 24.0, name
        assert heights.index(max(heights)) == weekly.index(max(weekly)), name


def test_an_archive_without_papers_before_the_latest_weeks_has_nothing_to_compare(recorded):
    _, out = recorded
    (rising,) = page(out / "trends.html").xpath("//h2[contains(., 'Rising')]/following-sibling::p[2]")
    assert "Nothing to compare yet" in rising.text_content()


# ---------------------------------------------------------------- in a real browser


@pytest.fixture(scope="module")
def served(recorded: tuple[Path, Path]) -> Iterator[str]:
    with serve_folder(recorded[1]) as url:
        yield url


def _fresh(browser, url: str, width: int | None = None) -> None:
    """`url` with nothing followed, at `width` px (a phone's below 600)."""
    if width:
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600},
        )
    browser.get(url)
    browser.execute_script("localStorage.clear()")
    browser.get(url)


def _cards(browser) -> list:
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, "ol.cards > li.paper")


def _areas(card) -> list[str]:
    from selenium.webdriver.common.by import By

    links = card.find_elements(By.CSS_SELECTOR, "p.topics a.area")
    return [a.get_attribute("href").rsplit("/", 1)[-1].removesuffix(".html") for a in links]


@pytest.fixture
def widths(browser) -> Iterator[list[int]]:
    yield [1280, 390]
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.slow
def test_following_an_area_and_reloading_puts_its_paper_first(browser, served, widths):
    from selenium.webdriver.common.by import By

    day = served + f"{LATEST}/index.html"
    for width in widths:
        _fresh(browser, day, width)
        cards = _cards(browser)
        order = [c.get_attribute("id") for c in cards]
        first = set(_areas(cards[0]))
        # an area the first paper lacks, of the last paper that has one
        card = next(c for c in reversed(cards) if set(_areas(c)) - first)
        slug = sorted(set(_areas(card)) - first)[0]
        toggle = card.find_element(By.CSS_SELECTOR, f"a.area[href$='/{slug}.html'] + button.follow-toggle")
        assert toggle.get_attribute("aria-pressed") == "false"
        toggle.click()
        assert toggle.get_attribute("aria-pressed") == "true"
        browser.refresh()
        cards = _cards(browser)
        with_area = [i for i in order if slug in _areas(browser.find_element(By.ID, i))]
        assert [c.get_attribute("id") for c in cards[: len(with_area)]] == with_area, width
        why = cards[0].find_element(By.CSS_SELECTOR, "p.why")
        assert why.text == f"You follow: {area_of(slug).en}"
        rest = [c.get_attribute("id") for c in cards[len(with_area) :]]
        assert rest == [i for i in order if i not in with_area]  # the others as before
        assert console_errors(browser) == []


def _mute(browser, keyword: str) -> None:
    """Mute a keyword in the settings under the header's For you."""
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, "details.follow-menu > summary").click()
    wait_until(lambda: browser.find_elements(By.ID, "follow-term"), what="the settings")
    term = browser.find_element(By.ID, "follow-term")
    term.send_keys(keyword)
    browser.find_element(By.CSS_SELECTOR, "form.follow-add button[value=muted]").click()


def _unique_keyword(cards) -> tuple[str, str]:
    """A keyword of one card only (no other card's keywords or title hold it), and that card's id."""
    texts = {
        c.get_attribute("id"): (c.get_attribute("data-keywords") or "").lower() + "|" + c.text.lower() for c in cards
    }
    for card in cards[2:]:
        for keyword in (card.get_attribute("data-keywords") or "").split("|"):
            holders = [i for i, t in texts.items() if keyword.lower() in t]
            if keyword and holders == [card.get_attribute("id")]:
                return keyword, holders[0]
    raise AssertionError("no keyword of one card only")


@pytest.mark.slow
def test_muting_a_keyword_folds_its_paper_to_one_line(browser, served, widths):
    from selenium.webdriver.common.by import By

    day = served + f"{LATEST}/index.html"
    for width in widths:
        _fresh(browser, day, width)
        keyword, muted = _unique_keyword(_cards(browser))
        _mute(browser, keyword)
        card = browser.find_element(By.ID, muted)
        wait_until(lambda card=card: "muted" in card.get_attribute("class"))
        browser.refresh()
        card = browser.find_element(By.ID, muted)
        title = card.find_element(By.CSS_SELECTOR, "h2")
        assert card.size["height"] < 2.5 * title.size["height"], width  # one line
        assert not any(p.is_displayed() for p in card.find_elements(By.CSS_SELECTOR, ".summary, .reason, .authors"))
        assert card.find_element(By.CSS_SELECTOR, "p.fold").text.startswith(f"Muted: {keyword}")
        others = [c for c in _cards(browser) if c.get_attribute("id") != muted]
        assert not any("muted" in c.get_attribute("class") for c in others)
        show = card.find_element(By.CSS_SELECTOR, "p.fold button")
        show.click()  # and it opens again
        assert (
            show.get_attribute("aria-expanded") == "true"
            and card.find_element(By.CSS_SELECTOR, ".authors").is_displayed()
        )
        assert console_errors(browser) == []


@pytest.mark.slow
def test_the_for_you_page_lists_the_followed_papers_of_the_latest_days(browser, served):
    from selenium.webdriver.common.by import By

    _fresh(browser, served + "foryou.html")
    data = json.loads(browser.execute_script("return fetch('foryou.json').then(r => r.text())"))
    author = data["papers"][-1]["authors"][0]  # a paper of the earliest day, by an author of its
    wait_until(lambda: browser.find_elements(By.ID, "follow-term"), what="the settings")
    term = browser.find_element(By.ID, "follow-term")
    term.send_keys(author)
    browser.find_element(By.CSS_SELECTOR, "form.follow-add button[value=authors]").click()
    expected = [p["id"] for p in data["papers"] if author in p["authors"]]
    wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#foryou h2 a"), what="the followed papers")
    links = browser.find_elements(By.CSS_SELECTOR, "#foryou h2 a")
    assert [a.get_attribute("href").rsplit("/", 1)[1].split("#p-")[-1].removesuffix(".html") for a in links] == expected
    assert browser.find_element(By.CSS_SELECTOR, "#foryou p.why").text == f"You follow: {author}"
    assert not browser.find_element(By.ID, "foryou-nojs").is_displayed()
    assert console_errors(browser) == []


@pytest.mark.slow
def test_choices_export_and_import_as_a_short_text(browser, served):
    from selenium.webdriver.common.by import By

    _fresh(browser, served + "foryou.html")
    wait_until(lambda: browser.find_elements(By.ID, "follow-term"), what="the settings")
    term = browser.find_element(By.ID, "follow-term")
    term.send_keys("diffusion")
    browser.find_element(By.CSS_SELECTOR, "form.follow-add button[value=keywords]").click()
    term.send_keys("benchmark")
    browser.find_element(By.CSS_SELECTOR, "form.follow-add button[value=muted]").click()
    actions = browser.find_elements(By.CSS_SELECTOR, "p.follow-actions button")
    actions[0].click()  # Export
    text = browser.find_element(By.ID, "follow-text").get_attribute("value")
    assert text == "k=diffusion&m=benchmark"
    actions[2].click()  # Reset
    assert json.loads(browser.execute_script(f"return localStorage.getItem('{KEY}')"))["keywords"] == []
    actions[1].click()  # Import: the text Reset left
    saved = json.loads(browser.execute_script(f"return localStorage.getItem('{KEY}')"))
    assert (saved["keywords"], saved["muted"]) == (["diffusion"], ["benchmark"])


@pytest.mark.slow
def test_without_javascript_a_day_page_reads_as_published_whatever_is_followed(browser, served, recorded):
    from selenium.webdriver.common.by import By

    day = served + f"{LATEST}/index.html"
    as_published = [li.get("id") for li in page(recorded[1] / LATEST / "index.html").cssselect("ol.cards > li")]
    _fresh(browser, day)
    first = _areas(_cards(browser)[-1])[0]
    choices = {"areas": [first], "keywords": [], "authors": [], "muted": ["model"], "names": {}}
    browser.execute_script(f"localStorage.setItem('{KEY}', arguments[0])", json.dumps(choices))
    browser.refresh()
    assert [c.get_attribute("id") for c in _cards(browser)] != as_published  # with script: followed first, muted folded
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(day)
        cards = _cards(browser)
        assert [c.get_attribute("id") for c in cards] == as_published
        assert browser.find_elements(By.CSS_SELECTOR, ".follow-toggle, .why, .fold, details.follow-menu") == []
        assert all("muted" not in c.get_attribute("class") for c in cards)
        assert not browser.find_element(By.CSS_SELECTOR, "header.site a.foryou").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def _blank(png: bytes) -> bool:
    """Whether an element's screenshot is white, but for the antialiased pixels of its rounded corners (an icon, a
    frame or alt text would be darker)."""
    from PIL import Image

    return min(min(c) for _, c in Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 16)) >= 240


@pytest.mark.slow
def test_a_thumbnail_that_cannot_load_leaves_no_box(browser, served, recorded):
    """The tests' browser resolves no host but 127.0.0.1, so Hugging Face's thumbnails fail as they do offline."""
    from selenium.webdriver.common.by import By

    day = served + f"{LATEST}/index.html"
    _fresh(browser, day)
    (first,) = page(recorded[1] / LATEST / "index.html").cssselect("ol.cards > li:first-child")
    assert first.cssselect("img.thumb")
    card = _cards(browser)[0]  # in view: its thumbnail is asked for (the lazy ones further down, when scrolled to)
    wait_until(lambda: not card.find_elements(By.CSS_SELECTOR, "img.thumb"))
    text = card.find_element(By.CSS_SELECTOR, ".card-text")
    assert text.size["width"] >= card.size["width"] - 2  # no column kept for it
    paper = card.find_element(By.CSS_SELECTOR, "h2 a").get_attribute("href")
    browser.get(paper)
    wait_until(lambda: not browser.find_elements(By.CSS_SELECTOR, "img.thumb"))
    assert console_errors(browser) == []
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:  # without script the image stays, blank: no broken-image icon, no frame, no alt text
        browser.get(paper)
        (image,) = browser.find_elements(By.CSS_SELECTOR, "img.thumb")
        wait_until(lambda: browser.execute_script("return arguments[0].complete", image) is not False)
        assert image.get_attribute("alt") == "" and _blank(image.screenshot_as_png)
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


@pytest.mark.slow
def test_the_follow_marks_the_settings_and_the_new_pages_pass_axe_and_fit_a_phone(browser, served, widths):
    from selenium.webdriver.common.by import By

    pytest.importorskip("axe_selenium_python", reason="axe-selenium-python is a dev dependency (.[dev])")
    problems = []
    for width in widths:
        _fresh(browser, served + f"{LATEST}/index.html", width)
        cards = _cards(browser)
        choices = {"areas": _areas(cards[-1])[:1], "keywords": [], "authors": [], "muted": [_unique_keyword(cards)[0]],
                   "names": {}}  # fmt: skip
        browser.execute_script(f"localStorage.setItem('{KEY}', arguments[0])", json.dumps(choices))
        for path, opened in ((f"{LATEST}/index.html", True), ("foryou.html", False), ("trends.html", False)):
            browser.get(served + path)
            if opened:  # the settings, opened under the header
                browser.find_element(By.CSS_SELECTOR, "details.follow-menu > summary").click()
                wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "details.follow-menu .follow-panel"))
            wide = browser.execute_script("const d = document.documentElement; return [d.scrollWidth, d.clientWidth]")
            if wide[0] > wide[1]:
                problems.append(f"{path} at {width} px scrolls sideways: {wide[0]} > {wide[1]}")
            problems += [f"{path} at {width} px: {v}" for v in serious_axe_violations(browser)]
            problems += [f"{path}: {e}" for e in console_errors(browser)]
    assert problems == [], "\n".join(problems)


def test_the_site_serves_its_scripts_without_their_comments_and_within_the_budget(recorded):
    """The scripts' sources keep their comments; the site sends them minified (site/render.py static_file), and a
    day's page of the recorded listing loads at most 20 kB more for follow and mute (bench/follow.py measures it)."""
    _, out = recorded
    templates = ROOT / "src" / "papers_digest" / "site" / "templates"
    source = (templates / "follow.js").read_text(encoding="utf-8")
    served = (out / "follow.js").read_text(encoding="utf-8")
    assert "Text is only ever set as text" in source and "Text is only ever set as text" not in served
    assert len(served) < 0.7 * len(source)
    for name in ("site.js", "follow-settings.js"):
        assert (out / name).stat().st_size < (templates / name).stat().st_size
    day = (out / LATEST / "index.html").read_bytes()
    assert b"data-areas=" not in day  # read from the chips
    assert len(served.encode()) + sum(len(m) for m in re.findall(rb' data-(?:keywords|authors)="[^"]*"', day)) < 20_000
