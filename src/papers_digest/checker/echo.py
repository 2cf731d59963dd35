"""An answer that repeats the instructions it was given instead of the paper (checker rule `echo`).

A small model asked to correct one field can write the checker's problem message back as another field (a
`problem` reading "Results[1].finding: '27' is not in the cited sections 2 (it appears in 1): cite the section
it comes from"), and such a digest passes every other rule. A digest field that shares a
run of ECHO_WORDS words with the system prompt or a retry's problem list is rejected; the paper's (or the
English digest's) own words, which those messages quote, do not count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from papers_digest.checker.english import prose_fields, words
from papers_digest.checker.problems import Problem
from papers_digest.core.models import Digest

ECHO_WORDS = 6
# What a problem message quotes (the answer's own words, the paper's), in repr's quotes: not instructions.
_QUOTED_RE = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def echoed(digest: Digest, instructions: Iterable[str]) -> list[Problem]:
    """One `echo` problem per prose field that repeats ECHO_WORDS consecutive words of the instructions."""
    runs = {run for text in instructions for run in _runs(_QUOTED_RE.sub(" ", text))}
    problems = []
    for path, text in prose_fields(digest):
        shared = next((run for run in _runs(text) if run in runs), None)
        if shared is not None:
            problems.append(
                Problem(
                    "echo",
                    path,
                    f"repeats the instructions ({' '.join(shared)!r}) instead of saying what the paper "
                    "says: write it from the paper",
                )
            )
    return problems


def _runs(text: str) -> list[tuple[str, ...]]:
    """The text's runs of ECHO_WORDS consecutive words, in order (so a message quotes the first one shared)."""
    found = words(text)
    return [tuple(found[i : i + ECHO_WORDS]) for i in range(len(found) - ECHO_WORDS + 1)]


# The reader the system prompt names ("for busy engineers"), which a small model writes into an answer as a claim:
# InfGen's takeaway on the 2025-09-15 listing at 17c45b1 ended ", making it a practical solution for busy
# engineers". Its clause is taken off (the claim with it); where it is no clause, the words.
_AUDIENCE = r"busy\s+engineers?"
_AUDIENCE_CLAUSE_RE = re.compile(rf",\s*[^,.;]*\b{_AUDIENCE}\b[^,.;]*(?=\.?\s*$|;)", re.IGNORECASE)
_AUDIENCE_RE = re.compile(rf"\s*\b(?:for|to)\s+{_AUDIENCE}\b", re.IGNORECASE)


def without_audience(text: str) -> str:
    """`text` without the prompt's reader ("…, making it a practical solution for busy engineers")."""
    return _AUDIENCE_RE.sub("", _AUDIENCE_CLAUSE_RE.sub("", text))
