"""The paper as the checker reads it: which numbers each section holds, and the sentence each stands in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from papers_digest.checker.numbers import Number, normalise_for_match, numbers_in
from papers_digest.checker.passages import PaperWords
from papers_digest.core.markup import ABSTRACT, section_texts
from papers_digest.core.models import Evidence, FulltextDoc
from papers_digest.reading.words import text_forms

EVIDENCE_CHARS = 300
OUTSIDE = "*"  # the "section" of lines LaTeXML placed outside every section
_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


@dataclass(frozen=True)
class PaperFacts:
    """A paper's checkable facts, computed once per paper (pure)."""

    title: str
    tags: tuple[str, ...]
    levels: dict[str, int]  # tag -> 0 abstract, 1 section or appendix, 2 subsection, 3 subsubsection
    texts: dict[str, str]  # tag -> normalised text of the section with its subsections
    numbers: dict[str, tuple[Number, ...]]  # tag -> the number tokens of that text
    everywhere: tuple[Number, ...]  # every number token of the paper (title and unsectioned lines included)
    unsectioned: tuple[Number, ...]  # numbers of lines outside every section: citable under any section
    abstract_only: bool
    whole: str = ""  # the normalised title and text

    @cached_property
    def word_forms(self) -> frozenset[str]:
        """Every form of the words of the paper and its title (reading/words.py), built on first use."""
        return text_forms(self.whole)

    @cached_property
    def passages(self) -> PaperWords:
        """The paper's words for finding what a digest copied (built on first use, once per paper); the title
        aside, since restating it is rule title_restated's."""
        title = normalise_for_match(self.title)
        return PaperWords.of(self.whole[len(title) :] if self.whole.startswith(title) else self.whole)

    def holds(self, tag: str, number: Number) -> bool:
        """Whether section `tag` (its subsections included) holds `number`, as a token or inside its name."""
        if any(number.matches(n) for n in self.numbers.get(tag, ())):
            return True
        return number.named_at(self.texts.get(tag, "")) is not None

    def sections_with(self, number: Number) -> list[str]:
        """The tags whose text holds `number`, in paper order."""
        return [tag for tag in self.tags if self.holds(tag, number)]

    def in_sections(self, number: Number, tags: list[str]) -> str | None:
        """The first of `tags` (cited sections) whose text holds `number`; OUTSIDE when it stands outside every
        section (which any citation may use); None when none of them holds it."""
        for tag in tags:
            if self.holds(tag, number):
                return tag
        return OUTSIDE if self.holds(OUTSIDE, number) else None

    def anywhere(self, number: Number) -> bool:
        return any(number.matches(n) for n in self.everywhere) or number.named_at(self.whole) is not None

    def figures_in(self, tags: list[str]) -> list[Number]:
        """The figures (numbers that count in prose) of the cited sections."""
        return [n for tag in tags for n in self.numbers.get(tag, ()) if n.counts_in_prose]

    def evidence(self, number: Number, tag: str) -> Evidence | None:
        """The sentence of section `tag` in which `number` stands, at most EVIDENCE_CHARS characters."""
        text = self.texts.get(tag, "")
        at = next((t.start for t in numbers_in(text, normalised=True) if number.matches(t)), number.named_at(text))
        return None if at is None else Evidence(number=number.text, section=tag, sentence=_sentence_around(text, at))


def read_paper(doc: FulltextDoc) -> PaperFacts:
    """The facts of the text the model was given (trimmed sections are not in it)."""
    texts = {tag: normalise_for_match(text) for tag, text in section_texts(doc).items()}
    texts[OUTSIDE] = normalise_for_match("\n".join(doc.unsectioned))
    numbers = {tag: tuple(numbers_in(text, normalised=True)) for tag, text in texts.items()}
    everything = f"{doc.title}\n{doc.text}"
    whole = normalise_for_match(everything)
    return PaperFacts(
        title=doc.title,
        tags=tuple(s.tag for s in doc.sections),
        levels={s.tag: s.level for s in doc.sections},
        texts=texts,
        numbers=numbers,
        everywhere=tuple(numbers_in(whole, normalised=True)),
        unsectioned=numbers[OUTSIDE],
        abstract_only=doc.source == "abstract" or [s.tag for s in doc.sections] == [ABSTRACT],
        whole=whole,
    )


def _sentence_around(text: str, at: int) -> str:
    """The sentence of `text` that holds position `at`, clipped around it to EVIDENCE_CHARS characters."""
    start = 0
    for match in _SENTENCE_END_RE.finditer(text, 0, at):
        start = match.end()
    end_match = _SENTENCE_END_RE.search(text, at)
    end = end_match.start() if end_match else len(text)
    sentence = text[start:end].strip()
    if len(sentence) <= EVIDENCE_CHARS:
        return sentence
    offset = at - start
    left = max(0, min(offset - EVIDENCE_CHARS // 2, len(sentence) - EVIDENCE_CHARS + 2))
    clipped = sentence[left : left + EVIDENCE_CHARS - 2].strip()
    return ("…" if left > 0 else "") + clipped + ("…" if left + EVIDENCE_CHARS - 2 < len(sentence) else "")
