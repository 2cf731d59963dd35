"""An answer's text -> the digest it holds, or the schema problems in words (the checker's first step)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from papers_digest.checker.problems import Problem
from papers_digest.core.models import DIGEST_KEYS, Digest

_FENCE_RE = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


def extract_json(reply: str) -> tuple[Any | None, str | None]:
    """Parse a reply that should be one JSON object; a surrounding Markdown fence is tolerated."""
    text = reply.strip()
    fenced = _FENCE_RE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        return None, "the reply is empty"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"


def parse_digest(reply: str) -> tuple[Digest | None, list[Problem]]:
    """Reply text -> Digest, or the problems in words (rule `json` or `schema`)."""
    data, error = extract_json(reply)
    if error:
        return None, [Problem("json", "", error)]
    if not isinstance(data, dict):
        return None, [Problem("json", "", f"the reply must be one JSON object, got {type(data).__name__}")]
    return digest_of(data)


def digest_of(data: dict) -> tuple[Digest | None, list[Problem]]:
    """A digest's data -> Digest, or the problems of its shape (rule `schema`)."""
    try:
        return Digest.model_validate(data), []
    except ValidationError as exc:
        return None, [_schema_problem(err) for err in exc.errors()]


def _schema_problem(err: Any) -> Problem:
    where = _json_path(err.get("loc", ()))
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        text = f"unexpected key (allowed keys: {', '.join(DIGEST_KEYS)} and the documented nested keys)"
    else:
        text = "missing" if kind == "missing" else str(err.get("msg", "invalid"))
    return Problem("schema", where, text) if where else Problem("schema", "", f"(top level): {text}")


def _json_path(loc: Iterable[str | int]) -> str:
    """('results', 2, 'sections') -> 'results[2].sections', the notation of every problem message."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
