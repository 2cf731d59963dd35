"""The Chinese translation's rules: the English digest's shape, lists and numbers, in Chinese prose."""

from __future__ import annotations

import re
from collections.abc import Callable

from papers_digest.checker.english import Verdict, prose_fields
from papers_digest.checker.fields import words
from papers_digest.checker.numbers import entry_numbers
from papers_digest.checker.parse import parse_digest
from papers_digest.checker.problems import Problem
from papers_digest.checker.substance import REPEAT_SHARE, overlap
from papers_digest.checker.zh_figures import number_difference, numbers_carried, printed_value
from papers_digest.checker.zh_words import ZH_TEXT_RULES
from papers_digest.core.models import Digest, MindMapNode
from papers_digest.reading.names import title_names

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
_LATIN_SPAN_RE = re.compile(r"[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]+")
# A term that stays Latin in any Chinese text: a letter, an acronym, a name with capitals inside or digits
# ("X", "KV", "GRPO", "DeepSeek", "vLLM", "Qwen2.5"); it is not counted as English.
_TERM_RE = re.compile(r"^(?:.|[A-Z]{2,}s?|.*\d.*|[A-Za-z][a-z]*[A-Z].*)$")
_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*")  # a Latin word with its digits, for cjk_share
# A web address is a name, kept as it is in any language: the language rules read the text without it
# (a real translation of "The code is at https://github.com/TencentARC/AnimeGamer" keeps its six "words").
_URL_RE = re.compile(r"(?:https?://|www\.)[A-Za-z0-9._~:/?#@!$&'()*+,;=%\-]+")
# A field is Chinese when CJK characters make up at least this share of its "letters", counting each Latin
# word as one, terms aside (technical terms and names may stay in Latin script: "KV cache", "Dr. GRPO").
MIN_CJK_SHARE = 0.5
# Runs of this many consecutive words of the English field, copied over and making up at least half of its
# words, are English left untranslated behind Chinese ("译文：However, most existing methods …"); a name of
# six words kept in Latin inside real Chinese is not.
COPIED_RUN = 6
COPIED_SHARE = 0.5
MIN_SOURCE_WORDS = 4  # shorter English fields (names, labels like "Dr. GRPO") may stay as they are
# A mind-map label names an idea, often a technical term kept in Latin script ("Multi-modal Large Language
# Models"): only a label of a sentence's length must be Chinese.
MIN_LABEL_WORDS = 6
# A translated field is about as long as its English field: (CJK characters + Latin words) per English word
# within ZH_RATIO. Measured: 1.2-2.2 on the suite's faithful translations, 1.0-2.3 on the offline model's real
# one of 2504.01014 (tests/data/llm); the sample day's "方法" for a 600-character problem is 0.02, a heading.
ZH_RATIO = (0.5, 5.0)
# A translated field is another field's text when this share of its CJK character pairs is in another
# translated field whose English is not a near-copy of its own (substance.REPEAT_SHARE).
ZH_REPEAT_SHARE = 0.8
SAME_WORDS_SHARE = 0.8  # of the shorter English field's words of four letters or more, in the other


def check_digest_zh(reply: str, english: Digest, title: str | None = None) -> Verdict:
    """Check a Chinese translation against the English digest it translates (every rule of ZH_RULES, then
    those of the words, ZH_TEXT_RULES, which read the paper's `title` for its names)."""
    digest, problems = parse_digest(reply)
    if digest is None:
        return Verdict(None, problems)
    for _, rule in ZH_RULES:
        problems.extend(rule(digest, english))
    names = tuple(title_names(title or ""))
    for _, text_rule in ZH_TEXT_RULES:
        problems.extend(text_rule(digest, english, names))
    return Verdict(None if problems else digest, problems)


def zh_shape(digest: Digest, english: Digest) -> list[Problem]:
    """The translation keeps every array length and the mind map's shape."""
    problems = []
    for key in ("results", "limitations", "takeaways"):
        got, want = len(getattr(digest, key)), len(getattr(english, key))
        if got != want:
            problems.append(Problem("zh_shape", key, f"{got} items, the English digest has {want}"))
    return problems + _mind_map_shape(digest.mind_map, english.mind_map, "mind_map")


def zh_lists(digest: Digest, english: Digest) -> list[Problem]:
    """Each result's `numbers` and `sections` are copied unchanged."""
    problems = []
    for i, (zh, en) in enumerate(zip(digest.results, english.results, strict=False)):
        if zh.numbers != en.numbers:
            problems.append(
                Problem("zh_lists", f"results[{i}].numbers", f"must stay exactly {en.numbers}, got {zh.numbers}")
            )
        if zh.sections != en.sections:
            problems.append(
                Problem("zh_lists", f"results[{i}].sections", f"must stay exactly {en.sections}, got {zh.sections}")
            )
    return problems


def _paired(digest: Digest, english: Digest) -> list[tuple[str, str, str]]:
    """(path, translated text, English text) of every prose field both have (the others: zh_shape's)."""
    source = dict(prose_fields(english))
    return [(path, text, source[path]) for path, text in prose_fields(digest) if path in source]


def zh_numbers(digest: Digest, english: Digest) -> list[Problem]:
    """Each translated field carries exactly its English field's numbers."""
    # A translated finding may also spell out its result's own `numbers` (which the translation copies):
    # that adds no figure the reader cannot check; a changed or dropped one is still missing.
    listed = {
        f"results[{i}].finding": {f"{n.sign}{n.value}" for entry in r.numbers for n in entry_numbers(entry)}
        for i, r in enumerate(english.results)
    }
    problems = []
    for path, text, original in _paired(digest, english):
        missing, extra = number_difference(original, text)
        extra = [x for x in extra if printed_value(x) not in listed.get(path, set())]
        if missing or extra:
            wanted = ", ".join(n.text for n in numbers_carried(original) if n.counts_in_prose) or "no numbers"
            wrong = [f"missing {', '.join(missing)}"] if missing else []
            wrong += [f"{', '.join(extra)} not in the English"] if extra else []
            problems.append(
                Problem(
                    "zh_numbers",
                    path,
                    f"the Chinese must carry exactly the English field's numbers ({wanted}), as printed: "
                    + "; ".join(wrong),
                )
            )
    return problems


def zh_chinese(digest: Digest, english: Digest) -> list[Problem]:
    """Each translated field that must be Chinese is: CJK characters at least MIN_CJK_SHARE of its letters,
    and no English copied over in runs making up COPIED_SHARE of it (web addresses aside)."""
    problems = []
    for path, text, original in _paired(digest, english):
        if not must_be_chinese(_URL_RE.sub(" ", original), label=path.endswith(".label")):
            continue
        text, original = _URL_RE.sub(" ", text), _URL_RE.sub(" ", original)
        runs = _copied_runs(text, original, COPIED_RUN)
        copied = sum(len(r.split()) for r in runs)
        untranslated = not _CJK_RE.search(text) or cjk_share(text) < MIN_CJK_SHARE
        if untranslated or copied >= COPIED_SHARE * len(_LATIN_WORD_RE.findall(original)):
            shown = f" ({_clip(runs[0])!r})" if runs else f" ({_clip(text)!r})"
            problems.append(
                Problem(
                    "zh_chinese",
                    path,
                    f"not translated, it is mostly English{shown}; write it in Chinese, keeping only "
                    "names and technical terms in Latin script",
                )
            )
    return problems


def zh_length(digest: Digest, english: Digest) -> list[Problem]:
    """Each translated field is about as long as its English field (ZH_RATIO), not a heading or a label; a
    field that may stay as it is (a name) is not measured."""
    problems = []
    low, high = ZH_RATIO
    for path, text, original in _paired(digest, english):
        ratio = zh_ratio(text, original)
        if not must_be_chinese(original, label=path.endswith(".label")) or low <= ratio <= high:
            continue
        source_words = len(_LATIN_WORD_RE.findall(_URL_RE.sub(" ", original)))
        short = "too short for its English: a heading, not a translation"
        what = "far longer than its English" if ratio > high else short
        problems.append(
            Problem(
                "zh_length",
                path,
                f"{_clip(text)!r} is {what} ({source_words} English words): translate the whole English "
                "field, and only it",
            )
        )
    return problems


def zh_ratio(text: str, english: str) -> float:
    """A translation's length per word of its English (ZH_RATIO): CJK characters plus Latin words, over the
    English words (web addresses aside)."""
    source_words = len(_LATIN_WORD_RE.findall(_URL_RE.sub(" ", english)))
    return (len(_CJK_RE.findall(text)) + len(_TOKEN_RE.findall(text))) / max(source_words, 1)


def zh_repeated(digest: Digest, source: Digest) -> list[Problem]:
    """No translated field is another's text while their English fields differ. Of two such fields the later
    one is named, unless an earlier field with the same English reads the same (then the field translates
    its own English and the other is the one mistranslated: the offline model's takeaway that repeats its
    one_sentence in English and Chinese alike)."""
    english = dict(prose_fields(source))
    problems = []
    seen: list[tuple[str, set[str], bool]] = []  # (path, CJK pairs, named)
    for path, text in prose_fields(digest):
        if path not in english:
            continue
        mine = _pairs(text)
        # a label is a few words: it shares the field's long terms with the others ("视觉空间推理"), so it is
        # another's text only where the two are nearly the same, not where one holds the other
        label = path.endswith(".label")
        same = [(other, named) for other, theirs, named in seen if _shared(mine, theirs, label) >= ZH_REPEAT_SHARE]
        wrong = next((o for o, _ in same if not _says_the_same(english[path], english[o])), None)
        own = any(not named and _says_the_same(english[path], english[o]) for o, named in same)
        named = wrong is not None and not own and must_be_chinese(english[path], label=label)
        if named:
            problems.append(
                Problem(
                    "zh_repeated",
                    path,
                    f"{_clip(text)!r} is the translation of {wrong}, not of its own English field: "
                    "translate this field's English",
                )
            )
        seen.append((path, mine, named))
    return problems


def _says_the_same(english: str, other: str) -> bool:
    """Whether two English fields say the same, so that their translations may read the same: near-copies
    (REPEAT_SHARE of word trigrams), or the shorter one's words nearly all in the other (SAME_WORDS_SHARE), as
    VideoDR's finding "Agentic video reasoning's core bottlenecks are goal drift and long-term consistency" is in
    its summary "… goal drift and long-horizon consistency are the core bottlenecks …" (the 2026-01-13 listing at
    2b51ce5: its faithful Chinese failed as the summary's translation)."""
    if overlap(english, other) >= REPEAT_SHARE:
        return True
    mine, theirs = _content_words(english), _content_words(other)
    shorter, longer = sorted((mine, theirs), key=len)
    return bool(shorter) and len(shorter & longer) >= SAME_WORDS_SHARE * len(shorter)


def _content_words(text: str) -> set[str]:
    return {w for w in words(text) if len(w) > 3}


def _shared(mine: set[str], theirs: set[str], whole: bool = False) -> float:
    """The share of the smaller set's pairs in the other (`whole`: of the larger set's)."""
    if not mine or not theirs:
        return 0.0
    return len(mine & theirs) / (max if whole else min)(len(mine), len(theirs))


def _pairs(text: str) -> set[str]:
    cjk = "".join(_CJK_RE.findall(text))
    return {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def must_be_chinese(english: str, *, label: bool = False) -> bool:
    """Whether a translation of this English text must be Chinese prose (a name, a term or a short label may
    stay as it is)."""
    return len(_LATIN_WORD_RE.findall(english)) >= (MIN_LABEL_WORDS if label else MIN_SOURCE_WORDS)


def cjk_share(text: str) -> float:
    """CJK characters / (CJK characters + English words, terms aside): 1.0 for pure Chinese, 0.0 for English."""
    cjk = len(_CJK_RE.findall(text))
    latin = sum(1 for word in _TOKEN_RE.findall(text) if not _TERM_RE.match(word))
    return cjk / (cjk + latin) if cjk + latin else 1.0


def copied_run(text: str, source: str, run: int = COPIED_RUN) -> str | None:
    """The first `run` consecutive words of `source` that `text` carries over unchanged, if any."""
    runs = _copied_runs(text, source, run)
    return runs[0] if runs else None


def _copied_runs(text: str, source: str, run: int) -> list[str]:
    """Every maximal stretch of `run`+ consecutive words of `source` that `text` carries over unchanged."""
    source_words = [w.casefold() for w in _LATIN_WORD_RE.findall(source)]
    grams = {tuple(source_words[i : i + run]) for i in range(len(source_words) - run + 1)}
    found = []
    for span in _LATIN_SPAN_RE.findall(text):
        words = _LATIN_WORD_RE.findall(span)
        i = 0
        while i <= len(words) - run:
            if tuple(w.casefold() for w in words[i : i + run]) not in grams:
                i += 1
                continue
            end = i + run
            while end < len(words) and tuple(w.casefold() for w in words[end - run + 1 : end + 1]) in grams:
                end += 1
            found.append(" ".join(words[i:end]))
            i = end
    return found


def _clip(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _mind_map_shape(zh: MindMapNode, en: MindMapNode, path: str) -> list[Problem]:
    if len(zh.children) != len(en.children):
        return [
            Problem(
                "zh_shape", f"{path}.children", f"{len(zh.children)} items, the English digest has {len(en.children)}"
            )
        ]
    problems: list[Problem] = []
    for i, (a, b) in enumerate(zip(zh.children, en.children, strict=True)):
        problems.extend(_mind_map_shape(a, b, f"{path}.children[{i}]"))
    return problems


# Every rule of the translation: (rule id, its function of the translation and the English digest).
ZH_RULES: tuple[tuple[str, Callable[[Digest, Digest], list[Problem]]], ...] = (
    ("zh_shape", zh_shape),
    ("zh_lists", zh_lists),
    ("zh_numbers", zh_numbers),
    ("zh_chinese", zh_chinese),
    ("zh_length", zh_length),
    ("zh_repeated", zh_repeated),
)
