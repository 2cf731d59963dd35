"""A paper's text cut into sentences: abbreviations ("et al.", "Fig. 3", "e.g."), decimals, identifiers and
links stay inside their sentence (docs/reading.md, "Sentences")."""

from __future__ import annotations

import re

# A sentence may end where . ! or ? (and any closing quotes or brackets after it) meets whitespace and then
# what can open a sentence: a capital, a digit, an opening bracket or quote, a bullet.
_END_RE = re.compile(r"[.!?][\"'”’)\]]*(?=\s+[\"'“‘(\[•A-Z0-9])")
# Words whose full stop is an abbreviation's, never a sentence's end, whatever follows ("Dr. GRPO" is a name).
_ABBREVIATIONS = frozenset(
    (  # noqa: SIM905 (a list of words reads best as words)
        "al e.g i.e cf c.f vs viz resp approx ca w.r.t incl fig figs eq eqs eqn eqns sec secs sect tab tabs app apps "
        "alg algs thm thms def defs prop lem cor ch chap no nos vol vols pp ref refs dr mr mrs ms prof st jr sr"
    ).split()
)
# Letters joined by full stops ("U.S", "e.g", "w.r.t"): an abbreviation too.
_DOTTED_RE = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_WORD_BEFORE_RE = re.compile(r"(?:^|[\s(\[\"“])([A-Za-z][A-Za-z.]*)$")
_BULLET_RE = re.compile(r"^[•\-*·]\s*")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, whitespace collapsed. A line break always ends a sentence: the marked-up
    text keeps one paragraph, caption or list item per line (wrapped text is unwrapped first, as sources/hf.py
    does for an abstract). A list item's bullet is left out."""
    found: list[str] = []
    for line in text.splitlines():
        line = _BULLET_RE.sub("", " ".join(line.split()))
        if line:
            found.extend(_line_sentences(line))
    return found


def _line_sentences(line: str) -> list[str]:
    sentences, start = [], 0
    for end in _END_RE.finditer(line):
        if end.group().startswith(".") and _is_abbreviation(line[start : end.start()]):
            continue
        sentences.append(line[start : end.end()].strip())
        start = end.end()
    sentences.append(line[start:].strip())
    return [s for s in sentences if s]


def _is_abbreviation(before_stop: str) -> bool:
    """Whether the full stop after `before_stop` belongs to an abbreviation ("et al", "Fig", "e.g", "U.S")."""
    word = _WORD_BEFORE_RE.search(before_stop)
    if word is None:
        return False
    token = word.group(1)
    return token.lower() in _ABBREVIATIONS or _DOTTED_RE.fullmatch(token) is not None
