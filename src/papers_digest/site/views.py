"""A paper as its pages show it, as plain data: database rows -> the paper, its digests and evidence (pure)."""

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
from papers_digest.site.archive import PaperLinks, paper_links
from papers_digest.site.trust import Trust

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
    """Where a result's numbers stand: a sentence of the paper (untrusted text), its section, and the numbers of
    the result found in it (a sentence that holds several of them is shown once)."""

    numbers: tuple[str, ...]
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
    title: str | None = None  # the translation's title of the paper, when it has one (a `title` key)


@dataclass(frozen=True)
class Reason:
    """Why a listed paper has no digest (yet), as the day page says it in both languages (templates/listing.html):

    - `not_picked`: the day's digests covered its `picked` most upvoted papers not digested before;
    - `digested_on` / `tried_on`: its digest, or its try that failed, is on the page of `date`;
    - for a picked paper that failed: `checks` (no answer passed the checker), `budget` (the day's token ceiling),
      `too_long` (longer than the model's context), `not_generated` (no model configured), `model` (the model
      or its endpoint failed), `other`."""

    kind: str
    date: str | None = None
    picked: int = 0


FAILURES = (  # a failed paper's `error` (day/files.py paper_outcome) -> the reason, first match wins
    ("failed the checks", "checks"),
    ("budget reached", "budget"),
    ("context_length", "too_long"),
    ("too long", "too_long"),
    ("not generated", "not_generated"),
    ("LLM call failed", "model"),
    ("endpoint", "model"),
)


def failure_reason(error: str | None) -> Reason:
    """A failed paper's error, as the operator reads it -> why the reader sees no digest."""
    for words, kind in FAILURES:
        if words in (error or ""):
            return Reason(kind)
    return Reason("other")


@dataclass(frozen=True)
class PaperView:
    """A paper of a day. `en`/`zh` are set only for a done paper: a failed one never shows a summary. A paper Hugging
    Face listed but the day did not digest (status `listed`) has no page; its `reason` says why, and `href` leads to
    where it is (its digest on another day, or its Hugging Face page)."""

    arxiv_id: str
    date: str
    title: str
    authors: tuple[str, ...] = ()
    upvotes: int = 0
    rank: int = 0
    status: str = "listed"  # done | failed | listed
    error: str | None = None
    abstract: str = ""
    model: str | None = None
    prompt_version: str | None = None
    generated_at: str | None = None  # ISO-8601 UTC, when the English digest was generated
    version: int | None = None  # the arXiv version digested
    source: Source | None = None
    abs_url: str = ""
    html_url: str | None = None
    en: DigestView | None = None
    zh: DigestView | None = None
    trust: Trust | None = None  # engine, tokens, answers and the checker's verdict (site/trust.py)
    links: PaperLinks | None = None  # arXiv, HF, code, project page, organisation, areas (site/archive.py)
    ai_summary: str | None = None  # Hugging Face's one-sentence summary
    reason: Reason | None = None  # why there is no digest: a failed or a listed paper
    href: str | None = None  # where a listed paper's title leads: a path from the site's root, or an address
    published_at: str | None = None  # when arXiv published it, as Hugging Face listed it (its citation's date)

    @property
    def done(self) -> bool:
        return self.en is not None and self.zh is not None

    @property
    def has_page(self) -> bool:
        return self.status != "listed"

    @property
    def path(self) -> str:
        """The page's path inside the site folder."""
        return f"{self.date}/{self.arxiv_id}.html"

    @property
    def target(self) -> str:
        """Where the paper's title leads: its page, or a listed paper's `href`; from the site's root, or absolute."""
        return self.path if self.has_page else (self.href or self.abs_url)

    @property
    def title_zh(self) -> str | None:
        return self.zh.title if self.zh else None

    def result_pairs(self) -> list[tuple[ResultView | None, ResultView | None]]:
        """English and Chinese results side by side (the checker keeps their counts equal)."""
        if self.en is None or self.zh is None:
            return []
        return list(zip_longest(self.en.results, self.zh.results))

    def repeats_summary(self, result: ResultView | None) -> bool:
        """Whether an English finding says the one sentence again, word for word: an abstract with one result
        sentence gives both (the summary is written from the main result), and the page then shows the finding's
        evidence under "as in one sentence, above" rather than the sentence a second time."""
        return result is not None and self.en is not None and _said(result.finding) == _said(self.en.one_sentence)

    def takeaways_shown(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The takeaways, English and Chinese, without one whose English says again the summary or a finding, word
        for word: the page shows it already. The offline model restated a finding as the takeaway for 3 of the
        2025-09-15 listing's 4 papers and for GlimpRouter, whose summary it also was (runs at de72281); the
        database keeps them all."""
        if self.en is None or self.zh is None:
            return (), ()
        said = {_said(self.en.one_sentence), *(_said(r.finding) for r in self.en.results)}
        kept = [(en, zh) for en, zh in zip(self.en.takeaways, self.zh.takeaways, strict=False) if _said(en) not in said]
        return tuple(en for en, _ in kept), tuple(zh for _, zh in kept)


def paper_view(
    row: Mapping[str, Any], digests: Mapping[str, Mapping[str, Any]], rank: int = 1, trust: Trust | None = None
) -> PaperView:
    """One `papers` row and its `digests` rows (by lang) -> the paper as shown (pure)."""
    arxiv_id = checked_id(row["arxiv_id"])
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
        **listed_fields(row, rank),
        status=status,
        error=error,
        model=row.get("model"),
        prompt_version=row.get("prompt_version"),
        generated_at=row.get("generated_at"),
        version=version,
        source=source_view(
            source_kind, row.get("fulltext_reason"), _json_list(row.get("fulltext_dropped")), link, version
        ),
        html_url=section_url(arxiv_id, version, source_kind, None) if source_kind in HTML_SOURCES else None,
        en=views.get("en"),
        zh=views.get("zh"),
        trust=trust,
        reason=None if status == "done" else failure_reason(error),
    )


def listed_fields(row: Mapping[str, Any], rank: int) -> dict[str, Any]:
    """What a `papers` or `day_items` row says of a paper as Hugging Face listed it: the fields of its PaperView."""
    arxiv_id = checked_id(row["arxiv_id"])
    return {
        "arxiv_id": arxiv_id,
        "date": row["date"],
        "title": row.get("title") or arxiv_id,
        "authors": tuple(str(a) for a in _json_list(row.get("authors"))),
        "upvotes": row.get("upvotes") or 0,
        "rank": rank,
        "abstract": row.get("summary") or "",
        "ai_summary": row.get("ai_summary") or None,
        "abs_url": f"{ARXIV}/abs/{arxiv_id}",
        "links": paper_links(row),
        "published_at": row.get("published_at") if isinstance(row.get("published_at"), str) else None,
    }


def checked_id(arxiv_id: Any) -> str:
    """An arXiv id from the database, checked: it becomes a file name."""
    if not isinstance(arxiv_id, str) or not ARXIV_ID_RE.match(arxiv_id):
        raise SiteError(f"papers.db: not an arXiv id: {arxiv_id!r}")
    return arxiv_id


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
    """A `digests` row -> one language of the digest; raises ValidationError when it is not a digest. A `title` key
    (the translation's title of the paper) is taken out before the digest is checked."""
    try:
        raw = json.loads(row["digest"])
    except (TypeError, json.JSONDecodeError):
        raw = None
    title = raw.pop("title", None) if isinstance(raw, dict) else None
    digest = Digest.model_validate_json(json.dumps(raw) if isinstance(raw, dict) else row["digest"] or "")
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
        title=" ".join(title.split()) if isinstance(title, str) and title.strip() else None,
    )


def evidence_views(text: str | None, link: Linker) -> list[tuple[EvidenceView, ...]]:
    """A `digests.evidence` value (JSON, one list per result) -> each result's evidence, one entry per sentence and
    section with the numbers found in it, in their first order; [] when absent (a Chinese row, a row of an older
    database). Entries that are not {number, section, sentence} strings are left out rather than failing the
    page: the evidence is a reader's aid, the digest is the content."""
    views = []
    for found in _json_list(text):
        numbers: dict[tuple[str, str], list[str]] = {}
        for e in found if isinstance(found, list) else []:
            if isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("number", "section", "sentence")):
                numbers.setdefault((e["sentence"], e["section"]), []).append(e["number"])
        views.append(
            tuple(
                EvidenceView(numbers=tuple(dict.fromkeys(n)), sentence=sentence, section=link(section))
                for (sentence, section), n in numbers.items()
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


def _said(text: str) -> str:
    """What a sentence says, for telling two alike: its words, in lower case, without punctuation."""
    return " ".join(re.findall(r"[\w%.]+(?<!\.)", text.casefold()))
