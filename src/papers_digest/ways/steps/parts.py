"""The parts of a digest asked in steps, as data: which field each writes, from which sentences, in how many
words; the digest the answers make (a dict, the program's own numbers and sections in it); and which part a
checker problem's field belongs to (pure). How an answer is read into its field is answers.py; the mind map's
topic and ideas, mindmap.py."""

from __future__ import annotations

from dataclasses import dataclass

from papers_digest.checker.fields import prose_fields
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.schema import MAX_NUMBERS
from papers_digest.checker.scope import with_comparison_kept, without_added_comparison
from papers_digest.core.models import Digest, Evidence
from papers_digest.ways.steps.answers import (
    as_given,
    as_studied,
    items,
    one_line,
    said_as_sentence,
    without_method,
)
from papers_digest.ways.steps.mindmap import ideas_of, topic_of, under_topic
from papers_digest.ways.steps.outline import Outline, Source

MOST_TAKEAWAYS = 2
# An answer's cap in tokens: one sentence is about 40; a cap stops a model that goes on.
SENTENCE_TOKENS = 80
MAX_TOKENS = {"TOPIC": 24, "METHOD": 100, "STUDY": 100, "IDEAS": 80}


@dataclass(frozen=True)
class Part:
    """One step: its name in the request (`FINDING [2]`), the prompt's question it asks, the field it writes
    (`results[1]`, `limitations[0]`, `mind_map.children`), the sentences it is written from, and its length."""

    key: str
    question: str
    field: str
    sources: tuple[Source, ...]
    words: int = 25
    given: str = ""  # what the program writes itself, asked of the model only if a rule rejects it

    @property
    def max_tokens(self) -> int:
        return MAX_TOKENS.get(self.question, SENTENCE_TOKENS)

    @property
    def rewritable(self) -> bool:
        """A sentence part that a rewrite in other words can mend (not a label or a list)."""
        return self.question not in ("TOPIC", "IDEAS")

    def owns(self, path: str) -> bool:
        """Whether a problem's field path is this part's field or inside it."""
        return path == self.field or path.startswith((f"{self.field}.", f"{self.field}["))


def plan_parts(outline: Outline) -> list[Part]:
    """The parts, in the order they are asked: problem, method (or what the paper studies), each finding, the
    summary (of the main result, or of the aim), each limitation, the takeaways, the topic and the ideas."""
    parts = [
        Part("PROBLEM", "PROBLEM", "problem", outline.problem),
        # a paper that brings nothing of its own is asked what it studies: asked what it proposes, the 1.5B model
        # gave 2405.15071's study of grokked transformers "a new approach to transformers" (2024-05-27 listing)
        Part("METHOD", "METHOD" if outline.introduces else "STUDY", "method", outline.method, 40),
    ]
    parts += [
        Part(f"FINDING [{i + 1}]", "FINDING", f"results[{i}]", (source,)) for i, source in enumerate(outline.findings)
    ]
    main = (outline.main,) if outline.main is not None else outline.problem[-1:]
    parts.append(Part("SUMMARY", "SUMMARY" if outline.main_is_result else "AIM", "one_sentence", main))
    parts += [
        Part(f"LIMITATION [{i + 1}]", "LIMITATION", f"limitations[{i}]", (source,), 20)
        for i, source in enumerate(outline.limitations)
    ]
    parts += [
        Part("TAKEAWAYS", "TAKEAWAYS", "takeaways", outline.findings or main, 15),
        Part("TOPIC", "TOPIC", "mind_map.label", outline.method, 5, topic_of(outline.title)),
        Part("IDEAS", "IDEAS", "mind_map.children", outline.method, 16),
    ]
    return parts


def assemble(parts: list[Part], answers: dict[str, str], title: str = "") -> dict:
    """The digest the answers make: each part's answer in its field, each finding with the figures of its
    sentence that it writes (all of them when it writes none) and its sentence's section; the paper's `title` is
    what a problem cut short may not restate."""
    digest: dict = {
        "one_sentence": "",
        "problem": "",
        "method": "",
        "results": [],
        "limitations": [],
        "takeaways": [],
        "mind_map": {"label": "", "children": []},
    }
    for part in parts:
        answer = answers.get(part.key, part.given)
        if part.question == "FINDING":
            digest["results"].append(result_of(as_given(part.question, answer, part.sources[0].text), part.sources[0]))
        elif part.question == "LIMITATION":
            digest["limitations"].append(one_line(answer))
        elif part.question == "TAKEAWAYS":
            # a comparison none of the findings' sentences makes taken off, as from a finding (InfGen's takeaway
            # "…, comparable to the state-of-the-art" in all 6 rounds on the 2025-09-15 listing at 6277532), and a
            # superiority over nothing named or over "the benchmark" said as theirs (HANRAG's at a9371dd)
            found = " ".join(s.text for s in part.sources)
            digest["takeaways"] = [
                without_added_comparison(with_comparison_kept(t, found), found) for t in items(answer)[:MOST_TAKEAWAYS]
            ]
        elif part.question == "TOPIC":
            digest["mind_map"]["label"] = one_line(answer).rstrip(".")
        elif part.question == "IDEAS":
            topic = digest["mind_map"]["label"]
            ideas = [under_topic(idea, topic) for idea in ideas_of(answer)]
            # an idea that names the topic again says nothing under it (AnimeGamer's "AnimeGamer")
            ideas = [i for i in ideas if i.casefold() != topic.casefold()] or ideas
            digest["mind_map"]["children"] = [{"label": idea, "children": []} for idea in ideas]
        elif part.question == "SUMMARY":
            digest[part.field] = as_given(part.question, answer, part.sources[0].text)
        elif part.question == "PROBLEM":
            digest[part.field] = as_studied(without_method(said_as_sentence(one_line(answer)), title))
        else:
            digest[part.field] = said_as_sentence(one_line(answer))
    return digest


def result_of(finding: str, source: Source) -> dict:
    """A result from its finding and the sentence it reports."""
    figures = prose_numbers(source.text)
    written = prose_numbers(finding)
    kept = [f.text for f in figures if any(f.matches(w) or w.matches(f) for w in written)] or [f.text for f in figures]
    return {"finding": finding, "numbers": list(dict.fromkeys(kept))[:MAX_NUMBERS], "sections": [source.section]}


def written_from(parts: list[Part]) -> dict[str, list[str]]:
    """Each sentence field's sources, by field (the checker's evidence rules read the findings', the summary's
    and the takeaways'; a summary of the aim owes it no figure)."""
    asked = ("FINDING", "SUMMARY", "TAKEAWAYS")
    return {part.field: [s.text for s in part.sources] for part in parts if part.question in asked}


def field_sentences(digest: Digest, parts: list[Part]) -> dict[str, list[str]]:
    """Each prose field of `digest`, by path, with the sentences its part was written from."""
    found = {}
    for path, _ in prose_fields(digest):
        part = part_of(path, parts)
        if part is not None and part.rewritable:
            found[path] = [s.text for s in part.sources]
    return found


def sources_read(parts: list[Part]) -> dict[str, list[Evidence]]:
    """What each field was written from, with each sentence's section and role (the report and the site show
    it: a reader can check a finding against its sentence)."""
    return {
        part.field: [Evidence(number="", section=s.section, sentence=s.text, role=s.role) for s in part.sources]
        for part in parts
        if part.sources and part.question not in ("TOPIC", "IDEAS", "TAKEAWAYS")
    }


def part_of(path: str, parts: list[Part]) -> Part | None:
    """The part that wrote the field a problem names; None for a problem of the whole digest."""
    return next((part for part in parts if path and part.owns(path)), None)
