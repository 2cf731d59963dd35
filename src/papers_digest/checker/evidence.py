"""What a field owes the sentences it was written from, when the program chose them (a digest asked in steps;
docs/checker.md, "Asked in steps"): a finding in its own words, with no figure its sentence does not state and
no talk of "the sentence" itself, each keeping its sentence's scope; a summary of the main result keeping that
result's scope and its figure."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from papers_digest.checker.fields import words
from papers_digest.checker.numbers import prose_numbers, ratios_said
from papers_digest.checker.passages import PaperWords
from papers_digest.checker.problems import Problem
from papers_digest.checker.scope import decrease_dropped, scope_dropped
from papers_digest.core.models import Digest
from papers_digest.reading.outcomes import paper_doing, says_what_it_does

# A finding copies its sentence when it carries this many of its words in a row (names and figures counted
# half: passages.NAME_WEIGHT), or a run that is this share of the finding (docs/reading.md, "Copying").
COPY_WORDS, COPY_SHARE = 12, 0.8
# A field that speaks of the numbered or quoted sentence rather than of the paper: "sentence [3]", or "The
# sentence (…) shows/reads/says …" at its start; one_line (ways/steps/answers.py) takes the said-back opening off.
FRAMED_RE = re.compile(
    r"\bsentences? \[\d+\]|^(?:the|this) sentence\b(?: \[\d+\])?(?: \"[^\"]*\")?:? "
    r"(?:reads|is|says|states|found|showcases|shows|indicates|reports|demonstrates|highlights|suggests)\b"
    r"(?: that)?,?",
    re.IGNORECASE,
)


def evidence_problems(digest: Digest, written_from: Mapping[str, Sequence[str]]) -> list[Problem]:
    """The problems of each finding against its sentence (`written_from["results[i]"]`), of the summary
    against the main result (`written_from["one_sentence"]`, when it was written from a result), and of each
    takeaway against the findings' sentences (`written_from["takeaways"]`: their decreases)."""
    problems: list[Problem] = []
    for i, result in enumerate(digest.results):
        sentence = " ".join(written_from.get(f"results[{i}]", ()))
        if sentence:
            problems += finding_owes(f"results[{i}].finding", result.finding, sentence)
    main = " ".join(written_from.get("one_sentence", ()))
    if main:
        problems += summary_owes(digest.one_sentence, main)
    # a takeaway keeps the findings' decreases: GlimpRouter's "improves accuracy by 10.7% and latency by 25.9%"
    # (the 2026-01-13 listing at eb60280), its Chinese 增加 … 25.9%的延迟
    found = " ".join(written_from.get("takeaways", ()))
    for i, takeaway in enumerate(digest.takeaways if found else []):
        lost = decrease_dropped(takeaway, found)
        if lost:
            problems.append(Problem("scope", f"takeaways[{i}]", lost))
    return problems


def finding_owes(path: str, finding: str, sentence: str) -> list[Problem]:
    """A finding against the sentence it reports."""
    problems = []
    framed = FRAMED_RE.search(finding)
    if framed:
        problems.append(
            Problem(
                "echo",
                path,
                f"speaks of the sentence ('{framed.group(0)}') instead of saying what it shows: say what the paper "
                "found, in your own words",
            )
        )
    run = copied_run(finding, sentence)
    if run:
        problems.append(
            Problem(
                "copied", path, f"copies {run} words of the sentence it reports: say in your own words what it shows"
            )
        )
    # a ratio said with "times" is a figure too: InfGen's finding on the 2025-09-15 listing at 8cf3c2e added "about
    # 4 times faster than the current state-of-the-art" to a sentence that states no ratio
    figures = prose_numbers(sentence) + [n for _, n in ratios_said(sentence)]
    written = [(n.text, n) for n in prose_numbers(finding)] + ratios_said(finding)
    foreign = [text for text, n in written if not any(n.matches(f) for f in figures)]
    if foreign:
        problems.append(
            Problem("finding_number", path, f"{foreign[0]!r} is not in the sentence it reports: write only its figures")
        )
    changed = scope_dropped(finding, sentence)
    if changed:
        problems.append(Problem("scope", path, changed))
    return problems + doing_problems(path, finding, sentence)


def doing_problems(path: str, text: str, sentence: str) -> list[Problem]:
    """A field that says what the paper does where the sentence it was written from says what was found or
    claimed: X-Part's "This work establishes a new paradigm for creating production-ready … 3D assets" came back
    as "The paper introduces a new approach for crafting high-quality 3D assets", GlimpRouter's "These results
    suggest a simple yet effective mechanism for reasoning …" as "The paper presents a straightforward yet
    efficient approach …" (the 2025-09-15 and 2026-01-13 listings at 9ea04b0): a reader reads the method restated
    as a finding."""
    doing = paper_doing(text)
    if doing is None or paper_doing(sentence) or says_what_it_does(sentence):
        return []
    return [
        Problem(
            "finding_doing",
            path,
            f"says what the paper does ('{doing}') where the paper's sentence says what it found: say what it found",
        )
    ]


def copied_run(text: str, sentence: str) -> int:
    """The words in a row `text` copies of its sentence when that is copying (COPY_WORDS of them, names and
    figures counted half, or a run making up COPY_SHARE of the text), else 0 (docs/reading.md, "Copying")."""
    runs = PaperWords.of(sentence).runs(text)
    weighed = max((run.weight for run in runs), default=0.0)
    longest = runs[0].length if runs else 0
    return longest if weighed >= COPY_WORDS or longest >= COPY_SHARE * len(words(text)) else 0


def summary_owes(summary: str, sentence: str) -> list[Problem]:
    """The summary against the main result it sums up: its scope, and its figure where it states one."""
    changed = scope_dropped(summary, sentence)
    if changed:
        return [Problem("scope", "one_sentence", changed)]
    doing = doing_problems("one_sentence", summary, sentence)
    if doing:
        return doing
    figures = [n for n in prose_numbers(sentence) if n.counts_in_prose and n.unit != "B"]
    if figures and not any(n.matches(f) for n in prose_numbers(summary) for f in figures):
        shown = ", ".join(dict.fromkeys(f.text for f in figures[:3]))
        return [Problem("summary_figure", "one_sentence", f"states no figure of the main result ({shown}): give one")]
    return []
