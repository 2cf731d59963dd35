"""Readers II (#39): the reader's text first, every listed paper on its day, areas, 中文 complete, real addresses;
on the small archive of tests/readers_archive.py, published at a public address, read as HTML, XML and in Chromium."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import lxml.html
import pytest
from readers_archive import DATES, KEYWORDS, LISTED, PICKED, TITLE_ZH, arxiv_id, day_files, write_archive

from papers_devtools.testing.browser import console_errors, serve_folder
from papers_digest.cli.main import main as papers_cli
from papers_digest.day.areas import MAX_AREAS, area_of
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.site.mail import day_mail
from papers_digest.site.render import load_day, render_day, render_site

pytestmark = pytest.mark.xdist_group("test_pages")  # the module's archive and Chromium, once

ATOM = "{http://www.w3.org/2005/Atom}"
BASE = "https://digest.example.org/papers/"
DAY = DATES[-1]
DONE, FAILED, NOT_PICKED = arxiv_id(DAY, 1), arxiv_id(DAY, PICKED), arxiv_id(DAY, PICKED + 1)
THUMBNAIL = "https://cdn-thumbnails.huggingface.co/social-thumbnails/papers/{}.png"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The readers' archive, four days, published at a public address."""
    folder = tmp_path_factory.mktemp("pages")
    render_site(write_archive(folder / "papers.db"), folder / "site", base_url=BASE)
    return folder / "site"


def page(path: Path) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(path.read_bytes())


def english(element: lxml.html.HtmlElement) -> str:
    """An element's text in English: without what is there for the 中文 mode."""
    return " ".join("".join(element.xpath(".//text()[not(ancestor::*[@lang='zh-Hans'])]")).split())


# ---------------------------------------------------------------- the paper page


def test_a_paper_page_opens_with_the_title_the_sentence_the_thumbnail_and_the_findings(site):
    root = page(site / DAY / f"{DONE}.html")
    (article,) = root.cssselect("article")
    order = [
        "h1",
        "section.lead .pair p[lang=en]",
        "section.lead .pair p[lang=zh-Hans]",
        "section.lead img.thumb",
        "ol.results",
        "details.provenance",
    ]
    positions = [list(article.iter()).index(article.cssselect(css)[0]) for css in order]
    assert positions == sorted(positions)  # the reader's text first, how it was made last
    assert root.cssselect("section.lead img.thumb")[0].get("src") == THUMBNAIL.format(DONE)
    (provenance,) = root.cssselect("details.provenance")
    assert provenance.get("open") is None and provenance.cssselect("dl.provenance")  # folded
    # The title in both languages: the translation's, shown in the 中文 mode.
    assert [(s.get("lang"), s.text_content()) for s in root.cssselect("h1 > span")] == [
        ("en", f"Sparse routers, part 1 ({DAY})"),
        ("zh-Hans", TITLE_ZH),
    ]


def test_each_link_is_on_the_page_once(site):
    root = page(site / DAY / f"{DONE}.html")
    hrefs = [a.get("href") for a in root.cssselect("main a")]
    for url in (
        f"https://arxiv.org/abs/{DONE}",
        f"https://arxiv.org/pdf/{DONE}",
        f"https://huggingface.co/papers/{DONE}",
    ):
        assert hrefs.count(url) == 1, url
    assert hrefs.count(f"https://arxiv.org/html/{DONE}v2") == 1  # the full text; its sections have anchors


def test_latex_in_findings_and_evidence_is_mathml(site):
    root = page(site / DAY / f"{DONE}.html")
    (article,) = root.cssselect("article")
    assert "\\times" not in article.text_content() and "$" not in article.text_content()
    findings = article.cssselect("ol.results .pair > p[lang=en]")
    assert [len(p.xpath(".//*[local-name()='math']")) for p in findings] == [0, 1, 1]
    assert findings[1].xpath("string(.//*[local-name()='mo'])") == "×"
    (evidence,) = article.cssselect("ol.results > li")[2].cssselect("ul.evidence q")
    assert evidence.xpath("count(.//*[local-name()='math'])") == 1  # `$8\times$` in the paper's own sentence


def test_each_evidence_sentence_is_shown_once_with_the_numbers_it_holds(site):
    root = page(site / DAY / f"{DONE}.html")
    first = root.cssselect("ol.results > li")[0]
    (sentence,) = first.cssselect("ul.evidence > li")
    assert [c.text_content() for c in sentence.cssselect("code")] == ["10%", "11%"]
    assert sentence.cssselect("q")[0].text_content() == "Latency drops by 10% and by 11% on the first two tasks."
    assert sentence.cssselect("a")[0].get("href") == f"https://arxiv.org/html/{DONE}v2#S1"


# ---------------------------------------------------------------- the day page and the front page


def test_a_day_page_shows_every_listed_paper_and_why_each_has_no_digest(site):
    day = page(site / DAY / "index.html")
    items = day.cssselect("ol.papers > li")
    assert [li.get("id") for li in items] == [f"p-{arxiv_id(DAY, n)}" for n in range(1, LISTED + 1)]
    assert [li.get("class") for li in items] == [
        "paper done",
        "paper done",
        "paper failed",
        "paper listed",
        "paper listed",
    ]
    failed, listed, bare = items[PICKED - 1], items[PICKED], items[PICKED + 1]
    # A failed paper is shown as the paper it is: why it has no digest in a reader's words, not the operator's error.
    assert [english(p) for p in failed.cssselect("p.reason[lang=en]")] == [
        "No digest yet: the model's answers did not pass the checks (every number quoted from the paper, every "
        "section real)."
    ]
    assert failed.cssselect("p.reason[lang=zh-Hans]")[0].text_content().startswith("暂无摘要")
    assert "echo" not in failed.text_content() and "results[0]" not in failed.text_content()
    # Not picked: its authors, links, HF's summary (or the abstract), the reason, in both languages.
    assert english(listed.cssselect("p.reason")[0]) == (
        f"Not digested: the day's digests cover its {PICKED} most upvoted papers not digested before."
    )
    assert listed.cssselect("p.reason[lang=zh-Hans]") and listed.cssselect("p.authors")
    assert (
        english(listed.cssselect("p.hf-summary")[0])
        == f"Hugging Face's summary: Hugging Face says part {PICKED + 1} routes tokens."
    )
    assert bare.cssselect("details.abstract p")[0].text_content() == "We study sparse routers."
    assert listed.cssselect("h2 a")[0].get("href") == f"https://huggingface.co/papers/{NOT_PICKED}"
    for li in items:  # each with its thumbnail, counts and at most five areas, linked to their pages
        n = items.index(li) + 1
        assert li.cssselect("img.thumb")[0].get("src") == THUMBNAIL.format(arxiv_id(DAY, n))
        assert (
            english(li.cssselect("p.meta")[0])
            == f"▲ {50 - n} · {n} comment{'' if n == 1 else 's'} · arXiv {arxiv_id(DAY, n)}"
        )
        chips = [a.get("href") for a in li.cssselect("p.topics a.area")]
        assert 1 <= len(chips) <= MAX_AREAS and len(KEYWORDS) > MAX_AREAS
        assert all((site / DAY / h).resolve().is_file() for h in chips)


def test_the_front_page_is_the_latest_days_papers_and_the_calendar_a_link_away(site):
    index, day = page(site / "index.html"), page(site / DAY / "index.html")
    assert [li.get("id") for li in index.cssselect("ol.papers > li")] == [
        li.get("id") for li in day.cssselect("ol.papers > li")
    ]
    assert index.cssselect(f"li[id='p-{DONE}'] h2 a")[0].get("href") == f"{DAY}/{DONE}.html"
    assert index.cssselect(f"li[id='p-{DONE}'] a.area")[0].get("href").startswith("topics/")
    assert index.cssselect("a[href='days.html']")
    calendar = page(site / "days.html")
    assert [a.get("href") for a in calendar.cssselect("ul.days a")] == [f"{d}/index.html" for d in reversed(DATES)]
    assert [english(h) for h in calendar.cssselect("section.month h2")] == ["April 2025", "March 2025"]


def test_a_paper_tried_again_on_a_later_day_is_still_on_the_day_that_listed_it(tmp_path):
    """The retry queue takes a failed paper to the next day: the day that listed it says where its digest is."""
    db, out = tmp_path / "papers.db", tmp_path / "site"
    write_archive(db, DATES[:3])
    retried = arxiv_id(DATES[2], PICKED)
    files, earlier = day_files(DATES[3]), day_files(DATES[2])
    paper = next(p for p in earlier.day.papers if p.arxiv_id == retried)
    done = day_files(DATES[2], failing=False)
    files.day = files.day.model_copy(
        update={"backfill": [paper], "backfill_from": {retried: DATES[2]}, "picked": [*files.day.picked, retried]}
    )
    files.fulltext[retried] = earlier.fulltext[retried]
    files.english[retried], files.chinese[retried] = done.english[retried], done.chinese[retried]
    write_day(db, files, run_record(files))
    render_site(db, out)
    (entry,) = page(out / DATES[2] / "index.html").cssselect(f"li[id='p-{retried}']")
    assert english(entry.cssselect("p.reason[lang=en]")[0]) == "Digested on 2 April 2025."
    assert [a.get("href") for a in entry.cssselect("h2 a, p.reason a")] == [f"../{DATES[3]}/{retried}.html"] * 3
    later = page(out / DATES[3] / "index.html")
    assert [li.get("id") for li in later.cssselect("ol.papers > li")][-1] == f"p-{retried}"  # after the listing
    assert later.cssselect(f"li[id='p-{retried}'] p.summary")


# ---------------------------------------------------------------- areas


def test_an_area_page_links_its_feed_and_the_index_lists_every_area_with_papers(site):
    index = page(site / "topics" / "index.html")
    slugs = [a.get("href").removesuffix(".html") for a in index.cssselect("a.area")]
    assert slugs and all(area_of(s) for s in slugs)
    for slug in slugs:
        area = page(site / "topics" / f"{slug}.html")
        assert [a.get("href") for a in area.cssselect("main a.feed")] == [f"{slug}.xml"]
        assert english(area.cssselect("h1")[0]) == area_of(slug).en
        assert area.cssselect("h1 [lang=zh-Hans]")[0].text_content() == area_of(slug).zh


# ---------------------------------------------------------------- feeds and addresses


def test_every_feed_parses_and_the_chinese_one_carries_the_chinese_digests(site):
    feeds = [site / "feed.xml", site / "feed.zh.xml", *sorted((site / "topics").glob("*.xml"))]
    assert len(feeds) > 2
    for path in feeds:
        root = ET.parse(path).getroot()
        assert root.tag == f"{ATOM}feed" and root.find(f"{ATOM}link[@rel='self']").get("href").startswith(BASE)
    english_feed, chinese = ET.parse(site / "feed.xml").getroot(), ET.parse(site / "feed.zh.xml").getroot()
    assert chinese.get("{http://www.w3.org/XML/1998/namespace}lang") == "zh-Hans"
    first = chinese.find(f"{ATOM}entry")
    assert first.findtext(f"{ATOM}id") == f"tag:papers-digest,{DAY}:{DONE}:zh"
    assert first.findtext(f"{ATOM}title") == TITLE_ZH
    assert first.findtext(f"{ATOM}summary") == "该论文训练了一个用于长上下文的稀疏路由器。"
    content = lxml.html.fragment_fromstring(first.findtext(f"{ATOM}content"), create_parent="div")
    assert [li.text_content() for li in content.cssselect("li")] == [
        f"路由器在任务{k}上将延迟降低了{10 + k}%。" for k in range(3)
    ]
    assert content.cssselect("a")[0].get("href") == f"{BASE}{DAY}/{DONE}.html"
    entry = english_feed.find(f"{ATOM}entry")
    content = lxml.html.fragment_fromstring(entry.findtext(f"{ATOM}content"), create_parent="div")
    assert content.cssselect("li")[1].text_content() == "The router cuts latency by 11% on task 1 on 8 × A100 GPUs."
    assert [a.text_content() for a in content.cssselect("a")] == [
        "The digest, with the evidence",
        "arXiv",
        "Hugging Face",
    ]
    assert len(english_feed.findall(f"{ATOM}entry")) == len(chinese.findall(f"{ATOM}entry")) == 2 * len(DATES)


def test_link_previews_and_feeds_use_the_public_address_and_nothing_points_at_localhost(site):
    root = page(site / DAY / f"{DONE}.html")
    meta = {m.get("property") or m.get("name"): m.get("content") for m in root.cssselect("meta[content]")}
    assert meta["og:url"] == f"{BASE}{DAY}/{DONE}.html"
    assert meta["og:image"] == THUMBNAIL.format(DONE) and meta["twitter:card"] == "summary_large_image"
    assert meta["og:title"] == f"Sparse routers, part 1 ({DAY})" and meta["og:type"] == "article"
    assert meta["og:description"] == f"Paper 1 of {DAY} trains a sparse router for long contexts."
    assert page(site / "index.html").cssselect("meta[property='og:url']")[0].get("content") == BASE
    files = [p for p in site.rglob("*") if p.is_file() and p.suffix in (".html", ".xml", ".json", ".js", ".css")]
    assert [p for p in files if "localhost" in p.read_text(encoding="utf-8")] == []


def test_papers_site_reads_the_public_address_from_params(tmp_path):
    db = write_archive(tmp_path / "papers.db", DATES[-1:])
    params = tmp_path / "params.yaml"
    params.write_text(f'date: "{DAY}"\nsite:\n  base_url: {BASE}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        papers_cli(["site", "--db", str(db), "--out", str(tmp_path / "site"), "--params", str(params)])
    assert done.value.code == 0
    feed = ET.parse(tmp_path / "site" / "feed.xml").getroot()
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == f"{BASE}feed.xml"


def test_without_a_public_address_the_pages_name_the_local_preview(tmp_path):
    db = write_archive(tmp_path / "papers.db", DATES[-1:])
    render_day(db, tmp_path / "site", DAY)
    og = page(tmp_path / "site" / DAY / "index.html").cssselect("meta[property='og:url']")[0]
    assert og.get("content") == f"http://localhost:8000/{DAY}/index.html"


def test_the_email_links_to_the_public_address_and_carries_the_chinese_title(site):
    day = load_day(site.parent / "papers.db", DAY)
    mail = day_mail(day, base_url=BASE)
    assert f"{BASE}{DAY}/{DONE}.html" in mail.text and TITLE_ZH in mail.text and TITLE_ZH in mail.html
    assert "8 × A100" in mail.text and "\\times" not in mail.text + mail.html  # LaTeX as text
    assert TITLE_ZH not in day_mail(day, lang="en", base_url=BASE).text
    local = day_mail(day, base_url="http://localhost:8000/")  # the local preview: no one else could follow it
    assert "localhost" not in local.text + local.html and f"https://arxiv.org/abs/{DONE}" in local.text


# ---------------------------------------------------------------- in a real browser: 中文 mode


@pytest.mark.slow
def test_the_chinese_mode_shows_the_interface_in_chinese_and_sets_lang(browser, site):
    from selenium.webdriver.common.by import By

    with serve_folder(site) as url:
        browser.get(url + f"{DAY}/{DONE}.html")
        browser.execute_script("localStorage.clear()")
        browser.refresh()
        browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=zh]").click()
        assert browser.execute_script("return document.documentElement.lang") == "zh-Hans"
        assert browser.find_element(By.CSS_SELECTOR, "h1").text == TITLE_ZH
        headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "article h2") if h.is_displayed()]
        assert headings[:2] == ["一句话总结", "主要发现"]
        shown = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".ui") if e.is_displayed()]
        hidden_english = [e for e in browser.find_elements(By.CSS_SELECTOR, ".ui[lang=en]") if e.is_displayed()]
        assert hidden_english == [] and "全部日期" in shown and "领域" in shown and "搜索" in shown
        assert "2025年4月2日" in shown  # dates too
        footer = browser.find_element(By.CSS_SELECTOR, "footer")
        assert footer.text.startswith("摘要由语言模型")
        summary = browser.find_element(By.CSS_SELECTOR, "details.provenance summary")
        assert summary.text == "本摘要是如何生成的"
        # the findings' formulas are drawn: MathML with a width, not its TeX
        math = browser.find_elements(By.CSS_SELECTOR, "ol.results .pair > p[lang=en] math")
        assert math == [] or all(not m.is_displayed() for m in math)  # English findings are hidden in 中文
        browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=en]").click()
        assert browser.execute_script("return document.documentElement.lang") == "en"
        math = browser.find_elements(By.CSS_SELECTOR, "ol.results .pair > p[lang=en] math")
        assert math and all(m.size["width"] > 0 for m in math)
        assert not [e for e in browser.find_elements(By.CSS_SELECTOR, ".ui[lang=zh-Hans]") if e.is_displayed()]
        browser.get(url + "index.html")
        browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=both]").click()
        assert console_errors(browser) == []
