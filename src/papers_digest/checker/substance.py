"""Rules for a digest that says something, one function each: its fields end as sentences end, are its own
words, differ from each other and from the title, and its results come from different sections.

A small model's digests, held to their schema, can pass every rule of the numbers and sections and still say
nothing: one_sentence, problem and all six findings the abstract's first sentence
cut off mid-word ("… struggle to address the t"); six findings that were three sentences written twice,
one "Codes and checkpoints are available at …"; the title as the problem; findings that were paragraphs of the
paper cut at 400 characters.

Length caps. The schema caps every string (a small model that starts repeating itself runs into the cap
instead of into llm.max_tokens, checker/schema.py), and a grammar that reaches a cap closes the string
there, mid-word. The checker does not move that stop to a sentence end in the grammar: a grammar cannot
tell the end of a word from the middle of one (forced to close at the cap, it closes "Howeve" as readily as
"However", with or without a full stop), and a pattern for "sentences" would slow every token. Instead the
prompt gives each field's length, and before any rule the checker cuts a field that did not end as a
sentence ends back to its last full sentence (`cut_back`): the reader gets whole sentences, and what was
cut is not judged. A field with no full sentence to keep is rejected (`cut_off`) and asked for again when it
was cut: CUT_SHARE of its cap long, or stopping inside a passage it copies ("… and observe strong", where
the paper goes on; passages.stops_mid_passage). A short phrase without a full stop (the offline model's
limitation "It neglects historical visual context", a title) is left to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from papers_digest.checker.fields import cap_of, prose_fields, words
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.passages import ABBREVIATIONS, Run, longest_run, stops_mid_passage
from papers_digest.checker.paths import set_field
from papers_digest.checker.problems import Problem
from papers_digest.checker.results import STOP
from papers_digest.core.models import Digest
from papers_digest.reading.words import words_not_in

DigestRule = Callable[[Digest, PaperFacts], list[Problem]]

NOVEL_WORDS = 3  # one_sentence and problem must add this many words to the title's
# How many results a digest reports, (fewest, most): never more than the input holds claims
# (docs/checker.md, "Ways of asking"). An abstract may hold a single finding, so one is enough; a full text
# gives three, or one per section that states a figure when it has fewer such sections.
RESULTS_FULL_TEXT, RESULTS_ABSTRACT = (3, 6), (1, 3)
# A field is cut when it does not end as a sentence ends and is at least this share of its cap long: the
# grammar closed it (at the cap; the retry's bound grammar caps at half the characters, in pieces). A shorter
# field without a full stop was ended by the model: a label-like phrase the other rules judge.
CUT_SHARE = 0.5
# A field is a near-copy of another when this share of the shorter one's word trigrams is in the other.
# Measured: between the fields of the checker suite's faithful digests at most 0.23 (one_sentence summing up a
# finding); a repeated finding 1.0, and a copy cut at another length stays near 1.
REPEAT_SHARE = 0.5
# A summary (one_sentence, problem, method, limitations, takeaways) is the model's words: no run of
# COPY_WORDS consecutive words of the paper, and no run of SHORT_COPY_WORDS making up COPY_SHARE of it. The
# suite's faithful summaries copy at most 8 words in a row (a name with its phrase, "continuous batching and
# content-based prefix caching"); a small model's copied ones 9 to 16 ("large language models (LLMs) to
# translate multi-turn text dialogues into language instructions for image generation"), and 9 of 9 in a
# problem ("Transforming characters from anime films into interactive, playable entities").
# A finding may quote the one sentence it reports (the evidence the site shows under it is that sentence,
# and the suite's faithful findings do, up to 44 words), never a passage: copied words that run across a
# sentence end of the paper.
COPY_WORDS, SHORT_COPY_WORDS, COPY_SHARE = 12, 8, 0.8
LABEL_WORDS = 8  # a topic or an idea named, not said
_SENTENCE_END_RE = re.compile(r"[.!?。！？][\"')\]”’]*$")
_INNER_END_RE = re.compile(r"([A-Za-z0-9]*)[.!?][\"')\]”’]*(?=\s)")


def ends_as_sentence(text: str) -> bool:
    """Whether a text's last character ends a sentence (a full stop, ! or ?, closing quotes aside)."""
    return _SENTENCE_END_RE.search(text.rstrip()) is not None


def _summaries(digest: Digest) -> list[tuple[str, str]]:
    fields = [("one_sentence", digest.one_sentence), ("problem", digest.problem), ("method", digest.method)]
    fields += [(f"limitations[{i}]", text) for i, text in enumerate(digest.limitations)]
    return fields + [(f"takeaways[{i}]", text) for i, text in enumerate(digest.takeaways)]


def _sentence_fields(digest: Digest) -> list[tuple[str, str]]:
    """The fields that must end as sentences end: the summaries and the findings."""
    return [*_summaries(digest), *((f"results[{i}].finding", r.finding) for i, r in enumerate(digest.results))]


def _cut(path: str, text: str, facts: PaperFacts) -> bool:
    """Whether a field was cut off: it does not end as a sentence ends, and it is long (CUT_SHARE of its cap)
    or stops inside a passage it copies (passages.stops_mid_passage)."""
    if ends_as_sentence(text):
        return False
    return len(text.strip()) >= CUT_SHARE * cap_of(path) or stops_mid_passage(text, facts.passages)


def cut_back(digest: Digest) -> Digest:
    """The digest with every field that does not end as a sentence ends cut back to its last full sentence,
    where it has one: a field the grammar closed at its cap, or any other unfinished tail after a full
    sentence ("… and image generation. Howeve", shorter than any cap)."""
    data = digest.model_dump()
    for path, text in _sentence_fields(digest):
        ends = [] if ends_as_sentence(text) else _inner_ends(text)
        if not ends:
            continue  # a whole field, a phrase without a full stop, or nothing to keep (rule cut_off)
        set_field(data, path, text[: ends[-1]].strip())
    return Digest.model_validate(data)


def _inner_ends(text: str) -> list[int]:
    """Where sentences end inside a text: after a full stop, ! or ? before a space, not after an
    abbreviation or an initial ("et al.", "Fig.", "Dr. GRPO", "J. Smith")."""
    return [
        m.end()
        for m in _INNER_END_RE.finditer(text)
        if m.group(1).casefold() not in ABBREVIATIONS and not (len(m.group(1)) == 1 and m.group(1).isalpha())
    ]


def cut_off(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """A field cut off mid-sentence with no full sentence before the cut (the cut-back keeps the others)."""
    return [
        Problem(
            "cut_off",
            path,
            f"cut off mid-sentence ('…{text.strip()[-40:]}'): write it shorter, in whole sentences that end "
            "with a full stop",
        )
        for path, text in _sentence_fields(digest)
        if _cut(path, text, facts)
    ]


def results_wanted(facts: PaperFacts) -> tuple[int, int]:
    """How many results a digest of this input reports, (fewest, most): an abstract's at least one, a full
    text's at least three or as many as its sections that state a figure, when fewer."""
    if facts.abstract_only:
        return RESULTS_ABSTRACT
    fewest, most = RESULTS_FULL_TEXT
    with_figures = sum(1 for tag in facts.tags if facts.levels.get(tag, 1) <= 1 and facts.figures_in([tag]))
    return max(1, min(fewest, with_figures)), most


def results_count(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """At least as many results as the input holds findings (results_wanted)."""
    fewest, _ = results_wanted(facts)
    if len(digest.results) >= fewest:
        return []
    seen = "the abstract" if facts.abstract_only else "the paper"
    return [
        Problem(
            "results_count",
            "results",
            f"{len(digest.results)} of at least {fewest}: report {fewest} or more different findings of "
            f"{seen}, each from the section it comes from",
        )
    ]


def restates_title(text: str, title: str) -> bool:
    """Whether `text` adds fewer than NOVEL_WORDS words (stop words aside) to the title's."""
    title_words = set(words(title))
    return len([w for w in words(text) if w not in title_words and w not in STOP]) < NOVEL_WORDS


def title_restated(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """one_sentence and problem each add NOVEL_WORDS words to the title's."""
    problems = []
    for path, text in (("problem", digest.problem), ("one_sentence", digest.one_sentence)):
        if restates_title(text, facts.title):
            what = "what the paper does and what it found" if path == "one_sentence" else "the problem it addresses"
            problems.append(
                Problem(
                    "title_restated",
                    path,
                    f"{text[:80]!r} restates the title {facts.title[:80]!r}: say in a sentence {what}",
                )
            )
    return problems


def same_sections(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """Results do not all cite the same sections, unless the paper has no others."""
    cited = {frozenset(r.sections) for r in digest.results}
    if len(digest.results) <= 1 or len(cited) != 1:
        return []
    (only,) = cited
    others = [tag for tag in facts.tags if tag not in only]
    if not others:
        return []
    listed = ", ".join(tag for tag in facts.tags if tag in only) or ", ".join(sorted(only))
    return [
        Problem(
            "same_sections",
            "results",
            f"every result cites {listed}: cite the sections each "
            f"finding comes from (the paper also has {', '.join(others[:8])})",
        )
    ]


def repeated(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """No finding repeats another, and problem, method, the findings and one_sentence are not near-copies of
    each other (REPEAT_SHARE of word trigrams); the later field in writing order is named, so its retry
    writes it anew."""
    order = [("problem", digest.problem), ("method", digest.method)]
    order += [(f"results[{i}].finding", r.finding) for i, r in enumerate(digest.results)]
    order.append(("one_sentence", digest.one_sentence))
    problems = []
    for later, (path, text) in enumerate(order):
        earlier = next((p for p, other in order[:later] if overlap(text, other) >= REPEAT_SHARE), None)
        if earlier is not None:
            what = "what else the paper found" if path.startswith("results[") else "it in its own words"
            problems.append(
                Problem(
                    "repeated",
                    path,
                    f"{_clip(text)!r} repeats {earlier}: say {what}, not the same sentence again",
                    about=earlier,
                )
            )
    return problems


def copied(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """A summary copies no long run of the paper's words, a finding no passage (see COPY_WORDS)."""
    problems = []
    for path, text in _summaries(digest):
        run = _copied_summary(text, facts)
        if run is not None:
            problems.append(
                Problem(
                    "copied",
                    path,
                    f"copies {run.length} words of the paper ('{_clip(run.text)}'): say it in your own words, shorter",
                )
            )
    for i, result in enumerate(digest.results):
        passage = next((run for run in facts.passages.runs(result.finding) if run.crosses), None)
        if passage is not None:
            problems.append(
                Problem(
                    "copied",
                    f"results[{i}].finding",
                    f"copies a passage of the paper, {passage.length} words across its "
                    f"sentences ('{_clip(passage.text)}'): say in one sentence what was found",
                )
            )
    return problems


def _copied_summary(text: str, facts: PaperFacts) -> Run | None:
    runs = facts.passages.runs(text)
    if not runs:
        return None
    longest = max(runs, key=lambda run: run.weight)
    if longest.weight >= COPY_WORDS:
        return longest
    longest = runs[0]
    if longest.length >= SHORT_COPY_WORDS and longest.length >= COPY_SHARE * len(words(text)):
        return longest
    return None


def label(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """A mind-map label the model words is a label of at most LABEL_WORDS words, not a sentence, and in the
    paper's words: at least half of its words that name something are the paper's (asked in steps; a JSON
    answer's root label is often the paper's whole title). On the 2026-01-13 listing at 6f6e3a3, GlimpRouter's
    and BabyVision's ideas were "Token merging", the prompt's example, which neither paper is about."""
    problems = []
    tail = facts.title.partition(":")[2]
    # the title said back, or its tail where that names the paper's kind ("A Critical Perspective", "An Empirical
    # Study"); a tail that names its subject is an idea ("BabyVision: Visual Reasoning Beyond Language")
    title_parts = {_folded(facts.title)} | ({_folded(tail)} if _GENRE_RE.fullmatch(tail.strip()) else set())
    for path, text in prose_fields(digest):
        if not path.endswith(".label"):
            continue
        named, absent = words_not_in(text, facts.word_forms)
        if path.startswith("mind_map.children") and _folded(text) in title_parts:
            # "A Critical Perspective", the tail of "Understanding R1-Zero-Like Training: A Critical Perspective",
            # the only idea of its mind map in the sample run at d9e4f29: the title said back, no idea under it
            problems.append(Problem("label", path, f"{text!r} is the paper's title: name an idea of the paper"))
        elif len(text.split()) > LABEL_WORDS:
            problems.append(
                Problem("label", path, f"{_clip(text)!r} is a sentence, not a label: name it in two to five words")
            )
        elif absent and 2 * len(absent) >= len(named):
            problems.append(
                Problem(
                    "label",
                    path,
                    f"{text!r} is not in the paper's words ({', '.join(absent)}): name what this paper says, "
                    "in its own words",
                )
            )
    return problems


_GENRE_RE = re.compile(r"(?:an?|the)\s+\S+(?:\s+\S+)?", re.IGNORECASE)  # an article and one or two words


def _folded(text: str) -> str:
    return " ".join(text.casefold().replace(":", " ").split()).strip(" .")


def distinct_findings(digest: Digest) -> int:
    """How many of the findings say something the others do not (near-copies, REPEAT_SHARE, count once)."""
    kept: list[str] = []
    for result in digest.results:
        if all(overlap(result.finding, other) < REPEAT_SHARE for other in kept):
            kept.append(result.finding)
    return len(kept)


def longest_copy(digest: Digest, facts: PaperFacts) -> int:
    """The most consecutive words of the paper that one prose field carries (mind-map labels aside)."""
    runs = (longest_run(text, facts.passages) for path, text in prose_fields(digest) if not path.endswith(".label"))
    return max(runs, default=0)


def overlap(a: str, b: str) -> float:
    """The share of the shorter text's word trigrams found in the other (1.0 for a copy, cut or not)."""
    first, second = _trigrams(a), _trigrams(b)
    if not first or not second:
        return float(words(a) == words(b) and bool(words(a)))
    return len(first & second) / min(len(first), len(second))


def _trigrams(text: str) -> set[tuple[str, ...]]:
    found = words(text)
    return {tuple(found[i : i + 3]) for i in range(len(found) - 2)}


def _clip(text: str, most: int = 80) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


# The digest-level rules, in the order their problems are listed.
SUBSTANCE_RULES: tuple[tuple[str, DigestRule], ...] = (
    ("results_count", results_count),
    ("cut_off", cut_off),
    ("title_restated", title_restated),
    ("same_sections", same_sections),
    ("repeated", repeated),
    ("copied", copied),
)
