"""The readers' site and Atom feed: built by `dvc repro` for the sample day, then read as HTML, XML and in Chromium."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urldefrag
from urllib.request import urlopen

import lxml.html
import pytest
import yaml
from conftest import ROOT, SAMPLE_DATE, copy_db, copy_project, make_params, run_dvc, write_params

from papers_devtools.testing.browser import MISSING, chromium, console_errors, have_chromium, serve_folder
from papers_devtools.testing.servers import engine_server, sample_replay_server
from papers_digest.cli.main import main as papers_cli
from papers_digest.core.models import GenerationResult
from papers_digest.day.files import load_day
from papers_digest.day.metrics import run_record
from papers_digest.db.queries import site_days
from papers_digest.db.writer import index_terms, open_for_writing, relate, write_day
from papers_digest.site import render as site_render
from papers_digest.site.days import build_days, build_index
from papers_digest.site.feed import DEFAULT_BASE_URL
from papers_digest.site.render import load_day as load_day_view
from papers_digest.site.render import render_day, render_site
from papers_digest.site.tex import tex_markup
from papers_digest.site.views import paper_view, section_url

# the sample day is built with DVC once for the module, and the browser tests drive Chromium
pytestmark = [
    pytest.mark.slow,  # make test-fast leaves them out
    pytest.mark.xdist_group("test_site"),  # on one worker of `make test`: the module's DVC day and Chromium once
]

ATOM = "{http://www.w3.org/2005/Atom}"
HTML_PAPER = "2503.20783"  # the sample's one paper with an arXiv HTML page (v2)
RANKED = ["2504.00999", "2504.00883", "2504.01014", HTML_PAPER]  # by upvotes: 46, 38, 20, 18
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
ARCHIVE = ("topics", "weeks", "months")  # the area, week and month pages: tests/test_site_archive.py
LISTED = 12  # papers Hugging Face listed on the sample day (4 picked)
THUMBNAIL = re.compile(r'<img class="thumb" src="https://cdn-thumbnails\.huggingface\.co/[^"<>]*"[^<>]*>')
OLDER_DAYS = [f"2025-03-{d}" for d in range(26, 32)] + ["2025-04-01", "2025-04-02"]  # cloned from the sample day
SCRIPT = "<script>alert(1)</script>"
OWN_SCRIPTS = ["../site.js", "../follow.js"]  # a page's scripts, the site's own
IMG = '"><img src=x onerror=alert(1)>'


# ---------------------------------------------------------------- fixtures: the sample day, a browser


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample day run by `dvc repro` in a project copy: the publish stage renders data/site."""
    project = copy_project(tmp_path_factory.mktemp("site-project"))
    with sample_replay_server() as (_, replay_url), engine_server() as (_, engine_url):
        params = make_params(
            source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0},
            llm={"base_url": engine_url, "model": "sim-digest"},
        )
        write_params(project, params)
        run_dvc(project, "repro")
    return project


@pytest.fixture(scope="module")
def site(project: Path) -> Path:
    return project / "data" / "site"


@pytest.fixture(scope="module")
def db_rows(project: Path) -> dict[str, list[dict]]:
    with sqlite3.connect(project / "data" / "papers.db") as conn:
        conn.row_factory = sqlite3.Row
        return {t: [dict(r) for r in conn.execute(f"select * from {t}")] for t in ("papers", "digests")}


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not have_chromium():
        pytest.skip(MISSING)
    pytest.importorskip("selenium.webdriver", reason="selenium is a dev dependency (.[dev])")
    with chromium(keep_dialogs=True) as driver:  # a dialog stays open so a test can see it
        yield driver


@pytest.fixture
def served(site: Path) -> Iterator[str]:
    with serve_folder(site) as url:
        yield url


def page(path: Path) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(path.read_bytes())


def texts(root: lxml.html.HtmlElement, css_path: str) -> list[str]:
    return [" ".join(el.text_content().split()) for el in root.cssselect(css_path)]


# ---------------------------------------------------------------- the site the publish stage renders


def test_publish_renders_an_index_a_page_per_date_and_per_paper(site, db_rows):
    assert sorted(
        p.relative_to(site).as_posix()
        for p in site.rglob("*")
        if p.is_file() and p.relative_to(site).parts[0] not in (*ARCHIVE, "pagefind")
    ) == sorted(
        ["index.html", "days.html", "status.html", "style.css", "site.js", "search.html", "search.json"]
        + ["follow.js", "follow-settings.js", "foryou.html", "foryou.json", "trends.html"]
        + ["feed.xml", "feed.zh.xml"]
        + [f"{SAMPLE_DATE}/index.html", f"{SAMPLE_DATE}/citations.bib", f"{SAMPLE_DATE}/citations.ris"]
        + [f"{SAMPLE_DATE}/{i}.{ext}" for i in RANKED for ext in ("html", "bib", "ris")]
    )
    assert {p.relative_to(site).as_posix() for p in site.glob("[wm]*/*.html")} == {
        "weeks/2025-W14.html",
        "months/2025-04.html",
    }
    assert (site / "topics" / "index.html").is_file()
    calendar = page(site / "days.html")
    assert [a.get("href") for a in calendar.cssselect("ul.days a")] == [f"{SAMPLE_DATE}/index.html"]
    assert calendar.get("lang") == "en"

    day = page(site / SAMPLE_DATE / "index.html")
    assert [a.get("href") for a in day.cssselect("ol.papers li.done h2 a")] == [f"{i}.html" for i in RANKED]
    digests = {(d["arxiv_id"], d["lang"]): json.loads(d["digest"]) for d in db_rows["digests"]}
    for arxiv_id in RANKED:
        (item,) = day.cssselect(f"li[id='p-{arxiv_id}']")
        assert texts(item, "p.summary[lang=en]") == [digests[arxiv_id, "en"]["one_sentence"]]
        assert texts(item, "p.summary[lang=zh-Hans]") == [" ".join(digests[arxiv_id, "zh"]["one_sentence"].split())]
    # Every paper Hugging Face listed, the others saying why they have no digest, in both languages.
    assert len(day.cssselect("ol.papers > li")) == LISTED and len(day.cssselect("li.listed")) == LISTED - len(RANKED)
    for item in day.cssselect("li.listed"):
        (why,) = texts(item, "p.reason[lang=en]")
        assert (
            why == f"Not digested: the day's digests cover its {len(RANKED)} most upvoted papers not digested before."
        )
        assert texts(item, "p.reason[lang=zh-Hans]") and item.cssselect("h2 a")[0].get("href").startswith(
            "https://huggingface.co/papers/"
        )
    # The front page is the latest day's list of papers, the calendar of days a link away.
    index = page(site / "index.html")
    assert [li.get("id") for li in index.cssselect("ol.papers > li")] == [
        li.get("id") for li in day.cssselect("ol.papers > li")
    ]
    assert index.cssselect("a[href='days.html']") and index.get("lang") == "en"


def test_a_paper_page_shows_both_languages_who_wrote_it_and_what_the_model_saw(site, db_rows):
    paper = page(site / SAMPLE_DATE / f"{HTML_PAPER}.html")
    row = next(r for r in db_rows["papers"] if r["arxiv_id"] == HTML_PAPER)
    english, chinese = _digest(db_rows, HTML_PAPER, "en"), _digest(db_rows, HTML_PAPER, "zh")

    assert texts(paper, "h1 [lang=en]") == [row["title"]]
    assert texts(paper, "h1 [lang=zh-Hans]") == [" ".join(chinese["title"].split())]  # the translation's title
    provenance = _provenance(paper)
    assert provenance["Model"] == "sim-digest"
    assert row["prompt_version"] in provenance["Prompt version"]
    assert provenance["What the model saw"] == "Full text (arXiv HTML v2)"
    assert row["generated_at"].endswith("Z")
    assert paper.cssselect("dl.provenance time")[0].get("datetime") == row["generated_at"]

    # English and Chinese side by side, each marked with its language.
    findings_en = texts(paper, "ol.results .pair p[lang=en]")
    findings_zh = texts(paper, "ol.results .pair p[lang=zh-Hans]")
    assert findings_en == [_shown(r["finding"]) for r in english["results"]]  # `8 \times A100`: MathML
    assert findings_zh == [_shown(r["finding"]) for r in chinese["results"]]

    # Every result links to the section it cites, at its LaTeXML anchor in the versioned arXiv HTML.
    anchors = {s["tag"]: s["anchor"] for s in json.loads(row["sections"])}
    cited = [[a.get("href") for a in li.cssselect("p.cites a")] for li in paper.cssselect("ol.results > li")]
    assert cited == [
        [f"https://arxiv.org/html/{HTML_PAPER}v2#{anchors[tag]}" for tag in r["sections"]] for r in english["results"]
    ]
    # (each cited tag's own anchor, a subsection's or an appendix's included: tests/test_latexml.py reads them)

    # The mind map is a nested list of the digest's shape: readable with no script at all.
    (root,) = paper.cssselect("[lang=en] > ul.mindmap > li")
    assert _shape_of_item(root) == _shape_of_node(english["mind_map"])
    # The scripts are the site's own (the language switch and search; follow and mute); the page does without them.
    assert sorted(p.name for p in site.glob("*.js")) == ["follow-settings.js", "follow.js", "site.js"]
    assert [e.get("src") for e in paper.iter("script")] == ["../site.js", "../follow.js"]


def test_an_abstract_only_paper_links_to_the_abstract_page_and_says_why(site):
    paper = page(site / SAMPLE_DATE / "2504.00999.html")
    provenance = _provenance(paper)
    assert provenance["What the model saw"] == "Abstract only: arXiv has no HTML version of this paper (HTTP 404)"
    assert {a.get("href") for a in paper.cssselect("p.cites a")} == {"https://arxiv.org/abs/2504.00999"}
    assert not [a for a in paper.cssselect("a") if "/html/" in (a.get("href") or "")]


def test_a_failed_paper_is_listed_as_failed_with_its_reason_and_no_summary(project, tmp_path):
    day_dir = project / "data" / SAMPLE_DATE
    files = load_day(day_dir / "list.json", day_dir / "fulltext", day_dir / "digest_en", day_dir / "translate_zh")
    failing = "2504.00883"
    english = files.english[failing]
    files.english[failing] = GenerationResult(
        arxiv_id=failing,
        stage="digest_en",
        status="failed",
        error="the answer failed the checks 2 times: results[0].numbers: '97.3' does not appear verbatim in the paper",
        model=english.model,
        prompt_version=english.prompt_version,
        calls=english.calls,
    )
    del files.chinese[failing]
    db = tmp_path / "papers.db"
    write_day(db, files, run_record(files))
    summary = render_site(db, tmp_path / "site")

    assert (summary.papers, summary.feed_entries) == (4, 3)
    day = page(tmp_path / "site" / SAMPLE_DATE / "index.html")
    item = day.cssselect(f"li[id='p-{failing}']")[0]
    assert "failed" in item.get("class")
    assert item.cssselect("p.summary") == []
    # The paper it is, and why it has no digest in the reader's words; the operator's error on its page, folded.
    assert texts(item, "p.reason[lang=en]") == [
        "No digest yet: the model's answers did not pass the checks (every number quoted from the paper, every "
        "section real)."
    ]
    assert texts(item, "p.reason[lang=zh-Hans]") and (texts(item, "p.hf-summary") or item.cssselect("details.abstract"))
    assert "97.3" not in item.text_content()
    paper = page(tmp_path / "site" / SAMPLE_DATE / f"{failing}.html")
    assert paper.cssselect(".pair") == [] and paper.cssselect("ul.mindmap") == []
    assert texts(paper, "section.no-digest p.reason[lang=en]") == texts(item, "p.reason[lang=en]")
    assert _provenance(paper)["Status"] == f"Failed: digest_en: {files.english[failing].error}"
    assert paper.cssselect("details.provenance dl.provenance")
    feed = ET.parse(tmp_path / "site" / "feed.xml").getroot()
    assert failing not in "".join(e.findtext(f"{ATOM}id") for e in feed.iter(f"{ATOM}entry"))


# ---------------------------------------------------------------- evidence: the database and the paper pages


def test_english_digests_carry_their_evidence_and_calls_their_checker_rules_as_json_text(project, tmp_path):
    day_dir = project / "data" / SAMPLE_DATE
    files = load_day(day_dir / "list.json", day_dir / "fulltext", day_dir / "digest_en", day_dir / "translate_zh")
    # a translation's first call (each call its own row, numbered within its paper's stage)
    first = files.chinese[HTML_PAPER].calls[0]
    files.chinese[HTML_PAPER].calls[0] = first.model_copy(
        update={"status": "rejected", "checker_rules": ["number_unknown", "length"]}
    )
    db = tmp_path / "papers.db"
    write_day(db, files, run_record(files))
    with sqlite3.connect(db) as conn:
        before = list(conn.iterdump())
    write_day(db, files, run_record(files))  # publishing the same day again changes nothing
    with sqlite3.connect(db) as conn:
        assert list(conn.iterdump()) == before
        conn.row_factory = sqlite3.Row
        columns = {
            t: {r["name"]: r["type"] for r in conn.execute(f"pragma table_info({t})")} for t in ("digests", "llm_calls")
        }
        digests = {(r["arxiv_id"], r["lang"]): r["evidence"] for r in conn.execute("select * from digests")}
        rules = {
            (r["arxiv_id"], r["stage"], r["call"]): r["checker_rules"] for r in conn.execute("select * from llm_calls")
        }
        (typeof,) = conn.execute("select distinct typeof(checker_rules) from llm_calls").fetchone()
    assert columns["digests"]["evidence"] == "TEXT" and columns["llm_calls"]["checker_rules"] == "TEXT"
    assert typeof == "text"
    assert rules[HTML_PAPER, "translate_zh", 0] == '["number_unknown", "length"]'  # the paper's first call
    assert {v for k, v in rules.items() if k != (HTML_PAPER, "translate_zh", 0)} == {"[]"}
    for arxiv_id, english in files.english.items():
        assert json.loads(digests[arxiv_id, "en"]) == [[e.model_dump() for e in found] for found in english.evidence]
        assert digests[arxiv_id, "zh"] is None
    assert any(found for english in files.english.values() for found in english.evidence)  # not vacuous


def test_each_finding_shows_where_its_numbers_stand_linked_to_the_cited_section(site, db_rows):
    row = next(r for r in db_rows["papers"] if r["arxiv_id"] == HTML_PAPER)
    (evidence,) = [
        json.loads(d["evidence"]) for d in db_rows["digests"] if (d["arxiv_id"], d["lang"]) == (HTML_PAPER, "en")
    ]
    english = _digest(db_rows, HTML_PAPER, "en")
    assert len(evidence) == len(english["results"]) and any(evidence)
    anchors = {s["tag"]: s["anchor"] for s in json.loads(row["sections"])}
    paper = page(site / SAMPLE_DATE / f"{HTML_PAPER}.html")
    for li, result, found in zip(paper.cssselect("ol.results > li"), english["results"], evidence, strict=True):
        (pair,) = li.cssselect(".pair")
        shown = pair.cssselect("ul.evidence[lang=en] > li")
        sentences: dict[tuple[str, str], list[str]] = {}  # each sentence once, with the numbers found in it
        for e in found:
            sentences.setdefault((e["sentence"], e["section"]), []).append(e["number"])
        assert len(shown) == len(sentences)
        if found:  # under the English finding: the pair's third child, after both findings
            assert [c.tag for c in pair] == ["p", "p", "ul"] and pair[0].get("lang") == "en"
        for item, ((sentence, section), numbers) in zip(shown, sentences.items(), strict=True):
            e = {"sentence": sentence, "section": section}
            assert texts(item, "code") == list(dict.fromkeys(numbers))
            assert texts(item, "q") == [_shown(e["sentence"])]  # its formulas as MathML: no `\\times` shown
            (a,) = item.cssselect("a")
            if e["section"] == "*":
                assert (a.get("href"), a.text_content()) == (
                    f"https://arxiv.org/html/{HTML_PAPER}v2",
                    "outside every section",
                )
            else:
                assert e["section"] in result["sections"]
                assert a.get("href") == f"https://arxiv.org/html/{HTML_PAPER}v2#{anchors[e['section']]}"
                assert a.text_content().startswith(f"§{e['section']}")
    # The Chinese column carries no evidence of its own.
    assert paper.cssselect("ul.evidence[lang=zh-Hans]") == []


def test_evidence_outside_every_section_links_to_the_page_or_the_abstract(db_rows):
    row = next(r for r in db_rows["papers"] if r["arxiv_id"] == HTML_PAPER)
    digests = {d["lang"]: d for d in db_rows["digests"] if d["arxiv_id"] == HTML_PAPER}
    results = len(_digest(db_rows, HTML_PAPER, "en")["results"])
    outside = {"number": "42.0%", "section": "*", "sentence": "Keywords: 42.0% of it."}
    cited = {"number": "7", "section": "3.2", "sentence": "Seven."}
    broken = [{"number": 1, "section": "3.2", "sentence": "not a string number"}, "junk"]
    stored = json.dumps([[outside, cited, *broken]] + [[]] * (results - 1))
    digests = digests | {"en": digests["en"] | {"evidence": stored}}

    view = paper_view(row, digests)
    first = view.en.results[0].evidence
    assert [(e.numbers, e.section.tag, e.section.title, e.section.url) for e in first] == [
        (("42.0%",), "*", "outside every section", "https://arxiv.org/html/2503.20783v2"),
        (
            ("7",),
            "3.2",
            next(s["title"] for s in json.loads(row["sections"]) if s["tag"] == "3.2"),
            "https://arxiv.org/html/2503.20783v2#S3.SS2",
        ),
    ]
    assert all(r.evidence == () for r in view.en.results[1:]) and all(r.evidence == () for r in view.zh.results)
    abstract = paper_view(row | {"fulltext_source": "abstract", "version": None}, digests)
    assert {e.section.url for e in abstract.en.results[0].evidence} == {"https://arxiv.org/abs/2503.20783"}
    # More lists than results, or not JSON at all: the page still renders, with what fits.
    extra = paper_view(row, digests | {"en": digests["en"] | {"evidence": json.dumps([[cited]] * (results + 2))}})
    assert [len(r.evidence) for r in extra.en.results] == [1] * results
    unreadable = paper_view(row, digests | {"en": digests["en"] | {"evidence": stored[:-1]}})
    assert unreadable.done and all(r.evidence == () for r in unreadable.en.results)


def test_markup_in_an_evidence_sentence_is_shown_as_text(project, tmp_path):
    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    evidence = _stored_en(db, "evidence")
    with sqlite3.connect(db) as conn:
        evidence[0] = [{"number": "1", "section": "*", "sentence": f"It {SCRIPT} and {IMG} ran."}, *evidence[0]]
        conn.execute(
            "update digests set evidence = ? where arxiv_id = ? and lang = 'en'", [json.dumps(evidence), HTML_PAPER]
        )
    render_site(db, tmp_path / "site")

    raw = _own_tags_out((tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html").read_text(encoding="utf-8"))
    assert "<script" not in raw and "<img" not in raw
    assert "It &lt;script&gt;alert(1)&lt;/script&gt; and &#34;&gt;&lt;img src=x onerror=alert(1)&gt; ran." in raw
    paper = page(tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html")
    first = paper.cssselect("ol.results > li")[0]
    assert texts(first, "ul.evidence q")[0] == f"It {SCRIPT} and {IMG} ran."
    assert [e.get("src") for e in paper.cssselect("script")] == OWN_SCRIPTS and _not_thumbnails(paper) == []


def test_a_takeaway_that_says_a_finding_again_is_not_shown_twice(project, tmp_path):
    # the offline model's takeaways on the 2025-09-15 listing at de72281: 3 of 4 were a finding word for word
    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    with sqlite3.connect(db) as conn:
        en, zh = (
            json.loads(
                conn.execute(
                    "select digest from digests where arxiv_id = ? and lang = ?", [HTML_PAPER, lang]
                ).fetchone()[0]
            )
            for lang in ("en", "zh")
        )

    def shown(takeaways_en: list[str], takeaways_zh: list[str]) -> list[lxml.html.HtmlElement]:
        with sqlite3.connect(db) as conn:
            for lang, digest, takeaways in (("en", en, takeaways_en), ("zh", zh, takeaways_zh)):
                conn.execute(
                    "update digests set digest = ? where arxiv_id = ? and lang = ?",
                    [json.dumps(digest | {"takeaways": takeaways}, ensure_ascii=False), HTML_PAPER, lang],
                )
        render_site(db, tmp_path / "site")
        return _sections(page(tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html"), "Takeaways")

    finding = en["results"][0]["finding"]
    (takeaways,) = shown([f" {finding.upper().rstrip('.')} ", "Prompts matter."], ["重复", "提示很重要。"])
    assert texts(takeaways, ".pair li") == ["Prompts matter.", "提示很重要。"]
    assert shown([en["one_sentence"]], ["重复"]) == []  # the summary again: no section at all
    assert _stored_en(db, "digest")["takeaways"] == [en["one_sentence"]]  # the database keeps what the model wrote


def _stored_en(db: Path, column: str) -> Any:
    """The HTML paper's English digest's `column` (digest, evidence) as stored, read from its JSON."""
    with sqlite3.connect(db) as conn:
        (stored,) = conn.execute(
            f"select {column} from digests where arxiv_id = ? and lang = 'en'", [HTML_PAPER]
        ).fetchone()
    return json.loads(stored)


def _sections(root: lxml.html.HtmlElement, heading: str) -> list[lxml.html.HtmlElement]:
    return [s for s in root.cssselect("section") if heading in " ".join(texts(s, "h2"))]


def test_a_database_without_the_evidence_column_renders_as_before(project, tmp_path):
    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("alter table digests drop column evidence")  # a database written before evidence
    summary = render_site(db, tmp_path / "site")

    assert (summary.papers, summary.feed_entries) == (4, 4)
    paper = page(tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html")
    assert paper.cssselect("ul.evidence") == []
    assert len(paper.cssselect("ol.results > li")) == len(
        _digest({"digests": _rows(db, "digests")}, HTML_PAPER, "en")["results"]
    )
    assert all(len(pair) == 2 for pair in paper.cssselect("ol.results .pair"))
    assert _provenance(paper)["Status"] == "Digested in English and Chinese, both checked"

    # Publishing a day into that database adds the column, typed as the schema declares it.
    day_dir = project / "data" / SAMPLE_DATE
    files = load_day(day_dir / "list.json", day_dir / "fulltext", day_dir / "digest_en", day_dir / "translate_zh")
    write_day(db, files, run_record(files))
    with sqlite3.connect(db) as conn:
        types = {name: kind for _, name, kind, *_ in conn.execute("pragma table_info(digests)")}
        (filled,) = conn.execute("select count(*) from digests where lang = 'en' and evidence is not null").fetchone()
    assert types["evidence"] == "TEXT" and filled == 4


# ---------------------------------------------------------------- view models (pure)


def test_section_links_follow_the_version_and_fall_back_without_html():
    assert section_url("2503.20783", 2, "html", "S3.SS2") == "https://arxiv.org/html/2503.20783v2#S3.SS2"
    assert section_url("2503.20783", None, "html", "A1") == "https://arxiv.org/html/2503.20783#A1"
    assert section_url("2503.20783", 2, "trimmed", None) == "https://arxiv.org/html/2503.20783v2"
    assert section_url("2504.00999", None, "abstract", "abstract") == "https://arxiv.org/abs/2504.00999"


def test_what_the_model_saw_is_labelled_for_full_trimmed_and_abstract_text(db_rows):
    row = next(r for r in db_rows["papers"] if r["arxiv_id"] == HTML_PAPER)
    digests = {d["lang"]: d for d in db_rows["digests"] if d["arxiv_id"] == HTML_PAPER}

    full = paper_view(row, digests)
    assert (full.source.kind, full.source.label, full.source.dropped) == ("html", "Full text (arXiv HTML v2)", ())
    assert full.html_url == "https://arxiv.org/html/2503.20783v2"

    trimmed = paper_view(
        row | {"fulltext_source": "trimmed", "fulltext_reason": "over the context", "fulltext_dropped": '["3.4", "G"]'},
        digests,
    )
    assert trimmed.source.label == "Full text (arXiv HTML v2), trimmed to fit the model's context"
    assert [(s.tag, s.title, s.url) for s in trimmed.source.dropped] == [
        ("3.4", "Domain-Specific Pretraining Improves RL Ceiling", "https://arxiv.org/html/2503.20783v2#S3.SS4"),
        ("G", "Detailed Experimental Settings", "https://arxiv.org/html/2503.20783v2#A7"),
    ]
    assert trimmed.done  # a trimmed paper still has its digest and links into the HTML

    abstract = paper_view(row | {"fulltext_source": "abstract", "fulltext_reason": "no HTML", "version": None}, digests)
    assert (abstract.source.label, abstract.source.reason, abstract.html_url) == ("Abstract only", "no HTML", None)
    assert {s.url for r in abstract.en.results for s in r.sections} == {"https://arxiv.org/abs/2503.20783"}


def test_a_failed_or_unreadable_paper_never_carries_a_summary(db_rows):
    row = next(r for r in db_rows["papers"] if r["arxiv_id"] == HTML_PAPER)
    digests = {d["lang"]: d for d in db_rows["digests"] if d["arxiv_id"] == HTML_PAPER}

    failed = paper_view(row | {"status": "failed", "error": "translate_zh: LLM call failed: HTTP 503"}, digests)
    assert (failed.done, failed.en, failed.zh, failed.error) == (
        False,
        None,
        None,
        "translate_zh: LLM call failed: HTTP 503",
    )

    broken = paper_view(row, digests | {"zh": digests["zh"] | {"digest": '{"one_sentence": "only this"}'}})
    assert not broken.done and broken.status == "failed"
    assert broken.error.startswith("the stored zh digest is not a valid digest: ")

    missing = paper_view(row, {"en": digests["en"]})
    assert (missing.done, missing.error) == (False, "the zh digest is missing from the database")


def test_days_are_newest_first_and_papers_ranked_by_upvotes_then_id(db_rows):
    older = [r | {"date": "2025-04-02", "upvotes": 5} for r in db_rows["papers"]]
    days = build_days(db_rows["papers"][:2] + older[2:], db_rows["digests"], run_dates=["2025-04-01"])
    assert [d.date for d in days] == [SAMPLE_DATE, "2025-04-02", "2025-04-01"]
    assert [p.arxiv_id for p in days[0].papers] == RANKED[:2]
    assert [p.arxiv_id for p in days[1].papers] == sorted(RANKED[2:])  # equal upvotes: the lower id first
    assert [p.rank for p in days[1].papers] == [1, 2] and days[2].papers == ()


# ---------------------------------------------------------------- untrusted model text


def test_markup_in_model_output_is_shown_as_text_and_the_feed_stays_well_formed(project, tmp_path):
    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    hostile = f"Results {SCRIPT} and {IMG} end\x00\x1b\ufffe."
    shown = f"Results {SCRIPT} and {IMG} end."  # XML-invalid characters dropped, markup kept as text
    _poison(db, HTML_PAPER, hostile)
    render_site(db, tmp_path / "site")

    for html_file in (tmp_path / "site").rglob("*.html"):
        raw = _own_tags_out(html_file.read_text(encoding="utf-8"))
        assert "<script" not in raw and "<img" not in raw, html_file
    raw = (tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in raw
    paper = page(tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html")
    assert texts(paper, "h1 [lang=en]") == [" ".join(shown.split())]
    assert _not_thumbnails(paper) == [] and [e.get("src") for e in paper.cssselect("script")] == OWN_SCRIPTS

    feed = ET.parse(tmp_path / "site" / "feed.xml").getroot()
    entry = next(e for e in feed.iter(f"{ATOM}entry") if e.findtext(f"{ATOM}id").endswith(HTML_PAPER))
    assert entry.findtext(f"{ATOM}summary") == shown
    assert entry.findtext(f"{ATOM}title") == shown


# ---------------------------------------------------------------- the feed


def test_the_feed_is_atom_with_one_entry_per_done_paper_linking_to_its_page(site, db_rows):
    feed = ET.parse(site / "feed.xml").getroot()
    assert feed.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated", "author/" + ATOM + "name"):
        assert (feed.findtext(ATOM + required) or "").strip(), required
    links = {link.get("rel"): link.get("href") for link in feed.findall(f"{ATOM}link")}
    assert links == {"self": f"{DEFAULT_BASE_URL}feed.xml", "alternate": f"{DEFAULT_BASE_URL}index.html"}

    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}id") for e in entries] == [f"tag:papers-digest,{SAMPLE_DATE}:{i}" for i in RANKED]
    english = {d["arxiv_id"]: json.loads(d["digest"]) for d in db_rows["digests"] if d["lang"] == "en"}
    titles = {r["arxiv_id"]: r["title"] for r in db_rows["papers"]}
    for entry, arxiv_id in zip(entries, RANKED, strict=True):
        (link,) = entry.findall(f"{ATOM}link")
        assert link.get("href") == f"{DEFAULT_BASE_URL}{SAMPLE_DATE}/{arxiv_id}.html"
        assert (site / link.get("href").removeprefix(DEFAULT_BASE_URL)).is_file()
        assert entry.findtext(f"{ATOM}title") == titles[arxiv_id]
        assert entry.findtext(f"{ATOM}summary") == english[arxiv_id]["one_sentence"]
        assert entry.findtext(f"{ATOM}updated").endswith("Z")
    assert feed.findtext(f"{ATOM}updated") == max(e.findtext(f"{ATOM}updated") for e in entries)


def test_papers_site_rebuilds_by_hand_with_a_base_url_and_rewrites_only_what_changed(project, tmp_path, capsys):
    out = tmp_path / "site"
    args = ["site", "--db", str(project / "data" / "papers.db"), "--out", str(out)]
    with pytest.raises(SystemExit) as done:
        papers_cli([*args, "--base-url", "https://digest.example.org/papers"])
    assert done.value.code == 0
    feed = ET.parse(out / "feed.xml").getroot()
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == "https://digest.example.org/papers/feed.xml"
    assert feed.find(f"{ATOM}entry/{ATOM}link").get("href").startswith("https://digest.example.org/papers/2025-04-03/")

    stale = out / "2025-04-01" / "2501.00001.html"  # a page of a paper no longer in the database
    stale.parent.mkdir()
    stale.write_text("old")
    leftover = out / SAMPLE_DATE / f".{HTML_PAPER}.html.k2j4x.tmp"  # what a crash mid-write leaves
    leftover.write_text("<html><bo")
    not_ours = out / "notes" / "about.html"
    not_ours.parent.mkdir()
    not_ours.write_text("kept")
    capsys.readouterr()
    with pytest.raises(SystemExit):
        papers_cli([*args, "--base-url", "https://digest.example.org/papers/"])
    said = capsys.readouterr().out
    assert "0 files written, " in said and " unchanged, 1 removed" in said
    assert not stale.parent.exists() and not leftover.exists() and not_ours.read_text() == "kept"


# ---------------------------------------------------------------- a publish renders only what its day changed


@pytest.fixture
def archive(project: Path, tmp_path: Path) -> Path:
    """The sample day's database with eight earlier days, each a copy of the sample under other arXiv ids."""
    db = tmp_path / "archive.db"
    copy_db(project / "data" / "papers.db", db)
    with sqlite3.connect(db) as conn:
        for month, date in enumerate(OLDER_DAYS, 1):
            for table in ("papers", "digests", "day_items", "runs"):
                columns = [r[1] for r in conn.execute(f"pragma table_info({table})")]
                values = [
                    "?" if c == "date" else f"'24{month:02d}.' || substr(arxiv_id, 6)" if c == "arxiv_id" else f'"{c}"'
                    for c in columns
                ]
                names = ", ".join(f'"{c}"' for c in columns)
                conn.execute(
                    f"insert into {table} ({names}) select {', '.join(values)} from {table} where date = ?",
                    [date, SAMPLE_DATE],
                )
    writer = open_for_writing(db)  # the copies' terms and related papers, as if each day had been written
    with writer.conn:
        relate(writer, index_terms(writer, []))
    writer.close()
    return db


def test_a_publish_writes_only_its_days_pages_the_index_and_the_feed(project, archive, tmp_path, monkeypatch):
    out = tmp_path / "site"
    render_site(archive, out)
    stale = out / SAMPLE_DATE / "2501.00001.html"  # a page of a paper no longer listed for the day
    stale.write_text("old")
    elsewhere = out / OLDER_DAYS[0] / "2501.00002.html"  # one of another day: left to `papers site`
    elsewhere.write_text("old")
    leftover = out / SAMPLE_DATE / f".{RANKED[2]}.html.k2j4x.tmp"  # what a crash mid-write leaves
    leftover.write_text("<html><bo")
    before = _snapshot(out)

    day_dir = project / "data" / SAMPLE_DATE
    files = load_day(day_dir / "list.json", day_dir / "fulltext", day_dir / "digest_en", day_dir / "translate_zh")
    top = RANKED[0]
    areas_before = json.loads(next(r for r in _rows(archive, "papers") if r["arxiv_id"] == top)["areas"])
    retitled = [p.model_copy(update={"title": "A new title"}) if p.arxiv_id == top else p for p in files.day.papers]
    files.day = files.day.model_copy(update={"papers": retitled})
    loaded: list[str] = []
    reads = site_render.site_day_rows
    monkeypatch.setattr(site_render, "site_day_rows", lambda db, date: loaded.append(date) or reads(db, date))
    write_day(archive, files, run_record(files))
    summary = render_day(archive, out, SAMPLE_DATE)

    after = _snapshot(out)
    changed = {rel for rel in after if rel in before and after[rel] != before[rel]}
    pages = {rel for rel in changed if rel.split("/")[0] not in ARCHIVE}
    assert pages == {
        f"{SAMPLE_DATE}/index.html",
        *(f"{SAMPLE_DATE}/{name}" for name in (f"{top}.bib", f"{top}.ris", "citations.bib", "citations.ris")),
        *(f"{SAMPLE_DATE}/{i}.html" for i in RANKED),  # its page, and those listing it as related: the new title
        "index.html",
        "days.html",
        "feed.xml",  # the Chinese feed shows the translation's title, which a new English title leaves as it was
        "foryou.json",  # the latest 30 days' papers, the retitled one among them
        "trends.html",  # its areas, from its new title, in this week's counts
    }
    # The retitled paper's area pages and feeds (of the areas its title gave it before too, and their count on the
    # area index), and the day's week and month pages, list its title.
    areas = json.loads(next(r for r in _rows(archive, "papers") if r["arxiv_id"] == top)["areas"])
    assert changed - pages <= {
        *(f"topics/{a}.{ext}" for a in {*areas, *areas_before} for ext in ("html", "xml", "bib", "ris")),
        "topics/index.html",
        "weeks/2025-W14.html",
        "months/2025-04.html",
    }
    assert f"topics/{areas[0]}.html" in changed and "weeks/2025-W14.html" in changed
    assert set(before) - set(after) == {f"{SAMPLE_DATE}/2501.00001.html", leftover.relative_to(out).as_posix()}
    assert set(after) <= set(before)
    assert (summary.written, summary.removed, summary.days, summary.papers) == (len(changed), 1, 9, 36)
    # Read: the day itself and the feed's seven latest days, each once; never the older days' rows.
    all_days = [SAMPLE_DATE, *reversed(OLDER_DAYS)]
    assert sorted(loaded, reverse=True) == all_days[:7]
    assert elsewhere.read_text() == "old"

    calendar = page(out / "days.html")
    assert [a.get("href") for a in calendar.cssselect("ul.days a")] == [f"{d}/index.html" for d in all_days]
    assert texts(calendar, "ul.days li .top")[0].endswith(" A new title")
    assert texts(page(out / "index.html"), f"li[id='p-{top}'] h2 [lang=en]")[0] == "A new title"
    feed = ET.parse(out / "feed.xml").getroot()
    ids = [e.findtext(f"{ATOM}id") for e in feed.iter(f"{ATOM}entry")]
    assert ids == [f"tag:papers-digest,{d}:{i}" for n, d in enumerate(all_days[:7]) for i in _archive_ids(n)]

    # The same files, byte for byte, as rendering every day into an empty folder.
    fresh = tmp_path / "fresh"
    render_site(archive, fresh)
    assert {rel: data for rel, (data, _) in _snapshot(fresh).items()} == {
        rel: data for rel, (data, _) in after.items() if rel != elsewhere.relative_to(out).as_posix()
    }
    # The index's counts, from aggregate queries, are the day pages' own.
    for listed in build_index(site_days(archive)):
        day = load_day_view(archive, listed.date)
        assert (listed.count, listed.done, listed.failed, listed.listed) == (
            len(day.papers),
            day.done,
            day.failed,
            day.listed,
        )
        assert listed.top.title == day.papers[0].title


def test_a_paper_the_day_takes_over_leaves_the_earlier_days_pages(project, archive, tmp_path):
    moved = RANKED[1]  # as if it had failed on the day before and the retry queue listed it again
    with sqlite3.connect(archive) as conn:
        conn.execute("update papers set date = ? where arxiv_id = ?", [OLDER_DAYS[-1], moved])
    out = tmp_path / "site"
    render_site(archive, out)
    assert (out / OLDER_DAYS[-1] / f"{moved}.html").is_file() and not (out / SAMPLE_DATE / f"{moved}.html").exists()
    before = _snapshot(out)

    day_dir = project / "data" / SAMPLE_DATE
    files = load_day(day_dir / "list.json", day_dir / "fulltext", day_dir / "digest_en", day_dir / "translate_zh")
    write_day(archive, files, run_record(files))
    summary = render_day(archive, out, SAMPLE_DATE)

    after = _snapshot(out)
    files_of = {f"{moved}.{ext}" for ext in ("html", "bib", "ris")}  # its page and citations
    assert set(before) - set(after) == {f"{OLDER_DAYS[-1]}/{name}" for name in files_of}
    assert set(after) - set(before) == {f"{SAMPLE_DATE}/{name}" for name in files_of} and summary.removed == 3
    touched = {rel.split("/")[0] for rel in after if rel in before and after[rel] != before[rel]}
    common = {"index.html", "days.html", "feed.xml", "feed.zh.xml", "foryou.json", "trends.html"}
    assert touched <= {SAMPLE_DATE, OLDER_DAYS[-1], *common, *ARCHIVE}
    earlier = page(out / OLDER_DAYS[-1] / "index.html")
    assert f"{moved}.html" not in {a.get("href") for a in earlier.cssselect("ol.papers h2 a")}
    fresh = tmp_path / "fresh"
    render_site(archive, fresh)
    assert {r: d for r, (d, _) in _snapshot(fresh).items()} == {r: d for r, (d, _) in after.items()}

    # A day no longer in the database: publishing it removes its pages and its line in the index.
    with sqlite3.connect(archive) as conn:
        for table in ("papers", "digests", "day_items", "runs"):
            conn.execute(f"delete from {table} where date = ?", [OLDER_DAYS[0]])
    summary = render_day(archive, out, OLDER_DAYS[0])
    # its page, its citations, and each paper's page and citations
    assert not (out / OLDER_DAYS[0]).exists() and summary.removed == 3 + 3 * len(RANKED)
    assert f"{OLDER_DAYS[0]}/index.html" not in [a.get("href") for a in page(out / "days.html").cssselect("ul.days a")]


def test_papers_site_renders_every_day_one_day_at_a_time(archive, tmp_path, monkeypatch, capsys):
    out = tmp_path / "site"
    gone = out / "2024-12-31" / "index.html"  # a day no longer in the database
    gone.parent.mkdir(parents=True)
    gone.write_text("old")
    loaded: list[str] = []
    reads = site_render.site_day_rows
    monkeypatch.setattr(site_render, "site_day_rows", lambda db, date: loaded.append(date) or reads(db, date))
    with pytest.raises(SystemExit) as done:
        papers_cli(["site", "--db", str(archive), "--out", str(out)])
    assert done.value.code == 0
    all_days = [SAMPLE_DATE, *reversed(OLDER_DAYS)]
    assert loaded == all_days  # each day read once, newest first
    # index, days, status, style, the three scripts, search (page and months), the feeds, For you (page and data),
    # trends; a page and BibTeX and RIS files per day and per paper
    pages = 14 + len(all_days) * 3 * (1 + len(RANKED))
    pages += sum(1 for folder in ARCHIVE for _ in (out / folder).iterdir())  # areas (page, feed), weeks, months
    assert (
        f"9 day(s), 36 papers, 28 feed entries; {pages} files written, 0 unchanged, 1 removed"
        in capsys.readouterr().out
    )
    for n, date in enumerate(all_days):
        ids = _archive_ids(n)
        day = page(out / date / "index.html")
        assert [a.get("href") for a in day.cssselect("ol.papers li.done h2 a")] == [f"{i}.html" for i in ids]
        assert all((out / date / f"{i}.html").is_file() for i in ids)
    assert not gone.parent.exists()


# ---------------------------------------------------------------- in a real browser


def test_every_page_loads_without_console_errors_and_every_internal_link_resolves(browser, served, site):
    seen_pages, checked, queue = set(), set(), [served + "index.html"]
    while queue:
        url = queue.pop(0)
        if url in seen_pages:
            continue
        seen_pages.add(url)
        browser.get(url)
        severe = console_errors(browser)
        assert severe == [], f"{url}: {severe}"
        assert browser.find_element("css selector", "h1").is_displayed()
        hrefs = browser.execute_script("return [...document.querySelectorAll('a[href], link[href]')].map(a => a.href)")
        for href in hrefs:
            target = urldefrag(href).url
            if not target.startswith(served) or target in checked:
                continue
            checked.add(target)
            with urlopen(target) as answer:  # a broken link raises HTTPError 404 here
                assert answer.status == 200, target
            if target.endswith(".html"):
                queue.append(target)
    seen = {u.removeprefix(served) for u in seen_pages}
    assert {u for u in seen if u.split("/")[0] not in ARCHIVE} - {"status.html"} == {
        "index.html",
        "days.html",
        "trends.html",  # and For you, whose link follow.js turns into the settings, which link it once opened
        f"{SAMPLE_DATE}/index.html",
        *(f"{SAMPLE_DATE}/{i}.html" for i in RANKED),
    }
    assert {"topics/index.html", "weeks/2025-W14.html", "months/2025-04.html"} <= seen
    assert {served + "feed.xml", served + "feed.zh.xml", served + "style.css"} <= checked


def test_searching_the_sample_day_finds_only_what_its_papers_hold(browser, served):
    """#39: on this site words in no paper found papers (`xyzzy` those with an `x`, as in `ApexGen-X`), and an
    arXiv id three papers, another first."""
    from selenium.webdriver.common.by import By

    def search(term: str) -> tuple[list[str], str]:
        browser.get(served + "search.html?q=" + quote(term))
        results = browser.find_element(By.ID, "search-results")
        deadline = time.monotonic() + 30
        while not results.get_attribute("data-ms") and time.monotonic() < deadline:
            time.sleep(0.05)
        links = [a.get_attribute("href").removeprefix(served) for a in results.find_elements(By.CSS_SELECTOR, "h2 a")]
        return links, browser.find_element(By.CSS_SELECTOR, "#search-status [lang=en]").text

    for term in ("xyzzy", "qwerty", "kubernetes", "blockchain"):
        assert search(term) == ([], f"No paper has “{term}”."), term
    assert search("2504.00999")[0] == [f"{SAMPLE_DATE}/2504.00999.html"]
    assert search("MergeVQ")[0] == [f"{SAMPLE_DATE}/2504.00999.html"]  # a word of its title
    assert search("AnimeGamer")[0] == [f"{SAMPLE_DATE}/2504.01014.html"]


def test_the_site_works_from_a_file_url_and_a_paper_page_screenshot_is_saved(browser, site):
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    browser.find_element(By.CSS_SELECTOR, "a[href='days.html']").click()
    browser.find_element(By.CSS_SELECTOR, f"ul.days a[href='{SAMPLE_DATE}/index.html']").click()
    browser.find_element(By.CSS_SELECTOR, f"[id='p-{HTML_PAPER}'] h2 a").click()
    assert browser.current_url == (site / SAMPLE_DATE / f"{HTML_PAPER}.html").as_uri()
    assert browser.find_element(By.CSS_SELECTOR, "h1").text.startswith("Understanding R1-Zero-Like Training")
    # The stylesheet applied: English and Chinese sit in two columns at desktop width.
    first_pair = browser.find_elements(By.CSS_SELECTOR, ".pair")[0]
    en, zh = (
        first_pair.find_element(By.CSS_SELECTOR, "[lang=en]"),
        first_pair.find_element(By.CSS_SELECTOR, "[lang=zh-Hans]"),
    )
    assert en.location["y"] == zh.location["y"] and en.location["x"] < zh.location["x"]
    assert all(li.is_displayed() for li in browser.find_elements(By.CSS_SELECTOR, "ul.mindmap li"))
    assert console_errors(browser) == []

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / f"paper-{HTML_PAPER}.png"
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(height + 100, 6000))
    try:
        assert browser.save_screenshot(str(shot))
    finally:
        browser.set_window_size(1280, 900)
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 50_000


def test_hostile_model_text_is_visible_as_text_in_the_browser_and_runs_nothing(browser, project, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    _poison(db, HTML_PAPER, f"Results {SCRIPT} and {IMG} end.")
    render_site(db, tmp_path / "site")

    for path in (f"{SAMPLE_DATE}/index.html", f"{SAMPLE_DATE}/{HTML_PAPER}.html"):
        browser.get((tmp_path / "site" / path).as_uri())
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert  # noqa: B018 - reading it is the check: no dialog was opened
        # no image but Hugging Face's thumbnails, and no script but the site's own (site.js: the language switch and
        # search; follow.js and follow-settings.js: follow and mute)
        scripts = "[...document.scripts].filter(s => !/\\/(site|follow|follow-settings)\\.js$/.test(s.src)).length"
        images = "[...document.images].filter(i => !i.src.startsWith('https://cdn-thumbnails.huggingface.co/')).length"
        assert browser.execute_script(f"return {images} + {scripts}") == 0
        body = browser.find_element(By.TAG_NAME, "body").text
        assert f"Results {SCRIPT} and {IMG} end." in body
    mind_map_labels = [
        li.text for li in browser.find_elements(By.CSS_SELECTOR, ".pair > [lang=en] > ul.mindmap > li > span")
    ]
    assert mind_map_labels == [f"Results {SCRIPT} and {IMG} end."]


# ---------------------------------------------------------------- helpers


def _poison(db: Path, arxiv_id: str, text: str) -> None:
    """Put hostile text where model output and listing data go: the one sentence, a finding, the mind map, the title."""
    with sqlite3.connect(db) as conn:
        for lang, digest_json in conn.execute(
            "select lang, digest from digests where arxiv_id = ?", [arxiv_id]
        ).fetchall():
            digest = json.loads(digest_json)
            digest["one_sentence"] = text
            digest["results"][0]["finding"] = text
            digest["mind_map"]["label"] = text
            conn.execute(
                "update digests set digest = ? where arxiv_id = ? and lang = ?",
                [json.dumps(digest, ensure_ascii=False), arxiv_id, lang],
            )
        conn.execute("update papers set title = ? where arxiv_id = ?", [text, arxiv_id])


def _own_tags_out(raw: str) -> str:
    """A page without the site's own script tags (site.js and follow.js, in every page's head) and Hugging Face's
    thumbnails: any other script or image is model text run."""
    return THUMBNAIL.sub("", re.sub(r'<script src="(\.\./)?(site|follow)\.js"( defer)?></script>', "", raw, count=2))


def _shown(text: str) -> str:
    """Text as a page shows it: its LaTeX as MathML (site/tex.py), read back as text, runs of spaces as one."""
    return " ".join(lxml.html.fragment_fromstring(str(tex_markup(text)), create_parent="p").text_content().split())


def _not_thumbnails(root: lxml.html.HtmlElement) -> list[str]:
    return [i.get("src") for i in root.cssselect("img") if not i.get("src", "").startswith("https://cdn-thumbnails.")]


def _provenance(paper: lxml.html.HtmlElement) -> dict[str, str]:
    """The paper page's folded block on how its digest was made, by its English labels."""
    english = ".//text()[not(ancestor::*[@lang='zh-Hans'])]"  # the English of each label and value
    labels = [" ".join("".join(dt.xpath(english)).split()) for dt in paper.cssselect("dl.provenance dt")]
    values = [" ".join("".join(dd.xpath(english)).split()) for dd in paper.cssselect("dl.provenance dd")]
    return dict(zip(labels, values, strict=True))


def _archive_ids(n: int) -> list[str]:
    """The ranked arXiv ids of the archive's `n`-th day, newest first: the sample's, then the copies'."""
    return RANKED if n == 0 else [f"24{len(OLDER_DAYS) + 1 - n:02d}.{i[5:]}" for i in RANKED]


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of a folder but the search indexes (tests/test_readers.py): its bytes and modification time,
    by path inside the folder."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).parts[0] != "pagefind"
    }


def _rows(db: Path, table: str) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(f"select * from {table}")]


def _digest(db_rows: dict[str, list[dict]], arxiv_id: str, lang: str) -> dict:
    (row,) = [d for d in db_rows["digests"] if (d["arxiv_id"], d["lang"]) == (arxiv_id, lang)]
    return json.loads(row["digest"])


def _shape_of_node(node: dict) -> tuple:
    return (node["label"], tuple(_shape_of_node(c) for c in node["children"]))


def _shape_of_item(li: lxml.html.HtmlElement) -> tuple:
    """A rendered `<li><span>label</span><ul><li>…</li></ul></li>` back to (label, children)."""
    children = li.find("ul")
    items = children.findall("li") if children is not None else []
    return (li.find("span").text_content(), tuple(_shape_of_item(c) for c in items))


def test_a_publish_with_nothing_to_do_writes_nothing_and_a_missing_page_is_rendered_again(project, tmp_path):
    """publish runs on every `dvc repro` (always_changed). From the same files and code it only compares the
    day's fingerprint in the database, so the database, run.json and the site stay as they were, byte for
    byte, and the site's files not even rewritten; a day page that went missing is rendered again."""
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    db, day, out = copy / "data" / "papers.db", copy / "data" / SAMPLE_DATE, copy / "data" / "site"

    def state() -> tuple:
        return (
            db.read_bytes(),
            (day / "run.json").read_bytes(),  # DVC itself re-links its outputs: bytes, not times
            (day / "calls.jsonl").read_bytes(),
            _snapshot(out),
        )

    before = state()
    done = run_dvc(copy, "repro")
    assert f"publish: {SAMPLE_DATE}: already published from these files" in done.stdout
    assert state() == before
    (out / SAMPLE_DATE / "index.html").unlink()
    done = run_dvc(copy, "repro")
    assert "publish: site:" in done.stdout and (out / SAMPLE_DATE / "index.html").is_file()
    assert _snapshot(out)[f"{SAMPLE_DATE}/index.html"][0] == before[3][f"{SAMPLE_DATE}/index.html"][0]


def test_the_sites_public_address_flows_from_params_through_dvc_into_every_link_a_reader_receives(project, tmp_path):
    """site.base_url (params.yaml) is a param of the publish stage: setting it publishes the day again, and the
    feeds and link previews name it; nothing the site holds points at localhost any more."""
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    params = yaml.safe_load((copy / "params.yaml").read_text(encoding="utf-8"))
    params["site"]["base_url"] = "https://digest.example.org/"
    (copy / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    done = run_dvc(copy, "repro")
    assert "publish: site:" in done.stdout and "Running stage 'digest_en'" not in done.stdout  # only publish reads it
    out = copy / "data" / "site"
    feed = ET.parse(out / "feed.zh.xml").getroot()
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == "https://digest.example.org/feed.zh.xml"
    og = page(out / SAMPLE_DATE / f"{HTML_PAPER}.html").cssselect("meta[property='og:url']")[0]
    assert og.get("content") == f"https://digest.example.org/{SAMPLE_DATE}/{HTML_PAPER}.html"
    readable = [p for p in out.rglob("*") if p.is_file() and p.suffix in (".html", ".xml", ".json")]
    assert [p for p in readable if "localhost" in p.read_text(encoding="utf-8")] == []


def test_a_finding_that_is_the_one_sentence_again_shows_its_evidence_not_the_sentence_twice(project, tmp_path):
    # an abstract with one result sentence: the summary and the only finding are written from it (2025-09-15 runs)
    db = tmp_path / "papers.db"
    copy_db(project / "data" / "papers.db", db)
    en = _stored_en(db, "digest")
    first, *others = en["results"]
    summary = f" {first['finding'].upper().rstrip('.')} "  # the same words, another case and no full stop
    with sqlite3.connect(db) as conn:
        conn.execute(
            "update digests set digest = ? where arxiv_id = ? and lang = 'en'",
            [json.dumps(en | {"one_sentence": summary}), HTML_PAPER],
        )
    render_site(db, tmp_path / "site")
    paper = page(tmp_path / "site" / SAMPLE_DATE / f"{HTML_PAPER}.html")
    (lead,) = _sections(paper, "In one sentence")
    assert texts(lead, ".pair p[lang=en]") == [summary.strip()]
    items = paper.cssselect("ol.results > li")
    assert texts(items[0], ".pair > p") == ["As in one sentence, above.", "同上方的一句话总结。"]
    assert texts(items[0], "p.cites")[0].startswith("Source:")  # where it stands in the paper is still shown
    assert [texts(li, ".pair > p[lang=en]") for li in items[1:]] == [[r["finding"]] for r in others]
    assert summary.casefold().strip() not in " ".join(texts(paper, "ol.results")).casefold()
