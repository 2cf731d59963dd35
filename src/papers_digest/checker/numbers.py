"""Numbers as the checker compares them: one normalisation, whole-number tokens, and what counts in prose.

The one normalisation, applied to the paper's text and to the digest alike (docs/checker.md,
"How numbers are compared"):
- Unicode NFKC (full-width digits fold to ASCII, a no-break or thin space to a plain space);
- the Unicode minus (U+2212) and other dashes before a digit become `-`;
- thousands separators go: `1,000` and `1 000` (thin or no-break space) are `1000`;
- a space before a unit goes: `12.5 %` is `12.5%`;
- LaTeX left in LaTeXML's text reads as what it prints: `7.7\\times` is `7.7×`, `21.0\\%` is `21.0%`.

A unit glued to a number is read with it: `192GB`, `21.7s` and `0.5fps` hold the numbers 192, 21.7 and 0.5
(a dimension word: dropped); `57k`, `1.5B`, `2K`, `43.3%`, `2.5×` keep theirs (a unit that changes the value),
and so does a Chinese magnitude after a number (`2000万` is 2000 with the unit 万: a quantity, not a year).

A number is matched as a whole token, never inside a longer number or an identifier: "16" is not in
"W16A16", "0.22" is not in "200.22", "4" is not in "GPT-4". A version written apart from its name ("Llama
3.1") is found inside the name as the paper prints it ("Llama-3.1-8B").

What counts in prose (Number.counts_in_prose): decimals, numbers with a unit (%, ×, k, B) and integers of two
digits or more; not labels ("Table 2", "Sections 2.1 and 3.4", "第3节", "3.2节", a resolution: "4K image"), not years
(1900-2039), not lone digits ("3 stages").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_DASHES = "\u2212\u2012\u2013\u2014\u2010\u2011\ufe63\uff0d"
# Thousands: groups of three after a comma, or after a thin/no-break space (before NFKC turns it into a space).
_THIN_GROUPS_RE = re.compile(r"(?<=\d)[\u00a0\u2009\u202f](?=\d{3}(?!\d))")
_COMMA_GROUPS_RE = re.compile(r"\b(\d{1,3}(?:,\d{3})+)(?![\d,])")
_UNIT_SPACE_RE = re.compile(r"(?<=\d) (?=[%‰×])")
_LATEX = {"\\times": "×", "\\%": "%"}
_LATEX_RE = re.compile(r"\\times(?![A-Za-z])|\\%")
# Dimension words glued to a number ("192GB", "21.7s", "4bit"): the number counts, the word is dropped.
_DIMENSION = r"(?:[KMGTP]i?B(?:/s)?|[kKMG]Hz|[mµμun]?s|min|hrs?|h|fps|FPS|bits?|px|tok/s)"
# A number token: not after a Latin letter, a digit, a dot or an identifier's dash (a CJK character may
# touch it: "达到43.3%"); a sign only where it cannot be a range's or a word's dash; an optional decimal
# part; then an optional unit, not running into a word.
NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9_.])(?<![A-Za-z_]-)"
    r"(?P<sign>-(?=\d))?"
    r"(?P<value>\d+(?:\.\d+)?)"
    r"(?:(?P<unit>%|‰|×|x(?![A-Za-z\d])|[kKMB](?![A-Za-z\d]))|" + _DIMENSION + r"(?![A-Za-z\d]))?"
    r"(?![\d]|\.\d|[A-Za-z_])"
)
# Words that make the number after them a label, not a figure (English and Chinese).
_LABEL_BEFORE_RE = re.compile(
    r"(?:\b(?:sections?|sec|§|tables?|tab|figures?|figs?|eqs?|equations?|appendix|appendices|algorithms?|alg|"
    r"theorems?|lemmas?|definitions?|propositions?|corollary|chapters?|steps?|stages?|lines?|rows?|columns?|"
    r"versions?|v|refs?|references?|footnotes?|parts?|examples?|cases?|rules?|tasks?|phases?|levels?|"
    r"tiers?|rounds?|listings?|thm)\.?|[§第表图式节章附录算法])\s*[(\[]?\s*$",
    re.IGNORECASE,
)
# A number listed right after a label's number is a label too: "Sections 2.1 and 3.4", "Sec. 2.2 and 2.3", "表2、3".
_LABEL_LIST_RE = re.compile(r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*|or\s+|/\s*|[、和与及])\s*")
_LABEL_AFTER_RE = re.compile(r"\s*[)\]]?\s*[节章]")  # "3.2节", "第3章": the Chinese label follows the number
# The word right before a number, as in "Llama 3.2" or "Claude 3.5": a paper may print it "Llama-3.2-3B".
_NAME_BEFORE_RE = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9]+) $")
_YEAR_RE = re.compile(r"^(19\d\d|20[0-3]\d)$")  # 1900-2039: "2048 tokens" is a figure, "AIME 2024" a name
# A Chinese magnitude after a number ("2000万", "70亿") makes it a quantity, never a year: read as its unit; so
# does 倍, times, after a number of two digits or more ("放大2000倍" for PaCoRe's "two million" on the 2026-01-13
# listing at b3b0aff passed as a year; "2倍" may say "twice").
_MAGNITUDE_AFTER_RE = re.compile(r"\s*([百千]?万|亿|倍)")
# A quantity the English says with a word of scale ("two million tokens", "1.5 billion parameters"), which Chinese
# writes with its own magnitude (200万, 15亿): PaCoRe's "approximately two million tokens" written 200万 failed
# zh_numbers in the 2026-01-13 listing at 8cf3c2e as a figure the English lacks.
# Numbers said in words, which a quantity with a word of scale ("two million") or a ratio ("four times") may use
NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10}  # fmt: skip
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_QUANTITY_RE = re.compile(rf"\b(\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS)})\s+({'|'.join(_SCALES)})\b", re.IGNORECASE)
# A ratio said with "times" ("about 4 times faster", "four times"); "a" and "one" say none.
_RATIO_WORDS = [word for word, value in NUMBER_WORDS.items() if value > 1]
_TIMES_RE = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?|{'|'.join(_RATIO_WORDS)})\s+times\b", re.IGNORECASE)
_ZH_SCALES = {"万": 1e4, "百万": 1e6, "千万": 1e7, "亿": 1e8}
_UNIT_KEY = {"x": "×", "X": "×", "K": "k", "倍": "×"}
_FIGURE_UNITS = frozenset({"%", "‰", "×", "倍"})  # units that make a number a figure, never a label
# A display resolution ("4K image generation", "8K视频") names a format, not a measure: InfGen's summary wrote
# only "4K" of "cutting 4K image generation time to under 10 seconds" and passed as stating its figure (the
# 2025-09-15 listing, every run from 8cf3c2e to 256f0d6).
_RESOLUTION_AFTER_RE = re.compile(
    r"[- ]?(?:UHD[- ]?|的)?(?:images?|videos?|resolutions?|displays?|frames?|generation|synthesis|"
    r"图像|图片|视频|分辨率|生成)",
    re.IGNORECASE,
)


def normalise_for_match(text: str) -> str:
    """The one normalisation (see the module's docstring), then whitespace collapsed."""
    text = _THIN_GROUPS_RE.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = _LATEX_RE.sub(lambda m: _LATEX[m.group(0)], text)
    text = text.translate({ord(d): "-" for d in _DASHES})
    text = _COMMA_GROUPS_RE.sub(lambda m: m.group(1).replace(",", ""), text)
    text = " ".join(text.split())
    return _UNIT_SPACE_RE.sub("", text)


@dataclass(frozen=True)
class Number:
    """A number token: its value as printed (`43.3`), its sign and unit (`%`, `×`, `x`, `k`, `M`, `B`, or a
    Chinese magnitude, `万`, `亿`)."""

    value: str
    sign: str = ""
    unit: str = ""
    start: int = 0  # where it starts in the normalised text
    label: bool = False  # after a label word ("Table 2", "Section 3.2", "第3节") or before one ("3.2节")
    name: str = ""  # the word right before it, space-separated ("Llama" in "Llama 3.2")

    @property
    def text(self) -> str:
        return f"{self.sign}{self.value}{self.unit}"

    @property
    def is_year(self) -> bool:
        return not self.unit and not self.sign and bool(_YEAR_RE.match(self.value))

    @property
    def counts_in_prose(self) -> bool:
        """A figure that prose must not invent: a decimal, a percentage or other unit, or an integer of two
        digits or more; not a label ("Table 12"), not a year ("ImageNet 2012"), not a lone digit ("3 stages")."""
        if self.label or self.is_year:
            return False
        return "." in self.value or bool(self.unit) or len(self.value) >= 2

    def matches(self, other: Number) -> bool:
        """Whether this number (from a digest) is `other` (from the paper): the same value as printed; a
        digest may leave out the paper's sign or unit, never add or change one."""
        return (
            self.value == other.value
            and self.sign in ("", other.sign)
            and (not self.unit or _UNIT_KEY.get(self.unit, self.unit) == _UNIT_KEY.get(other.unit, other.unit))
        )

    def named_at(self, text: str) -> int | None:
        """Where a normalised text prints this number inside its name, as "Llama-3.2-3B" and "Qwen2.5" hold
        "Llama 3.2" and "Qwen 2.5" (a version written apart from its name is the same name); None if nowhere."""
        if not self.name or self.unit or self.sign:
            return None
        pattern = rf"(?<![A-Za-z0-9]){re.escape(self.name)}[- ]?{re.escape(self.value)}(?![A-Za-z\d]|\.\d)"
        found = re.search(pattern, text, re.IGNORECASE)
        return found.start() if found else None


def is_resolution(text: str, end: int) -> bool:
    """Whether the "2K", "4K" or "8K" ending at `end` is a display resolution (a label), by the word after it."""
    return _RESOLUTION_AFTER_RE.match(text, end) is not None


def numbers_in(text: str, *, normalised: bool = False) -> list[Number]:
    """Every number token of a text, in order."""
    norm = text if normalised else normalise_for_match(text)
    found: list[Number] = []
    last_end = -1
    for m in NUMBER_RE.finditer(norm):
        before = norm[max(0, m.start() - 24) : m.start()]
        name = _NAME_BEFORE_RE.search(before)
        sign, unit = m.group("sign") or "", m.group("unit") or ""
        magnitude = None if unit else _MAGNITUDE_AFTER_RE.match(norm, m.end())
        if magnitude and (magnitude.group(1) != "倍" or len(m.group("value").replace(".", "")) > 1):
            unit = magnitude.group(1)
        listed = (
            bool(found)
            and found[-1].label
            and not (sign or unit)
            and _LABEL_LIST_RE.fullmatch(norm, last_end, m.start()) is not None
        )
        # a percentage or a ratio is a figure even after a label word: no table is numbered "12.1%", and a
        # Chinese word may end in a label character ("方式12.1%", "算法2.5×")
        label = unit not in _FIGURE_UNITS and (
            listed
            or bool(_LABEL_BEFORE_RE.search(before) or _LABEL_AFTER_RE.match(norm, m.end()))
            or (m.group("unit") == "K" and m.group("value") in ("2", "4", "8") and is_resolution(norm, m.end()))
        )
        found.append(Number(m.group("value"), sign, unit, m.start(), label=label, name=name.group(1) if name else ""))
        last_end = m.end()
    return found


@dataclass(frozen=True)
class Quantity:
    """A quantity the English says with a word of scale: its value, and the number as printed ("" for a word)."""

    value: float
    printed: str


def scaled_quantities(english: str) -> list[Quantity]:
    """The quantities `english` says with a word of scale: "two million" is 2e6, "1.5 billion" 1.5e9."""
    found = []
    for m in _QUANTITY_RE.finditer(normalise_for_match(english)):
        word = m.group(1).casefold()
        count = float(NUMBER_WORDS.get(word) or word)
        found.append(Quantity(count * _SCALES[m.group(2).casefold()], "" if word in NUMBER_WORDS else m.group(1)))
    return found


def ratios_said(text: str) -> list[tuple[str, Number]]:
    """The ratios `text` says with "times", as printed and as numbers (`4 times` and `four times` are 4×): a
    figure, though a lone digit counts as none in prose."""
    found = []
    for m in _TIMES_RE.finditer(normalise_for_match(text)):
        word = m.group(1).casefold()
        found.append((m.group(0), Number(str(NUMBER_WORDS.get(word, word)), unit="×")))
    return found


def chinese_quantity(number: Number) -> float | None:
    """The value a Chinese number with a magnitude stands for (200万 is 2e6), None for any other number."""
    scale = _ZH_SCALES.get(number.unit)
    return float(number.value) * scale if scale else None


def prose_numbers(text: str) -> list[Number]:
    """The figures written in a piece of prose that must be the paper's (see Number.counts_in_prose)."""
    return [n for n in numbers_in(text) if n.counts_in_prose]


def entry_numbers(entry: str) -> list[Number]:
    """The numbers of a `numbers` entry: usually one (`"43.3%"`, `"1,000"`, `"−0.5"`), sometimes with words
    (`"120 GPU hours"`) or two (`"from 40.1% to 43.3%"`); none for "twelve" or an identifier like "GPT-4"."""
    return numbers_in(entry)


def occurs(number: Number, haystack: Iterable[Number]) -> bool:
    return any(number.matches(candidate) for candidate in haystack)


def values(numbers: Iterable[Number]) -> Counter[str]:
    """A multiset of values with their signs, units aside (a translation may write `2.5 倍` for `2.5×`)."""
    return Counter(f"{n.sign}{n.value}" for n in numbers)
