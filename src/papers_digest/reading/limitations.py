"""The paper's own limitations and future work, said in so many words (docs/reading.md, "Limitations"): high
precision, so a digest states a limitation only where the paper does."""

from __future__ import annotations

import re

from papers_digest.reading.outcomes import about_own_work

# Whose work a sentence speaks of: ours ("our method", "this work", "we") ...
_OWN = r"(?:(?:our|the proposed|the present)\s+(?:[\w-]+\s+){0,3}?|this\s+(?=(?:work|paper|study)\b))"
_OWN_WORK = (
    r"(?:work|approach|method|model|study|paper|framework|system|analysis|evaluation|experiments?|prototype|"
    r"implementation|benchmark|dataset|results?|technique|pipeline|agent|design)"
)
_STATEMENTS = [
    # "a limitation of our approach", "our study has several limitations"
    rf"\b(?:limitations?|drawbacks?|shortcomings?|weakness(?:es)?|caveats?)\s+of\s+{_OWN}{_OWN_WORK}\b",
    rf"\b{_OWN}{_OWN_WORK}\s+(?:has|have|comes? with|suffers? from)\s+(?:\w+\s+){{0,2}}?"
    r"(?:limitations?|drawbacks?|shortcomings?)\b",
    r"^(?:however,\s+|still,\s+|nevertheless,\s+)?(?:one|a|another|the main|the primary|a major|a key|an important)\s+"
    r"(?:limitation|drawback|shortcoming|weakness|caveat)\s+(?:is|remains)\s+that\b",
    r"\bwe\s+(?:acknowledge|note|recogni[sz]e)\s+(?:that\s+)?(?:several|some|a few|the|two|three|these)?\s*"
    r"(?:\w+\s+)?limitations?\b",
    # future work: "we leave ... to future work", "future work could", "as part of our future work"
    r"\bwe\s+leave\b[^.;]{0,120}?\b(?:to|for)\s+future\s+(?:work|research|study|studies|investigation)\b",
    r"\b(?:left|leave it)\s+(?:as|for|to)\s+future\s+work\b",
    r"\b(?:is|are|remains?|as)\s+(?:an?\s+)?(?:\w+\s+)?(?:direction|avenue|topic)s?\s+(?:for|of)\s+(?:our\s+)?future\s+"
    r"(?:work|research)\b",
    r"\bfuture\s+(?:work|research|studies|directions?)\s+(?:could|can|should|may|might|will|would|include|includes|"
    r"is needed|are needed|lies|remains)\b",
    r"\b(?:as|in)\s+(?:part\s+of\s+)?our\s+future\s+work\b",
    r"\bin\s+(?:the\s+)?future(?:\s+work)?,\s+we\s+(?:plan|intend|hope|aim|will|would like)\b",
    r"\bwe\s+(?:also\s+|further\s+)?(?:plan|intend)\s+to\s+(?:further\s+)?(?:extend|explore|investigate|study|apply|"
    r"improve|address|incorporate|generali[sz]e|scale|evaluate|examine|develop|integrate|support)\b",
    # scope: "does not yet", "is limited to", "we do not address", "currently supports only"
    rf"\b{_OWN}{_OWN_WORK}\s+(?:\w+\s+)?(?:does|do|can|could|is|are)\s+not\s+(?:yet\s+)?(?:support|handle|address|"
    r"consider|cover|scale|capture|account|model|generali[sz]e|apply|guarantee)\w*",
    rf"\b{_OWN}{_OWN_WORK}\s+(?:\w+\s+)?(?:is|are|was|were|remains?)\s+(?:currently\s+|still\s+)?(?:limited|restricted|"
    r"confined)\s+to\b",
    rf"\b{_OWN}{_OWN_WORK}\s+(?:currently\s+|presently\s+)?(?:supports?|handles?|works?\s+with|applies\s+to)\s+only\b",
    rf"\b{_OWN}{_OWN_WORK}\s+(?:currently\s+|presently\s+)?only\s+(?:supports?|handles?|works?|applies|covers?)\b",
    r"\bwe\s+do\s+not\s+(?:yet\s+)?(?:address|consider|study|explore|evaluate|investigate|handle|tackle|examine|model)\b",
    r"\bbeyond\s+the\s+scope\s+of\s+(?:this|our|the present)\s+(?:paper|work|study|article)\b",
    rf"\b(?:whether|how)\b[^.;]{{0,120}}?\b{_OWN}{_OWN_WORK}\b[^.;]{{0,80}}?\bremains?\s+(?:an\s+)?open\b",
]
_STATEMENT_RE = re.compile("|".join(f"(?:{s})" for s in _STATEMENTS), re.IGNORECASE)
# Every match of _STATEMENT_RE holds one of these (lower-cased).
_STATEMENT_WORDS = (
    "limit", "drawback", "shortcoming", "weakness", "caveat", "future", "plan", "intend", "not", "restricted",
    "confined", "only", "scope", "open",
)  # fmt: skip


def states_limitation(sentence: str) -> bool:
    """Whether `sentence` states a limitation of the paper's own work, or work it leaves for the future. Others'
    limitations ("existing methods are limited to ...", "X remains an open problem") are the paper's background and
    do not count."""
    lowered = sentence.lower()  # the pattern is slow; most sentences hold none of the words it needs
    if not any(word in lowered for word in _STATEMENT_WORDS) or _STATEMENT_RE.search(sentence) is None:
        return False
    return about_own_work(sentence)
