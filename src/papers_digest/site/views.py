"""The site's pages as plain data: database rows -> days, papers and digests as readers see them (pure)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from papers_digest.core.artefacts import ArtefactError
from papers_digest.core.models import ARXIV_ID_RE, Digest, MindMapNode
from papers_digest.day.status import empty_day_reason
from papers_digest.site.archive import PaperLinks, paper_links
from papers_digest.site.trust import Trust, trust_view

ARXIV = "https://arxiv.org"
HTML_SOURCES = ("html", "trimmed")  # the model saw arXiv's HTML, so section anchors exist there
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
OUTSIDE = "*"  # Evidence.section of text LaTeXML placed outside every section (checker/paper.py OUTSIDE)


class SiteError(ArtefactError):
    """The database cannot be rendered (missing, or a row that would make an unsafe file name)."""


Linker = Callable[[str], "SectionLink"]  # a section tag of the paper -> its link


@dataclass(frozen=True)
class SectionLink:
    """A section a result cites, linked to its place in the arXiv HTML (or the abstract page)."""

    tag: str
    title: str
    url: str


@dataclass(frozen=True)
class Source:
    """What the model saw: the full text, the full text trimmed (with the dropped sections), or the abstract."""

    kind: str  # html | trimmed | abstract | unknown
    label: str
    reason: str | None = None
    dropped: tuple[SectionLink, ...] = ()


@dataclass(frozen=True)
class EvidenceView:
    """Where one of a result's numbers stands: the sentence of the paper (untrusted text) and its section."""

    number: str
    sentence: str
    section: SectionLink  # tag OUTSIDE: text outside every section, linked to the paper's page


@dataclass(frozen=True)
class ResultView:
    finding: str
    numbers: tuple[str, ...]
    sections: tuple[SectionLink, ...]
    evidence: tuple[EvidenceView, ...] = ()  # English results only, when the database holds it


@dataclass(frozen=True)
class MindMap:
    label: str
    children: tuple[MindMap, ...] = ()


@dataclass(frozen=True)
class DigestView:
    """One language of a digest, as shown; `lang` is the HTML language tag (`en`, `zh-Hans`)."""

    lang: str
    one_sentence: str
    problem: str
    method: str
    results: tuple[ResultView, ...]
    limitations: tuple[str, ...]
    takeaways: tuple[str, ...]
    mind_map: MindMap
    model: str | None
    prompt_version: str | None


@dataclass(frozen=True)
class PaperView:
    """A paper of a day. `en`/`zh` are set only for a done paper: a failed one never shows a summary."""

    arxiv_id: str
    date: str
    title: str
    authors: tuple[str, ...]
    upvotes: int
    rank: int
    status: str  # done | failed
    error: str | None
    abstract: str
    model: str | None
    prompt_version: str | None
    generated_at: str | None  # ISO-8601 UTC, when the English digest was generated
    version: int | None  # the arXiv version digested
    source: Source
    abs_url: str
    html_url: str | None
    en: DigestView | None = None
    zh: DigestView | None = None
    trust: Trust | None = None  # engine, tokens, answers and the checker's verdict (site/trust.py)
    links: PaperLinks | None = None  # arXiv, HF, code, project page, organisation, topics (site/archive.py)

    @property
    def done(self) -> bool:
        return self.en is not None and self.zh is not None

    @property
    def path(self) -> str:
        """The page's path inside the site folder."""
        return f"{self.date}/{self.arxiv_id}.html"

    def result_pairs(self) -> list[tuple[ResultView | None, ResultView | None]]:
        """English and Chinese results side by side (the checker keeps their counts equal)."""
        if self.en is None or self.zh is None:
            return []
        return list(zip_longest(self.en.results, self.zh.results))


@dataclass(frozen=True)
class DayView:
    date: str
    papers: tuple[PaperView, ...]  # ranked by upvotes, ties to the lower arXiv id
    listed: int  # papers Hugging Face listed that day (0 when unknown)

    @property
    def path(self) -> str:
        return f"{self.date}/index.html"

    @property
    def done(self) -> int:
        return sum(p.done for p in self.papers)

    @property
    def failed(self) -> int:
        return len(self.papers) - self.done

    @property
    def empty_reason(self) -> str:
        """Why no paper was picked, when none was (the status page says the same)."""
        return empty_day_reason(self.listed)


@dataclass(frozen=True)
class TopPaper:
    """The paper a day's index entry names: the day's first by upvotes."""

    arxiv_id: str
    title: str


@dataclass(frozen=True)
class DaySummary:
    """A day as the index lists it: its counts and its top paper, not the papers themselves."""

    date: str
    count: int  # papers picked
    done: int
    listed: int  # papers Hugging Face listed that day (0 when unknown)
    top: TopPaper | None = None

    @property
    def path(self) -> str:
        return f"{self.date}/index.html"

    @property
    def failed(self) -> int:
        return self.count - self.done

    @property
    def papers(self) -> tuple[TopPaper, ...]:
        """What index.html reads of a day's papers: the first one (`day.papers[0].title`)."""
        return (self.top,) if self.top else ()


def build_index(rows: Iterable[Mapping[str, Any]]) -> list[DaySummary]:
    """Aggregate rows (db/queries.py site_days) -> the index's days, newest first (pure)."""
    days = []
    for row in rows:
        date = row["date"]
        if not DATE_RE.match(date or ""):
            raise SiteError(f"papers.db: not a date (YYYY-MM-DD): {date!r}")
        top_id = row.get("top_id")
        top = TopPaper(arxiv_id=top_id, title=row.get("top_title") or top_id) if top_id else None
        days.append(
            DaySummary(
                date=date,
                count=row.get("papers") or 0,
                done=row.get("done") or 0,
                listed=row.get("listed") or 0,
                top=top,
            )
        )
    return sorted(days, key=lambda d: d.date, reverse=True)


def build_days(
    papers: Iterable[Mapping[str, Any]],
    digests: Iterable[Mapping[str, Any]],
    listed: Mapping[str, int] | None = None,
    run_dates: Iterable[str] = (),
    calls: Iterable[Mapping[str, Any]] = (),
    engines: Mapping[str, str | None] | None = None,
) -> list[DayView]:
    """Database rows -> days, newest first, each with its papers ranked by upvotes (pure); with `calls`
    (llm_calls rows) and `engines` (runs.engine_kind by date), each paper carries its Trust."""
    listed, engines = listed or {}, engines or {}
    by_paper: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in digests:
        by_paper.setdefault(row["arxiv_id"], {})[row["lang"]] = row
    calls_of: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for call in calls:
        calls_of.setdefault((call["date"], call["arxiv_id"]), []).append(call)
    by_date: dict[str, list[Mapping[str, Any]]] = {d: [] for d in run_dates}
    for row in papers:
        by_date.setdefault(row["date"], []).append(row)
    days = []
    for date in sorted(by_date, reverse=True):
        if not DATE_RE.match(date):
            raise SiteError(f"papers.db: not a date (YYYY-MM-DD): {date!r}")
        ranked = sorted(by_date[date], key=lambda r: (-(r.get("upvotes") or 0), r["arxiv_id"]))
        views = tuple(
            paper_view(
                r,
                by_paper.get(r["arxiv_id"], {}),
                rank,
                trust_view(calls_of.get((date, r["arxiv_id"]), ()), engines.get(date)),
            )
            for rank, r in enumerate(ranked, 1)
        )
        days.append(DayView(date=date, papers=views, listed=listed.get(date, 0)))
    return days


def paper_view(
    row: Mapping[str, Any], digests: Mapping[str, Mapping[str, Any]], rank: int = 1, trust: Trust | None = None
) -> PaperView:
    """One `papers` row and its `digests` rows (by lang) -> the paper as shown (pure)."""
    arxiv_id = row["arxiv_id"]
    if not ARXIV_ID_RE.match(arxiv_id or ""):
        raise SiteError(f"papers.db: not an arXiv id: {arxiv_id!r}")
    version = row.get("version")
    source_kind = row.get("fulltext_source")
    sections = {s["tag"]: s for s in _json_list(row.get("sections")) if isinstance(s, dict) and "tag" in s}

    def link(tag: str) -> SectionLink:
        if tag == OUTSIDE:
            page = section_url(arxiv_id, version, source_kind, None)
            return SectionLink(tag=OUTSIDE, title="outside every section", url=page)
        section = sections.get(tag, {})
        url = section_url(arxiv_id, version, source_kind, section.get("anchor"))
        return SectionLink(tag=tag, title=section.get("title") or "", url=url)

    status, error = row.get("status") or "failed", row.get("error")
    views: dict[str, DigestView] = {}
    if status == "done":
        for lang in ("en", "zh"):
            if lang not in digests:
                status, error = "failed", f"the {lang} digest is missing from the database"
                break
            try:
                views[lang] = digest_view(digests[lang], link)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "(top level)"
                status, error = "failed", f"the stored {lang} digest is not a valid digest: {where}: {first['msg']}"
                break
    if status != "done":
        views = {}
    return PaperView(
        arxiv_id=arxiv_id,
        date=row["date"],
        title=row.get("title") or arxiv_id,
        authors=tuple(str(a) for a in _json_list(row.get("authors"))),
        upvotes=row.get("upvotes") or 0,
        rank=rank,
        status=status,
        error=error,
        abstract=row.get("summary") or "",
        model=row.get("model"),
        prompt_version=row.get("prompt_version"),
        generated_at=row.get("generated_at"),
        version=version,
        source=source_view(
            source_kind, row.get("fulltext_reason"), _json_list(row.get("fulltext_dropped")), link, version
        ),
        abs_url=f"{ARXIV}/abs/{arxiv_id}",
        html_url=section_url(arxiv_id, version, source_kind, None) if source_kind in HTML_SOURCES else None,
        en=views.get("en"),
        zh=views.get("zh"),
        trust=trust,
        links=paper_links(row),
    )


def section_url(arxiv_id: str, version: int | None, source: str | None, anchor: str | None) -> str:
    """Where a cited section is: `https://arxiv.org/html/<id>v<version>#<anchor>`; the abstract page when
    the model saw only the abstract (arXiv has no HTML of the paper)."""
    if source not in HTML_SOURCES:
        return f"{ARXIV}/abs/{arxiv_id}"
    page = f"{ARXIV}/html/{arxiv_id}" + (f"v{version}" if version else "")
    return f"{page}#{quote(anchor, safe='.-_')}" if anchor else page


def source_view(
    kind: str | None,
    reason: str | None = None,
    dropped: Iterable[Any] = (),
    link: Linker | None = None,
    version: int | None = None,
) -> Source:
    """`papers.fulltext_source` (+ reason, + dropped section tags) -> what the model saw, in words."""
    html = "arXiv HTML" + (f" v{version}" if version else "")
    if kind == "html":
        return Source(kind="html", label=f"Full text ({html})")
    if kind == "trimmed":
        tags = [str(d["tag"]) if isinstance(d, dict) else str(d) for d in dropped]
        links = tuple(link(t) if link else SectionLink(tag=t, title="", url="") for t in tags)
        label = f"Full text ({html}), trimmed to fit the model's context"
        return Source(kind="trimmed", label=label, reason=reason, dropped=links)
    if kind == "abstract":
        return Source(kind="abstract", label="Abstract only", reason=reason)
    return Source(kind="unknown", label="Not recorded", reason=reason)


def digest_view(row: Mapping[str, Any], link: Linker) -> DigestView:
    """A `digests` row -> one language of the digest; raises ValidationError when it is not a digest."""
    digest = Digest.model_validate_json(row["digest"])
    evidence = evidence_views(row.get("evidence"), link)
    return DigestView(
        lang=HTML_LANG.get(row["lang"], row["lang"]),
        one_sentence=digest.one_sentence,
        problem=digest.problem,
        method=digest.method,
        results=tuple(
            ResultView(
                finding=r.finding,
                numbers=tuple(r.numbers),
                sections=tuple(link(t) for t in r.sections),
                evidence=evidence[i] if i < len(evidence) else (),
            )
            for i, r in enumerate(digest.results)
        ),
        limitations=tuple(digest.limitations),
        takeaways=tuple(digest.takeaways),
        mind_map=_mind_map(digest.mind_map),
        model=row.get("model"),
        prompt_version=row.get("prompt_version"),
    )


def evidence_views(text: str | None, link: Linker) -> list[tuple[EvidenceView, ...]]:
    """A `digests.evidence` value (JSON, one list per result) -> each result's evidence; [] when absent (a
    Chinese row, a row of an older database). Entries that are not {number, section, sentence} strings
    are left out rather than failing the page: the evidence is a reader's aid, the digest is the content."""
    views = []
    for found in _json_list(text):
        entries = found if isinstance(found, list) else []
        views.append(
            tuple(
                EvidenceView(number=e["number"], sentence=e["sentence"], section=link(e["section"]))
                for e in entries
                if isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("number", "section", "sentence"))
            )
        )
    return views


def _mind_map(node: MindMapNode) -> MindMap:
    return MindMap(label=node.label, children=tuple(_mind_map(c) for c in node.children))


def _json_list(text: str | None) -> list[Any]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return []
    return value if isinstance(value, list) else []
