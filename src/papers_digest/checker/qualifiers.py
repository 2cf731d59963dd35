"""What a sentence states with its figures that a field written from it keeps (docs/checker.md, rule `scope`):
the hedge that bounds a figure ("up to", "about"), the model size and the benchmark it is for, what it is
compared with, and a negation ("not using any template"). Read here; judged in scope.py."""

from __future__ import annotations

import re

from papers_digest.checker.numbers import Number, normalise_for_match, prose_numbers

# Hedges that bound a figure, each with the words that say the same (a kept hedge may be reworded).
HEDGES: tuple[tuple[str, ...], ...] = (
    ("up to", "as much as", "at most", "as high as"),
    ("on average", "average", "averaged", "mean"),
    ("about", "approximately", "around", "roughly", "nearly", "almost", "~", "≈"),
    ("over", "more than", "above", "at least", "exceeding", "beyond"),
    ("less than", "under", "below", "fewer than", "within"),
)
HEDGE_WINDOW = 4  # words before a figure in which its hedge stands
# A model size stated as a figure: "7B", "1.5B", "72B", "405M" (parameters).
SIZE_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[BM]\b")
# A benchmark or dataset the sentence names: a name after "on", "across" or "in" (the ... ), or before
# "benchmark(s)/dataset(s)".
_BENCHMARK_RE = re.compile(
    r"\b(?:on|across|in|over)\s+(?:the\s+|a\s+|both\s+|all\s+)?([A-Z][\w.+-]*(?:[\s-][A-Z0-9][\w.+-]*){0,2})"
    r"|([A-Z][\w.+-]*[A-Z0-9][\w.+-]*)\s+(?:benchmarks?|datasets?|suite)\b"
)


def hedge_before(text: str, figure: Number) -> int | None:
    """Which of HEDGES stands right before `figure` in `text` (an article between aside: "up to a 9.0-point"),
    or None."""
    norm = normalise_for_match(text)
    for number in prose_numbers(text):
        if not number.matches(figure):
            continue
        before = norm[: number.start].casefold().split()[-HEDGE_WINDOW:]
        while before and before[-1] in ("a", "an", "the"):
            before.pop()
        said = " ".join(before)
        for index, words in enumerate(HEDGES):
            if any(said.endswith(w) and (len(said) == len(w) or not said[-len(w) - 1].isalnum()) for w in words):
                return index
    return None


def benchmarks_in(sentence: str) -> list[str]:
    """The benchmarks or datasets a sentence states a result on (names after "on", "across", …)."""
    found = []
    for match in _BENCHMARK_RE.finditer(sentence):
        name = (match.group(1) or match.group(2) or "").strip(" .,;")
        first = name.split()[0] if name else ""
        if first and _name_like(first) and first not in found:
            found.append(first)
    return found


def _name_like(word: str) -> bool:
    """A benchmark's name, not a capitalised word: two capitals or more, or a digit ("ImageNet", "GSM8K")."""
    return sum(c.isupper() for c in word) >= 2 or any(c.isdigit() for c in word)


# What a figure is measured against: "an improvement of about 60% compared to the traditional 4-shot prompting"
# (R1-Zero's finding in the sample run at 983be3c kept the 60% and dropped the prompting: a gain over nothing).
# The phrase ends at a clause's end or at the benchmark it is measured on.
_BASELINE_RE = re.compile(
    r"\b(?:compared\s+(?:to|with)|relative\s+to|versus|vs\.?)\s+(?![\d~≈])"
    r"((?:(?!\b(?:on|in|across|while|and|for|at|by)\b)[^,;:.()])+)",
    re.IGNORECASE,
)
_BASELINE_FILLER = frozenset({"the", "a", "an", "its", "their", "our", "this", "that", "those", "these"})


def baseline_of(sentence: str) -> str | None:
    """The words a figure of `sentence` is compared with ("the traditional 4-shot prompting"), where a figure
    stands before them in the same clause; None where it states none."""
    for match in _BASELINE_RE.finditer(sentence):
        clause = re.split(r"[;:]", sentence[: match.start()])[-1]
        phrase = match.group(1).strip()
        if prose_numbers(clause) and any(w.lower() not in _BASELINE_FILLER for w in phrase.split()):
            return phrase
    return None


def names_baseline(text: str, baseline: str) -> bool:
    """Whether `text` names the baseline: one of its words of four letters or more ("prompting", "standalone"),
    any ending ("prompts" for "prompting")."""
    written = stems(text)
    return any(w[:5].casefold() in written for w in re.findall(r"[\w-]+", baseline) if len(w) >= 4)


def stems(text: str) -> set[str]:
    """The first five letters of each word of `text`, case aside: a word matched whatever its ending
    ("prompts" for "prompting", "templates" for "template")."""
    return {w[:5].casefold() for w in re.findall(r"[\w-]+", text)}


# A negation, which a field keeps (R1-Zero's "not using any template can drastically boost the average performance"
# came back as "Use templates to enhance performance" in the sample run at 3bbae28); "not only" negates nothing.
NEGATION_RE = re.compile(
    r"\b(?:not(?!\s+only\b)|no(?!\s+(?:matter|less)\b)|never|without|none|nor|neither|cannot|\w+n't)\b",
    re.IGNORECASE,
)
# What says "not" in other words: "Removing templates", "template-free", "rather than", "instead of".
_NEGATION_SAID_RE = re.compile(
    rf"{NEGATION_RE.pattern}|\b(?:remov\w*|free|absen\w*|lack\w*|omit\w*|eliminat\w*|skip\w*|rather than|"
    r"instead of|dropp\w*)\b",
    re.IGNORECASE,
)
NEGATED_WORDS = 3  # the words after a negation that it negates


def negation_dropped(text: str, sentence: str) -> str | None:
    """The negation of `sentence` ("not using any template") that `text` drops while it speaks of what it negates
    ("Use templates to enhance performance"), or while it keeps a figure the sentence states after it, of what it
    negates ("R1-Zero-Like Training … improves average performance … by about 60%", R1-Zero's finding in the
    sample run at 0c20fad, the 60% that "not using any template" brings given to another subject): the meaning
    turned over. A text that leaves the negated words and their figures out altogether drops a detail."""
    if _NEGATION_SAID_RE.search(text):
        return None
    written = stems(text)
    kept = prose_numbers(text)
    for match in NEGATION_RE.finditer(sentence):
        after = re.findall(r"[A-Za-z][\w-]*", sentence[match.end() :])[:NEGATED_WORDS]
        negated = [w for w in after if len(w) >= 4 and w.casefold() not in _NEGATED_FILLER]
        figures = prose_numbers(sentence[match.end() :])
        if any(w[:5].casefold() in written for w in negated) or any(k.matches(f) for k in kept for f in figures):
            return f"{match.group(0)} {' '.join(after)}"
    return None


_NEGATED_FILLER = frozenset({"only", "more", "much", "been", "have", "also", "even", "just", "that", "this", "with"})


# A figure said in words ("two million tokens"), which the number reader leaves to prose; a hedge before it
# bounds it as one before "2M" would. PaCoRe's finding on the 2026-01-13 listing at 94b905f said "scaling effective
# TTC to two million tokens" for the sentence's "to roughly two million tokens", and passed.
WORD_FIGURE_RE = re.compile(
    r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few|tens\s+of|hundreds\s+of)\s+)?"
    r"(?P<scale>hundred|thousand|million|billion)s?\b",
    re.IGNORECASE,
)


def word_figure_hedge_dropped(text: str, sentence: str) -> tuple[str, str] | None:
    """The hedge `sentence` puts before a figure said in words ("roughly two million") that `text` writes without
    it, and that figure, or None."""
    for match in WORD_FIGURE_RE.finditer(sentence):
        hedge = _hedge_ending(sentence[: match.start()])
        at = text.casefold().find(match.group(0).casefold())
        if hedge is not None and at >= 0 and _hedge_ending(text[:at]) != hedge:
            return HEDGES[hedge][0], match.group(0)
    return None


def _hedge_ending(text: str) -> int | None:
    """Which of HEDGES the text ends on, or None."""
    said = " ".join(text.casefold().split()[-HEDGE_WINDOW:])
    return next((i for i, words in enumerate(HEDGES) if any(said.endswith(f" {w}") or said == w for w in words)), None)
