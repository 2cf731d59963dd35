"""The sentences a digest's findings may report (evidence first, docs/checker.md "Evidence first"): every
sentence of a paper seen as its abstract, else the sentences that state a figure, by section, numbered.

The program, not the model, then takes a finding's `numbers` and `sections` from the sentence it names, so
a result's evidence is the sentence it was written from."""

from __future__ import annotations

import re
from dataclasses import dataclass

from papers_digest.checker.numbers import Number, prose_numbers
from papers_digest.checker.results import is_packaging
from papers_digest.core.markup import ABSTRACT, blocks_of
from papers_digest.core.models import FulltextDoc

# A sentence ends at . ! ? before a space and a capital letter, a digit or a bracket, or at a line break:
# "et al. 2024" and "Fig. 3" stay whole enough for a figure to keep its sentence.
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n+")
_ALPHA_WORD_RE = re.compile(r"[A-Za-z]{3,}")
# A candidate reads as a sentence: this many words of letters, and no more than this share of its words
# numbers (a table row is mostly figures), at most this many characters (a paragraph cut by no full stop).
MIN_ALPHA_WORDS, MAX_NUMBER_SHARE, MAX_CHARS = 6, 0.34, 400
# How many candidates a full text offers: the abstract's figure sentences, then each section's in turn.
MAX_CANDIDATES = 16
# Words of a sentence that reports a result, and of one that sets an experiment up: results are offered first.
_RESULT_WORDS_RE = re.compile(
    r"\b(?:outperform\w*|improv\w*|achiev\w*|surpass\w*|reach\w*|reduc\w*|increas\w*|gain\w*|boost\w*|"
    r"accuracy|speed-?up|faster|better|higher|lower|fewer|state-of-the-art|sota|compar\w*|match\w*|"
    r"drop\w*|degrad\w*|cut\w*|saves?|only|over|than)\b",
    re.IGNORECASE,
)
_SETUP_WORDS_RE = re.compile(
    r"\b(?:we (?:use|adopt|include|follow|set|train|employ|limit)|following|settings?|hyper-?parameters?|"
    r"batch size|learning rate|consists? of|contains?)\b",
    re.IGNORECASE,
)
_CODE_OR_TABLE_RE = re.compile(r"[|=_{}<>]|\\[a-z]+\{")
_BULLET_RE = re.compile(r"^[•\-*·]\s*")


@dataclass(frozen=True)
class Candidate:
    """One sentence a finding may report: its number in the prompt, the section it stands in (the deepest
    one), its text and the figures it states."""

    index: int
    section: str
    sentence: str
    figures: tuple[Number, ...]


def evidence_candidates(doc: FulltextDoc, most: int = MAX_CANDIDATES) -> list[Candidate]:
    """The numbered sentences a digest of `doc` may report: for a paper seen as its abstract every sentence
    but the ones about code and links; for a full text the sentences that state a figure, abstract first,
    then one per section in turn (results-like sentences first), at most `most`."""
    by_section = [(block.section.tag, _sentences(block.text)) for block in blocks_of(doc)]
    abstract_only = doc.source == "abstract" or [tag for tag, _ in by_section] == [ABSTRACT]
    if abstract_only:
        picked = [(tag, s) for tag, sentences in by_section for s in sentences if not is_packaging(s)]
    else:
        pools = [[s for s in sentences if _states_a_figure(s)] for _, sentences in by_section]
        pools = [sorted(pool, key=_result_rank) for pool in pools]
        picked = _round_robin([tag for tag, _ in by_section], pools, most)
    return [
        Candidate(index=i, section=tag, sentence=s, figures=tuple(prose_numbers(s)))
        for i, (tag, s) in enumerate(picked, start=1)
    ]


def _sentences(block_text: str) -> list[str]:
    """A section block's sentences, marker lines left out, whitespace collapsed."""
    body = "\n".join(line for line in block_text.splitlines() if not line.startswith("[§"))
    found = (_BULLET_RE.sub("", " ".join(part.split())) for part in _SENTENCE_END_RE.split(body))
    return [s for s in found if s]


def _states_a_figure(sentence: str) -> bool:
    """A sentence of prose (not a table row, not a run-on paragraph) that states a figure."""
    figures = prose_numbers(sentence)
    if not figures or is_packaging(sentence) or len(sentence) > MAX_CHARS or _CODE_OR_TABLE_RE.search(sentence):
        return False
    alpha = len(_ALPHA_WORD_RE.findall(sentence))
    return alpha >= MIN_ALPHA_WORDS and len(figures) <= MAX_NUMBER_SHARE * len(sentence.split())


def _result_rank(sentence: str) -> int:
    """Lower first: a sentence with words of a result and none of a set-up, then the others, set-ups and
    sentences whose only figures are model sizes ("7B") last."""
    sizes_only = all(n.unit == "B" for n in prose_numbers(sentence))
    return (_RESULT_WORDS_RE.search(sentence) is None) - (_SETUP_WORDS_RE.search(sentence) is None) + 1 + sizes_only


def _round_robin(tags: list[str], pools: list[list[str]], most: int) -> list[tuple[str, str]]:
    """Up to `most` sentences, the first of each section's pool in turn, then the second, ...; returned in
    paper order (sections in order, each section's sentences in pool order)."""
    taken = [0] * len(pools)
    while sum(taken) < most and any(t < len(pool) for t, pool in zip(taken, pools, strict=True)):
        for i, pool in enumerate(pools):
            if taken[i] < len(pool) and sum(taken) < most:
                taken[i] += 1
    return [(tag, s) for tag, pool, t in zip(tags, pools, taken, strict=True) for s in pool[:t]]
