"""A word's forms, to tell whether a short phrase (a mind-map label) is in the paper's words: "merging" is the
paper's when it writes "merge", "improves" when it writes "improvement" (docs/checker.md, rule `label`)."""

from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllLemmas

# Words of a phrase that name nothing of the paper's: function words, and the words any heading may use.
_FILLER = frozenset((
    "a", "an", "the", "of", "at", "in", "on", "for", "to", "and", "or", "with", "by", "from", "as", "into", "via",
    "its", "their", "our", "it", "is", "are", "vs", "over", "beyond", "through", "new", "novel", "approach",
    "method", "framework", "study", "paper",
))  # fmt: skip
_WORD_RE = re.compile(r"[A-Za-z]+")
STEM_CHARS = 6  # a long word's derivations share its first 6 letters ("improvement", "improve")


@lru_cache(maxsize=65536)
def word_forms(word: str) -> frozenset[str]:
    """The word folded, and each of its lemmas ("merging": merging, merge)."""
    folded = word.casefold()
    return frozenset({folded, *(lemma for lemmas in getAllLemmas(folded).values() for lemma in lemmas)})


def text_forms(text: str) -> frozenset[str]:
    """Every form of every word of `text` (a paper's: computed once per paper)."""
    return frozenset(form for word in set(_WORD_RE.findall(text)) for form in word_forms(word))


def words_not_in(phrase: str, forms: frozenset[str]) -> tuple[list[str], list[str]]:
    """The phrase's words that may name something, and those of them no form of `forms` writes (no lemma in
    common, nor, for a word of more than STEM_CHARS letters, its first STEM_CHARS letters)."""
    named = [w for w in _WORD_RE.findall(phrase) if len(w) > 2 and w.casefold() not in _FILLER]
    stems = {form[:STEM_CHARS] for form in forms if len(form) > STEM_CHARS}
    absent = [
        w
        for w in named
        if not word_forms(w) & forms and not (len(w) > STEM_CHARS and w.casefold()[:STEM_CHARS] in stems)
    ]
    return named, absent
