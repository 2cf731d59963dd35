"""Words of praise that say nothing a reader can check ("groundbreaking", "seamlessly"), taken out of every answer
asked in steps by the program (docs/checker.md, rule `scope`).

A digest says what a paper did and found; a small model asked to rewrite a method adds praise to it. MergeVQ's
method in the sample run at 0c20fad: "MergeVQ establishes a groundbreaking framework … This unified structure
seamlessly connects these processes", where the paper's sentences say "a unified framework … bridges the gap".
Rule `scope` already takes the praise of a result out of a finding whose sentence compares nothing ("optimal",
"exceptional"); these words are praise in any field, so they are taken out wherever they stand, as the size the
English does not claim is taken out of the Chinese (zh_claims.py). Taking one out leaves the sentence whole.
So is the evidence said as a means ("through extensive experimental results"): X-Part's summary and finding on
the 2025-09-15 listing at 5fe895a said "X-Part achieves state-of-the-art performance in part-level shape
generation through extensive experimental results", where the sentence says the experiments demonstrate it.
"""

from __future__ import annotations

import re

from papers_digest.checker.scope import article_for_next_word

_HYPE = (
    r"groundbreaking|ground-breaking|revolutionary|game-changing|pioneering|unparalleled|trailblazing|"
    r"seamless(?:ly)?|effortless(?:ly)?|remarkabl[ey]|impressive(?:ly)?"
)
# an adjective before its noun, with the article that must agree with the next word; an adverb before its verb
_HYPE_RE = re.compile(rf"\b(?:(an?)\s+)?(?:{_HYPE})\s+(?=(\w))", re.IGNORECASE)
_EVIDENCE_AS_MEANS_RE = re.compile(
    r"\s*\b(?:through|via|based\s+on|according\s+to|as\s+(?:shown|demonstrated|confirmed)\s+by)\s+"
    r"(?:the\s+|our\s+|its\s+)?(?:(?:extensive|comprehensive|thorough)\s+)?"
    r"(?:experimental\s+results|experiments|evaluations|empirical\s+results)\b(?!\s+(?:on|of|with|in)\b)",
    re.IGNORECASE,
)


def without_hype(text: str) -> str:
    """`text` without its words of praise ("a groundbreaking framework" -> "a framework", "seamlessly connects"
    -> "connects"), and without the evidence said as a means ("… through extensive experimental results"); a
    sentence that opens with one opens with the next word, capitalised."""
    said = _HYPE_RE.sub(article_for_next_word, _EVIDENCE_AS_MEANS_RE.sub("", text).lstrip(" ,"))
    return said[:1].upper() + said[1:] if said and not text[:1].islower() else said
