"""The project's English -> Chinese glossary (glossary.yaml): its terms, found in an English text (pure).

A term is matched as a run of whole words, case aside, hyphens and spaces alike ("fine-tuned", "fine tuned"),
in its plurals (and a verb's inflections, by lemminflect's tables), the longest term at each place:
"large language models" is that term, not also "language model". A translation renders it as the glossary
says (`Term.rendered_in`), or keeps it in English when the glossary keeps it (token).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path

from lemminflect import getAllInflections, getAllInflectionsOOV
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from papers_digest.core.artefacts import read_yaml_model
from papers_digest.core.errors import ConfigError

GLOSSARY_FILE = Path(__file__).with_name("glossary.yaml")
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:'[a-z]+)?")
_SPACE_RE = re.compile(r"\s+")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class GlossaryError(ConfigError, ValueError):
    """glossary.yaml is missing or holds a bad entry."""


class Term(BaseModel):
    """One glossary term: its English, its Chinese renderings (the first asked for) or kept in English, the
    renderings to avoid, and the usage it rests on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    en: str = Field(min_length=1)
    zh: tuple[str, ...] = ()
    keep: bool = False
    avoid: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    verb: bool = False  # matched in a verb's inflections too ("outperformed"), not only its plurals
    suffix: bool = False  # a compound's second half, matched only after a hyphen ("R1-Zero-like": "-like")
    after: bool = False  # a suffix whose rendering follows its word: the program writes it after a name (式)
    senses: bool = False  # its renderings are of different senses: a request offers them all, the model picks
    note: str = Field(min_length=10)

    @model_validator(mode="after")
    def _rendered_or_kept(self) -> Term:
        if self.keep == bool(self.zh):
            raise ValueError(f"{self.en!r}: either zh (its renderings) or keep: true, not both or neither")
        if self.zh and not _CJK_RE.search(self.zh[0]):  # the one asked for; another may be Latin ("SOTA")
            raise ValueError(f"{self.en!r}: the first rendering is Chinese, got {self.zh[0]!r}")
        return self

    @property
    def rendering(self) -> str:
        """What a translation request asks for: the first rendering (all of a term of several senses: "注意力 /
        关注"), or the term itself when it is kept."""
        if self.keep:
            return self.en
        return " / ".join(r for r in self.zh if _CJK_RE.search(r)) if self.senses else self.zh[0]

    def rendered_in(self, chinese: str) -> bool:
        """Whether a Chinese text renders this term as the glossary says: one of its renderings (spaces aside),
        or the English term (any of its spellings) where it is kept."""
        if self.keep:
            written = words_of(chinese)
            return any(_holds(written, spelled) for spelled in self.spellings())
        bare = _bare(chinese)
        return any(_bare(r) in bare for r in self.zh)

    def avoided_in(self, chinese: str, allowed: tuple[str, ...] = ()) -> str | None:
        """The first rendering to avoid that a Chinese text writes, unless it is part of one of `allowed` (the
        renderings of the other terms in the same English: a character of a game is 角色 there)."""
        bare = _bare(chinese)
        for avoided in self.avoid:
            if _bare(avoided) in bare and not any(_bare(avoided) in _bare(a) for a in allowed):
                return avoided
        return None

    def spellings(self) -> list[tuple[str, ...]]:
        """Every way the term is written, as lower-case words: its English and forms, in their plurals (and a
        verb's inflections)."""
        spelled: list[tuple[str, ...]] = []
        for base in (self.en, *self.forms):
            for form in _inflections(base, self.verb):
                words = words_of(form)
                if words and words not in spelled:
                    spelled.append(words)
        return spelled


class _GlossaryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    terms: list[Term] = Field(min_length=1)

    @field_validator("terms")
    @classmethod
    def _each_once(cls, terms: list[Term]) -> list[Term]:
        seen = Counter(words_of(t.en) for t in terms)
        twice = sorted(" ".join(w) for w, n in seen.items() if n > 1)
        if twice:
            raise ValueError(f"each term once, got more than one of {twice}")
        return terms


@functools.cache
def load_glossary(path: Path = GLOSSARY_FILE) -> tuple[Term, ...]:
    """The glossary's terms, read once; GlossaryError naming the file and the entry when it is bad."""
    return tuple(read_yaml_model(path, _GlossaryFile, GlossaryError).terms)


def terms_in(text: str, path: Path = GLOSSARY_FILE) -> list[Term]:
    """The glossary terms an English text contains, each once, in order of first use; at each place the
    longest term that matches (and no shorter one inside it); then the compound suffixes it holds ("-like") outside
    the terms."""
    index, longest = _index(path)
    words = words_of(text)
    found: list[Term] = []
    start = 0
    while start < len(words):
        for size in range(min(longest, len(words) - start), 0, -1):
            term = index.get(words[start : start + size])
            if term is not None:
                if term not in found:
                    found.append(term)
                start += size
                break
        else:
            start += 1
    # a suffix of a compound the glossary has as a term ("step-wise": 逐步 or 分步) is that term's
    spelled = [re.escape(s) for t in found for s in (t.en, *t.forms) if "-" in s]
    bare = re.sub("|".join(spelled), " ", text, flags=re.I) if spelled else text
    suffixes = [t for t in load_glossary(path) if t.suffix and re.search(rf"(?<=[A-Za-z0-9])-{t.en}\b", bare, re.I)]
    return found + suffixes


def whole_term(text: str, path: Path = GLOSSARY_FILE) -> Term | None:
    """The glossary term `text` is, whole, in any of its spellings ("Token merging", "KV caches"); None when it is
    more or less than one term."""
    index, _ = _index(path)
    return index.get(words_of(text))


def words_of(text: str) -> tuple[str, ...]:
    """A text's words, lower case, hyphens and other punctuation as spaces: how terms are matched."""
    return tuple(w.casefold() for w in _WORD_RE.findall(text))


@functools.cache
def _index(path: Path) -> tuple[dict[tuple[str, ...], Term], int]:
    """Every spelling of every term -> the term; a spelling written out (`en`, `forms`) wins over another
    term's inflection of the same words ("sampling" is its own term, not the verb "sample")."""
    terms = [t for t in load_glossary(path) if not t.suffix]  # a suffix is matched after its hyphen only
    index: dict[tuple[str, ...], Term] = {}
    for term in terms:
        for spelled in term.spellings():
            index.setdefault(spelled, term)
    for term in terms:
        for base in (term.en, *term.forms):
            index[words_of(base)] = term
    return index, max(len(k) for k in index)


def _inflections(base: str, verb: bool) -> list[str]:
    """`base` and its last word's plurals (a verb's inflections too): "reward model" -> "reward models"."""
    head, _, last = base.rpartition(" ")
    stem, hyphen, word = last.rpartition("-")
    tables = dict(getAllInflections(word.casefold()))
    if "NNS" not in tables:  # out of the dictionary as a noun ("trade-off" ends in the adverb "off")
        tables |= getAllInflectionsOOV(word.casefold(), "NOUN")
    if verb:
        tables = {**tables, **(getAllInflections(word.casefold(), "VERB") or getAllInflectionsOOV(word, "VERB"))}
    keys = ("NNS", "VBD", "VBG", "VBZ", "VBN") if verb else ("NNS",)
    endings = [word, *(form for key in keys for form in tables.get(key, ()))]
    prefix = f"{head} " if head else ""
    return [f"{prefix}{stem}{hyphen}{ending}" for ending in dict.fromkeys(endings)]


def _holds(words: tuple[str, ...], run: tuple[str, ...]) -> bool:
    return any(words[i : i + len(run)] == run for i in range(len(words) - len(run) + 1))


def _bare(text: str) -> str:
    """Text without spaces, Latin letters in lower case: "KV 缓存" and "KV缓存" read alike."""
    return _SPACE_RE.sub("", text).casefold()
