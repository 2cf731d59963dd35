"""Zotero and BibTeX (#47): each paper page's `citation_*` tags, and BibTeX and RIS for each paper, day and area,
parsed back with bibtexparser and rispy, on recorded Hugging Face days published as `publish` does."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import bibtexparser
import lxml.html
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors
from test_site_archive import PUBLISHED, archive  # noqa: F401 (a fixture)

from papers_digest.site.render import render_day

DAY = list(PUBLISHED)[-1]  # 2026-01-05: the recorded 2026-01-13 listing, with arXiv's dates and many authors
LATEX_TITLE = r"$\alpha$-Routing \& 10% of LLMs with $x_{t}^{2}$, under_score & 8 \times A100 for R\'enyi"
LATEX_TITLE_TEXT = "α-Routing & 10% of LLMs with x_t^2, under_score & 8 × A100 for Rényi"


@pytest.fixture(scope="module")
def site(archive: tuple[Path, Path]) -> tuple[Path, Path]:  # noqa: F811 (the fixture imported above)
    """The recorded days published one by one (test_site_archive.py's archive, this module's own copy)."""
    return archive


def rows(db: Path, sql: str, params: list | tuple = ()) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql, params)]


def bib(path: Path) -> bibtexparser.Library:
    middleware = [LatexDecodingMiddleware(), SeparateCoAuthors()]
    return bibtexparser.parse_string(path.read_text(encoding="utf-8"), append_middleware=middleware)


def done_paper(db: Path) -> dict:
    return rows(db, "select * from papers where date = ? and status = 'done' order by upvotes desc limit 1", [DAY])[0]


def test_a_paper_page_carries_the_tags_zoteros_embedded_metadata_translator_reads(site):
    db, out = site
    row = done_paper(db)
    page = lxml.html.fromstring((out / DAY / f"{row['arxiv_id']}.html").read_bytes())
    tags = [(m.get("name"), m.get("content")) for m in page.cssselect("head meta[name^=citation_]")]

    authors = json.loads(row["authors"])
    assert len(authors) > 1
    assert tags == [
        ("citation_title", row["title"]),
        *(("citation_author", a) for a in authors),
        ("citation_publication_date", row["published_at"][:10].replace("-", "/")),
        ("citation_arxiv_id", row["arxiv_id"]),
        ("citation_pdf_url", f"https://arxiv.org/pdf/{row['arxiv_id']}"),
        ("citation_abstract_html_url", f"https://arxiv.org/abs/{row['arxiv_id']}"),
    ]


def test_each_papers_bibtex_parses_back_as_an_arxiv_misc_entry(site):
    db, out = site
    row = done_paper(db)
    library = bib(out / DAY / f"{row['arxiv_id']}.bib")
    assert library.failed_blocks == []
    (entry,) = library.entries
    fields = {f.key: f.value for f in entry.fields}
    assert (entry.entry_type, entry.key) == ("misc", f"arXiv:{row['arxiv_id']}")

    assert fields == {
        "title": row["title"],
        "author": json.loads(row["authors"]),
        "year": row["published_at"][:4],
        "eprint": row["arxiv_id"],
        "archivePrefix": "arXiv",
        "url": f"https://arxiv.org/abs/{row['arxiv_id']}",
    }  # no primaryClass: the listing does not say it


def test_a_title_with_latex_and_special_characters_survives_bibtex_ris_and_the_tags(site, tmp_path):
    db, out = site
    arxiv_id, before = done_paper(db)["arxiv_id"], done_paper(db)["title"]
    with sqlite3.connect(db) as conn:
        conn.execute("update papers set title = ? where arxiv_id = ?", [LATEX_TITLE, arxiv_id])
    try:
        render_day(db, out, DAY)
        raw = bibtexparser.parse_string((out / DAY / f"{arxiv_id}.bib").read_text(encoding="utf-8"))
        decoded = bib(out / DAY / f"{arxiv_id}.bib")
        (record,) = rispy.loads((out / DAY / f"{arxiv_id}.ris").read_text(encoding="utf-8"))
        page = lxml.html.fromstring((out / DAY / f"{arxiv_id}.html").read_bytes())
    finally:
        with sqlite3.connect(db) as conn:
            conn.execute("update papers set title = ? where arxiv_id = ?", [before, arxiv_id])
        render_day(db, out, DAY)
    title = raw.entries[0].fields_dict["title"].value
    # LaTeX's formulas kept (a bare macro in math mode), its escapes and accents kept, the rest escaped
    assert title == (
        r"$\alpha$-Routing \& 10\% of {LLMs} with $x_{t}^{2}$, under\_score \& 8 $\times$ A100 for R\'enyi"
    )
    assert raw.failed_blocks == [] and "Rényi" in decoded.entries[0].fields_dict["title"].value
    assert record["title"] == LATEX_TITLE_TEXT
    assert page.cssselect("meta[name=citation_title]")[0].get("content") == LATEX_TITLE_TEXT


def test_each_paper_has_an_ris_record_a_reference_manager_imports(site):
    db, out = site
    row = done_paper(db)
    (record,) = rispy.loads((out / DAY / f"{row['arxiv_id']}.ris").read_text(encoding="utf-8"))

    assert {k: record[k] for k in ("type_of_reference", "title", "authors", "year", "urls", "file_attachments1")} == {
        "type_of_reference": "UNPB",
        "title": row["title"],
        "authors": json.loads(row["authors"]),
        "year": row["published_at"][:4],
        "urls": [f"https://arxiv.org/abs/{row['arxiv_id']}"],
        "file_attachments1": f"https://arxiv.org/pdf/{row['arxiv_id']}",
    }


def test_a_days_files_cite_every_paper_its_page_lists_once(site):
    db, out = site
    listed = [r["arxiv_id"] for r in rows(db, "select arxiv_id from day_items where date = ? order by rank", [DAY])]
    library = bib(out / DAY / "citations.bib")
    records = rispy.loads((out / DAY / "citations.ris").read_text(encoding="utf-8"))
    assert [e.fields_dict["eprint"].value for e in library.entries] == listed
    assert [r["id"] for r in records] == [f"arXiv:{i}" for i in listed]


def test_an_areas_files_cite_the_papers_its_page_lists(site):
    _, out = site
    area = out / "topics" / "benchmark.html"
    page = lxml.html.fromstring(area.read_bytes())
    hrefs = [a.get("href") for a in page.cssselect("ol.papers h2 a")]
    shown = [h.split("#p-")[1] if "#p-" in h else h.rsplit("/", 1)[1].removesuffix(".html") for h in hrefs]
    library = bib(out / "topics" / "benchmark.bib")
    assert [e.fields_dict["eprint"].value for e in library.entries] == shown and shown


@pytest.mark.parametrize("page", ["{day}/{paper}.html", "{day}/index.html", "topics/benchmark.html"])
def test_the_pages_link_their_bibtex_and_ris_files(site, page):
    db, out = site
    path = out / page.format(day=DAY, paper=done_paper(db)["arxiv_id"])
    links = [a.get("href") for a in lxml.html.fromstring(path.read_bytes()).cssselect("p.cite a")]
    assert [link.rsplit(".", 1)[1] for link in links] == ["bib", "ris"]
    assert all((path.parent / link).is_file() for link in links)
