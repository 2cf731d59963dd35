"""The rules of one result of an English digest, one function each: its sections exist, its numbers are
figures of the paper standing in those sections and belonging to its finding, and its finding is a sentence
that says what the paper found (docs/checker.md, "The rules", has each rule with an example)."""

from __future__ import annotations

import re
from collections.abc import Callable

from papers_digest.checker.fields import words
from papers_digest.checker.numbers import Number, entry_numbers, numbers_in, prose_numbers
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.problems import Problem
from papers_digest.core.models import Evidence, Result

ResultRule = Callable[[int, Result, PaperFacts], list[Problem]]

_ALPHA_WORD_RE = re.compile(r"[A-Za-z]{2,}")
# A finding is a sentence: this many words, this many of them words of letters, this many characters, and,
# when it is short, a verb: an auxiliary, a subject pronoun or a word ending in -s/-ed (a short noun phrase or
# caption has none; a longer text is taken as a sentence, since sentence splitters cut some at "Eq.").
FINDING_MIN_WORDS, FINDING_MIN_ALPHA_WORDS, FINDING_MIN_CHARS, VERB_CHECK_MAX_WORDS = 6, 4, 30, 10
_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|can|could|will|would|may|might|must|shall|"
    r"should|we|it|they|this|these|which|that|[a-z]{2,}(?:ed|es|s))\b"
)
STOP = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "its", "of", "on",
     "or", "our", "that", "the", "their", "this", "to", "we", "with", "via", "using", "paper"}
)  # fmt: skip
# A listed number the finding does not write belongs to it when the sentence it stands in (its evidence)
# holds one of the finding's figures or at least this share of the finding's words. A model lists a figure of
# a neighbouring sentence ("120", from "With just 120 GPU hours, our vsGRPO-2B model …", under "our vsGRPO-7B
# model … achieves performance comparable to … LLaVA-NeXT-Video-72B"), and such a sentence shares about a third
# of the finding's words (the model's name, "fine-tuned from Qwen2-VL"); a finding that restates its own
# sentence shares most of them.
RELATED_SHARE = 0.5
# What a finding about the paper's packaging says, not what the paper found: code, weights or data being
# available (a web address), or what the paper leaves out ("The paper does not provide any specific details
# about …", which a small model writes as a finding when it has none to give).
_PACKAGING_RE = re.compile(
    r"https?://|www\.|github\.com"
    r"|\b(?:codes?|checkpoints?|weights|models?|data(?:sets?)?|demos?|project page|implementation)\b[^.;]{0,60}?"
    r"\b(?:is|are|will be|has been|have been)\s+(?:made\s+)?(?:publicly\s+|freely\s+|also\s+)?"
    r"(?:available|released|open[- ]sourced)\b"
    r"|\b(?:paper|authors?|work|study|text|article)\s+(?:does|do|did)\s+not\s+"
    r"(?:provide|give|report|mention|specify|discuss|describe|include|present|state|detail|explain)\b"
    r"|\bno\s+(?:specific\s+|further\s+|more\s+)?(?:details|information)\s+(?:is|are|was|were)\s+"
    r"(?:given|provided|reported|available)\b",
    re.IGNORECASE,
)


def cited_of(result: Result, facts: PaperFacts) -> list[str]:
    """The result's cited sections that are sections of the paper."""
    return [tag for tag in result.sections if tag in facts.tags]


def _source(cited: list[str]) -> str:
    return f"the cited sections {', '.join(cited)}" if cited else "the section it comes from"


def _well_formed(entry: str) -> list[Number] | None:
    """The numbers of a `numbers` entry, or None when it holds none but labels (rule number_form)."""
    numbers = entry_numbers(entry)
    return None if not numbers or all(n.label for n in numbers) else numbers


def section_unknown(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Every cited section is a tag of the text the model saw."""
    valid = ", ".join(facts.tags)
    return [
        Problem("section_unknown", f"results[{i}].sections", f"{tag!r} is not a section of the paper ({valid})")
        for tag in result.sections
        if tag not in facts.tags
    ]


def number_form(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Each `numbers` entry holds a number that is no label."""
    problems = []
    for entry in result.numbers:
        if _well_formed(entry) is None:
            what = (
                "holds no digit"
                if not any(ch.isdigit() for ch in entry)
                else "is a label (section, table, figure), not a figure"
                if entry_numbers(entry)
                else "holds no number (an identifier?)"
            )
            source = _source(cited_of(result, facts))
            problems.append(
                Problem(
                    "number_form", f"results[{i}].numbers", f"{entry!r} {what}: copy a figure as printed in {source}"
                )
            )
    return problems


def number_unknown(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Each well-formed `numbers` entry appears in the paper."""
    problems = []
    for entry in result.numbers:
        numbers = _well_formed(entry)
        missing = next((n for n in numbers or () if not facts.anywhere(n)), None)
        if missing is not None:
            shown = "" if missing.text == entry else f" ({missing.text!r})"
            source = _source(cited_of(result, facts))
            problems.append(
                Problem(
                    "number_unknown",
                    f"results[{i}].numbers",
                    f"{entry!r}{shown} appears nowhere in the paper: copy it as printed in {source}",
                )
            )
    return problems


def number_section(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Each `numbers` entry that appears in the paper appears in one of the result's cited sections."""
    cited = cited_of(result, facts)
    problems = []
    for entry in result.numbers:
        numbers = _well_formed(entry)
        if not cited or numbers is None or not all(facts.anywhere(n) for n in numbers):
            continue
        missing = next((n for n in numbers if facts.in_sections(n, cited) is None), None)
        if missing is not None:
            problems.append(Problem("number_section", f"results[{i}].numbers", elsewhere(entry, cited, missing, facts)))
    return problems


def finding_prose_number(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Every figure a finding writes appears in the paper (rule prose_number, for a finding)."""
    source = _source(cited_of(result, facts))
    return [
        Problem(
            "prose_number",
            f"results[{i}].finding",
            f"{number.text!r} appears nowhere in the paper: write only figures of {source}, as printed",
        )
        for number in prose_numbers(result.finding)
        if not facts.anywhere(number)
    ]


def finding_number(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """A figure a finding writes that appears in the paper appears in its cited sections."""
    cited = cited_of(result, facts)
    if not cited:
        return []
    return [
        Problem("finding_number", f"results[{i}].finding", elsewhere(number.text, cited, number, facts))
        for number in prose_numbers(result.finding)
        if facts.anywhere(number) and facts.in_sections(number, cited) is None
    ]


def result_empty(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """A result carries a number when its cited sections hold figures (unless the model saw only the
    abstract)."""
    cited = cited_of(result, facts)
    figures = facts.figures_in(cited)
    if result.numbers or not figures or facts.abstract_only:
        return []
    own = [n.text for n in prose_numbers(result.finding) if facts.in_sections(n, cited) is not None]
    examples = ", ".join(dict.fromkeys([*own, *(n.text for n in figures)][:4]))
    return [
        Problem(
            "result_empty",
            f"results[{i}].numbers",
            f"empty, but its sections {', '.join(cited)} hold figures ({examples}, …): "
            "list the ones the finding rests on",
        )
    ]


def finding_sentence(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """A finding is a sentence: enough words of letters, and a verb when it is short."""
    if is_sentence(result.finding):
        return []
    source = _source(cited_of(result, facts))
    return [
        Problem(
            "finding_sentence",
            f"results[{i}].finding",
            f"{result.finding[:60]!r} is not a sentence: say in one sentence (at least "
            f"{FINDING_MIN_WORDS} words, with a verb) what {source} found",
        )
    ]


def number_unrelated(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """Each listed number belongs to the finding: the finding writes it, or the sentence of the cited section
    it stands in (the evidence the site shows) holds one of the finding's figures or shares RELATED_SHARE of
    the finding's words. Entries the other number rules reject are theirs."""
    cited = cited_of(result, facts)
    written = numbers_in(result.finding)
    own = [n for n in prose_numbers(result.finding) if facts.in_sections(n, cited) is not None]
    mine = _content(result.finding)
    problems = []
    for entry in result.numbers:
        numbers = _well_formed(entry)
        if not cited or numbers is None or any(facts.in_sections(n, cited) is None for n in numbers):
            continue
        if any(n.matches(w) or w.matches(n) for n in numbers for w in written):
            continue
        sentences = [e.sentence for n in numbers if (e := _evidence(n, cited, facts)) is not None]
        if any(_related(sentence, own, mine) for sentence in sentences):
            continue
        where = f" (it stands in {_clip(sentences[0])!r})" if sentences else ""
        problems.append(
            Problem(
                "number_unrelated",
                f"results[{i}].numbers",
                f"{entry!r} is not in the finding, nor in the sentence it rests on{where}: "
                "list the figures of the sentence the finding reports, or say what this figure measures",
            )
        )
    return problems


def is_packaging(text: str) -> bool:
    """Whether a text speaks of the paper's packaging (code, links, what it leaves out)."""
    return _PACKAGING_RE.search(text) is not None


def packaging(i: int, result: Result, facts: PaperFacts) -> list[Problem]:
    """A finding says what the paper reports, not where its code is or what it leaves out."""
    found = _PACKAGING_RE.search(result.finding)
    if found is None:
        return []
    return [
        Problem(
            "packaging",
            f"results[{i}].finding",
            f"{_clip(result.finding)!r} is about the paper's packaging ({found.group(0)!r}), "
            f"not a finding: say what {_source(cited_of(result, facts))} found",
        )
    ]


def elsewhere(entry: str, cited: list[str], number: Number, facts: PaperFacts) -> str:
    """The message of a number that is not in the cited sections, with the sections it is in."""
    where = facts.sections_with(number)
    hint = f" (it appears in {', '.join(where[:4])})" if where else ""
    return f"{entry!r} is not in the cited sections {', '.join(cited)}{hint}: cite the section it comes from"


def is_sentence(finding: str) -> bool:
    """Whether a finding reads as a sentence (FINDING_MIN_WORDS words and more; see the constants)."""
    tokens = finding.split()
    alpha = _ALPHA_WORD_RE.findall(finding)
    return (
        len(tokens) >= FINDING_MIN_WORDS
        and len(alpha) >= FINDING_MIN_ALPHA_WORDS
        and len(finding) >= FINDING_MIN_CHARS
        and (len(tokens) > VERB_CHECK_MAX_WORDS or _VERB_RE.search(finding.casefold()) is not None)
    )


def _evidence(number: Number, cited: list[str], facts: PaperFacts) -> Evidence | None:
    tag = facts.in_sections(number, cited)
    return None if tag is None else facts.evidence(number, tag)


def _related(sentence: str, figures: list[Number], mine: set[str]) -> bool:
    held = numbers_in(sentence)
    if any(f.matches(n) for f in figures for n in held):
        return True
    return bool(mine) and len(mine & _content(sentence)) >= RELATED_SHARE * len(mine)


def _content(text: str) -> set[str]:
    """A text's words that carry its facts: no stop words, no bare digits."""
    return {w for w in words(text) if w not in STOP and not w.isdigit()}


def _clip(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


# The per-result rules in the order their problems are listed (the English digest's table names each rule).
RESULT_RULES: tuple[tuple[str, ResultRule], ...] = (
    ("section_unknown", section_unknown),
    ("number_form", number_form),
    ("number_unknown", number_unknown),
    ("number_section", number_section),
    ("prose_number", finding_prose_number),
    ("finding_number", finding_number),
    ("result_empty", result_empty),
    ("finding_sentence", finding_sentence),
    ("number_unrelated", number_unrelated),
    ("packaging", packaging),
)
