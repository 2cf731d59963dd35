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
from papers_digest.reading.sections import SectionKind, is_caption, opens_contributions, run_in_heading, title_kind
from papers_digest.reading.sentences import split_sentences

__all__ = [
    "ROLES",
    "ReadSentence",
    "Role",
    "SentenceRole",
    "abstract_roles",
    "candidate_indices",
    "finding_candidates",
    "fulltext_roles",
    "roles_from_scores",
    "states_limitation",
]

Role = Literal["background", "objective", "method", "result", "other"]
ROLES: tuple[Role, ...] = ("background", "objective", "method", "result", "other")
_RESULT = ROLES.index("result")

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
    """A sentence's role, how likely it is a result (0..1, the classifier's probability), and each role's
    probability (in ROLES order; each against the rest, so they need not sum to 1)."""

    role: Role
    result_score: float
    scores: tuple[float, ...]


@dataclass(frozen=True)
class ReadSentence:
    """A full text's sentence as read: the section it stands in (its tag and title), the sentence, its role, and
    whether it states a limitation of the paper's own work or work left for the future."""

    section: str
    title: str
    sentence: str
    role: SentenceRole
    limitation: bool


def abstract_roles(sentences: Sequence[str]) -> list[SentenceRole]:
    """The role of every sentence of an abstract, each read next to the others: a first reading of each sentence
    (words, cues, place), then a second one in the light of its neighbours'. A copyright line or a link to code is
    `other`, never a result."""
    if not sentences:
        return []
    model = role_model()
    first = [model.sentence.probabilities(f) for f in abstract_features(sentences)]
    return roles_from_scores(sentences, [model.context.probabilities(f) for f in context_features(first, model.roles)])


def roles_from_scores(sentences: Sequence[str], scores: Sequence[Sequence[float]]) -> list[SentenceRole]:
    """Each sentence's role from its role probabilities (in ROLES order): the most probable one, except that a
    copyright line or a link to code is `other`, never a result."""
    return [
        _OTHER if is_boilerplate(sentence) else _sentence_role(row)
        for sentence, row in zip(sentences, scores, strict=True)
    ]


def finding_candidates(
    roles: Sequence[SentenceRole], *, first: float | None = None, more: float | None = None, most: int | None = None
) -> list[int]:
    """The indices of the sentences a digest may offer as findings, most result-like first: the best sentence
    when its result score reaches `first`, then others reaching `more`, at most `most` in all (by default the
    committed model's thresholds, chosen in cross-validation: docs/reading.md, "Finding candidates"). Only
    sentences read as results are offered; an abstract that reports none gets none."""
    if first is None or more is None or most is None:
        model = role_model()
        first = model.first_candidate if first is None else first
        more = model.more_candidates if more is None else more
        most = model.most_candidates if most is None else most
    return candidate_indices([r.result_score if r.role == "result" else 0.0 for r in roles], first, more, most)


def candidate_indices(scores: Sequence[float], first: float, more: float, most: int) -> list[int]:
    """The candidate rule on result scores alone: the best index if its score is >= `first`, then the next best
    while >= `more`, at most `most`; ties keep paper order."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    if not order or scores[order[0]] < first:
        return []
    return [order[0], *(i for i in order[1:most] if scores[i] >= more)]


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
    parents: dict[int, SectionKind | None] = {}
    found: list[ReadSentence] = []
    for block in blocks:
        section = block.section
        own = "abstract" if section.tag == ABSTRACT else title_kind(section.title)
        parents = {level: kind for level, kind in parents.items() if level < section.level}
        kind = own or next((parents[lv] for lv in sorted(parents, reverse=True) if parents[lv]), None) or "other"
        parents[section.level] = own
        lines = [line for line in _body(block.text).splitlines() if line.strip()]
        if kind == "abstract":
            text = [line for line in lines if line not in floats]
            sentences = split_sentences("\n".join(text))
            roles = abstract_roles(sentences)
            found += [
                ReadSentence(section.tag, section.title, s, r, states_limitation(s))
                for s, r in zip(sentences, roles, strict=True)
            ]
            lines = [line for line in lines if line in floats]
            kind = "other"
        found += _read_body(model, section.tag, section.title, lines, kind)
    return found


def _read_body(model: RoleModel, tag: str, title: str, lines: list[str], kind: SectionKind) -> list[ReadSentence]:
    """A section's paragraphs (one a line): a run-in heading sets what the rest of the section holds until the
    next one; an introduction's contributions paragraph holds results."""
    section_kind, current = kind, kind
    read: list[ReadSentence] = []
    for line in lines:
        caption = is_caption(line)
        for sentence in split_sentences(line):
            heading = None if caption else run_in_heading(sentence)
            if heading is not None:
                current = "contributions" if opens_contributions(heading) else title_kind(heading) or section_kind
            if caption or heading == sentence.rstrip("."):
                role = _OTHER
            else:
                role = _body_role(model, sentence, current)
                if current == "introduction" and opens_contributions(sentence):
                    current = "contributions"
            limitation = role is not _OTHER and (current == "limitations" or states_limitation(sentence))
            read.append(ReadSentence(tag, title, sentence, role, limitation))
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
    return _sentence_role([w / norm for w in weighted])


def _sentence_role(scores: Sequence[float]) -> SentenceRole:
    best = max(range(len(scores)), key=lambda k: scores[k])
    return SentenceRole(role=cast(Role, ROLES[best]), result_score=scores[_RESULT], scores=tuple(scores))


def _body(block_text: str) -> str:
    """A block's text without its marker line."""
    return "\n".join(line for line in block_text.splitlines() if not line.startswith("[§"))


_OTHER = SentenceRole(role="other", result_score=0.0, scores=(0.0, 0.0, 0.0, 0.0, 1.0))
