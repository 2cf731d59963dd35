"""The English digest's rules, one function each, listed in ENGLISH_RULES: every number where it is cited,
every figure in prose from the paper, and a digest that says something (docs/checker.md, "The rules", has each rule
with an example; checker/results.py holds a result's rules, checker/substance.py the "says something" ones)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from papers_digest.checker.fields import prose_fields, words
from papers_digest.checker.naming import acronym, names
from papers_digest.checker.numbers import entry_numbers, prose_numbers
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.parse import parse_digest
from papers_digest.checker.problems import Problem
from papers_digest.checker.results import FINDING_MIN_WORDS, RESULT_RULES, ResultRule, cited_of
from papers_digest.checker.substance import NOVEL_WORDS, SUBSTANCE_RULES, DigestRule, cut_back
from papers_digest.core.models import Digest, Evidence, Result

__all__ = [
    "ENGLISH_RULES",
    "FINDING_MIN_WORDS",
    "NOVEL_WORDS",
    "Verdict",
    "check_digest_en",
    "prose_fields",
    "words",
]

_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{4,}")


@dataclass(frozen=True)
class Verdict:
    """The checker's judgement of one answer: the digest when it passed, else the problems; for an English
    digest that passed, where each result's numbers stand in its cited sections."""

    digest: Digest | None
    problems: list[Problem]
    evidence: list[list[Evidence]] = field(default_factory=list)


def english(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """No run of Chinese characters in English prose."""
    problems = []
    for path, text in prose_fields(digest):
        run = _CJK_RUN_RE.search(text)
        if run:
            problems.append(Problem("english", path, f"not in English ({run.group(0)!r}): write the field in English"))
    return problems


def prose_number(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """Every figure written in prose outside the findings appears in the paper (a finding's: results.py)."""
    return [
        Problem(
            "prose_number",
            path,
            f"{number.text!r} appears nowhere in the paper: write only figures the paper prints, as printed",
        )
        for path, text in prose_fields(digest, findings=False)
        for number in prose_numbers(text)
        if not facts.anywhere(number)
    ]


def each_result(rule: ResultRule) -> DigestRule:
    """A result's rule applied to every result, in order."""

    def check(digest: Digest, facts: PaperFacts) -> list[Problem]:
        return [p for i, result in enumerate(digest.results) for p in rule(i, result, facts)]

    check.__doc__ = rule.__doc__
    return check


# Every rule of the English digest: (rule id as the problems and the run report name it, its function).
# The answer is cut back to whole sentences first (substance.cut_back); problems are listed in this order.
ENGLISH_RULES: tuple[tuple[str, DigestRule], ...] = (
    ("english", english),
    *((name, each_result(rule)) for name, rule in RESULT_RULES),
    ("prose_number", prose_number),
    ("names", names),
    ("acronym", acronym),
    *SUBSTANCE_RULES,
)


def check_digest_en(
    reply: str, facts: PaperFacts, rules: tuple[tuple[str, DigestRule], ...] = ENGLISH_RULES
) -> Verdict:
    """Check an English digest against the text the model was given (facts: checker/paper.py). A passing
    digest is returned cut back to whole sentences (checker/substance.py says why)."""
    digest, problems = parse_digest(reply)
    return _judged(digest, problems, facts, rules)


def _judged(
    digest: Digest | None, problems: list[Problem], facts: PaperFacts, rules: tuple[tuple[str, DigestRule], ...]
) -> Verdict:
    if digest is None:
        return Verdict(None, problems)
    digest = cut_back(digest)
    problems.extend(rule_problems(digest, facts, rules))
    if problems:
        return Verdict(None, problems)
    return Verdict(digest, [], [_evidence(result, facts) for result in digest.results])


def rule_problems(digest: Digest, facts: PaperFacts, rules: tuple[tuple[str, DigestRule], ...]) -> list[Problem]:
    """Every problem `rules` find in a digest (cut back to whole sentences first: substance.cut_back)."""
    return [problem for _, rule in rules for problem in rule(digest, facts)]


def _evidence(result: Result, facts: PaperFacts) -> list[Evidence]:
    """Where each of the result's numbers (its list and its finding's figures) stands in a cited section."""
    cited = cited_of(result, facts)
    numbers = [n for entry in result.numbers for n in entry_numbers(entry)]
    found: dict[str, Evidence] = {}
    for number in [*numbers, *prose_numbers(result.finding)]:
        tag = facts.in_sections(number, cited)
        if tag is not None and number.text not in found:
            evidence = facts.evidence(number, tag)
            if evidence is not None:
                found[number.text] = evidence
    return list(found.values())
