"""TEMPORARY stand-in sentence splitter (replaced by the roles branch)."""

from __future__ import annotations

import re

_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n+")


def split_sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _END_RE.split(text) if s.strip()]
