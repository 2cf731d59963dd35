"""Related papers (#47): each paper page lists up to 5 done papers of the whole archive whose digests are nearest to
its own, in both languages; computed when its day is published, on recorded Hugging Face days."""

from __future__ import annotations

import gc
import sqlite3
from contextlib import closing
from pathlib import Path

import lxml.html
import pytest
from conftest import copy_db
from test_site_archive import PUBLISHED, archive, day_files  # noqa: F401 (archive: a fixture)

from papers_digest.core.models import CallRecord, DayList, GenerationResult, Paper
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.site.render import render_day, render_site

NEW_DAY = "2026-01-06"  # after the recorded days
SEQUEL = Paper(arxiv_id="2601.09999", title="PaCoRe 2: parallel coordinated reasoning at test time", upvotes=9)
# PaCoRe: Learning to Scale Test-Time Compute with Parallel Coordinated Reasoning (the recorded 2026-01-13 listing)
ORIGINAL = "2601.05593"


@pytest.fixture(scope="module")
def site(archive: tuple[Path, Path]) -> tuple[Path, Path]:  # noqa: F811 (the fixture imported above)
    """The recorded days published one by one (test_site_archive.py's archive), then a day with a sequel of one."""
    db, out = archive
    files = one_paper_day(NEW_DAY, SEQUEL)
    write_day(db, files, run_record(files))
    render_day(db, out, NEW_DAY)
    return db, out


def one_paper_day(date: str, paper: Paper) -> DayFiles:
    """A day that picked one paper and digested it, its digest in the words of its title."""
    digest = {
        "one_sentence": f"It extends {paper.title}.",
        "problem": "Scaling test-time compute.",
        "method": "A benchmark.",
        "results": [{"finding": "It works.", "numbers": [], "sections": ["Abstract"]}],
        "limitations": ["l"],
        "takeaways": ["t"],
        "mind_map": {"label": "root", "children": []},
    }
    results = {}
    for stage in ("digest_en", "translate_zh"):
        call = CallRecord(
            date=date, arxiv_id=paper.arxiv_id, stage=stage, attempt=1, status="ok",
            started_at=1.0e9, ended_at=1.0e9 + 1, latency_s=1.0,
        )  # fmt: skip
        results[stage] = {
            paper.arxiv_id: GenerationResult(
                arxiv_id=paper.arxiv_id,
                stage=stage,
                status="done",
                digest=digest,
                model="sim",
                prompt_version="test",
                calls=[call],
            )
        }
    day = DayList(date=date, limit=1, papers=[paper], picked=[paper.arxiv_id])
    return DayFiles(day=day, fulltext={}, english=results["digest_en"], chinese=results["translate_zh"])


def related_links(page: Path) -> list[str]:
    return [a.get("href") for a in lxml.html.fromstring(page.read_bytes()).cssselect("section.related h3 a")]


def test_a_new_papers_nearest_paper_in_the_archive_comes_first(site):
    _, out = site
    assert related_links(out / NEW_DAY / f"{SEQUEL.arxiv_id}.html")[0] == f"../2026-01-05/{ORIGINAL}.html"


def test_related_papers_are_at_most_five_other_done_papers_each_with_its_page(site):
    _, out = site
    for page in (out / "2026-01-05").glob("*.html"):
        if page.stem == "index":
            continue
        links = related_links(page)
        assert len(links) <= 5 and f"{page.stem}.html" not in {link.rsplit("/", 1)[1] for link in links}
        assert all((page.parent / link).is_file() for link in links)
    failed = day_files("2026-01-05", PUBLISHED["2026-01-05"]).day.picked[1]  # the day's failed paper: no digest
    assert related_links(out / "2026-01-05" / f"{failed}.html") == []


def test_each_related_paper_shows_its_one_sentence_in_english_and_chinese(site):
    _, out = site
    page = lxml.html.fromstring((out / NEW_DAY / f"{SEQUEL.arxiv_id}.html").read_bytes())
    (first, *_) = page.cssselect("section.related li")
    sentences = {p.get("lang"): p.text_content() for p in first.cssselect("p.summary")}
    title = "PaCoRe: Learning to Scale Test-Time Compute with Parallel Coordinated Reasoning"
    assert sentences == {"en": f"EN: {title}", "zh-Hans": f"ZH: {title}"}


def test_an_earlier_paper_keeps_the_related_papers_found_when_its_day_was_written(site, tmp_path):
    db, out = site
    original = out / "2026-01-05" / f"{ORIGINAL}.html"
    sequel = f"../{NEW_DAY}/{SEQUEL.arxiv_id}.html"
    render_site(db, tmp_path / "rebuilt")
    rebuilt = tmp_path / "rebuilt" / "2026-01-05" / f"{ORIGINAL}.html"
    assert sequel not in related_links(original) and sequel not in related_links(rebuilt)
    again = tmp_path / "again.db"  # its day written again (a rerun), the archive as it is now
    copy_db(db, again)
    files = day_files("2026-01-05", PUBLISHED["2026-01-05"])
    write_day(again, files, run_record(files))
    render_day(again, tmp_path / "rebuilt", "2026-01-05")
    assert related_links(rebuilt)[0] == sequel


def test_a_database_from_before_related_papers_gets_its_terms_at_the_next_write(site, tmp_path):
    db, _ = site
    older = tmp_path / "papers.db"
    copy_db(db, older)
    with sqlite3.connect(older) as conn:
        done = conn.execute("select count(*) from papers where status = 'done'").fetchone()[0]
        conn.execute("delete from paper_terms")
    files = one_paper_day("2026-01-07", SEQUEL.model_copy(update={"arxiv_id": "2601.09998"}))
    write_day(older, files, run_record(files))
    with sqlite3.connect(older) as conn:
        indexed = conn.execute("select count(distinct arxiv_id) from paper_terms").fetchone()[0]
    assert indexed == done + 1


def test_the_page_reads_close_the_database_so_the_file_alone_holds_the_written_day(site, tmp_path):
    """Readers left open kept the write-ahead log beside papers.db, so a plain copy of the file (as the test above
    once took) missed the day last written; every read closes its connection, and the last close folds the log in."""
    db = tmp_path / "papers.db"
    copy_db(site[0], db)
    gc.disable()  # a connection left open stays open until the garbage collector happens to run (a cycle holds it)
    try:
        render_day(db, tmp_path / "site", "2026-01-05")
        files = one_paper_day("2026-01-08", SEQUEL.model_copy(update={"arxiv_id": "2601.09997"}))
        write_day(db, files, run_record(files))
        render_day(db, tmp_path / "site", "2026-01-08")
        assert not db.with_name("papers.db-wal").exists()
        (tmp_path / "plain.db").write_bytes(db.read_bytes())
    finally:
        gc.enable()
    with closing(sqlite3.connect(tmp_path / "plain.db")) as conn:
        assert conn.execute("select status from papers where arxiv_id = '2601.09997'").fetchone() == ("done",)
