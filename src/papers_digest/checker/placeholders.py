"""Names as placeholders in a translation unit: what the model sees instead of a name, and the names put back.

Before a unit is asked, every name in it (reading/names.py), its web addresses and the glossary's terms kept in
English are replaced by numbered placeholders, so the model never translates "MergeVQ" as "VQ-合并"; the
answer must carry each placeholder exactly as often as the English did, unchanged, and the names are put back
(docs/translation.md, "Names as placeholders").
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

# The form the offline 1.5B model kept best of those measured (bench/placeholders.py; the table in
# docs/translation.md, "Names as placeholders"): on the sample day's units with two names or more it kept every
# X1 and lost or altered ⟨1⟩, [N1], {1} and <1> in 3 to 5 of 11.
PLACEHOLDER = "X{n}"
_ASCII_END_RE = re.compile(r"[A-Za-z0-9+]$")
_ASCII_START_RE = re.compile(r"^[A-Za-z0-9]")
_URL_RE = re.compile(r"(?:https?://|www\.)[A-Za-z0-9._~:/?#@!$&'*+,;=%\-]*[A-Za-z0-9/#=_\-]")


def mark_pattern(form: str = PLACEHOLDER, loose: bool = False) -> re.Pattern[str]:
    """The placeholders of `form` in a text (`marks_in` reads them whole); `loose` finds them also altered by the
    model, spaced or in another case ("X 1", "x1"), and alone: not inside a longer word ("MAX1")."""
    head, _, tail = form.partition("{n}")
    if not loose:
        return re.compile(f"{re.escape(head)}\\d+{re.escape(tail)}")
    before = r"(?<![A-Za-z0-9_])" if head[-1:].isalnum() else ""
    return re.compile(f"{before}{re.escape(head)}\\s*\\d+\\s*{re.escape(tail)}(?![0-9])", re.I)


def marks_in(text: str, form: str = PLACEHOLDER) -> list[re.Match[str]]:
    """The placeholders of `form` in `text`, each whole: a mark of letters and digits ("X1") counts only where
    its word is made of marks alone ("X1", "X1X2", after a figure "120X4"), never inside a longer word ("MAX1",
    "X1a")."""
    pattern = mark_pattern(form)
    if not form[:1].isalnum():  # "⟨1⟩": its own brackets bound it
        return list(pattern.finditer(text))
    marks = []
    for word in re.finditer(r"[A-Za-z0-9_]+", text):  # a figure may stand right before a mark ("120X4")
        if re.fullmatch(f"[0-9.]*(?:{pattern.pattern})+", word.group()):
            marks += [m for m in pattern.finditer(text, word.start(), word.end())]
    return marks


@dataclass(frozen=True)
class Protected:
    """A unit's English with its names replaced: `text` as the model sees it, and each placeholder's name."""

    text: str
    names: dict[str, str]  # placeholder -> the name it stands for, in order of first use
    form: str = PLACEHOLDER

    def restore(self, chinese: str) -> str:
        """The model's Chinese with each placeholder replaced by its name again; a name written right beside a
        Latin letter or digit gets a space there ("X1X2" is "MIM VQ", not "MIMVQ")."""
        pieces = []
        at = 0
        for match in marks_in(chinese, self.form):
            name = self.names.get(match.group())
            if name is None:
                continue
            before = chinese[at : match.start()]
            if _ASCII_END_RE.search("".join(pieces) + before) and _ASCII_START_RE.match(name):
                before += " "
            pieces += [before, name]
            at = match.end()
            if _ASCII_START_RE.match(chinese[at:]) and _ASCII_END_RE.search(name):
                pieces.append(" ")
        return "".join([*pieces, chinese[at:]])

    def problems(self, chinese: str, said: Collection[str] = ()) -> list[str]:
        """What the answer did to the placeholders: each lost, written more often than the English has it, or
        one that is no placeholder of this unit (an altered or invented one). A name of `said` the answer wrote
        in its own words is not lost."""
        wanted = [m.group() for m in marks_in(self.text, self.form)]
        written = [m.group() for m in marks_in(chinese, self.form)]
        found = []
        for placeholder, name in self.names.items():
            want, got = wanted.count(placeholder), written.count(placeholder)
            if got < want and name not in said:
                found.append(f"{placeholder} ({name}) is missing")
            elif got > want:
                found.append(f"{placeholder} ({name}) is written {got} times, the English has it {want}")
        loose = (m.strip() for m in mark_pattern(self.form, loose=True).findall(chinese))
        strays = [m for m in loose if m not in self.names]
        return found + [f"{stray} is not a placeholder of the English" for stray in dict.fromkeys(strays)]


def protect(text: str, names: list[str], form: str = PLACEHOLDER) -> Protected:
    """`text` with each of `names` (whole words, the longest first) and each web address replaced by a
    placeholder of `form`, numbered in order of first appearance."""
    spans = sorted(_name_spans(text, names), key=lambda s: s[0])
    placeholders: dict[str, str] = {}
    by_name: dict[str, str] = {}
    pieces, at = [], 0
    for start, end in spans:
        name = text[start:end]
        if name not in by_name:
            by_name[name] = form.format(n=len(by_name) + 1)
            placeholders[by_name[name]] = name
        pieces += [text[at:start], by_name[name]]
        at = end
    return Protected("".join([*pieces, text[at:]]), placeholders, form)


def _name_spans(text: str, names: list[str]) -> list[tuple[int, int]]:
    """Where web addresses and the names stand in `text`, as whole words, longer names first, never overlapping
    (a name inside a longer one, "Qwen2-VL" in "Qwen2-VL-7B", is that one's)."""
    taken: list[tuple[int, int]] = [m.span() for m in _URL_RE.finditer(text)]
    for name in sorted(set(names), key=len, reverse=True):
        pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
        for match in pattern.finditer(text):
            start, end = match.span()
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
    return taken
