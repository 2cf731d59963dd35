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
    r"(?:\d(?:[.,]\d+)?\s*(?:%|×|x\b|-?fold\b|points?\b|pp\b|times\b|percentage|seconds?\b|s\b|ms\b|minutes?\b|"
    r"hours?\b|[GMK]B\b|fps\b)|\bstate[- ]of[- ]the[- ]art\b|"
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


# The paper saying what it does, opening on "we" and a verb of doing: "We also explore solving visual reasoning
# with generation models by proposing BabyVision-Gen …" (offered as BabyVision's summary in a run at 6f6e3a3).
_DOING_RE = re.compile(
    r"^(?:(?:finally|moreover|additionally|furthermore|in addition|lastly|besides|to this end)\s*,?\s*)?we\s+"
    r"(?:also\s+|further\s+|then\s+|additionally\s+)?(?:propose|introduce|present|explore|develop|design|build|"
    r"release|construct|curate|describe|provide|discuss|investigate|study|examine|outline|offer)\b",
    re.IGNORECASE,
)
# A verb of finding: what the paper's experiments or analysis found ("reveal that", "indicates that").
_FINDING_RE = re.compile(
    r"\b(?:show(?:s|ed|n|ing)?|demonstrat\w+|reveal\w*|indicat\w+|find|finds|found|observ(?:e|es|ed|ing)|"
    r"suggest\w*|confirm\w*|verif(?:y|ies|ied))\b",
    re.IGNORECASE,
)
_FINDING_THAT_RE = re.compile(_FINDING_RE.pattern + r"\s+(?:\w+\s+){0,2}?that\b", re.IGNORECASE)


# The paper bringing something of its own: "we propose / introduce / present …", "this work introduces …", "…
# and propose a clustering-based approach", "a system coined CraftsMan". An abstract with none of them studies
# what exists (2509.09677 observes and argues, 2405.15071 studies grokked transformers), and a digest that says
# it "introduces a technique" invents one (docs/reading.md, "What a paper brings").
_INTRODUCES_RE = re.compile(
    r"\b(?:we|this (?:paper|work|study|article|report|technical report)|the paper)\s+(?:\w+\s+)?"
    r"(?:propose|introduce|present|develop|design|build|release|construct|curate|create|contribute|offer|devise|"
    r"formulate)s?\b|\b(?:and|then|also)\s+(?:propose|introduce|present)\b|\b(?:called|named|dubbed|termed|coined)\b",
    re.IGNORECASE,
)


def introduces_work(sentence: str) -> bool:
    """Whether `sentence` says the paper brings something of its own: a method, a model, a benchmark, a dataset."""
    return _INTRODUCES_RE.search(sentence) is not None


# A hope or a purpose, said of the paper's work: "We hope this dataset will become a valuable resource …",
# "MCP-AgentBench aims to equip the research community …" (closing sentences of the 2025-09-15 listing).
_HOPE_RE = re.compile(
    r"\b(?:we hope|hope (?:that|to)|we aim to|aims? to|(?:is|are) intended to|we (?:expect|envision|anticipate)|"
    r"will (?:become|serve as|foster|inspire|spur))\b",
    re.IGNORECASE,
)


def says_what_it_does(sentence: str) -> bool:
    """Whether `sentence` says what the paper does or hopes and not what it found: "we (also) propose /
    introduce / explore …", "we hope …", "aims to …", "will foster …", with no verb of finding, no measured
    outcome and no figure. CSAbstruct's annotators label such a closing sentence a result (27 of the 28 the
    pipeline offered in the train split); a reader of a digest gets no finding from it (docs/reading.md,
    "Outcomes")."""
    return (
        (_DOING_RE.search(sentence.strip()) is not None or _HOPE_RE.search(sentence) is not None)
        and _FINDING_RE.search(sentence) is None
        and not re.search(r"\d", sentence)
        and not states_outcome(sentence)
    )


# The paper, its authors or "we" as the subject of a verb of doing, in any tense: how a digest's field says what
# the paper does ("The paper introduces a new approach …", "The study presents …").
_PAPER_DOING_RE = re.compile(
    r"^(?:(?:the|this|our)\s+(?:paper|study|work|research|authors?)|we)\s+(?:also\s+|further\s+)?"
    r"(?:propos|introduc|present|explor|develop|design|build|built|releas|construct|curat|describ|provid|discuss|"
    r"investigat|stud|examin|outlin|offer)(?:e|es|ed|s|ies|ied|y|ing)?\b",
    re.IGNORECASE,
)


# A figure standing alone ("43.3%", "120", "2.5×"), not a digit inside a name ("3D assets", "Qwen2.5").
_FIGURE_RE = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)*(?:\s*%|×)?(?![\w-])")


def paper_doing(text: str) -> str | None:
    """The opening words by which `text` says what the paper does and not what it found ("The paper introduces"),
    with no verb of finding, no figure and no measured outcome; None where it says otherwise."""
    opening = _PAPER_DOING_RE.search(text.strip())
    if opening is None or _FINDING_RE.search(text) or _FIGURE_RE.search(text) or states_outcome(text):
        return None
    return opening.group(0)


def reports_finding(sentence: str) -> bool:
    """Whether `sentence` reports what was found: a verb of finding with its "that" ("Empirical results and
    human evaluation reveal that …", "Further analysis indicates that …"), or a measured outcome."""
    return _FINDING_THAT_RE.search(sentence) is not None or states_outcome(sentence)
