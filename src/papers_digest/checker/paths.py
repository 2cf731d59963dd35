"""Field paths of a digest (`one_sentence`, `results[1].finding`, `mind_map.children[0].label`): how the
checker's problems name a field, and how a repair reads and writes one (llm/repair.py). The one place that
parses them."""

from __future__ import annotations

import re
from typing import Any

_STEP = r"[a-z_]+(?:\[\d+\])?"
_PATH = rf"{_STEP}(?:\.{_STEP})*"
_PATH_RE = re.compile(_PATH)
_STEP_RE = re.compile(r"([a-z_]+)(?:\[(\d+)\])?")
# A problem's message starts with the path of the field it is about and a colon; a range
# (`results[0..3].sections`) names several results, so no one field.
_LEADING_RE = re.compile(rf"^({_PATH}):")


def is_path(text: str) -> bool:
    """Whether `text` is a field path."""
    return _PATH_RE.fullmatch(text) is not None


def leading_path(message: str) -> str:
    """The field path a message starts with; "" when it names none."""
    found = _LEADING_RE.match(message)
    return found.group(1) if found else ""


def top_level(path: str) -> str:
    """`results[2].finding` -> `results`, `mind_map.children[0].label` -> `mind_map`; "" for no path."""
    return str(steps_of(path)[0]) if path else ""


def result_index(path: str) -> int | None:
    """`results[2].finding` -> 2: the result a path is in; None for a path outside the results."""
    steps = steps_of(path)
    return steps[1] if len(steps) > 1 and steps[0] == "results" and isinstance(steps[1], int) else None


def steps_of(path: str) -> list[str | int]:
    """`mind_map.children[0].label` -> ["mind_map", "children", 0, "label"]."""
    steps: list[str | int] = []
    for part in path.split("."):
        found = _STEP_RE.fullmatch(part)
        if found is None:
            raise ValueError(f"{path!r} is not a field path")
        steps.append(found.group(1))
        if found.group(2) is not None:
            steps.append(int(found.group(2)))
    return steps


def get_field(digest: Any, path: str) -> Any:
    """The value at `path`; raises KeyError, IndexError or TypeError when the digest has no such field."""
    return _walk(digest, steps_of(path))


def set_field(digest: Any, path: str, value: Any) -> None:
    """Set the value at `path`, a field the digest has."""
    *parents, last = steps_of(path)
    _walk(digest, parents)[last] = value


def _walk(node: Any, steps: list[str | int]) -> Any:
    for step in steps:
        node = node[step]
    return node
