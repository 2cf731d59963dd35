"""Sentences that state a measured outcome of the paper's own work ("vsGRPO-2B outperforms the base model by
12.1%"), and sentences about others' work (docs/reading.md, "Outcomes")."""

from __future__ import annotations

import re

# Others' work as a sentence's subject: the paper's background, whatever it states.
OTHERS_RE = re.compile(
    r"\b(?:existing|prior|previous|current|conventional|traditional|earlier|other|these|those|such|recent)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:methods?|approaches|works?|models|systems|solutions|techniques|studies|frameworks|LLMs)\b",
    re.IGNORECASE,
)
_OWN_RE = re.compile(r"\b(?:we|our|us|this (?:work|paper|study))\b", re.IGNORECASE)
# A verb reporting an outcome, then within the clause what it is measured by or against.
_OUTCOME_RE = re.compile(
    r"\b(?:achiev|outperform|surpass|improv|reduc|reach|scor|obtain|exceed|beat|boost|attain|yield|match|cut|"
    r"accelerat|speed\w*\s+up|lower|rais|increas|decreas|deliver|establish|set)\w*\b[^.;]{0,100}?"
    r"(?:\d(?:[.,]\d+)?\s*(?:%|×|x\b|-?fold\b|points?\b|pp\b|times\b|percentage)|\bstate[- ]of[- ]the[- ]art\b|"
    r"\bsota\b|\bby\s+(?:up\s+to\s+)?\d|\b(?:comparable|similar)\s+to\b|\bon par with\b|\bcompetitive with\b|"
    r"\b(?:than|over|compared\s+(?:to|with)|against)\b[^.;]{0,60}?"
    r"(?:\d|baselines?|models?|methods?|GPT|humans?))",
    re.IGNORECASE,
)
# Every match of _OUTCOME_RE holds one of these (lower-cased).
_OUTCOME_STEMS = (
    "achiev", "outperform", "surpass", "improv", "reduc", "reach", "scor", "obtain", "exceed", "beat", "boost",
    "attain", "yield", "match", "cut", "accelerat", "speed", "lower", "rais", "increas", "decreas", "deliver",
    "establish", "set",
)  # fmt: skip
# A purpose or a plan, not an outcome: "to achieve", "which aims to improve", "will reduce".
_PURPOSE_RE = re.compile(
    r"\b(?:to|aims? to|aiming to|designed to|in order to|so as to|may|might|would|will|should)\s+"
    r"(?:\w+\s+)?(?:achiev|outperform|surpass|improv|reduc|reach|obtain|exceed|boost|attain|accelerat|lower|rais|"
    r"increas|decreas)\w*",
    re.IGNORECASE,
)


def states_outcome(sentence: str) -> bool:
    """Whether `sentence` reports a measured outcome of the paper's work: a verb of outcome (achieves,
    outperforms, reduces ...) with a figure, a state of the art, or what it is compared with; not a purpose
    ("designed to improve"), not others' work ("existing methods achieve 80%")."""
    lowered = sentence.lower()  # the pattern is slow; most sentences hold none of the verbs it needs
    if not any(stem in lowered for stem in _OUTCOME_STEMS) or _OUTCOME_RE.search(sentence) is None:
        return False
    if _PURPOSE_RE.search(sentence) is not None:
        return False
    return about_own_work(sentence)


def about_own_work(sentence: str) -> bool:
    """False where the sentence speaks of others' work ("existing methods ...") and not of the paper's own."""
    return OTHERS_RE.search(sentence) is None or _OWN_RE.search(sentence) is not None
