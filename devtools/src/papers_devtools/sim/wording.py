"""The simulator's own wording: a text's key words, set in its sentences so they copy no run of the paper's."""

from __future__ import annotations

import re

_KEYWORD_RE = re.compile(r"(?<![\w-])[A-Za-z]{4,}(?![\w-])")  # a word of letters, not part of a name
# Words that say nothing on their own, left out of the simulator's keyword lists.
_PLAIN_WORDS = (
    "this that with been have from when using first just however which these those their there also into such than "
    "then they were what while more most only over some each both very much many well here show shows shown following "
    "common recall technically increasing identify paper work present propose proposed method results result section "
    "table figure based about after before under between without within"
)
_PLAIN = frozenset(_PLAIN_WORDS.split())


def keywords(text: str, skip: set[str], most: int) -> list[str]:
    """The first `most` distinct words of letters (4 or more) of a text that are not in `skip`."""
    found: list[str] = []
    for word in _KEYWORD_RE.findall(text):
        folded = word.casefold()
        if folded not in skip and folded not in _PLAIN and folded not in {w.casefold() for w in found}:
            found.append(word)
        if len(found) == most:
            break
    return found


def listed(keywords: list[str]) -> str:
    """ "a, b and c" (each word apart, so a list copies no run of the paper's words)."""
    if not keywords:
        return "its subject"
    return keywords[0] if len(keywords) == 1 else f"{', '.join(keywords[:-1])} and {keywords[-1]}"
