"""The archive's ways in: links from the listing, area pages and feeds, day-to-day navigation, week and month
pages; on a multi-day archive written straight from the recorded Hugging Face days (no DVC, no engine)."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import lxml.html
import pytest
import sqlite_utils
from conftest import HF_DIR, day_papers, hf_day

from papers_digest.core.models import CallRecord, DayList, GenerationResult, Organization
from papers_digest.day.areas import MAX_AREAS, all_areas, area_of, paper_areas
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.queries import failed_recently
from papers_digest.db.related import days_relating
from papers_digest.db.schema import DAY_ITEM_COLUMNS, PAPER_COLUMNS
from papers_digest.db.writer import write_day
from papers_digest.site.archive import Period, SiteNav, month_range, paper_links, week_key, week_range
from papers_digest.site.render import render_day, render_site

# On one worker of `make test`, so the module's archive (six days published) is built once.
pytestmark = pytest.mark.xdist_group("test_site_archive")

ATOM = "{http://www.w3.org/2005/Atom}"
RECORDED = sorted(p.stem for p in HF_DIR.glob("*.json"))  # 2024-05-27 … 2026-01-13: every era of the API
# Published as four days in a row of one ISO week (2026-W01, Monday 2025-12-29) but of two months, and the
# newest the next week: weeks, months and neighbours are all exercised.
DATES = ["2025-12-29", "2025-12-30", "2025-12-31", "2026-01-01", "2026-01-05"]
PUBLISHED = dict(zip(DATES, RECORDED, strict=True))
PICKED = 6  # papers picked per day
HEAD_DAY_ITEMS = {"date": str, "arxiv_id": str, "title": str, "upvotes": int, "rank": int, "picked": bool}  # before #39
HEAD_PAPER_COLUMNS = [  # `papers` as the version before the topic pages (git HEAD at #29) created it
    "arxiv_id", "date", "title", "upvotes", "status", "error", "authors", "summary", "version", "fulltext_source",
    "fulltext_dropped", "fulltext_tokens", "fulltext_reason", "model", "prompt_version", "sections",
    "generated_at", "backfilled_from",
]  # fmt: skip


def _digest(title: str, lang: str) -> dict:
    sentence = f"{'EN' if lang == 'en' else 'ZH'}: {title}"
    result = {"finding": "It works.", "numbers": [], "sections": ["Abstract"]}
    return {
        "one_sentence": sentence,
        "problem": "p",
        "method": "m",
        "results": [result] * 3,
        "limitations": ["l"],
        "takeaways": ["t"],
        "mind_map": {"label": "root", "children": []},
    }


def day_files(date: str, recorded: str, failing: int = 1) -> DayFiles:
    """A recorded HF day published on `date`: its top PICKED papers, done except the `failing`-th one."""
    papers = sorted(day_papers(recorded), key=lambda p: (-p.upvotes, p.arxiv_id))
    picked = papers[:PICKED]
    results: dict[str, dict[str, GenerationResult]] = {"digest_en": {}, "translate_zh": {}}
    for n, paper in enumerate(picked):
        if n == failing:
            continue
        for stage, lang in (("digest_en", "en"), ("translate_zh", "zh")):
            call = CallRecord(
                date=date, arxiv_id=paper.arxiv_id, stage=stage, attempt=1, status="ok",
                started_at=1.0e9, ended_at=1.0e9 + 1, latency_s=1.0,
            )  # fmt: skip
            results[stage][paper.arxiv_id] = GenerationResult(
                arxiv_id=paper.arxiv_id, stage=stage, status="done", digest=_digest(paper.title, lang),
                model="sim", prompt_version="test", calls=[call],
            )  # fmt: skip
    day = DayList(date=date, limit=PICKED, papers=papers, picked=[p.arxiv_id for p in picked])
    return DayFiles(day=day, fulltext={}, english=results["digest_en"], chinese=results["translate_zh"])


def publish(db: Path, out: Path, date: str, recorded: str) -> None:
    files = day_files(date, recorded)
    write_day(db, files, run_record(files))
    render_day(db, out, date)


def published(folder: Path) -> tuple[Path, Path]:
    """The recorded days published one by one, as `publish` does, into one database and site in `folder`."""
    db, out = folder / "papers.db", folder / "site"
    for date, recorded in PUBLISHED.items():
        publish(db, out, date, recorded)
    return db, out


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Six days published one by one, as `publish` does, into one database and site."""
    return published(tmp_path_factory.mktemp("archive"))


def page(path: Path) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(path.read_bytes())


def rows(db: Path, sql: str, params: list | tuple = ()) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql, params)]


# ---------------------------------------------------------------- links and facts from the listing


def test_links_appear_where_the_listing_gives_them_and_not_otherwise(archive):
    db, out = archive
    papers = {r["arxiv_id"]: r for r in rows(db, "select * from papers")}
    listed = {p.arxiv_id: p for d in RECORDED for p in day_papers(d)}
    with_code = [i for i in papers if listed[i].github_repo]
    without = [i for i in papers if not listed[i].github_repo and not listed[i].project_page]
    assert with_code and without
    for arxiv_id, row in papers.items():
        paper = listed[arxiv_id]
        assert (row["github_repo"], row["github_stars"], row["project_page"]) == (
            paper.github_repo,
            paper.github_stars,
            paper.project_page,
        )
        html = page(out / row["date"] / f"{arxiv_id}.html")
        hrefs = [a.get("href") for a in html.cssselect("p.outlinks a")]
        assert hrefs[0] == f"https://arxiv.org/abs/{arxiv_id}"
        assert f"https://arxiv.org/pdf/{arxiv_id}" in hrefs and f"https://huggingface.co/papers/{arxiv_id}" in hrefs
        assert [a.get("href") for a in html.cssselect("p.outlinks a.code")] == (
            [paper.github_repo] if paper.github_repo else []
        )
        stars = [s.text_content() for s in html.cssselect("p.outlinks .stars")]
        assert stars == ([f"★ {paper.github_stars}"] if paper.github_repo and paper.github_stars is not None else [])
        assert [a.get("href") for a in html.cssselect("p.outlinks a.project")] == (
            [paper.project_page] if paper.project_page else []
        )
        orgs = [a.get("href") for a in html.cssselect("p.authors a.org")]
        assert orgs == ([f"https://huggingface.co/{paper.organization.name}"] if paper.organization else [])
        # The day's list carries the same links.
        item = page(out / row["date"] / "index.html").xpath(f'//li[@id="p-{arxiv_id}"]')[0]
        assert [a.get("href") for a in item.cssselect("p.outlinks a")] == hrefs
    assert any(listed[i].organization for i in papers) and any(listed[i].github_stars for i in papers)


def test_only_web_addresses_become_links():
    links = paper_links(
        {"arxiv_id": "2501.00001", "github_repo": "javascript:alert(1)", "github_stars": 3, "project_page": "x"}
    )
    assert (links.code_url, links.stars, links.project_url, links.organization) == (None, None, None, None)


# ---------------------------------------------------------------- areas


def test_papers_are_filed_under_at_most_five_areas_from_their_keywords_and_title(archive):
    db, _ = archive
    listed = {p.arxiv_id: p for d in RECORDED for p in day_papers(d)}
    found = rows(db, "select arxiv_id, areas from papers") + rows(db, "select arxiv_id, areas from day_items")
    for row in found:
        areas, paper = json.loads(row["areas"]), listed[row["arxiv_id"]]
        assert areas == paper_areas(paper.title, paper.ai_keywords, paper.summary)
        assert len(areas) <= MAX_AREAS and all(area_of(a) for a in areas)
    assert sum(bool(json.loads(r["areas"])) for r in found) >= 0.9 * len(found)


SHOWN = (  # the papers the area pages list: each picked paper, and each listed one no day picked, at its latest day
    "select p.arxiv_id, p.date, t.value as area, 1 as picked from papers p, json_each(p.areas) t union all "
    "select d.arxiv_id, max(d.date) as date, t.value as area, 0 as picked from day_items d, json_each(d.areas) t "
    "where d.arxiv_id not in (select arxiv_id from papers) group by d.arxiv_id, t.value"
)


def test_an_area_page_lists_every_paper_of_its_area_newest_first_with_its_feed_linked(archive):
    """Picked or only listed: a listed paper leads to its entry on its day's page."""
    db, out = archive
    by_area: dict[str, list[dict]] = {}
    for row in rows(db, SHOWN):
        by_area.setdefault(row["area"], []).append(row)
    spread = {a: ps for a, ps in by_area.items() if len({p["date"] for p in ps}) >= 2}
    assert spread, "some area must span two days"
    done = {
        f"tag:papers-digest,{r['date']}:{r['arxiv_id']}" for r in rows(db, "select * from papers where status = 'done'")
    }
    for slug, papers in spread.items():
        html = page(out / "topics" / f"{slug}.html")
        links = [a.get("href") for a in html.cssselect("ol.papers h2 a")]
        dates = [h.split("/")[1] for h in links]
        assert dates == sorted(dates, reverse=True)
        assert sorted(links) == sorted(
            f"../{p['date']}/{p['arxiv_id']}.html" if p["picked"] else f"../{p['date']}/index.html#p-{p['arxiv_id']}"
            for p in papers
        )
        for link in links:
            target, _, anchor = link.partition("#")
            assert (out / "topics" / target).resolve().is_file()
            assert not anchor or page(out / "topics" / target).cssselect(f"li[id='{anchor}']")
        assert [a.get("href") for a in html.cssselect("main a.feed")] == [
            f"{slug}.xml"
        ]  # the feed, linked from its page
        assert html.cssselect(f"link[rel=alternate][href='{slug}.xml']")
        feed = ET.parse(out / "topics" / f"{slug}.xml").getroot()
        assert feed.findtext(f"{ATOM}title") == f"papers-digest: {area_of(slug).en} · {area_of(slug).zh}"
        ids = {e.findtext(f"{ATOM}id") for e in feed.iter(f"{ATOM}entry")}
        assert ids == {f"tag:papers-digest,{p['date']}:{p['arxiv_id']}" for p in papers} & done
    index = page(out / "topics" / "index.html")
    counted = {a.get("href").removesuffix(".html"): int(a.getnext().text_content()) for a in index.cssselect("a.area")}
    assert counted == {a: len(ps) for a, ps in by_area.items()}  # every area with a paper, not one of 57
    assert list(counted.values()) == sorted(counted.values(), reverse=True)
    assert set(counted) <= {a.slug for a in all_areas()}


def test_area_chips_on_day_and_paper_pages_link_to_their_area_pages(archive):
    db, out = archive
    for row in rows(db, "select arxiv_id, date, areas from papers"):
        expected = [f"../topics/{a}.html" for a in json.loads(row["areas"])]
        for html in (page(out / row["date"] / f"{row['arxiv_id']}.html"), page(out / row["date"] / "index.html")):
            scope = html.xpath(f'//li[@id="p-{row["arxiv_id"]}"]') or [html]
            assert [a.get("href") for a in scope[0].cssselect("p.topics a.area")] == expected
            assert all((out / row["date"] / h).resolve().is_file() for h in expected)
    shown = [len(li.cssselect("a.area")) for d in DATES for li in page(out / d / "index.html").cssselect("li.paper")]
    assert max(shown) == MAX_AREAS  # never more chips than that


# ---------------------------------------------------------------- days, weeks, months


def test_previous_and_next_links_walk_the_days_in_order(archive):
    _, out = archive
    dates = DATES
    walked, date = [], dates[0]
    while date:
        walked.append(date)
        nav = page(out / date / "index.html").cssselect("nav.days-nav a[rel=next]")
        date = nav[0].get("href").split("/")[1] if nav else None
    assert walked == dates
    back, date = [], dates[-1]
    while date:
        back.append(date)
        nav = page(out / date / "index.html").cssselect("nav.days-nav a[rel=prev]")
        date = nav[0].get("href").split("/")[1] if nav else None
    assert back == dates[::-1]


def test_week_and_month_pages_list_the_top_papers_by_upvotes(archive):
    db, out = archive
    dates = DATES
    for key, (start, end), folder in [
        *((k, week_range(k), "weeks") for k in {week_key(d) for d in dates}),
        *((k, month_range(k), "months") for k in {d[:7] for d in dates}),
    ]:
        top = rows(
            db,
            "select arxiv_id, date from papers where date between ? and ? order by upvotes desc, arxiv_id limit 10",
            [start, end],
        )
        html = page(out / folder / f"{key}.html")
        assert [a.get("href") for a in html.cssselect("ol.papers h2 a")] == [
            f"../{r['date']}/{r['arxiv_id']}.html" for r in top
        ]
        votes = [int(m.text_content().split()[1]) for m in html.cssselect("ol.papers p.meta")]
        assert votes == sorted(votes, reverse=True) and len(votes) == min(
            10, len(rows(db, "select 1 from papers where date between ? and ?", [start, end]))
        )
    for folder, keys in (("weeks", ["2026-W01", "2026-W02"]), ("months", ["2025-12", "2026-01"])):
        first, last = page(out / folder / f"{keys[0]}.html"), page(out / folder / f"{keys[1]}.html")
        assert [a.get("href") for a in first.cssselect("nav.periods-nav a")] == [f"{keys[1]}.html"]
        assert [a.get("href") for a in last.cssselect("nav.periods-nav a")] == [f"{keys[0]}.html"]
    day = page(out / dates[0] / "index.html")
    assert [a.get("href") for a in day.cssselect("nav.days-nav a.week, nav.days-nav a.month")] == [
        f"../weeks/{week_key(dates[0])}.html",
        f"../months/{dates[0][:7]}.html",
    ]
    calendar = page(out / "days.html")
    assert {a.get("href") for a in calendar.cssselect("nav.archive a")} >= {
        "topics/index.html",
        *(f"weeks/{week_key(d)}.html" for d in dates),
        *(f"months/{d[:7]}.html" for d in dates),
    }


def test_publishing_day_by_day_gives_the_site_a_full_render_gives(archive, tmp_path):
    db, out = archive
    fresh = tmp_path / "fresh"
    render_site(db, fresh)
    mine = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    full = {p.relative_to(fresh).as_posix(): p.read_bytes() for p in fresh.rglob("*") if p.is_file()}
    assert sorted(mine) == sorted(full)
    assert [rel for rel in full if mine[rel] != full[rel]] == []


def test_a_publish_renders_only_the_topics_and_periods_its_day_touches(archive, tmp_path):
    db, out = archive
    site = tmp_path / "site"
    render_site(db, site)
    before = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    date = DATES[2]
    files = day_files(date, RECORDED[2], failing=0)  # one more paper fails: its topic pages change
    write_day(db, files, run_record(files))
    render_day(db, site, date)
    after = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    listed = "select areas from papers where date = ? union all select areas from day_items where date = ?"
    areas = {a for r in rows(db, listed, [date, date]) for a in json.loads(r["areas"])}
    allowed = {f"topics/{a}.{ext}" for a in areas for ext in ("html", "xml")}
    allowed |= {
        "topics/index.html",
        f"weeks/{week_key(date)}.html",
        f"months/{date[:7]}.html",
        "index.html",
        "days.html",
        "feed.xml",
        "feed.zh.xml",
        "status.html",
    }
    # the day itself, the search index (#29's other part), and the days whose pages list one of its papers as related
    relating = days_relating(
        db, [r["arxiv_id"] for r in rows(db, "select arxiv_id from papers where date = ?", [date])]
    )
    others = {rel for rel in changed if not rel.startswith((date, "pagefind/", *relating))}
    assert others <= allowed
    assert any(rel.startswith("topics/") and rel != "topics/index.html" for rel in changed)  # its areas' pages
    files = day_files(date, RECORDED[2])  # as it was, for the other tests
    write_day(db, files, run_record(files))
    render_day(db, out, date)


# ---------------------------------------------------------------- an older database


def test_a_database_of_the_previous_version_opens_and_upgrades(tmp_path):
    """A database from before the topic pages (#29) and before every listed paper was kept (#39): it renders as
    it is, and the first publish into it adds the columns and files its papers under their areas."""
    db_path = tmp_path / "old.db"
    old = sqlite_utils.Database(db_path)
    old["papers"].create({c: PAPER_COLUMNS[c] for c in HEAD_PAPER_COLUMNS}, pk="arxiv_id")
    old["day_items"].create(HEAD_DAY_ITEMS, pk=("date", "arxiv_id"))
    title = "Diffusion models for speech synthesis"
    old["papers"].insert({"arxiv_id": "2401.00001", "date": "2025-12-28", "title": title, "status": "failed"})
    listed = {"date": "2025-12-28", "title": "Another old paper", "upvotes": 3, "picked": False}
    old["day_items"].insert_all(
        [{"arxiv_id": "2401.00001", "rank": 1, "picked": True} | listed, listed | {"arxiv_id": "2401.00002", "rank": 2}]
    )
    out = tmp_path / "site"
    render_site(db_path, out)  # not upgraded yet: renders without areas, every listed paper shown
    assert (out / "2025-12-28" / "index.html").is_file() and (out / "topics" / "index.html").is_file()
    assert [li.get("id") for li in page(out / "2025-12-28" / "index.html").cssselect("li.paper")] == [
        "p-2401.00001", "p-2401.00002"
    ]  # fmt: skip
    publish(db_path, out, DATES[0], RECORDED[0])
    db = sqlite_utils.Database(db_path)
    assert set(PAPER_COLUMNS) <= set(db["papers"].columns_dict)
    assert set(DAY_ITEM_COLUMNS) <= set(db["day_items"].columns_dict)
    assert rows(db_path, "select areas from papers where arxiv_id = '2401.00001'") == [
        {"areas": json.dumps(paper_areas(title))}
    ]
    assert set(json.loads(rows(db_path, "select areas from papers where arxiv_id = '2401.00001'")[0]["areas"])) == {
        "speech-and-audio", "diffusion-model"
    }  # fmt: skip
    assert rows(db_path, "select count(*) as n from day_items where areas is null") == [{"n": 0}]
    nav = page(out / DATES[0] / "index.html").cssselect("nav.days-nav a[rel=prev]")
    assert [a.get("href") for a in nav] == ["../2025-12-28/index.html"]
    assert page(out / "2025-12-28" / "index.html").cssselect("nav.days-nav a[rel=next]")[0].get("href") == (
        f"../{DATES[0]}/index.html"
    )


def test_site_nav_finds_neighbours_even_of_a_day_not_shown():
    nav = SiteNav.of(["2026-01-02", "2025-12-30", "2026-01-05"])
    assert (nav.prev("2026-01-02"), nav.next("2026-01-02")) == ("2025-12-30", "2026-01-05")
    assert (nav.prev("2026-01-01"), nav.next("2026-01-01")) == ("2025-12-30", "2026-01-02")
    assert (nav.prev("2025-12-30"), nav.next("2026-01-05")) == (None, None)
    assert [w.key for w in nav.weeks()] == ["2026-W02", "2026-W01"]
    assert [m.path for m in nav.months()] == ["months/2026-01.html", "months/2025-12.html"]
    w1, w2 = nav.weeks()[::-1]
    assert nav.beside(w1) == (None, w2) and nav.beside(w2) == (w1, None)
    assert nav.beside(Period("week", "2026-W00")) == (None, w1)  # a week not shown: its neighbours all the same
    assert week_range("2026-W01") == ("2025-12-29", "2026-01-04")
    assert month_range("2024-02") == ("2024-02-01", "2024-02-29")


def test_recorded_days_are_what_the_fixture_expects():
    assert len(RECORDED) == 5 and all(hf_day(d) for d in RECORDED)


def test_the_retry_queue_keeps_what_the_listing_gave(tmp_path):
    db = tmp_path / "papers.db"
    files = day_files(DATES[-1], RECORDED[-1])  # 2026: keywords, code, stars, organisations
    write_day(db, files, run_record(files))
    failed = {r["arxiv_id"] for r in rows(db, "select arxiv_id from papers where status = 'failed'")}
    queued = failed_recently(db, "2026-01-06", days=3)
    assert {p.arxiv_id for p, _ in queued} == failed
    listed = {p.arxiv_id: p for p in files.day.papers}
    for paper, first in queued:
        assert first == DATES[-1]
        assert paper == listed[paper.arxiv_id]  # arXiv's date too: the citation's (site/cite.py)


def test_a_day_gone_from_the_database_leaves_its_neighbours_linked_and_its_areas_recounted(tmp_path):
    db, out = tmp_path / "papers.db", tmp_path / "site"
    for date, recorded in list(PUBLISHED.items())[:3]:
        publish(db, out, date, recorded)
    gone = DATES[1]
    only_there = {
        r["area"]
        for r in rows(
            db, f"select area from ({SHOWN}) group by area having min(date) = ? and max(date) = ?", [gone, gone]
        )
    }
    assert only_there
    with sqlite3.connect(db) as conn:
        for table in ("papers", "digests", "day_items", "runs", "llm_calls"):
            conn.execute(f"delete from {table} where date = ?", [gone])
    render_day(db, out, gone)
    assert not (out / gone).exists()
    assert page(out / DATES[0] / "index.html").cssselect("a[rel=next]")[0].get("href") == f"../{DATES[2]}/index.html"
    assert page(out / DATES[2] / "index.html").cssselect("a[rel=prev]")[0].get("href") == f"../{DATES[0]}/index.html"
    assert not any((out / "topics" / f"{a}.html").exists() for a in only_there)
    assert not rows(
        db, f"select 1 from ({SHOWN}) where area in (select value from json_each(?))", [json.dumps(sorted(only_there))]
    )
    fresh = tmp_path / "fresh"
    render_site(db, fresh)
    mine = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {p for p in mine if not p.startswith("pagefind/")} == {
        p.relative_to(fresh).as_posix()
        for p in fresh.rglob("*")
        if p.is_file() and not p.relative_to(fresh).as_posix().startswith("pagefind/")
    }


def test_what_the_listing_wrote_is_shown_as_text(tmp_path):
    hostile = '"><img src=x onerror=alert(1)>'
    files = day_files(DATES[0], RECORDED[-1])
    first = files.day.papers[0].model_copy(
        update={
            "ai_keywords": [f"<script>alert(1)</script>{hostile}", "RL"],
            "github_repo": f"https://github.com/a/b{hostile}",
            "project_page": "javascript:alert(1)",
            "thumbnail": "javascript:alert(1)",
            "organization": Organization(name=f"org{hostile}", fullname=f"Org {hostile}"),
        }
    )
    files.day = files.day.model_copy(update={"papers": [first, *files.day.papers[1:]]})
    db, out = tmp_path / "papers.db", tmp_path / "site"
    write_day(db, files, run_record(files))
    render_site(db, out)
    for path in (out / DATES[0] / f"{first.arxiv_id}.html", out / DATES[0] / "index.html"):
        html = page(path)
        assert not html.xpath("//script[not(@src)]") and not html.xpath("//a[starts-with(@href, 'javascript')]")
        assert all(i.get("src").startswith("https://cdn-thumbnails.huggingface.co/") for i in html.xpath("//img"))
        assert not html.xpath(f'//*[@id="p-{first.arxiv_id}"]//img | //article//img')  # its thumbnail was no address
        assert f"Org {hostile}" in [a.text_content() for a in html.cssselect("a.org")]
        assert [
            a.get("href")
            for a in html.xpath(f'//*[@id="p-{first.arxiv_id}"]//a[@class="code"] | //article//a[@class="code"]')
        ] == [f"https://github.com/a/b{hostile}"]
    keywords = page(out / DATES[0] / f"{first.arxiv_id}.html").cssselect("p.keywords span.words")
    assert [k.text_content() for k in keywords] == [", ".join(first.ai_keywords)]  # searchable text, not chips
    assert {p.stem for p in (out / "topics").glob("*.html")} <= {"index", *(a.slug for a in all_areas())}
