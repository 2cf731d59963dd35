"""The figures a translation must carry, compared with its English's (rule `zh_numbers`, docs/checker.md): which
numbers of an English field its Chinese must write, and which it lacks or adds, a quantity said with a word of
scale ("two million") read at its value in Chinese (200万), a number that reads as a year read as one only where
Chinese says a year."""

from __future__ import annotations

import math
import re

from papers_digest.checker.numbers import (
    Number,
    Quantity,
    chinese_quantity,
    normalise_for_match,
    numbers_in,
    scaled_quantities,
    values,
)
from papers_digest.checker.qualifiers import WORD_FIGURE_RE

_YEAR_AFTER_RE = re.compile(r"\s*(?:年|[-–—~至到]\s*\d{4}\s*年)")  # 2024年, 2023-2024年: a year in Chinese


def numbers_carried(text: str) -> list[Number]:
    """The numbers of prose a translation must carry: labels ("Table 2", "第3节") and years aside."""
    return [n for n in numbers_in(text) if not n.label and not n.is_year]


def carried_figures(english: str) -> list[str]:
    """The figures of an English field its translation must carry, as printed and in order (the schema holds
    a translated field to them)."""
    return [text for text, required in carried_numbers(english) if required]


def carried_numbers(english: str) -> list[tuple[str, bool]]:
    """The numbers of an English field a translation may write, as printed and in order, each with whether
    it must: its figures must, its lone digits and years may ("3 stages", "AIME 2024"). The schema lets a
    translated field write no other number, so a small model cannot run on into "1, 2, 3, 4, …"."""
    carried = []
    for number in numbers_in(english):
        if number.counts_in_prose:
            carried.append((number.text, True))
        elif not Number(number.value, number.sign, number.unit).counts_in_prose:  # a figure only as a label
            carried.append((number.text, False))
    return carried


def number_difference(english: str, chinese: str) -> tuple[list[str], list[str]]:
    """(the English field's numbers the Chinese lacks, the Chinese numbers the English lacks), compared as
    multisets of signed values (units aside: `2.5×` is `2.5 倍`). A number counts as in Number.counts_in_prose;
    a lone digit that counts on one side ("2×") may stand without its unit on the other ("2 倍", "8 块 A100"),
    so for lone digits every occurrence is compared."""
    en_all, zh_all = _said_at_scale(numbers_carried(english), numbers_carried(chinese), scaled_quantities(english))
    en_counted = [n for n in en_all if n.counts_in_prose]
    zh_counted = [n for n in zh_all if n.counts_in_prose]
    en, zh, en_any, zh_any = values(en_counted), values(zh_counted), values(en_all), values(zh_all)
    missing: list[str] = []
    extra: list[str] = []
    for value in dict.fromkeys([*en, *zh]):
        lone = len(value.lstrip("-")) == 1
        have_zh, have_en = (zh_any[value], en_any[value]) if lone else (zh[value], en[value])
        if en[value] > have_zh:
            missing += [_printed(value, en_counted)] * (en[value] - have_zh)
        if zh[value] > have_en:
            extra += [_printed(value, zh_counted)] * (zh[value] - have_en)
    written = {n.value for n in numbers_in(english)}
    extra += [n.text for n in _bare_years(chinese) if n.value not in written]
    return missing, extra


# The Chinese character each scale of a figure said in words needs (qualifiers.WORD_FIGURE_RE): PaCoRe's summary on
# the 2026-01-13 listing at eeae767 said "scaling effective TTC to approximately two million tokens" as …有效 tokens
# 的两倍 ("twice"), and passed.
_SCALE_ZH = {"hundred": "百", "thousand": "千", "million": "万", "billion": "亿"}


def word_figures_lost(english: str, chinese: str) -> list[str]:
    """The figures `english` says in words ("two million") whose scale `chinese` does not say (万 for a million,
    亿 for a billion), neither in Chinese nor in English."""
    lost = []
    for match in WORD_FIGURE_RE.finditer(english):
        scale = match.group("scale").casefold()
        if re.search(r"\d\s*$", english[: match.start()]):
            continue  # "2 million" is a number, compared as one (number_difference)
        if _SCALE_ZH[scale] not in chinese and not re.search(rf"\b{scale}", chinese, re.IGNORECASE):
            lost.append(match.group(0))
    return lost


def _bare_years(chinese: str) -> list[Number]:
    """The Chinese's numbers that read as years (1900-2039) but are none: no 年 after them and no name before
    them ("AIME 2024"). PaCoRe's takeaway on the 2026-01-13 listing at 661478b wrote "approximately two million
    tokens" as 约2000 and passed, 2000 read as a year."""
    norm = normalise_for_match(chinese)
    return [
        n
        for n in numbers_in(norm, normalised=True)
        if n.is_year and not n.label and not n.name and not _YEAR_AFTER_RE.match(norm, n.start + len(n.text))
    ]


def _said_at_scale(
    english: list[Number], chinese: list[Number], quantities: list[Quantity]
) -> tuple[list[Number], list[Number]]:
    """Both sides' numbers without the quantities the Chinese writes with a magnitude for the English's word of
    scale: "two million" as 200万, "1.5 billion" as 15亿 (and the English's 1.5 with it); 2000万 stays, a figure
    the English lacks, and so does 1.5亿 for "1.5 billion" (its 1.5 is not the English's)."""
    english, chinese = list(english), list(chinese)
    for quantity in quantities:
        said = next((n for n in chinese if math.isclose(chinese_quantity(n) or 0.0, quantity.value)), None)
        if said is not None:
            chinese.remove(said)
        elif not any(n.value == quantity.printed and chinese_quantity(n) for n in chinese):
            continue
        printed = next((n for n in english if n.value == quantity.printed), None)
        if printed is not None:
            english.remove(printed)
    return english, chinese


def printed_value(printed: str) -> str:
    found = numbers_in(printed)
    return f"{found[0].sign}{found[0].value}" if found else printed


def _printed(value: str, numbers: list[Number]) -> str:
    return next(n.text for n in numbers if f"{n.sign}{n.value}" == value)
