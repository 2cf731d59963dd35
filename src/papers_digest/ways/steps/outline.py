"""Which sentences of the paper each part of a digest asked in steps is written from, chosen by the program
(docs/checker.md, "Asked in steps"): the findings from result sentences only, the summary from the main result
(or the aim where the paper reports none), the problem from background and aim, the method from method
sentences, the limitations from the paper's own limitation or future-work sentences. The model only words them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.results import is_packaging
from papers_digest.checker.substance import REPEAT_SHARE, overlap
from papers_digest.core.markup import ABSTRACT, blocks_of
from papers_digest.core.models import FulltextDoc
from papers_digest.reading.outcomes import introduces_work, reports_finding, says_what_it_does
from papers_digest.reading.roles import (
    Role,
    SentenceRole,
    abstract_roles,
    finding_candidates,
    fulltext_roles,
    states_limitation,
)
from papers_digest.reading.sentences import split_sentences

MOST_FINDINGS = 3
MOST_LIMITATIONS = 2
# A sentence offered as a finding reads as prose: at most this many characters (a paragraph cut by no full stop
# is no sentence), and no more than this share of its words figures (a table row).
MAX_CHARS, MAX_FIGURE_SHARE = 400, 0.34
# A full text's result sentence of its body is offered when it states a figure and the reader scores it a
# result at least this likely (the abstract's candidates are the reader's own choice: reading/roles.py).
BODY_RESULT_SCORE = 0.5
# Where the reader's precise thresholds offer an abstract no finding, its likeliest result is offered when it
# scores this: on CSAbstruct dev the digest's findings are then results with precision 0.80, offered for 0.74 of
# the abstracts with a result (0.84 at 0.56 without; docs/reading.md, "The pipeline's candidates").
FALLBACK_FIRST, NO_MORE = 0.7, 1.1
FINDING_FIRST = 0.5
PROBLEM_SENTENCES, METHOD_SENTENCES = 2, 2
# A sentence about the paper's own work ("we propose", "our model", "in this work"), not the field's.
_OWN_RE = re.compile(r"\b(?:we|our|this (?:paper|work|study|article))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Source:
    """A sentence of the paper as the program read it: its section, its text, its role, how likely it is a
    result, and whether it states a limitation of the paper's own."""

    section: str
    text: str
    read: SentenceRole
    limitation: bool = False

    @property
    def role(self) -> Role:
        return self.read.role

    @property
    def result_score(self) -> float:
        return self.read.result_score

    @property
    def has_figure(self) -> bool:
        return bool(prose_numbers(self.text))


@dataclass(frozen=True)
class Outline:
    """The sentences each part is written from. `main` is the summary's sentence: the main result, or the aim
    (`main_is_result` False) where the paper reports no result."""

    sentences: tuple[Source, ...]
    findings: tuple[Source, ...]
    main: Source | None
    main_is_result: bool
    problem: tuple[Source, ...]
    method: tuple[Source, ...]
    limitations: tuple[Source, ...]
    title: str = ""
    introduces: bool = True  # whether the abstract says the paper brings something of its own ("we propose …")


def outline(doc: FulltextDoc) -> Outline:
    """The outline of `doc`: every sentence read with its role, and the sentences each part is written from."""
    sentences = read_sentences(doc)
    abstract = [s for s in sentences if s.section == ABSTRACT] or sentences
    findings = _distinct(_abstract_candidates(abstract) + _body_candidates(sentences), MOST_FINDINGS)
    main = _main_result(findings)
    own = _own_opening(abstract)
    aim = next((s for s in abstract[own:] if s.role in ("objective", "method")), None)
    # an abstract states its problem just before it says what the paper does: those sentences, not the field's
    problem = [s for s in abstract[max(0, own - PROBLEM_SENTENCES) : own] if s.role != "result"] or abstract[:1]
    method = _method_sentences([s for s in abstract[own:] if s.role in ("method", "objective")])
    used = set(findings)
    limitations = [s for s in sentences if s.limitation and s not in used][:MOST_LIMITATIONS]
    return Outline(
        sentences=tuple(sentences),
        findings=tuple(sorted(findings, key=sentences.index)),
        main=main or aim,
        main_is_result=main is not None,
        problem=tuple(problem),
        method=tuple(method or ([aim] if aim else abstract[1:2] or abstract[:1])),
        limitations=tuple(limitations),
        title=doc.title,
        introduces=any(introduces_work(s.text) for s in abstract),
    )


def _method_sentences(method: list[Source]) -> list[Source]:
    """The method's sentences, in the paper's order: the first that says what the paper brings ("we propose …")
    and the first others. 2509.09677's first two, "We start this work by observing …" and "Then, we argue …",
    left out its "We propose isolating execution capability …", and the 1.5B model invented "a technique to
    assess long-term execution" (the 2025-09-15 listing at 256f0d6); 2503.20783's left out Dr. GRPO."""
    introducing = next((s for s in method if introduces_work(s.text)), None)
    chosen = [introducing] if introducing else []
    chosen += [s for s in method if s is not introducing][: METHOD_SENTENCES - len(chosen)]
    return sorted(chosen, key=method.index)


def abstract_findings(sentences: Sequence[str]) -> list[int]:
    """The indices of the sentences of an abstract that a digest of it writes findings from, most result-like
    first: what `outline` offers a paper seen as its abstract (bench/roles.py writes them as its
    `finding_candidates`)."""
    roles = abstract_roles(sentences)
    abstract = [Source(ABSTRACT, text, role, False) for text, role in zip(sentences, roles, strict=True)]
    chosen = _distinct(_abstract_candidates(abstract), MOST_FINDINGS)
    return [next(i for i, source in enumerate(abstract) if source is c) for c in chosen]


def read_sentences(doc: FulltextDoc) -> list[Source]:
    """Every sentence of the text the model was given, in order, with its role (reading/roles.py): a paper
    seen as its abstract read as an abstract, a full text section by section."""
    blocks = blocks_of(doc)
    if doc.source == "abstract" or [b.section.tag for b in blocks] == [ABSTRACT]:
        texts = [s for b in blocks for s in split_sentences(_body(b.text))]
        return [
            Source(ABSTRACT, text, role, states_limitation(text))
            for text, role in zip(texts, abstract_roles(texts), strict=True)
        ]
    return [Source(read.section, read.sentence, read.role, read.limitation) for read in fulltext_roles(doc)]


def _abstract_candidates(abstract: list[Source]) -> list[Source]:
    """The abstract's sentences the reader offers as findings, in its order of preference: those it reads as
    results at its precise thresholds, and every sentence stating a measured outcome of the paper's work wherever
    it stands; where that offers none, its likeliest result when that scores FALLBACK_FIRST (docs/reading.md,
    "The pipeline's candidates"): a reader is better served by the paper's likeliest result than by no finding."""
    roles = [s.read for s in abstract]
    offered = [abstract[i] for i in finding_candidates(roles, outcomes=True) if _offerable(abstract[i])]
    if not offered:
        more = finding_candidates(roles, first=FALLBACK_FIRST, more=NO_MORE, outcomes=True)
        offered = [abstract[i] for i in more if _offerable(abstract[i])]
    if not offered:
        found = [s for s in abstract if s.result_score >= FINDING_FIRST and reports_finding(s.text) and _offerable(s)]
        offered = sorted(found, key=lambda s: -s.result_score)[:1]
    return offered


def _body_candidates(sentences: list[Source]) -> list[Source]:
    """A full text's result sentences outside the abstract that state a figure, most likely results first."""
    body = [
        s
        for s in sentences
        if s.section != ABSTRACT and s.role == "result" and s.result_score >= BODY_RESULT_SCORE and s.has_figure
    ]
    # the paper's numbered sections before its appendices (tagged A, B, …), which hold what the paper reports
    ranked = sorted((s for s in body if _offerable(s)), key=lambda s: (not s.section[:1].isdigit(), -s.result_score))
    return ranked


def _offerable(source: Source) -> bool:
    """A sentence a finding may report: prose of a sentence's length, not about code or links, nor saying what
    the paper does ("We also explore … by proposing BabyVision-Gen …")."""
    figures = prose_numbers(source.text)
    return (
        not is_packaging(source.text)
        and not says_what_it_does(source.text)
        and len(source.text) <= MAX_CHARS
        and len(figures) <= MAX_FIGURE_SHARE * len(source.text.split())
        and len(source.text.split()) >= 6
    )


def _distinct(offered: list[Source], most: int) -> list[Source]:
    """Up to `most` of the offered sentences, in order, each saying something the ones before do not, one per
    section of the body where there are enough."""
    chosen: list[Source] = []
    for source in offered:
        if len(chosen) == most:
            break
        if any(overlap(source.text, other.text) >= REPEAT_SHARE for other in chosen):
            continue
        if source.section != ABSTRACT and any(source.section == other.section for other in chosen):
            continue
        chosen.append(source)
    return chosen


def _main_result(findings: list[Source]) -> Source | None:
    """The summary's result: the abstract's headline where it states one (its likeliest result that states a
    figure, else its likeliest that says what was found, "… reveal that …", else its likeliest), else the
    body's."""
    headline = [s for s in findings if s.section == ABSTRACT] or findings
    with_figure = [s for s in headline if s.has_figure]
    ranked = sorted(with_figure or headline, key=lambda s: (not reports_finding(s.text), -s.result_score))
    return ranked[0] if ranked else None


def _own_opening(abstract: list[Source]) -> int:
    """Where the abstract starts on the paper's own work: its first sentence about it that is no result."""
    return next((i for i, s in enumerate(abstract) if _OWN_RE.search(s.text) and s.role != "result"), 0)


def _body(block_text: str) -> str:
    return "\n".join(line for line in block_text.splitlines() if not line.startswith("[§"))
