"""TEMPORARY stand-in for names in a text (replaced by the zh branch)."""

from __future__ import annotations

import re

_NAME_RE = re.compile(r"\b[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z]{2}|\d)[A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*\b")
_DEF_AFTER_RE = re.compile(r"((?:[A-Z][\w-]*\s+){1,7}[A-Z][\w-]*)\s+\(([A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)")


def names_in(text: str) -> list[str]:
    found = [m.group(0) for m in _NAME_RE.finditer(text) if re.search(r"[A-Za-z]", m.group(0))]
    return list(dict.fromkeys(n for n in found if not n.isdigit()))


def acronym_definitions(text: str) -> dict[str, str]:
    return {m.group(2): m.group(1) for m in _DEF_AFTER_RE.finditer(text)}
