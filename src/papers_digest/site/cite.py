"""A paper's citation: Zotero's `citation_*` meta tags, BibTeX and RIS, for a paper, a day and an area (pure).

Titles carry LaTeX (site/tex.py): BibTeX keeps a formula as written (`$\\alpha$`; a bare `\\times` put in math
mode) and escapes the rest (`&`, `%`, `_`, braces), with words in capitals braced so a style that lower-cases
titles keeps `LLM`; the meta tags and RIS, read as plain text, get the formula as Unicode (`α`), as the feeds do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from papers_digest.site.archive import ListedPaper
from papers_digest.site.tex import tex_pieces, tex_text
from papers_digest.site.views import ARXIV, PaperView

BIBTEX_FILE, RIS_FILE = "citations.bib", "citations.ris"  # a day's, in its folder; an area's are topics/<slug>.bib|ris
_BIBTEX_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip
_SPECIALS_RE = re.compile("|".join(re.escape(c) for c in _BIBTEX_SPECIALS))
# A word with a capital after its first letter (`LLMs`, `BabyVision`, `GPT`): braced, so BibTeX keeps its case.
_CASED_RE = re.compile(r"\b[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*?[A-Z][A-Za-z0-9]*\b")


@dataclass(frozen=True)
class Citation:
    """What a citation of an arXiv paper says: its id, title (with its LaTeX), authors and when arXiv published it."""

    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    published: str  # YYYY-MM-DD, or YYYY-MM from the arXiv id when the listing gave no date
    abstract: str = ""

    @property
    def year(self) -> str:
        return self.published[:4]

    @property
    def key(self) -> str:
        return f"arXiv:{self.arxiv_id}"

    @property
    def abs_url(self) -> str:
        return f"{ARXIV}/abs/{self.arxiv_id}"

    @property
    def pdf_url(self) -> str:
        return f"{ARXIV}/pdf/{self.arxiv_id}"


def citation(paper: PaperView | ListedPaper) -> Citation:
    """A paper as the site shows it -> its citation: arXiv's date where Hugging Face listed it, else the month of its
    arXiv id (`2504.00999`: April 2025)."""
    published = (paper.published_at or "")[:10]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", published):
        published = f"20{paper.arxiv_id[:2]}-{paper.arxiv_id[2:4]}"
    abstract = paper.abstract if isinstance(paper, PaperView) else ""
    return Citation(paper.arxiv_id, paper.title, tuple(paper.authors), published, abstract)


def meta_tags(cite: Citation) -> list[tuple[str, str]]:
    """The Highwire tags Zotero's embedded-metadata translator reads, in order: (name, content), as plain text."""
    return [
        ("citation_title", tex_text(cite.title)),
        *(("citation_author", author) for author in cite.authors),
        ("citation_publication_date", cite.published.replace("-", "/")),
        ("citation_arxiv_id", cite.arxiv_id),
        ("citation_pdf_url", cite.pdf_url),
        ("citation_abstract_html_url", cite.abs_url),
    ]


def bibtex(cites: Iterable[Citation]) -> str:
    """A BibTeX file of these papers, one `@misc` entry each, as arXiv's own: eprint, archivePrefix, url. Each
    paper once (the first), so no key repeats."""
    entries = []
    for cite in _once(cites):
        fields = [
            ("title", bibtex_title(cite.title)),
            ("author", " and ".join(_bibtex_name(a) for a in cite.authors)),
            ("year", cite.year),
            ("eprint", cite.arxiv_id),
            ("archivePrefix", "arXiv"),
            ("url", cite.abs_url),
        ]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
        entries.append(f"@misc{{{cite.key},\n{body}\n}}\n")
    return "\n".join(entries)


def ris(cites: Iterable[Citation]) -> str:
    """An RIS file of these papers, one unpublished work (`UNPB`) each, its text plain (LaTeX as Unicode)."""
    records = []
    for cite in _once(cites):
        lines = [("TY", "UNPB"), ("ID", cite.key), ("TI", tex_text(cite.title))]
        lines += [("AU", author) for author in cite.authors]
        lines += [("PY", cite.year), ("DA", cite.published.replace("-", "/")), ("PB", "arXiv"), ("AN", cite.key)]
        if cite.abstract:
            lines.append(("AB", " ".join(tex_text(cite.abstract).split())))
        lines += [("UR", cite.abs_url), ("L1", cite.pdf_url), ("ER", "")]
        records.append("".join(f"{tag}  - {value}".rstrip() + "\n" for tag, value in lines))
    return "\n".join(records)


def bibtex_title(title: str) -> str:
    """A title as BibTeX: its formulas kept as LaTeX in math mode (a formula whose braces do not balance is
    escaped as text instead), LaTeX's own escapes and accents kept, every other special character escaped."""
    out = []
    for kind, source in tex_pieces(" ".join(title.split())):
        if kind == "macro" and _balanced(source):  # a bare `\times`: LaTeX has it in math mode only
            out.append(f"${source}$")
        elif kind in ("formula", "escaped", "accent", "text macro") and _balanced(source):
            out.append(source)
        else:
            out.append(_CASED_RE.sub(lambda m: "{" + m.group(0) + "}", _escaped(source)))
    return "".join(out)


def _bibtex_name(name: str) -> str:
    name = _escaped(" ".join(name.split()))
    return f"{{{name}}}" if re.search(r"\band\b", name, re.IGNORECASE) else name  # "and" separates authors


def _escaped(text: str) -> str:
    return _SPECIALS_RE.sub(lambda m: _BIBTEX_SPECIALS[m.group(0)], text)


def _balanced(tex: str) -> bool:
    depth = 0
    for i, c in enumerate(tex):
        if c in "{}" and (i == 0 or tex[i - 1] != "\\"):
            depth += 1 if c == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def _once(cites: Iterable[Citation]) -> list[Citation]:
    seen: set[str] = set()
    return [c for c in cites if not (c.arxiv_id in seen or seen.add(c.arxiv_id))]
