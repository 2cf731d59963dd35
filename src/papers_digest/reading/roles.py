"""Each sentence's role in a paper: background, objective, method, result or other, read by the program
(docs/reading.md): an abstract by the committed classifier, a full text by its sections' names and the same
classifier; and which sentences a digest may offer as findings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from papers_digest.core.markup import ABSTRACT, blocks_of
from papers_digest.core.models import FulltextDoc
from papers_digest.reading.features import abstract_features, context_features, is_boilerplate, sentence_features
from papers_digest.reading.limitations import states_limitation
from papers_digest.reading.model import RoleModel, role_model
from papers_digest.reading.outcomes import states_outcome
from papers_digest.reading.sections import (
    SectionKind,
    is_caption,
    is_formula,
    is_table_row,
    opens_contributions,
    run_in_heading,
    title_kind,
)
from papers_digest.reading.sentences import split_sentences

__all__ = [
    "ROLES",
    "ReadSentence",
    "Role",
    "SentenceRole",
    "abstract_roles",
    "finding_candidates",
    "fulltext_roles",
    "roles_from_scores",
    "states_limitation",
]

Role = Literal["background", "objective", "method", "result", "other"]
ROLES: tuple[Role, ...] = ("background", "objective", "method", "result", "other")
_RESULT = ROLES.index("result")
# A sentence stating a measured outcome of the paper's work is a result unless the classifier gives that less than
# this: CSAbstruct's annotators call most such sentences results only at an abstract's end (docs/reading.md,
# "Outcomes"), readers of a digest want them wherever they stand.
OUTCOME_FLOOR = 0.3

# How a full text's section shifts the odds of each role (background, objective, method, result, other) against
# the abstracts the classifier learnt from; set by hand from the rule (#44): results, experiments,
# evaluation, analysis, conclusion and discussion hold results; introduction and related work mostly do not, bar a
# contributions paragraph; method sections hold method. A kind left out leaves the classifier alone.
SECTION_PRIORS: dict[SectionKind, tuple[float, float, float, float, float]] = {
    "introduction": (0.55, 0.17, 0.2, 0.05, 0.03),
    "contributions": (0.05, 0.15, 0.3, 0.48, 0.02),
    "background": (0.85, 0.03, 0.1, 0.01, 0.01),
    "method": (0.08, 0.04, 0.83, 0.03, 0.02),
    "setup": (0.05, 0.02, 0.87, 0.04, 0.02),
    "results": (0.04, 0.02, 0.3, 0.62, 0.02),
    "conclusion": (0.1, 0.15, 0.2, 0.5, 0.05),
    "limitations": (0.3, 0.05, 0.3, 0.05, 0.3),
    "matter": (0.02, 0.02, 0.02, 0.02, 0.92),
}


@dataclass(frozen=True)
class SentenceRole:
    """A sentence's role, how likely it is a result (0..1, the classifier's probability), each role's
    probability (in ROLES order; each against the rest, so they need not sum to 1), and whether the sentence
    states a measured outcome of the paper's work (`states_outcome`: "outperforms the base model by 12.1%")."""

    role: Role
    result_score: float
    scores: tuple[float, ...]
    outcome: bool = False


@dataclass(frozen=True)
class ReadSentence:
    """A full text's sentence as read: the section it stands in (its tag and title), the sentence, its role,
    whether it states a limitation of the paper's own work or work left for the future, and what its section (or
    the run-in heading above it) holds, as read from the titles (`sections.SectionKind`)."""

    section: str
    title: str
    sentence: str
    role: SentenceRole
    limitation: bool
    kind: SectionKind = "abstract"


def abstract_roles(sentences: Sequence[str]) -> list[SentenceRole]:
    """The role of every sentence of an abstract, each read next to the others: a copyright line or a link to code
    is `other` (`is_boilerplate`) and set aside; the rest get a first reading each (words, cues, place among
    them), then a second one in the light of their neighbours'."""
    content = [s for s in sentences if not is_boilerplate(s)]
    if not content:
        return [_OTHER] * len(sentences)
    model = role_model()
    first = [model.sentence.probabilities(f) for f in abstract_features(content)]
    return roles_from_scores(sentences, [model.context.probabilities(f) for f in context_features(first, model.roles)])


def roles_from_scores(sentences: Sequence[str], scores: Sequence[Sequence[float]]) -> list[SentenceRole]:
    """Every sentence's role, given the role probabilities (in ROLES order) of the abstract's content sentences,
    the ones `is_boilerplate` leaves, in order: the most probable role, or a result where the sentence states an
    outcome of the paper's work and its result probability reaches OUTCOME_FLOOR; boilerplate is `other`."""
    content = iter(scores)
    return [_OTHER if is_boilerplate(s) else _sentence_role(next(content), states_outcome(s)) for s in sentences]


def finding_candidates(
    roles: Sequence[SentenceRole],
    *,
    first: float | None = None,
    more: float | None = None,
    most: int | None = None,
    outcomes: bool = False,
) -> list[int]:
    """The indices of the sentences a digest may offer as findings, most result-like first (ties in paper
    order), at most `most`: of the sentences read as results, the best one when its result score reaches `first`
    and every one reaching `more` (by default the committed model's thresholds, chosen in cross-validation:
    docs/reading.md, "Finding candidates"); with `outcomes`, also every one stating a measured outcome, wherever it
    stands. An abstract that reports no result gets none."""
    if first is None or more is None or most is None:
        model = role_model()
        first = model.first_candidate if first is None else first
        more = model.more_candidates if more is None else more
        most = model.most_candidates if most is None else most
    results = sorted((i for i, r in enumerate(roles) if r.role == "result"), key=lambda i: (-roles[i].result_score, i))
    offered = [
        i
        for rank, i in enumerate(results)
        if (outcomes and roles[i].outcome)
        or roles[i].result_score >= more
        or (rank == 0 and roles[i].result_score >= first)
    ]
    return offered[:most]


def fulltext_roles(doc: FulltextDoc) -> list[ReadSentence]:
    """Every sentence of a paper, section by section, with its role. A paper seen as its abstract is read as one
    (`abstract_roles`); a full text's abstract too, and each other section's sentences by the classifier's
    reading of the sentence alone, weighed by what the section holds (SECTION_PRIORS, from its title, a parent's
    title, or a run-in heading such as "Results."). Captions are `other`. A sentence states a limitation where
    it says so (`states_limitation`), or stands in a Limitations or Future Work section."""
    blocks = blocks_of(doc)
    if doc.source == "abstract" or [b.section.tag for b in blocks] == [ABSTRACT]:
        read = [(b.section.tag, b.section.title, s) for b in blocks for s in split_sentences(_body(b.text))]
        roles = abstract_roles([s for _, _, s in read])
        return [
            ReadSentence(t, title, s, r, states_limitation(s)) for (t, title, s), r in zip(read, roles, strict=True)
        ]
    model = role_model()
    floats = set(doc.unsectioned)
    parents: dict[int, SectionKind | None] = {}  # the kinds of the sections above the current one, by level
    found: list[ReadSentence] = []
    for block in blocks:
        section = block.section
        lines = [line for line in _body(block.text).splitlines() if line.strip()]
        if section.tag == ABSTRACT:
            sentences = split_sentences("\n".join(line for line in lines if line not in floats))
            found += [
                ReadSentence(section.tag, section.title, s, r, states_limitation(s))
                for s, r in zip(sentences, abstract_roles(sentences), strict=True)
            ]
            found += _read_body(model, section.tag, section.title, [x for x in lines if x in floats], "other")
            continue
        own = title_kind(section.title)
        parents = {level: kind for level, kind in parents.items() if level < section.level}
        kind = own or next((parents[lv] for lv in sorted(parents, reverse=True) if parents[lv]), None) or "other"
        parents[section.level] = own
        found += _read_body(model, section.tag, section.title, lines, kind)
    return found


def _read_body(model: RoleModel, tag: str, title: str, lines: list[str], kind: SectionKind) -> list[ReadSentence]:
    """A section's paragraphs (one a line): a paragraph's run-in heading sets what the rest of the section holds
    until the next one; an introduction's contributions paragraph holds results; captions, table rows and
    formulas are `other`."""
    section_kind, current = kind, kind
    read: list[ReadSentence] = []
    for line in lines:
        layout = is_caption(line) or is_table_row(line)
        for n, sentence in enumerate(split_sentences(line)):
            heading = None if layout or n else run_in_heading(sentence)
            if heading is not None:
                current = "contributions" if opens_contributions(heading) else title_kind(heading) or section_kind
            if layout or heading == sentence.rstrip(".") or is_formula(sentence):
                role = _OTHER
            else:
                role = _body_role(model, sentence, current)
                if current == "introduction" and opens_contributions(sentence):
                    current = "contributions"
            limitation = role is not _OTHER and (current == "limitations" or states_limitation(sentence))
            read.append(ReadSentence(tag, title, sentence, role, limitation, current))
    return read


def _body_role(model: RoleModel, sentence: str, kind: SectionKind) -> SentenceRole:
    """A body sentence's role: the classifier's reading of it alone, its odds shifted by what its section holds."""
    if is_boilerplate(sentence):
        return _OTHER
    probs = model.body.probabilities(sentence_features(sentence))
    total = sum(probs)
    prior = SECTION_PRIORS.get(kind)
    weighted = [p / total * (prior[k] / model.base_rates[k] if prior else 1.0) for k, p in enumerate(probs)]
    norm = sum(weighted)
    return _sentence_role([w / norm for w in weighted], states_outcome(sentence))


def _sentence_role(scores: Sequence[float], outcome: bool) -> SentenceRole:
    best = max(range(len(scores)), key=lambda k: scores[k])
    role = "result" if outcome and scores[_RESULT] >= OUTCOME_FLOOR else ROLES[best]
    return SentenceRole(role=cast(Role, role), result_score=scores[_RESULT], scores=tuple(scores), outcome=outcome)


def _body(block_text: str) -> str:
    """A block's text without its marker line."""
    return "\n".join(line for line in block_text.splitlines() if not line.startswith("[§"))


_OTHER = SentenceRole(role="other", result_score=0.0, scores=(0.0, 0.0, 0.0, 0.0, 1.0))
