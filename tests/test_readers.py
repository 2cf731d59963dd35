"""Readers find, follow and trust (#29): search over every day, what each digest was made with, the report
link, the language switch, the day's email; the browser tests on a small archive written into the database."""

from __future__ import annotations

import email
import email.policy
import json
import re
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import lxml.html
import pytest
from conftest import copy_db
from readers_archive import (
    CITING_PAPER,
    DATES,
    EN_PAPER,
    TITLE_PAPER,
    WORD_EN,
    WORD_TITLE,
    WORD_ZH,
    ZH_PAPER,
    arxiv_id,
    write_archive,
)

from papers_devtools.testing.browser import console_errors, serious_axe_violations, serve_folder
from papers_devtools.testing.harness import wait_until
from papers_devtools.testing.servers import Inbox, smtp_server
from papers_digest.cli.deliveries import deliver_days
from papers_digest.cli.mail import send_day
from papers_digest.cli.main import main as papers_cli
from papers_digest.core.params import EmailParams, ParamsError, validate_params
from papers_digest.site.render import render_day, render_site
from papers_digest.site.search import indexed_months, spaced
from papers_digest.site.trust import report_link, trust_view

# On one worker of `make test`, so the module's archive and Chromium are made once.
pytestmark = pytest.mark.xdist_group("test_readers")

REPORT = "https://github.com/o/r/issues/new?title=Digest+of+{arxiv_id}:+{field}&body={title}+{page}"
DONE_PAPER = arxiv_id(DATES[-1], 1)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four days over two months, rendered with the report link: March's days fold into one index."""
    folder = tmp_path_factory.mktemp("readers")
    db = write_archive(folder / "papers.db")
    render_site(db, folder / "site", report_url=REPORT)
    return folder


def page(path: Path) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(path.read_bytes())


# ---------------------------------------------------------------- trust and the report link


def provenance(root: lxml.html.HtmlElement) -> dict[str, str]:
    """The paper page's block on how its digest was made, by its English labels."""
    (block,) = root.cssselect("dl.provenance")
    return dict(
        zip(
            (" ".join(dt.cssselect(".ui[lang=en]")[0].text_content().split()) for dt in block.cssselect("dt")),
            (" ".join(dd.text_content().split()) for dd in block.cssselect("dd")),
            strict=True,
        )
    )


def test_a_paper_page_says_in_one_place_how_its_digest_was_made(archive):
    root = page(archive / "site" / DATES[-1] / f"{DONE_PAPER}.html")
    (block,) = root.cssselect("dl.provenance")
    shown = provenance(root)
    assert shown["Model"] == "sim-digest"
    assert shown["Engine"] == "an OpenAI-compatible endpoint (llm.base_url)"
    assert shown["Prompt version"] == "digest digest_en-v1, translation translate_zh-v1"
    assert shown["arXiv version"] == "v2"
    assert shown["Generated"].startswith(DATES[-1])
    assert shown["What the model saw"] == "Full text (arXiv HTML v2)"
    # two answers per stage (the first rejected for `echo`), 1,000 + 300 tokens each
    assert shown["Tokens"] == "4,000 prompt + 1,200 completion, in 4 answers from the model"
    (verdict,) = block.cssselect("dd.verdict")
    assert [" ".join(t.split()) for t in verdict.itertext()] == [
        "English digest: passed the checker on answer 2 of 2 (earlier answers broke: echo)",
        "Chinese translation: passed the checker on answer 2 of 2 (earlier answers broke: echo)",
    ]
    assert block.get("data-pagefind-ignore") is not None  # the search index holds the paper, not this block


def test_a_managed_engine_and_a_failed_paper_are_named(archive, tmp_path):
    db = tmp_path / "papers.db"
    copy_db(archive / "papers.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("alter table runs add column engine_kind text")
        conn.execute("update runs set engine_kind = 'vllm' where date = ?", [DATES[-1]])
    render_day(db, tmp_path / "site", DATES[-1])
    done = page(tmp_path / "site" / DATES[-1] / f"{DONE_PAPER}.html")
    assert "vLLM, started by papers-digest for the run" in done.cssselect("dl.provenance")[0].text_content()
    failed = page(tmp_path / "site" / DATES[-1] / f"{arxiv_id(DATES[-1], 3)}.html")
    (verdict,) = failed.cssselect("dd.verdict")
    assert (
        " ".join(verdict.text_content().split())
        == "English digest: rejected by the checker after 2 answer(s) (earlier answers broke: echo)"
    )


def test_report_links_fill_the_template_url_encoded_for_the_paper_and_each_result(archive):
    root = page(archive / "site" / DATES[-1] / f"{DONE_PAPER}.html")
    links = [a.get("href") for a in root.cssselect("a.report")]
    assert len(links) == 3 + 1  # each result, then the digest (in the folded block on how it was made)
    fields = [parse_qs(urlsplit(u).query)["title"][0] for u in links]
    assert fields == [f"Digest of {DONE_PAPER}: {f}" for f in ("results[0]", "results[1]", "results[2]", "digest")]
    body = parse_qs(urlsplit(links[-1]).query)["body"][0]
    assert body == f"Sparse routers, part 1 ({DATES[-1]}) {DATES[-1]}/{DONE_PAPER}.html"
    # a value that would end the query or the attribute stays inside its parameter
    hostile = report_link(REPORT, arxiv_id="2504.1", date="d", field='x&y="z"#', title="a b", page="p")
    assert parse_qs(urlsplit(hostile).query)["title"] == ['Digest of 2504.1: x&y="z"#']
    assert report_link("", arxiv_id="x", date="d", field="f") == ""


def test_without_a_report_url_there_is_no_report_link(archive, tmp_path):
    render_day(archive / "papers.db", tmp_path / "site", DATES[-1])
    assert page(tmp_path / "site" / DATES[-1] / f"{DONE_PAPER}.html").cssselect("a.report") == []


@pytest.mark.parametrize("template", ["ftp://x/{arxiv_id}", "https://x/{arxiv}", "https://x/{0}"])
def test_a_bad_report_url_names_the_key(template):
    with pytest.raises(ParamsError, match=r"site\.report_url"):
        validate_params({"date": "2025-04-03", "site": {"report_url": template}})


def test_trust_counts_answers_not_transport_retries():
    calls = [
        {"stage": "digest_en", "attempt": 1, "retry": 0, "status": "error", "prompt_tokens": 0, "started_at": 1},
        {
            "stage": "digest_en",
            "attempt": 1,
            "retry": 1,
            "status": "ok",
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "started_at": 2,
            "from_store": 0,
            "checker_rules": "[]",
        },
    ]
    (stage,) = trust_view(calls).stages
    assert (stage.answers, stage.tokens, stage.verdict, stage.broken) == (1, 15, "passed", ())


# ---------------------------------------------------------------- the search index


def test_the_chinese_indexes_read_each_cjk_character_as_a_word():
    page_text = '<p lang="zh-Hans">它研究斑马鱼。GRPO训练，57k</p><p lang="en">Routers</p>'
    assert spaced(page_text) == '<p lang="zh-Hans"> 它 研 究 斑 马 鱼 。GRPO 训 练 ，57k</p><p lang="en">Routers</p>'


def _entry(folder: Path) -> dict:
    return json.loads((folder / "pagefind-entry.json").read_text(encoding="utf-8"))


def test_each_month_has_an_english_and_a_chinese_index_built_by_pagefind(archive):
    site = archive / "site"
    assert indexed_months(site) == ["2025-04", "2025-03"]
    for name in ("pagefind.js", "pagefind-worker.js", "wasm.en.pagefind", "pagefind-entry.json"):
        assert (site / "pagefind" / name).is_file()  # Pagefind's runtime, once, at its default place
    assert list(_entry(site / "pagefind")["languages"]) == ["en"]  # the stub: English, so words searched are stemmed
    for lang in ("en", "zh"):
        month = site / "pagefind" / "2025-03" / lang
        assert not list(month.glob("*.js")) and not list(month.glob("wasm.*"))  # a month's index carries no runtime
        entry = _entry(month)
        assert entry["version"] == _entry(site / "pagefind")["version"]
        assert {k: v["page_count"] for k, v in entry["languages"].items()} == {lang: 2 * 3}  # 2 days x 3 pages
    months = json.loads(page(site / "search.html").cssselect("#search-results")[0].get("data-months"))
    assert months == indexed_months(site) == json.loads((site / "search.json").read_text(encoding="utf-8"))["months"]
    paper = page(site / DATES[0] / f"{arxiv_id(DATES[0], 1)}.html")
    (body,) = paper.cssselect("article[data-pagefind-body]")  # results are paper pages, never day lists
    assert body.get("data-pagefind-meta") == f"arxiv:{arxiv_id(DATES[0], 1)}"  # the id, searched as a field
    assert body.cssselect(".pair > [lang=en]") and body.cssselect(".pair > [lang=zh-Hans]")  # each index's blocks
    assert not page(site / DATES[0] / "index.html").cssselect("[data-pagefind-body]")


def test_a_publish_indexes_its_own_month_again_only(archive, tmp_path):
    db, site = tmp_path / "papers.db", tmp_path / "site"
    write_archive(db, DATES[:2])  # March only
    render_site(db, site)
    assert indexed_months(site) == ["2025-03"]
    before = (site / "pagefind" / "2025-03" / "en" / "pagefind-entry.json").stat().st_mtime_ns
    write_archive(db, DATES[2:3])
    summary = render_day(db, site, DATES[2])
    assert summary.search_error is None and summary.indexed == 1  # April
    assert indexed_months(site) == ["2025-04", "2025-03"]
    write_archive(db, DATES[3:])
    assert render_day(db, site, DATES[3]).indexed == 1  # the cost of its month, not of the archive
    assert (site / "pagefind" / "2025-03" / "en" / "pagefind-entry.json").stat().st_mtime_ns == before
    for lang in ("en", "zh"):
        assert _entry(site / "pagefind" / "2025-04" / lang)["languages"][lang]["page_count"] == 2 * 3
    assert "2025-04" in json.loads((site / "search.json").read_text(encoding="utf-8"))["months"]  # the boxes' list


def test_indexes_of_an_earlier_layout_or_pagefind_version_are_built_again(archive, tmp_path):
    """A site from before (one index per month for both languages, each day's part, a day's own index), or
    whose indexes another Pagefind version wrote: a publish builds its month and every such month again, and
    removes what the earlier layouts left; a runtime gone is written again, even when no month is indexed."""
    db, site = tmp_path / "papers.db", tmp_path / "site"
    write_archive(db, DATES)
    render_site(db, site)
    march, april = site / "pagefind" / "2025-03", site / "pagefind" / "2025-04"
    shutil.rmtree(march / "zh")
    for item in (march / "en").iterdir():  # as the month's one index was
        item.rename(march / item.name)
    (march / "en").rmdir()
    (site / "pagefind" / "days" / DATES[0]).mkdir(parents=True)
    (site / "pagefind" / DATES[2]).mkdir()
    summary = render_day(db, site, DATES[3])
    assert summary.search_error is None and summary.indexed == 2  # April, and March again
    assert indexed_months(site) == ["2025-04", "2025-03"] and not (march / "pagefind-entry.json").exists()
    assert not (site / "pagefind" / "days").exists() and not (site / "pagefind" / DATES[2]).exists()
    entry = _entry(march / "en")
    (march / "en" / "pagefind-entry.json").write_text(json.dumps({**entry, "version": "1.4.0"}), encoding="utf-8")
    assert render_day(db, site, DATES[3]).indexed == 2  # April, and March of the other version
    assert _entry(march / "en")["version"] == _entry(april / "en")["version"]
    (site / "pagefind" / "pagefind.js").unlink()
    assert render_site(db, site).indexed == 0 and (site / "pagefind" / "pagefind.js").is_file()  # the runtime again


def test_without_pagefind_the_pages_are_written_and_the_summary_says_why(archive, tmp_path, monkeypatch):
    monkeypatch.setattr("papers_digest.site.search.pagefind_binary", lambda: None)
    summary = render_day(archive / "papers.db", tmp_path / "site", DATES[-1])
    assert (tmp_path / "site" / DATES[-1] / f"{DONE_PAPER}.html").is_file()
    assert "Pagefind is not installed" in summary.search_error


# ---------------------------------------------------------------- the day's email


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is a dev dependency (.[dev])")
    with smtp_server() as served:
        yield served


def _settings(port: int, **changes) -> EmailParams:
    values = {
        "to": ["reader@example.org"],
        "sender": "digest@example.org",
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "starttls": False,
    } | changes
    return EmailParams(**values)


def test_the_days_email_reaches_the_server_with_both_parts_and_every_done_paper(archive, smtp, capsys):
    inbox, port = smtp
    assert send_day(_settings(port), DATES[-1], archive / "papers.db", base_url="https://digest.example.org/")
    ((rcpt, raw),) = inbox.messages
    assert rcpt == ["reader@example.org"]
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["Subject"] == f"papers-digest {DATES[-1]}: 2 papers"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    for n in (1, 2):  # the done papers, in both languages, linked to their pages
        paper_id = arxiv_id(DATES[-1], n)
        title = f"Sparse routers, part {n} ({DATES[-1]})"
        assert title in text and f"https://digest.example.org/{DATES[-1]}/{paper_id}.html" in text
        links = lxml.html.fromstring(html).cssselect(
            f"a[href='https://digest.example.org/{DATES[-1]}/{paper_id}.html']"
        )
        assert [a.text_content() for a in links] == [title]
        assert f"Paper {n} of {DATES[-1]} trains a sparse router" in text
    assert text.count("该论文训练了一个用于长上下文的稀疏路由器") == 2 and "路由器在任务0上将延迟降低了10%" in html
    assert f"1 paper failed and is not summarised: {arxiv_id(DATES[-1], 3)}." in text
    assert f"email for {DATES[-1]} sent to 1 address(es)" in capsys.readouterr().out


def test_one_language_and_markup_in_a_title_is_text(archive, smtp, tmp_path):
    inbox, port = smtp
    db = tmp_path / "papers.db"
    copy_db(archive / "papers.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("update papers set title = '<script>alert(1)</script>' where arxiv_id = ?", [DONE_PAPER])
    assert send_day(_settings(port, lang="en"), DATES[-1], db)
    message = email.message_from_bytes(inbox.messages[0][1], policy=email.policy.default)
    html = message.get_body(("html",)).get_content()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "稀疏路由器" not in html and "https://arxiv.org/abs/" in html  # site.base_url local: links go to arXiv


def test_a_failed_send_is_one_line_and_never_raises(archive, capsys):
    closed = _settings(1)  # nothing listens on port 1
    assert not send_day(closed, DATES[-1], archive / "papers.db", command="papers daily")
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"papers daily: the email for {DATES[-1]} was not sent: ") and "\n" not in out
    params = validate_params({"date": DATES[-1], "email": closed.model_dump()})
    deliver_days(params, [(DATES[-1], True)], archive / "papers.db", command="papers daily")  # no raise
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == [out]
    deliver_days(validate_params({"date": DATES[-1]}), [(DATES[-1], True)], archive / "papers.db", "papers")
    assert capsys.readouterr().out == ""  # email.to empty, no push: nothing, not a word


def test_papers_email_sends_a_day_by_hand(archive, smtp, tmp_path, capsys):
    inbox, port = smtp
    params = tmp_path / "params.yaml"
    params.write_text(
        f'date: "{DATES[-1]}"\nemail:\n  smtp_host: 127.0.0.1\n  smtp_port: {port}\n  starttls: false\n',
        encoding="utf-8",
    )
    argv = ["email", "--date", DATES[-1], "--params", str(params), "--db", str(archive / "papers.db")]
    with pytest.raises(SystemExit) as nobody:
        papers_cli(argv)
    assert nobody.value.code == 2 and "email.to" in capsys.readouterr().out
    with pytest.raises(SystemExit) as sent:
        papers_cli([*argv, "--to", "a@example.org", "--to", "b@example.org"])
    assert sent.value.code == 0
    assert inbox.messages[0][0] == ["a@example.org", "b@example.org"]


def test_papers_daily_hands_each_date_whether_it_ran_and_whether_the_operator_was_told_to_the_deliveries(monkeypatch):
    """The dates that ran get their digest, the others the failed day's notice, which says the operator was told
    only when the alert went out (cli/deliveries.py; tests/test_subscribers.py sends them)."""
    from papers_digest.cli import runs

    sent: list[tuple[list[tuple[str, bool]], bool]] = []
    monkeypatch.setattr(runs, "send_alert", lambda *a: 1)
    monkeypatch.setattr(runs, "run_summary", lambda db, date: (2, 1))
    monkeypatch.setattr(runs, "date_runs", lambda db, finished: [])
    monkeypatch.setattr(
        runs, "deliver_days", lambda params, finished, db, command, alerted: sent.append((list(finished), alerted))
    )
    params = validate_params({"date": DATES[-1], "email": {"to": ["r@example.org"]}})
    outcomes = [runs.Outcome(DATES[0], 0), runs.Outcome(DATES[1], 1), runs.Outcome(DATES[2], 0)]
    assert runs._summary("papers daily", outcomes, params) == 1
    assert sent == [([(DATES[0], True), (DATES[1], False), (DATES[2], True)], True)]


# ---------------------------------------------------------------- in a real browser


@pytest.fixture(scope="module")
def served(archive: Path) -> Iterator[str]:
    with serve_folder(archive / "site") as url:
        yield url


def _wait(condition, timeout_s: float = 30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not true within {timeout_s} s")


def _searched(browser) -> str | None:
    """The search's time once search.html shows its results; None while a submitted form is still navigating (the
    page before has no #search-results, or the element went stale with it)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        shown = browser.find_elements(By.ID, "search-results")
        return shown[0].get_attribute("data-ms") if shown else None
    except StaleElementReferenceException:
        return None


def _search(browser, served: str, term: str) -> list[str]:
    from selenium.webdriver.common.by import By

    browser.get(served + "search.html")
    box = browser.find_element(By.ID, "q")
    box.send_keys(term)
    box.submit()
    _wait(lambda: _searched(browser))
    return [
        a.get_attribute("href").removeprefix(served)
        for a in browser.find_elements(By.CSS_SELECTOR, "#search-results h2 a")
    ]


def _status(browser) -> tuple[str, str]:
    """What the search says, in English and in Chinese."""
    from selenium.webdriver.common.by import By

    status = browser.find_element(By.ID, "search-status")
    return tuple(status.find_element(By.CSS_SELECTOR, f"[lang={lang}]").text for lang in ("en", "zh-Hans"))


@pytest.mark.slow
def test_an_english_and_a_chinese_word_each_find_their_paper(browser, served):
    from selenium.webdriver.common.by import By

    assert _search(browser, served, WORD_EN) == [f"{EN_PAPER[1]}/{EN_PAPER[0]}.html"]
    (meta,) = browser.find_elements(By.CSS_SELECTOR, "#search-results li .meta")
    assert meta.text == f"{EN_PAPER[1]} · arXiv {EN_PAPER[0]}"  # the day and the paper, under the title
    assert _search(browser, served, WORD_ZH) == [f"{ZH_PAPER[1]}/{ZH_PAPER[0]}.html"]  # in March's Chinese index
    marks = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#search-results .excerpt mark")]
    assert marks and all(m == WORD_ZH for m in marks)  # the Chinese word, marked whole
    # a Chinese word is its characters in a row, wherever a segmenter would cut them (斑马 | 鱼)
    assert _search(browser, served, WORD_ZH[1:]) == [f"{ZH_PAPER[1]}/{ZH_PAPER[0]}.html"]
    found = _search(browser, served, "router")  # on every paper page: the best 10 first, then more on asking
    more = browser.find_element(By.CSS_SELECTOR, "button.more-results")
    assert len(found) == 10 and more.is_displayed()
    assert _status(browser) == ("The best 10 papers for “router”; more below", "“router”的前 10 篇论文，下面还有")
    more.click()
    _wait(lambda: not more.is_displayed())
    found = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#search-results h2 a")]
    assert len(set(found)) == 3 * len(DATES) and all(u.removeprefix(served).count("/") == 1 for u in found)  # no stub
    assert _status(browser)[0] == f"{3 * len(DATES)} papers for “router”"
    assert console_errors(browser) == []


@pytest.mark.slow
def test_a_word_in_no_paper_finds_nothing_and_says_so_in_both_languages(browser, served):
    """Pagefind answers a word it lacks with the pages of the longest word it has that the word starts with
    ("routerxyz" with those of "router", "2504.99999" with those of "2504", "斑马鱼类" with those of "鱼"):
    none of those is a result."""
    for term in (
        "xyzzy",
        "qwerty",
        "kubernetes",
        "blockchain",
        "routerxyz",
        "2504.99999",
        "斑马鱼类",
        "zebrafish xyzzy",
    ):
        assert _search(browser, served, term) == [], term
        assert _status(browser) == (f"No paper has “{term}”.", f"没有论文含有“{term}”。")


@pytest.mark.slow
def test_an_arxiv_id_finds_its_paper_first_and_a_title_word_its_paper(browser, served):
    paper = f"{EN_PAPER[1]}/{EN_PAPER[0]}.html"
    citing = f"{CITING_PAPER[1]}/{CITING_PAPER[0]}.html"  # its digest names the id too
    assert _search(browser, served, EN_PAPER[0]) == [paper, citing]
    assert _search(browser, served, f"arXiv:{EN_PAPER[0]}v2") == [paper]  # as arXiv writes it: the link's text
    assert _search(browser, served, WORD_TITLE) == [f"{TITLE_PAPER[1]}/{TITLE_PAPER[0]}.html"]
    assert _search(browser, served, "routers") != [] and _search(browser, served, "ROUTER") != []  # stemmed, any case


@pytest.mark.slow
def test_the_box_on_any_page_shows_the_search_on_that_page(browser, served):
    """The header's box on a day page loads Pagefind as the reader types, and Enter shows the results there:
    links to the paper page from the day's folder, and one to the same search on search.html."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    day = served + f"{DATES[0]}/index.html"
    browser.get(day)
    box = browser.find_element(By.ID, "site-search")
    box.send_keys(WORD_ZH)
    box.send_keys(Keys.ENTER)
    _wait(lambda: _searched(browser))
    assert browser.current_url == day  # no navigation: the results are on this page
    panel = browser.find_element(By.CSS_SELECTOR, "main > section.search-panel")
    links = [a.get_attribute("href") for a in panel.find_elements(By.CSS_SELECTOR, "#search-results h2 a")]
    assert links == [served + f"{ZH_PAPER[1]}/{ZH_PAPER[0]}.html"]
    assert panel.find_element(By.CSS_SELECTOR, "a.all").get_attribute("href") == served + "search.html?q=" + quote(
        WORD_ZH
    )
    box.send_keys(Keys.ESCAPE)
    assert not panel.is_displayed()  # Escape closes the results; the search again shows them
    box.send_keys(WORD_EN, Keys.ENTER)
    _wait(lambda: panel.is_displayed() and _searched(browser))
    browser.get(links[0])  # and the link leads to the paper
    assert ZH_PAPER[0] in browser.current_url and browser.find_element(By.CSS_SELECTOR, "h1").text
    assert console_errors(browser) == []


@pytest.mark.slow
def test_the_header_box_on_the_search_page_searches_there(browser, served):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(served + "search.html")
    browser.find_element(By.ID, "site-search").send_keys(WORD_EN, Keys.ENTER)
    _wait(lambda: _searched(browser))
    assert browser.current_url == served + f"search.html?q={WORD_EN}"
    assert browser.find_element(By.ID, "q").get_attribute("value") == WORD_EN
    found = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#search-results h2 a")]
    assert found == [served + f"{EN_PAPER[1]}/{EN_PAPER[0]}.html"]


@pytest.mark.slow
def test_a_site_without_search_json_opens_search_html_from_the_box(browser, archive, tmp_path):
    """A site published before search.json (or whose Pagefind failed to load): the box does what it does with
    no script, opening search.html with the words."""
    from selenium.webdriver.common.by import By

    site = tmp_path / "site"
    shutil.copytree(archive / "site", site)
    (site / "search.json").unlink()
    with serve_folder(site) as url:
        browser.get(url + f"{DATES[0]}/index.html")
        box = browser.find_element(By.ID, "site-search")
        box.send_keys(WORD_EN)
        box.submit()
        _wait(lambda: _searched(browser))
        assert browser.current_url == url + f"search.html?q={WORD_EN}"
        found = browser.find_elements(By.CSS_SELECTOR, "#search-results h2 a")
        assert [a.get_attribute("href").removeprefix(url) for a in found] == [f"{EN_PAPER[1]}/{EN_PAPER[0]}.html"]


@pytest.mark.slow
def test_typing_a_word_fetches_its_index_chunks_before_the_search_is_asked_for(browser, archive):
    """A reader's search answers fast because the words' index chunks come while they type (Pagefind's preload):
    after typing, before Enter, the word's chunks are fetched; Enter then finds the paper."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    requested: list[str] = []
    with serve_folder(archive / "site", requested) as served:
        browser.get(served + "search.html")
        results = browser.find_element(By.ID, "search-results")
        _wait(lambda: results.get_attribute("data-loaded-ms"))

        def chunks() -> int:
            return sum(path.endswith(".pf_index") for path in requested)

        before = chunks()
        box = browser.find_element(By.ID, "q")
        box.send_keys(WORD_EN)
        _wait(lambda: chunks() > before)
        assert results.get_attribute("data-ms") is None and browser.current_url == served + "search.html"  # not yet
        box.send_keys(Keys.ENTER)
        _wait(lambda: _searched(browser))
        links = browser.find_elements(By.CSS_SELECTOR, "#search-results h2 a")
        assert [a.get_attribute("href").removeprefix(served) for a in links] == [f"{EN_PAPER[1]}/{EN_PAPER[0]}.html"]


@pytest.mark.slow
def test_the_language_switch_hides_the_other_language_and_keeps_the_choice(browser, served):
    from selenium.webdriver.common.by import By

    url = served + f"{DATES[-1]}/{DONE_PAPER}.html"
    browser.get(url)
    browser.execute_script("localStorage.clear()")
    browser.refresh()

    def shown(lang: str) -> bool:
        return all(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, f".pair > p[lang={lang}]"))

    def hidden(lang: str) -> bool:
        return not any(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, f".pair > p[lang={lang}]"))

    assert shown("en") and shown("zh-Hans")  # both, by default
    browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=zh]").click()
    assert shown("zh-Hans") and hidden("en")
    browser.refresh()
    assert shown("zh-Hans") and hidden("en")  # kept after a reload
    assert (
        browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=zh]").get_attribute("aria-pressed")
        == "true"
    )
    browser.get(served + f"{DATES[-1]}/index.html")  # and on other pages
    assert not any(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, ".summary[lang=en]"))
    browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=en]").click()
    assert not any(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, ".summary[lang=zh-Hans]"))
    browser.find_element(By.CSS_SELECTOR, ".lang-switch button[data-show=both]").click()
    assert all(e.is_displayed() for e in browser.find_elements(By.CSS_SELECTOR, ".summary"))


@pytest.mark.slow
def test_a_chinese_keyword_follows_the_papers_whose_translated_title_holds_it(browser, served):
    """Follow and mute apply in both languages (#47): 路由器 is in the translation's title of each day's first paper
    (TITLE_ZH), and in the 中文 mode the For you page says why in Chinese."""
    from selenium.webdriver.common.by import By

    browser.get(served + "foryou.html")
    browser.execute_script("localStorage.clear(); localStorage.setItem('papers-digest-lang', 'zh')")
    browser.refresh()
    wait_until(lambda: browser.find_elements(By.ID, "follow-term"), what="the settings")
    browser.find_element(By.ID, "follow-term").send_keys("路由器")
    browser.find_element(By.CSS_SELECTOR, "form.follow-add button[value=keywords]").click()
    wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#foryou h2 a"), what="the followed papers")
    found = browser.find_elements(By.CSS_SELECTOR, "#foryou h2 a")
    links = [a.get_attribute("href").removeprefix(served) for a in found]
    assert links == [f"{date}/{arxiv_id(date, 1)}.html" for date in reversed(DATES)]
    assert {w.text for w in browser.find_elements(By.CSS_SELECTOR, "#foryou p.why")} == {"你关注：路由器"}
    browser.execute_script("localStorage.clear()")


@pytest.mark.slow
def test_without_javascript_both_languages_show_and_there_is_no_switch(archive):
    root = page(archive / "site" / DATES[-1] / f"{DONE_PAPER}.html")
    (switch,) = root.cssselect(".lang-switch")
    assert switch.get("hidden") is not None  # site.js shows it; the CSS hides a language only on its say-so
    css = (archive / "site" / "style.css").read_text(encoding="utf-8")
    assert 'html[data-show="en"] .pair > [lang="zh-Hans"]' in css
    assert root.cssselect(".pair > p[lang=en]") and root.cssselect(".pair > p[lang=zh-Hans]")


def _page_types(site: Path) -> list[str]:
    """One page of every type the site has: the front page, the calendar, day, paper (done and failed), status,
    trends, For you, search, and the area, week and month pages when the site has them."""
    pages = [
        "index.html",
        "days.html",
        "topics/index.html",
        f"{DATES[-1]}/index.html",
        f"{DATES[-1]}/{DONE_PAPER}.html",
        f"{DATES[-1]}/{arxiv_id(DATES[-1], 3)}.html",
        "status.html",
        "trends.html",
        "foryou.html",
        "search.html?q=router",
        f"{DATES[-1]}/index.html#searched=router",  # the day page with the box's results shown on it
    ]
    for folder in ("topics", "weeks", "months"):
        found = sorted((site / folder).glob("*.html")) if (site / folder).is_dir() else []
        pages += [p.relative_to(site).as_posix() for p in found[:2]]
    return pages


@pytest.mark.slow
def test_every_page_type_fits_a_phone_and_a_desktop_and_axe_finds_nothing_serious(browser, served, archive):
    from selenium.webdriver.common.by import By

    pytest.importorskip("axe_selenium_python", reason="axe-selenium-python is a dev dependency (.[dev])")
    problems = []
    try:
        for width in (390, 1280):
            browser.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600},
            )
            for path in _page_types(archive / "site"):
                browser.get(served + path)
                if "#searched=" in path:
                    box = browser.find_element(By.ID, "site-search")
                    box.send_keys(path.partition("#searched=")[2])
                    box.submit()
                if "search" in path:
                    _wait(lambda: _searched(browser))
                wide = browser.execute_script(
                    "const d = document.documentElement; return [d.scrollWidth, d.clientWidth, window.innerWidth]"
                )
                assert wide[2] == width, wide
                if wide[0] > wide[1]:
                    problems.append(f"{path} at {width} px scrolls sideways: {wide[0]} > {wide[1]}")
                problems += [f"{path}: {v}" for v in serious_axe_violations(browser)]
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert problems == [], "\n".join(problems)


@pytest.mark.slow
def test_markup_the_model_wrote_is_text_in_search_results_too(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    db = write_archive(tmp_path / "papers.db", DATES[-1:])
    hostile = 'okapi <img src=x onerror="alert(1)"> <script>alert(2)</script> &amp; end'
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("select digest from digests where arxiv_id = ? and lang = 'en'", [DONE_PAPER]).fetchone()
        digest = json.loads(text)
        digest["one_sentence"] = hostile
        conn.execute(
            "update digests set digest = ? where arxiv_id = ? and lang = 'en'", [json.dumps(digest), DONE_PAPER]
        )
    render_site(db, tmp_path / "site")
    with serve_folder(tmp_path / "site") as url:
        assert _search(browser, url, "okapi") == [f"{DATES[-1]}/{DONE_PAPER}.html"]
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert  # noqa: B018 - reading it is the check: no dialog was opened
        results = browser.find_element(By.ID, "search-results")
        assert results.find_elements(By.CSS_SELECTOR, "img, script") == []
        excerpt = results.find_element(By.CSS_SELECTOR, ".excerpt").text
        assert "<img src=x" in excerpt and "okapi" in excerpt


@pytest.mark.slow
def test_a_search_page_served_before_still_finds_its_papers(browser, archive, tmp_path):
    """A cached search.html may list its indexes as an earlier layout had them (`data-days`: the days of the
    latest month, then months), or an index gone since: a day is looked for in its month's indexes, and an
    index found nowhere is left out."""
    from selenium.webdriver.common.by import By

    site = tmp_path / "site"
    shutil.copytree(archive / "site", site)
    page_text = (site / "search.html").read_text(encoding="utf-8")
    listed = json.dumps(["2025-05", "2025-04-02", "2025-04-01", "2025-03"])
    (site / "search.html").write_text(re.sub(r"data-months='[^']*'", f"data-days='{listed}'", page_text), "utf-8")
    with serve_folder(site) as url:
        assert _search(browser, url, WORD_ZH) == [f"{ZH_PAPER[1]}/{ZH_PAPER[0]}.html"]
        assert len(_search(browser, url, "router")) == 10  # and more: one month has 6, so both months were merged
        assert browser.find_element(By.CSS_SELECTOR, "button.more-results").is_displayed()
