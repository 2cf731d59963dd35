"""Words a digest copied from the paper: the runs of consecutive words a field shares with the text the
model was given, and whether a run crosses a sentence end of the paper (checker rule `copied`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from papers_digest.checker.fields import words

_WORD_RE = re.compile(r"[A-Za-z0-9]+")
# A sentence ends at a full stop, ! or ? (closing quotes and brackets may follow), then a space and a capital.
_END_RE = re.compile(r"[\"')\]”’]*[.!?][\"')\]”’]*\s+(?=[A-Z])")
# Words a full stop follows without ending a sentence ("et al. Smith", "Fig. 2", "Dr. GRPO", "e.g. The").
ABBREVIATIONS = frozenset(
    {"al", "fig", "figs", "eq", "eqs", "sec", "tab", "dr", "mr", "ms", "vs", "no", "e", "g", "i", "cf", "etc",
     "approx", "resp", "ref", "refs", "appx", "st", "jr", "inc", "ltd"}
)  # fmt: skip
# A pause after a word: punctuation before the next word (a clause or a sentence may end there), or the end.
_PAUSE_RE = re.compile(r"\s*(?:[.,;:!?()\[\]\"”’]|$)")
GRAM = 4  # runs shorter than this are not looked up (a term or a short phrase is everybody's)
NAME_WEIGHT = 0.5
LIST_ITEM_WORDS = 4  # the most words (a hyphenated compound one) of an item of a list of terms
_ITEM = rf"[A-Za-z0-9][\w\-]*(?:\s+[A-Za-z0-9][\w\-]*){{0,{LIST_ITEM_WORDS - 1}}}"
# A list of three or more terms: "cross-frame clue extraction, iterative retrieval, and multi-hop verification"
_LIST_RE = re.compile(rf"{_ITEM}(?:,\s+{_ITEM})+,?\s+(?:and|or)\s+{_ITEM}")


@dataclass(frozen=True)
class Run:
    """Consecutive words a field shares with the paper: where in the field, how many, and whether the
    paper's copy of them runs across one of its sentence ends."""

    start: int
    length: int
    crosses: bool
    text: str
    # its length with each name, figure or word of a list of terms counted NAME_WEIGHT and a hyphenated compound as
    # one word: what a careful summary keeps of a paper is its names with their descriptions and its lists of terms
    # (docs/reading.md, "Copying"), so the `copied` bounds weigh them less
    weight: float = 0.0


@dataclass
class PaperWords:
    """The paper's words in order, after which of them a sentence ends, and where each GRAM-word run starts."""

    words: list[str]
    ends: list[bool]
    pauses: list[bool] = field(default_factory=list)
    index: dict[tuple[str, ...], list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> PaperWords:
        found = list(_WORD_RE.finditer(text))
        ends, pauses = [], []
        for match in found:
            word = match.group(0).casefold()
            ended = _END_RE.match(text, match.end()) is not None
            ends.append(ended and not (len(word) == 1 and word.isalpha()) and word not in ABBREVIATIONS)
            pauses.append(_PAUSE_RE.match(text, match.end()) is not None)
        paper_words = [m.group(0).casefold() for m in found]
        index: dict[tuple[str, ...], list[int]] = {}
        for i in range(len(paper_words) - GRAM + 1):
            index.setdefault(tuple(paper_words[i : i + GRAM]), []).append(i)
        return cls(paper_words, ends, pauses, index)

    def runs(self, text: str) -> list[Run]:
        """The longest run of the paper's words at each place of `text` (GRAM words or more), longest first."""
        mine = words(text)
        weights = _word_weights(text, len(mine))
        found: dict[int, Run] = {}
        for i in range(len(mine) - GRAM + 1):
            for p in self.index.get(tuple(mine[i : i + GRAM]), ()):
                if i > 0 and p > 0 and mine[i - 1] == self.words[p - 1]:
                    continue  # inside a run that starts earlier
                length = GRAM
                most = min(len(mine) - i, len(self.words) - p)
                while length < most and mine[i + length] == self.words[p + length]:
                    length += 1
                crosses = any(self.ends[p : p + length - 1])
                best = found.get(i)
                if best is None or (length, crosses) > (best.length, best.crosses):
                    found[i] = Run(i, length, crosses, " ".join(mine[i : i + length]), sum(weights[i : i + length]))
        return sorted(found.values(), key=lambda run: -run.length)


def _word_weights(text: str, count: int) -> list[float]:
    """Each word's weight in a run: 0 for a word a hyphen joins to the one before it (a compound counts once:
    "multi-hop", "cross-frame"), NAME_WEIGHT for a name or a figure (a digit, a capital after its first letter,
    or a capitalised word past the text's first) and for a word of a list of three or more terms (a careful
    summary keeps the paper's list as it keeps a name: docs/reading.md, "Copying"), 1 for any other word."""
    found = list(_WORD_RE.finditer(text))
    if len(found) != count:  # another script's letters split the words otherwise: every word counts whole
        return [1.0] * count
    listed = [(m.start(), m.end()) for m in _LIST_RE.finditer(text)]
    weights = []
    for i, match in enumerate(found):
        word = match.group(0)
        if i > 0 and text[found[i - 1].end() : match.start()] == "-":
            weights.append(0.0)
        elif _is_name(word, first=i == 0) or any(start <= match.start() < end for start, end in listed):
            weights.append(NAME_WEIGHT)
        else:
            weights.append(1.0)
    return weights


def _is_name(word: str, *, first: bool) -> bool:
    """A name or a figure: a digit, a capital after its first letter, or a capitalised word not opening its text."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:]) or (not first and word[0].isupper())


def stops_mid_passage(text: str, paper: PaperWords) -> bool:
    """Whether `text` stops inside a passage it copies: its last word is the start of the paper's next word
    ("… struggle to address the t"), or its last GRAM words stand in the paper only where no punctuation
    follows them ("… and observe strong", where the paper goes on "performance superiority.")."""
    mine = words(text)
    if len(mine) <= GRAM:
        return False
    *head, last = mine
    for p in paper.index.get(tuple(head[-GRAM:]), ()):
        following = paper.words[p + GRAM] if p + GRAM < len(paper.words) else ""
        if following != last and following.startswith(last):
            return True
    places = paper.index.get(tuple(mine[-GRAM:]), [])
    return bool(places) and not any(paper.pauses[p + GRAM - 1] for p in places)


def longest_run(text: str, paper: PaperWords) -> int:
    """The most consecutive words `text` shares with the paper (0 when under GRAM)."""
    runs = paper.runs(text)
    return runs[0].length if runs else 0


# Where a sentence's last clause starts: "… tasks while maintaining favorable token efficiency", ", which …",
# ", achieving …".
_LAST_CLAUSE_RE = re.compile(r",?\s+(?:while|whereas|thereby|thus)\s+\w+ing\b|,\s+(?:which|and|\w+ing)\b")
CUT_HEAD_WORDS = 8  # the fewest words a summary keeps where the program takes its last clause off


def without_last_clause(text: str) -> str:
    """`text` without its last clause, said as a sentence, where CUT_HEAD_WORDS words or more are left; "" where
    none is. A summary that copies its sentence whole is mostly the sentence's last clause too long: MergeVQ's
    "… achieves competitive performance … while maintaining favorable token efficiency and inference speed" copied
    19 words in all 6 rounds of the sample run at fa54def (and at 983be3c); its head alone copies 9."""
    clauses = [m for m in _LAST_CLAUSE_RE.finditer(text) if len(words(text[: m.start()])) >= CUT_HEAD_WORDS]
    return f"{text[: clauses[-1].start()].rstrip(' ,;:')}." if clauses else ""
