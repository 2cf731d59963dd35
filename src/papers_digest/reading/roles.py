"""TEMPORARY stand-in for the sentence-role reader (replaced by the roles branch): cue phrases and position."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from papers_digest.core.markup import ABSTRACT, blocks_of
from papers_digest.core.models import FulltextDoc
from papers_digest.reading.sentences import split_sentences

Role = Literal["background", "objective", "method", "result", "other"]
_RESULT_RE = re.compile(
    r"\b(?:show|shows|demonstrate|demonstrates|verify|verifies|reveal|reveals|outperform\w*|achiev\w*|surpass\w*|"
    r"improv\w*|results|experiments|evaluations)\b",
    re.I,
)
_BACKGROUND_RE = re.compile(r"\b(?:recent|recently|has attracted|increasing|have been|has been|however)\b", re.I)
_METHOD_RE = re.compile(r"\b(?:we (?:propose|introduce|present|adopt|use|design)|in this (?:paper|work))\b", re.I)
_LIMITATION_RE = re.compile(r"\b(?:limitation|future work|leave .{0,40} to future|remains? (?:an )?open)\b", re.I)


@dataclass(frozen=True)
class SentenceRole:
    role: Role
    result_score: float


@dataclass(frozen=True)
class ReadSentence:
    section: str
    section_title: str
    text: str
    role: SentenceRole
    limitation: bool


def abstract_roles(sentences: Sequence[str]) -> list[SentenceRole]:
    out = []
    n = len(sentences)
    for i, s in enumerate(sentences):
        pos = i / max(1, n - 1)
        score = 0.2 + 0.5 * pos + (0.4 if _RESULT_RE.search(s) else 0) - (0.4 if _BACKGROUND_RE.search(s) else 0)
        if score >= 0.7 and i > 0:
            role: Role = "result"
        elif _METHOD_RE.search(s):
            role = "method"
        elif i == 0 or _BACKGROUND_RE.search(s):
            role = "background"
        else:
            role = "method"
        out.append(SentenceRole(role, min(1.0, max(0.0, score))))
    return out


def finding_candidates(roles: Sequence[SentenceRole]) -> list[int]:
    ranked = sorted((i for i, r in enumerate(roles) if r.role == "result"), key=lambda i: -roles[i].result_score)
    return ranked[:3]


def states_limitation(sentence: str) -> bool:
    return _LIMITATION_RE.search(sentence) is not None


def fulltext_roles(doc: FulltextDoc) -> list[ReadSentence]:
    read = []
    for block in blocks_of(doc):
        body = "\n".join(line for line in block.text.splitlines() if not line.startswith("[§"))
        sentences = split_sentences(body)
        roles = abstract_roles(sentences)
        title = block.section.title.casefold()
        for s, r in zip(sentences, roles, strict=True):
            if block.section.tag != ABSTRACT and any(w in title for w in ("result", "experiment", "evaluat")):
                r = SentenceRole("result", max(r.result_score, 0.8)) if re.search(r"\d", s) else r
            read.append(ReadSentence(block.section.tag, block.section.title, s, r, states_limitation(s)))
    return read
