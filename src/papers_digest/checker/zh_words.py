"""A translation's words against its English: names kept, glossary terms as the glossary says, no English word or
English punctuation left in the Chinese (docs/checker.md, "The rules": zh_name, zh_english_word, zh_term,
zh_punctuation). Each rule reads one English text and its Chinese: a translation unit, or a whole field."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from papers_digest.checker.english import prose_fields
from papers_digest.checker.naming import COMMON_ACRONYMS, usual_expansion
from papers_digest.checker.placeholders import protect
from papers_digest.checker.problems import Problem
from papers_digest.core.models import Digest
from papers_digest.reading.glossary import Term, terms_in
from papers_digest.reading.names import is_ordinary_word, names_in, proper_nouns

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_URL_RE = re.compile(r"(?:https?://|www\.)[A-Za-z0-9._~:/?#@!$&'*+,;=%\-]*[A-Za-z0-9/#=_\-]")
# A figure's unit written with it is no English word ("7B", "100k", "2.5x", "12 ms", "441 tok/s", "4-bit").
_UNIT_RE = re.compile(r"(?<![A-Za-z])\d[\d.,]*(?:\s?[A-Za-z]{1,3}(?:/[A-Za-z]{1,3})?|-[A-Za-z]+)(?![A-Za-z])")
_LATIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’]*")
# English punctuation next to a Chinese character: ", " inside a Chinese sentence, a full stop after one.
_PUNCTUATION_RE = re.compile(rf"[{_CJK}][,;:!?]|[,;:!?]\s*[{_CJK}]|[{_CJK}]\.(?=\s|$)")
_JOINT = r"[\s\-]*"  # a kept term's words as the Chinese may join them ("token merging", "token-merging")
# The English words an answer may have left for the program to render (`with_left_terms_rendered`): a word or a
# term of two stray in a Chinese sentence; more, and the unit is half untranslated: the model is asked again.
MOST_TERMS_RENDERED = 2


@dataclass(frozen=True)
class EnglishFacts:
    """What the rules read in an English text: its names (with the paper's title names it writes) and the
    glossary terms it holds."""

    names: tuple[str, ...]
    terms: tuple[Term, ...]
    proper: tuple[str, ...] = ()  # capitalised words of the English ("Apple Silicon"): they may stay as written
    identifiers: frozenset[str] = frozenset()  # the English's words that are no ordinary words ("vllm", "cpp")

    @classmethod
    def of(cls, english: str, title_names: tuple[str, ...] = ()) -> EnglishFacts:
        written = [n for n in title_names if re.search(rf"(?<![A-Za-z0-9_\-]){re.escape(n)}(?![A-Za-z0-9_])", english)]
        named = names_in(english)
        names = [*named, *written, *_URL_RE.findall(english)]
        # a term said only inside a name is the name's, kept as written: LLaVA-NeXT-Video-72B holds no "video" to
        # render; a term that holds a name ("GPU hour", "KV cache") is still a term
        inside = [t for name in named for t in terms_in(name)]
        outside = terms_in(protect(english, named).text)
        terms = tuple(t for t in terms_in(english) if t not in inside or t in outside)
        # a word of a term the glossary renders in Chinese is a word to translate, though lemminflect's tables lack
        # it: "standalone" was left in GlimpRouter's finding on the 2026-01-13 listing at 2b51ce5 and let through
        rendered = {w for t in terms if not t.keep for words in t.spellings() for w in words}
        identifiers = frozenset(
            w.casefold()
            for w in _LATIN_WORD_RE.findall(english)
            if not is_ordinary_word(w) and w.casefold() not in rendered
        )
        return cls(tuple(dict.fromkeys(names)), terms, tuple(proper_nouns(english)), identifiers)

    def kept_latin(self) -> list[str]:
        """What may stand in Latin script in the Chinese: the names, the terms kept in English (in any spelling),
        and the Latin words of the terms' renderings ("SOTA", the "token" of "token 合并")."""
        kept = list(self.names)
        for term in self.terms:
            kept += [" ".join(words) for words in term.spellings()] if term.keep else []
            kept += [run.strip() for r in term.zh for run in re.split(f"[{_CJK}]+", r) if run.strip()]
        return kept


def english_words_left(chinese: str, facts: EnglishFacts) -> list[str]:
    """The ordinary English words a Chinese text writes: Latin words of two letters or more that are none of the
    English's names or capitalised proper nouns, no web address, no figure's unit, no glossary term kept in
    English, and no identifier the English writes ("vllm-mlx"); a word the English lacks is never one of them."""
    text = _URL_RE.sub(" ", chinese)
    for kept in sorted(facts.kept_latin(), key=len, reverse=True):  # names before units: "vsGRPO-2B" is one
        words = [re.escape(w) for w in re.split(r"[\s\-]+", kept) if w]
        if words:
            text = re.sub(rf"(?<![A-Za-z]){_JOINT.join(words)}s?(?![A-Za-z])", " ", text, flags=re.I)
    text = _UNIT_RE.sub(" ", text)
    left = [w for w in _LATIN_WORD_RE.findall(text) if len(w) >= 2 and w not in facts.proper]
    return list(dict.fromkeys(w for w in left if is_ordinary_word(w) or w.casefold() not in facts.identifiers))


def with_left_terms_rendered(chinese: str, facts: EnglishFacts) -> str:
    """`chinese` with each glossary term it left in English said as the glossary's first rendering, where every
    word of it is an English word left (`english_words_left`) and the term has one sense: GlimpRouter's summary on
    the 2026-01-13 listing at 47e7336 failed all 8 rounds with "standalone" left in it (X1 比 standalone 大型模型…),
    the Terms line asking for 独立 each time. A word the checker rejects anyway becomes the word it asks for; an
    answer that left more than MOST_TERMS_RENDERED words was not translated, and stays as it is."""
    left = {w.casefold() for w in english_words_left(chinese, facts)}
    if len(left) > MOST_TERMS_RENDERED:
        return chinese
    for term in facts.terms:
        if term.keep or term.senses:
            continue
        for words in sorted(term.spellings(), key=len, reverse=True):
            if all(w in left for w in words):
                pattern = rf"\s*(?<![A-Za-z0-9\-]){_JOINT.join(re.escape(w) for w in words)}(?![A-Za-z0-9\-])\s*"
                rendering = term.zh[0]
                chinese = re.sub(pattern, lambda m, r=rendering: _spaced(r, m), chinese, flags=re.I)
    return chinese


def _spaced(rendering: str, match: re.Match[str]) -> str:
    """A rendering in place of the English `match`, a space kept on a side where Latin script or a figure stands."""
    before, after = match.string[: match.start()], match.string[match.end() :]
    left = " " if before and re.match(r"[A-Za-z0-9%]", before[-1]) else ""
    right = " " if after and re.match(r"[A-Za-z0-9]", after[0]) else ""
    return f"{left}{rendering}{right}"


# Verbs that need an object, ending a sentence without one: GlimpRouter's finding came back as "…与AIME25的独立大型
# 模型相比，实现了。" on the 2026-01-13 listing at 40bd482, HANRAG's summary as "…优于。" on the 2025-09-15 listing.
# Verbs of change (提高, 降低) are left out: "准确率提高了。" is a whole sentence.
# A passive (被实现, 所提出) has its object before it.
_NEEDS_OBJECT = "实现|优于|超过|超越|胜过|取得|获得|提出|包括|展示|表明|证明"
_NO_OBJECT_RE = re.compile(rf"(?<![被所])(?:{_NEEDS_OBJECT})了?[。！？!?.]?\s*$")


def ends_without_object(chinese: str) -> str | None:
    """The verb a Chinese sentence ends on where it needs an object ("实现了。", "优于。"), else None."""
    found = _NO_OBJECT_RE.search(chinese)
    return found.group(0).strip() if found else None


# A quality said after the words it qualifies, ending the sentence: MergeVQ's summary in the sample runs at 78e622b
# and eeae767 ended 同时保持了token效率和推理速度的有利。 for "while maintaining favorable token efficiency and
# inference speed" (有利的 goes before its noun).
_QUALITY_AFTER_RE = re.compile(r"的(?:有利|良好|优越|出色|高效|优异|卓越|显著|有竞争力)[。！？!?.]?\s*$")


def ends_on_quality(chinese: str) -> str | None:
    """The quality a Chinese sentence ends on after 的, qualifying nothing ("…推理速度的有利。"), else None."""
    found = _QUALITY_AFTER_RE.search(chinese)
    return found.group(0).strip() if found else None


def said_in_chinese(name: str, chinese: str) -> bool:
    """Whether `chinese` writes a common acronym of the field as the glossary renders its words: LLMs as
    大语言模型 (on the 2025-09-15 listing, a problem field's 大语言模型 for LLMs failed all 8 rounds)."""
    usual = usual_expansion(name) if name in COMMON_ACRONYMS else None
    if not usual:
        return False
    # its words term by term: MLLMs as 多模态大语言模型, "multimodal" and "large language model" (the sample's
    # 2504.00883 problem at f34a932 failed all 8 rounds written so, "(MLLMs)" after it left out)
    terms = terms_in(usual)
    spelled = sum(len(re.split(r"[\s-]+", term.en)) for term in terms)
    return spelled == len(usual.split()) and all(not t.keep and t.rendered_in(chinese) for t in terms)


def names_changed(chinese: str, facts: EnglishFacts) -> tuple[list[str], list[str]]:
    """(the English's names the Chinese lacks, the names the Chinese writes that the English has not); a common
    acronym written as its words' Chinese is not lost."""
    lost = [
        n
        for n in facts.names
        if not re.search(rf"(?<![A-Za-z0-9_\-]){re.escape(n)}(?![A-Za-z0-9_])", chinese)
        and not said_in_chinese(n, chinese)
    ]
    kept = {k.casefold() for k in facts.kept_latin()}
    written = names_in(_URL_RE.sub(" ", chinese))
    added = [n for n in written if n not in facts.names and n.casefold() not in kept and not _inside(n, facts.names)]
    return lost, added


def terms_otherwise(chinese: str, facts: EnglishFacts) -> list[tuple[Term, str]]:
    """The glossary terms of the English the Chinese renders otherwise, each with what the glossary asks, said."""
    found = []
    renderings = tuple(r for term in facts.terms for r in term.zh)
    for term in facts.terms:
        avoided = term.avoided_in(chinese, tuple(r for r in renderings if r not in term.zh))
        # a term kept in English may be left out ("sequences of up to 2.3K tokens" as "最长 2.3K 的序列"), never
        # rendered otherwise (令牌); a unit's placeholder keeps it where the English writes it
        if not term.keep and not term.rendered_in(chinese) and not _kept_in_a_name(term, chinese, facts):
            found.append((term, f"{term.en!r} is {_asked(term)}"))
        elif avoided is not None:
            found.append((term, f"{term.en!r} is {_asked(term)}, not {avoided}"))
        elif (after := _said_after(term, chinese)) is not None:
            found.append((term, f"X-{term.en} is {term.zh[0]} X 的, its word after {term.zh[0]}, not {after}"))
    return found


def _said_after(term: Term, chinese: str) -> str | None:
    """A compound's suffix said after its word where Chinese says it before ("VQ基于的" for "VQ-based", in
    MergeVQ's method in the sample run at 291fff1: 基于 VQ 的), as written; None where it is not."""
    if not term.suffix or term.after:
        return None
    renderings = "|".join(re.escape(r) for r in term.zh)
    found = re.search(rf"[A-Za-z0-9][A-Za-z0-9.-]*\s*(?:{renderings})的", chinese)  # a Latin word, then the suffix
    return found.group(0) if found else None


def english_punctuation(chinese: str) -> list[str]:
    """Where a Chinese text writes English punctuation next to a Chinese character (a comma, a colon, a full stop
    that Chinese writes as ，：。)."""
    return [chinese[max(0, m.start() - 6) : m.end() + 6] for m in _PUNCTUATION_RE.finditer(chinese)]


def word_problems(chinese: str, facts: EnglishFacts) -> list[Problem]:
    """What is wrong with the words of one Chinese text against its English (a unit, or a field), each problem
    without a field's path: names lost or added, English words left, terms otherwise, English punctuation."""
    problems = []
    lost, added = names_changed(chinese, facts)
    if lost or added:
        said = [f"missing {', '.join(lost)}"] * bool(lost) + [f"{', '.join(added)} not in the English"] * bool(added)
        said = f"names must stay as the English writes them: {'; '.join(said)}"
        problems.append(Problem("zh_name", "", said, subjects=tuple(lost)))
    if left := english_words_left(chinese, facts):
        said = f"English words left untranslated: {', '.join(left)}"
        problems.append(Problem("zh_english_word", "", said, subjects=tuple(left)))
    if otherwise := terms_otherwise(chinese, facts):
        said = f"terms as the glossary renders them: {'; '.join(s for _, s in otherwise)}"
        asked = tuple(f"{term.en} = {term.rendering}" for term, _ in otherwise if not term.keep)
        problems.append(Problem("zh_term", "", said, subjects=asked))
    if copied := english_punctuation(chinese):
        said = f"English punctuation in Chinese ({copied[0]!r}): write ，：。；"
        problems.append(Problem("zh_punctuation", "", said))
    return problems


# --- the rules over a whole translation: each prose field against its English field -------------------------


def zh_name(digest: Digest, english: Digest, title_names: tuple[str, ...] = ()) -> list[Problem]:
    """Every name of an English field stands in its Chinese field as written; the Chinese adds no other."""
    return _per_field("zh_name", digest, english, title_names)


def zh_english_word(digest: Digest, english: Digest, title_names: tuple[str, ...] = ()) -> list[Problem]:
    """No ordinary English word is left in a Chinese field (names and the glossary's kept terms aside)."""
    return _per_field("zh_english_word", digest, english, title_names)


def zh_term(digest: Digest, english: Digest, title_names: tuple[str, ...] = ()) -> list[Problem]:
    """Every glossary term of an English field is rendered as the glossary says."""
    return _per_field("zh_term", digest, english, title_names)


def zh_punctuation(digest: Digest, english: Digest, title_names: tuple[str, ...] = ()) -> list[Problem]:
    """Chinese punctuation in Chinese sentences: no English comma, colon or full stop beside a Chinese character."""
    return _per_field("zh_punctuation", digest, english, title_names)


def _per_field(rule: str, digest: Digest, english: Digest, title_names: tuple[str, ...]) -> list[Problem]:
    """`rule`'s problems of each prose field against its English field, each named by the field's path."""
    return [
        replace(problem, field=path)
        for path, text, original in _paired(digest, english)
        for problem in word_problems(text, EnglishFacts.of(original, title_names))
        if problem.rule == rule
    ]


def _paired(digest: Digest, english: Digest) -> list[tuple[str, str, str]]:
    source = dict(prose_fields(english))
    return [(path, text, source[path]) for path, text in prose_fields(digest) if path in source]


def _kept_in_a_name(term: Term, chinese: str, facts: EnglishFacts) -> bool:
    """A term the English writes inside a capitalised name ("Group Relative Policy Optimization Done Right"),
    which the Chinese keeps as it is."""
    written = [w for w in _LATIN_WORD_RE.findall(chinese) if w in facts.proper]
    return any(all(w in {x.casefold() for x in written} for w in spelled) for spelled in term.spellings())


def _asked(term: Term) -> str:
    return "kept in English" if term.keep else f"rendered {term.rendering}"


def _inside(name: str, names: tuple[str, ...]) -> bool:
    """A part of one of the English names ("Qwen2" of "Qwen2-VL-7B"), written where the name was split."""
    return any(name in other for other in names)


# The rules of this module over a whole translation (checker/chinese.py runs them after ZH_RULES).
TextRule = Callable[[Digest, Digest, tuple[str, ...]], list[Problem]]
ZH_TEXT_RULES: tuple[tuple[str, TextRule], ...] = (
    ("zh_name", zh_name),
    ("zh_english_word", zh_english_word),
    ("zh_term", zh_term),
    ("zh_punctuation", zh_punctuation),
)
