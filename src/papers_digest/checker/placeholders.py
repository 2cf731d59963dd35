"""Names as placeholders in a translation unit: what the model sees instead of a name, and the names put back.

Before a unit is asked, every name in it (reading/names.py), its web addresses and the glossary's terms kept in
English are replaced by numbered placeholders, so the model never translates "MergeVQ" as "VQ-合并"; the
answer must carry each placeholder exactly as often as the English did, unchanged, and the names are put back
(docs/translation.md, "Names as placeholders").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The form the offline 1.5B model kept best of those measured (bench/placeholders.py; docs/translation.md).
PLACEHOLDER = "⟨{n}⟩"
_ASCII_END_RE = re.compile(r"[A-Za-z0-9+]$")
_ASCII_START_RE = re.compile(r"^[A-Za-z0-9]")
_URL_RE = re.compile(r"(?:https?://|www\.)[A-Za-z0-9._~:/?#@!$&'*+,;=%\-]*[A-Za-z0-9/#=_\-]")


@dataclass(frozen=True)
class Protected:
    """A unit's English with its names replaced: `text` as the model sees it, and each placeholder's name."""

    text: str
    names: dict[str, str]  # placeholder -> the name it stands for, in order of first use

    def restore(self, chinese: str) -> str:
        """The model's Chinese with each placeholder replaced by its name again; a name written right beside a
        Latin letter or digit gets a space there ("⟨1⟩⟨2⟩" is "MIM VQ", not "MIMVQ")."""
        for placeholder, name in self.names.items():
            pieces = chinese.split(placeholder)
            chinese = pieces[0]
            for piece in pieces[1:]:
                before = " " if _ASCII_END_RE.search(chinese) and _ASCII_START_RE.match(name) else ""
                after = " " if _ASCII_START_RE.match(piece) and _ASCII_END_RE.search(name) else ""
                chinese += f"{before}{name}{after}{piece}"
        return chinese

    def problems(self, chinese: str) -> list[str]:
        """What the answer did to the placeholders: each lost, written more often than the English has it, or
        one that is no placeholder of this unit (an altered or invented one)."""
        found = []
        for placeholder, name in self.names.items():
            want, got = self.text.count(placeholder), chinese.count(placeholder)
            if got < want:
                found.append(f"{placeholder} ({name}) is missing")
            elif got > want:
                found.append(f"{placeholder} ({name}) is written {got} times, the English has it {want}")
        for stray in _stray_placeholders(chinese, self.names):
            found.append(f"{stray} is not a placeholder of the English")
        return found


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
    return Protected("".join([*pieces, text[at:]]), placeholders)


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


def _stray_placeholders(chinese: str, names: dict[str, str]) -> list[str]:
    """Placeholder-like marks in the answer that are none of the unit's (a changed number, an invented one)."""
    mark = re.escape(PLACEHOLDER).replace(re.escape("{n}"), r"\s*\d+\s*")
    return [m for m in dict.fromkeys(re.findall(mark, chinese)) if m not in names]
