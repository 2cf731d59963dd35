"""A paper's areas: the fields of a small fixed vocabulary (areas.yaml) its keywords and title name (pure)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from papers_digest.core.artefacts import read_yaml_model
from papers_digest.core.errors import ConfigError

AREAS_FILE = Path(__file__).with_name("areas.yaml")
MAX_AREAS = 5  # chips per paper: the areas that match best
# What a match is worth: the title names the paper's field more surely than one of Hugging Face's ~10
# keywords; the abstract, read only when Hugging Face gave no keywords, counts each use of a term.
TITLE_POINTS, KEYWORD_POINTS, MIN_POINTS = 3, 2, 2
ABSTRACT_MAX_POINTS = 2

_SLUG_RE = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_SEPARATOR_RE = re.compile(r"[^\w+#&.]+")  # anything but letters, digits, _, +, #, &, . separates words

# Words whose final s is not a plural (or whose plural is irregular), and plurals the suffix rules get wrong.
_INVARIANT = frozenset((
    "is", "as", "was", "has", "its", "this", "does", "us", "yes", "gas", "bus", "plus", "thus", "less", "news",
    "lens", "alias", "atlas", "canvas", "chaos", "cosmos", "bias", "corpus", "status", "consensus", "focus",
    "nexus", "virus", "campus", "bonus", "census", "radius", "genius", "series", "species", "always", "perhaps",
    "across", "whereas", "various", "previous", "analogous",
))  # fmt: skip
_IRREGULAR = {
    "analyses": "analysis", "bases": "basis", "biases": "bias", "aliases": "alias", "caches": "cache",
    "niches": "niche", "indices": "index", "matrices": "matrix", "vertices": "vertex", "criteria": "criterion",
    "phenomena": "phenomenon", "hypotheses": "hypothesis", "theses": "thesis", "children": "child",
    "people": "person", "men": "man", "women": "woman", "mice": "mouse", "feet": "foot", "teeth": "tooth",
    "movies": "movie", "cookies": "cookie", "corpora": "corpus", "lenses": "lens", "statuses": "status",
}  # fmt: skip


class AreasError(ConfigError, ValueError):
    """areas.yaml is missing or holds a bad entry."""


class Area(BaseModel):
    """One area: its page's slug, its names, and the terms that file a paper under it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str = Field(pattern=_SLUG_RE)
    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)
    keywords: tuple[str, ...] = Field(min_length=1)
    title_words: tuple[str, ...] = ()

    @field_validator("keywords", "title_words")
    @classmethod
    def _terms(cls, terms: tuple[str, ...]) -> tuple[str, ...]:
        empty = [t for t in terms if not words_of(t)]
        if empty:
            raise ValueError(f"terms with no word in them: {empty}")
        return terms


class _AreasFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    areas: list[Area] = Field(min_length=1)

    @field_validator("areas")
    @classmethod
    def _unique_slugs(cls, areas: list[Area]) -> list[Area]:
        seen = Counter(a.slug for a in areas)
        twice = sorted(s for s, n in seen.items() if n > 1)
        if twice:
            raise ValueError(f"each slug once, got more than one of {twice}")
        return areas


@functools.cache
def all_areas(path: Path = AREAS_FILE) -> tuple[Area, ...]:
    """The areas of `path`, in their order of preference; read once."""
    return tuple(read_yaml_model(path, _AreasFile, AreasError).areas)


def area_of(slug: str) -> Area | None:
    """The area of a slug, None when the vocabulary has no such area (any more)."""
    return _by_slug().get(slug)


def paper_areas(title: str, keywords: Iterable[str] = (), abstract: str = "") -> list[str]:
    """The slugs of a paper's areas, best first, at most MAX_AREAS: each of Hugging Face's keywords that holds an
    area's keyword scores it, the title scores the areas whose keywords or title words it holds, and the abstract
    counts only when Hugging Face gave no keywords (older listings); ties go to the area listed first."""
    areas, keyword_index, title_index = all_areas(), *_indexes()
    points: Counter[int] = Counter()
    keywords = [k for k in keywords if k]
    for keyword in keywords:
        points.update(set(_found(words_of(keyword), keyword_index)))
    for i in points:
        points[i] *= KEYWORD_POINTS
    for i in set(_found(words_of(title), title_index)):
        points[i] += TITLE_POINTS
    if not keywords:
        for i, uses in Counter(_found(words_of(abstract), keyword_index)).items():
            points[i] += min(uses, ABSTRACT_MAX_POINTS)
    ranked = sorted((i for i, p in points.items() if p >= MIN_POINTS), key=lambda i: (-points[i], i))
    return [areas[i].slug for i in ranked[:MAX_AREAS]]


def words_of(text: str) -> tuple[str, ...]:
    """Text as its words, compatibility-normalised, lower case, every word singular: `Vision-Language Models`
    -> ("vision", "language", "model"); what terms and texts are matched in."""
    text = unicodedata.normalize("NFKC", text).casefold()
    words = (singular(w.strip(".")) for w in _SEPARATOR_RE.sub(" ", text.replace("_", " ")).split())
    return tuple(w for w in words if w)


def singular(word: str) -> str:
    """An English plural noun -> its singular (`models` -> `model`, `policies` -> `policy`, `llms` -> `llm`);
    words that are not plurals are left as they are."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 2 or not word.endswith("s") or word in _INVARIANT or not word[:-1].isalpha():
        return word
    if word.endswith(("ss", "us", "is", "ics", "ous", "'s")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    return word[:-1]


Index = dict[tuple[str, ...], tuple[int, ...]]  # a term's words -> the areas it files a paper under


@functools.cache
def _indexes() -> tuple[Index, Index]:
    """The terms of the keywords (for Hugging Face's keywords and the abstract) and of the keywords and title words
    (for the title), each mapped to its areas."""
    keyword_index: dict[tuple[str, ...], list[int]] = {}
    title_index: dict[tuple[str, ...], list[int]] = {}
    for i, area in enumerate(all_areas()):
        for term in area.keywords:
            keyword_index.setdefault(words_of(term), []).append(i)
        for term in (*area.keywords, *area.title_words):
            title_index.setdefault(words_of(term), []).append(i)
    return (
        {k: tuple(dict.fromkeys(v)) for k, v in keyword_index.items()},
        {k: tuple(dict.fromkeys(v)) for k, v in title_index.items()},
    )


@functools.cache
def _longest() -> int:
    return max(len(k) for k in _indexes()[1])


def _found(words: tuple[str, ...], index: Index) -> list[int]:
    """The areas of the terms of `index` found in `words` as runs of whole words, once per use, the longest term
    at each place: `vision language model` is a multimodal model's term, not also `language model`."""
    found, start, longest = [], 0, _longest()
    while start < len(words):
        for size in range(min(longest, len(words) - start), 0, -1):
            term = words[start : start + size]
            if term in index:
                found += index[term]
                start += size
                break
        else:
            start += 1
    return found


@functools.cache
def _by_slug() -> dict[str, Area]:
    return {a.slug: a for a in all_areas()}
