"""A figure that the English says went down keeps its direction in the Chinese (rule `zh_direction`,
docs/checker.md, "The rules"; docs/translation.md, "What the rules do not see").

On the recorded 2026-01-13 listing the 1.5B model wrote "a 25.9% latency reduction" as "提高了 … 25.9% 的延迟"
(raised the latency): every figure was there, so `zh_numbers` passed, and the reader was told the opposite. A
decrease is what a small model loses: the sentence's verb of increase ("improves", "achieves") is nearer the
start and carries over. So the rule checks one direction only, where a reading is reliable: a figure whose
nearest word of direction in the English says less ("reduction", "fewer", "lower", "drops") has a word of
decrease near it in the Chinese (降, 减, 少, 低, 缩, 省, 下, 短). An increase is not checked: Chinese says
it in too many ways ("高出", "达到", "超过", "提升") to tell a missing one from a reworded one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from papers_digest.checker.numbers import Number, normalise_for_match, numbers_in

# English words of direction; "less than" and "fewer than" bound a figure (a hedge): they say no change.
_HEDGE_RE = re.compile(r"\b(?:less|fewer)\s+than\b", re.IGNORECASE)
_DOWN_RE = re.compile(
    r"\b(?:reduc\w*|decreas\w*|lower(?:s|ed|ing)?|fewer|less|drop(?:s|ped|ping)?|"
    r"declin\w*|cut(?:s|ting)?|shrink\w*|sav(?:e|es|ed|ing|ings)|shorter|smaller|down)\b",
    re.IGNORECASE,
)
_UP_RE = re.compile(
    r"\b(?:improv\w*|increas\w*|higher|more|gains?|boost\w*|rais\w*|rises?|grow\w*|outperform\w*|surpass\w*|"
    r"exceed\w*|achiev\w*|reach\w*|up|better|larger|faster)\b",
    re.IGNORECASE,
)
_CONJUNCTION_RE = re.compile(r"and|while|whereas|but|or|yet", re.IGNORECASE)
_ZH_DOWN_RE = re.compile(r"[降减少低缩省下短]")
WORDS_AROUND = 4  # English words either side of a figure in which its direction is read
CHARACTERS_AROUND = 10  # Chinese characters either side of a figure in which a decrease must be said


def decreases_lost(english: str, chinese: str) -> list[str]:
    """The figures (as the English prints them) that the English says went down and that the Chinese states
    with no word of decrease near them; a figure the Chinese does not write is `zh_numbers`' concern."""
    written = numbers_in(chinese)
    norm_zh = normalise_for_match(chinese)
    lost = []
    for figure in _decreasing_figures(english):
        at = [n for n in written if n.value == figure.value and n.sign == figure.sign]
        if at and not any(_ZH_DOWN_RE.search(_around(norm_zh, n)) for n in at):
            lost.append(figure.text)
    return lost


def _decreasing_figures(english: str) -> list[Number]:
    """The figures of `english` whose nearest word of direction in their clause, within WORDS_AROUND words,
    says less ("a 25.9% latency reduction"; in "improves accuracy by 12% while reducing cost" 12% is an
    increase)."""
    norm = _HEDGE_RE.sub("under", normalise_for_match(english))
    found = []
    for figure in (n for n in numbers_in(norm, normalised=True) if n.counts_in_prose):
        end = figure.start + len(figure.text)
        before = _clause_words(reversed(norm[: figure.start].split()[-WORDS_AROUND:]), ahead=False)
        after = _clause_words(norm[end:].split()[:WORDS_AROUND], ahead=True)
        # words ordered by distance from the figure, the word before first on a tie
        ranked = [w for i in range(WORDS_AROUND) for side in (before, after) if i < len(side) for w in [side[i]]]
        for word in ranked:
            if _DOWN_RE.search(word):
                found.append(figure)
                break
            if _UP_RE.search(word):
                break
    return found


def _clause_words(words: Iterable[str], *, ahead: bool) -> list[str]:
    """`words` from the figure outwards, up to the end of its clause: a conjunction, or a comma or semicolon
    (the word that carries one ahead of the figure is in its clause, the one behind it is not)."""
    kept = []
    for word in words:
        if _CONJUNCTION_RE.fullmatch(word) or (not ahead and word[-1] in ",;:"):
            break
        kept.append(word)
        if ahead and word[-1] in ",;:":
            break
    return kept


def _around(text: str, number: Number) -> str:
    end = number.start + len(number.text)
    return text[max(0, number.start - CHARACTERS_AROUND) : number.start] + text[end : end + CHARACTERS_AROUND]
