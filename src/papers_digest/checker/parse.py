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
        return None, [Problem("json", error)]
    if not isinstance(data, dict):
        return None, [Problem("json", f"the reply must be one JSON object, got {type(data).__name__}")]
    try:
        return Digest.model_validate(data), []
    except ValidationError as exc:
        return None, [Problem("schema", _describe_error(err)) for err in exc.errors()]


def _describe_error(err: Any) -> str:
    where = _json_path(err.get("loc", ())) or "(top level)"
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return f"{where}: unexpected key (allowed keys: {', '.join(DIGEST_KEYS)} and the documented nested keys)"
    if kind == "missing":
        return f"{where}: missing"
    return f"{where}: {err.get('msg', 'invalid')}"


def _json_path(loc: Iterable[str | int]) -> str:
    """('results', 2, 'sections') -> 'results[2].sections', the notation of every problem message."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path
