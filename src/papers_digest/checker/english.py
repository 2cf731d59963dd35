"""The English digest's rules: every number where it is cited, every figure in prose from the paper, and a
digest that says something (docs/checker.md, "The rules", has each with an example)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from papers_digest.checker.numbers import Number, entry_numbers, prose_numbers
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.parse import parse_digest
from papers_digest.checker.problems import Problem
from papers_digest.core.models import Digest, Evidence, MindMapNode, Result

_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{4,}")
_WORD_RE = re.compile(r"[a-z0-9]+")
_ALPHA_WORD_RE = re.compile(r"[A-Za-z]{2,}")
# A finding is a sentence: this many words, this many of them words of letters, this many characters, and,
# when it is short, a verb: an auxiliary, a subject pronoun or a word ending in -s/-ed (a short noun phrase or
# caption has none; a longer text is taken as a sentence, since sentence splitters cut some at "Eq.").
FINDING_MIN_WORDS, FINDING_MIN_ALPHA_WORDS, FINDING_MIN_CHARS, VERB_CHECK_MAX_WORDS = 6, 4, 30, 10
_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|can|could|will|would|may|might|must|shall|"
    r"should|we|it|they|this|these|which|that|[a-z]{2,}(?:ed|es|s))\b"
)
NOVEL_WORDS = 3  # one_sentence must add this many words to the title's
_STOP = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its", "of", "on",
     "or", "our", "that", "the", "their", "this", "to", "we", "with", "via", "using", "paper"}
)  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """The checker's judgement of one answer: the digest when it passed, else the problems; for an English
    digest that passed, where each result's numbers stand in its cited sections."""

    digest: Digest | None
    problems: list[Problem]
    evidence: list[list[Evidence]] = field(default_factory=list)


def check_digest_en(reply: str, facts: PaperFacts) -> Verdict:
    """Check an English digest against the text the model was given (facts: checker/paper.py)."""
    digest, problems = parse_digest(reply)
    if digest is None:
        return Verdict(None, problems)
    for path, text in prose_fields(digest):  # a run of Chinese characters has no place in English prose
        run = _CJK_RUN_RE.search(text)
        if run:
            problems.append(
                Problem("english", f"{path}: not in English ({run.group(0)!r}): write the field in English")
            )
    for i, result in enumerate(digest.results):
        problems.extend(_result_problems(i, result, facts))
    for path, text in prose_fields(digest, findings=False):
        for number in prose_numbers(text):
            if not facts.anywhere(number):
                problems.append(
                    Problem(
                        "prose_number",
                        f"{path}: {number.text!r} appears nowhere in the paper: write only figures the paper prints, "
                        "as printed",
                    )
                )
    problems.extend(_says_something(digest, facts))
    if problems:
        return Verdict(None, problems)
    return Verdict(digest, [], [_evidence(result, facts) for result in digest.results])


def words(text: str) -> list[str]:
    """The text's words (letters and digits), case-folded: what the rules that compare wording count."""
    return _WORD_RE.findall(text.casefold())


def prose_fields(digest: Digest, *, findings: bool = True) -> list[tuple[str, str]]:
    """The free-text values of a digest with their paths: one_sentence, problem, method, the findings,
    limitations, takeaways and the mind map's labels."""
    fields = [("one_sentence", digest.one_sentence), ("problem", digest.problem), ("method", digest.method)]
    if findings:
        fields += [(f"results[{i}].finding", r.finding) for i, r in enumerate(digest.results)]
    fields += [(f"limitations[{i}]", text) for i, text in enumerate(digest.limitations)]
    fields += [(f"takeaways[{i}]", text) for i, text in enumerate(digest.takeaways)]
    fields += _labels(digest.mind_map, "mind_map")
    return fields


def _labels(node: MindMapNode, path: str) -> list[tuple[str, str]]:
    found = [(f"{path}.label", node.label)]
    for i, child in enumerate(node.children):
        found += _labels(child, f"{path}.children[{i}]")
    return found


def _result_problems(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    problems = []
    cited = [tag for tag in result.sections if tag in facts.tags]
    for tag in result.sections:
        if tag not in facts.tags:
            valid = ", ".join(facts.tags)
            problems.append(
                Problem("section_unknown", f"results[{i}].sections: {tag!r} is not a section of the paper ({valid})")
            )
    source = f"the cited sections {', '.join(cited)}" if cited else "the section it comes from"
    for entry in result.numbers:
        numbers = entry_numbers(entry)
        if not numbers or all(n.label for n in numbers):
            what = (
                "holds no digit"
                if not any(ch.isdigit() for ch in entry)
                else "is a label (section, table, figure), not a figure"
                if numbers
                else "holds no number (an identifier?)"
            )
            problems.append(
                Problem("number_form", f"results[{i}].numbers: {entry!r} {what}: copy a figure as printed in {source}")
            )
        elif not all(facts.anywhere(n) for n in numbers):
            missing = next(n for n in numbers if not facts.anywhere(n))
            shown = "" if missing.text == entry else f" ({missing.text!r})"
            problems.append(
                Problem(
                    "number_unknown",
                    f"results[{i}].numbers: {entry!r}{shown} appears nowhere in the paper: copy it as printed in "
                    f"{source}",
                )
            )
        elif cited and any(facts.in_sections(n, cited) is None for n in numbers):
            missing = next(n for n in numbers if facts.in_sections(n, cited) is None)
            where = _elsewhere(f"results[{i}].numbers", entry, cited, missing, facts)
            problems.append(Problem("number_section", where))
    for number in prose_numbers(result.finding):
        if not facts.anywhere(number):
            problems.append(
                Problem(
                    "prose_number",
                    f"results[{i}].finding: {number.text!r} appears nowhere in the paper: write only figures of "
                    f"{source}, as printed",
                )
            )
        elif cited and facts.in_sections(number, cited) is None:
            where = _elsewhere(f"results[{i}].finding", number.text, cited, number, facts)
            problems.append(Problem("finding_number", where))
    figures = facts.figures_in(cited)
    if not result.numbers and figures and not facts.abstract_only:
        own = [n.text for n in prose_numbers(result.finding) if facts.in_sections(n, cited) is not None]
        examples = ", ".join(dict.fromkeys([*own, *(n.text for n in figures)][:4]))
        problems.append(
            Problem(
                "result_empty",
                f"results[{i}].numbers: empty, but its sections {', '.join(cited)} hold figures ({examples}, …): "
                "list the ones the finding rests on",
            )
        )
    if not _is_sentence(result.finding):
        problems.append(
            Problem(
                "finding_sentence",
                f"results[{i}].finding: {result.finding[:60]!r} is not a sentence: say in one sentence (at least "
                f"{FINDING_MIN_WORDS} words, with a verb) what {source} found",
            )
        )
    return problems


def _elsewhere(path: str, entry: str, cited: list[str], number: Number, facts: PaperFacts) -> str:
    where = facts.sections_with(number)
    hint = f" (it appears in {', '.join(where[:4])})" if where else ""
    return f"{path}: {entry!r} is not in the cited sections {', '.join(cited)}{hint}: cite the section it comes from"


def _is_sentence(finding: str) -> bool:
    words = finding.split()
    alpha = _ALPHA_WORD_RE.findall(finding)
    return (
        len(words) >= FINDING_MIN_WORDS
        and len(alpha) >= FINDING_MIN_ALPHA_WORDS
        and len(finding) >= FINDING_MIN_CHARS
        and (len(words) > VERB_CHECK_MAX_WORDS or _VERB_RE.search(finding.casefold()) is not None)
    )


def _says_something(digest: Digest, facts: PaperFacts) -> list[Problem]:
    problems = []
    title_words = set(words(facts.title))
    novel = [w for w in words(digest.one_sentence) if w not in title_words and w not in _STOP]
    if len(novel) < NOVEL_WORDS:
        problems.append(
            Problem(
                "title_restated",
                f"one_sentence: {digest.one_sentence[:80]!r} restates the title {facts.title[:80]!r}: say in one "
                "sentence what the paper does and what it found",
            )
        )
    cited = {frozenset(r.sections) for r in digest.results}
    if len(digest.results) > 1 and len(cited) == 1:
        (only,) = cited
        others = [tag for tag in facts.tags if tag not in only]
        if others:
            listed = ", ".join(tag for tag in facts.tags if tag in only) or ", ".join(sorted(only))
            problems.append(
                Problem(
                    "same_sections",
                    f"results[0..{len(digest.results) - 1}].sections: every result cites {listed}: cite the section "
                    f"each finding comes from (the paper also has {', '.join(others[:8])})",
                )
            )
    return problems


def _evidence(result: Result, facts: PaperFacts) -> list[Evidence]:
    """Where each of the result's numbers (its list and its finding's figures) stands in a cited section."""
    cited = [tag for tag in result.sections if tag in facts.tags]
    numbers = [n for entry in result.numbers for n in entry_numbers(entry)]
    found: dict[str, Evidence] = {}
    for number in [*numbers, *prose_numbers(result.finding)]:
        tag = facts.in_sections(number, cited)
        if tag is not None and number.text not in found:
            evidence = facts.evidence(number, tag)
            if evidence is not None:
                found[number.text] = evidence
    return list(found.values())
