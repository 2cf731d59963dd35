"""Field paths of a digest (`one_sentence`, `results[1].finding`, `mind_map.children[0].label`): how the
checker's problems name a field, and how a repair reads and writes one (llm/repair.py). The one place that
parses them."""

from __future__ import annotations

import re
from typing import Any

_STEP = r"[a-z_]+(?:\[\d+\])?"
_PATH_RE = re.compile(rf"{_STEP}(?:\.{_STEP})*")
_STEP_RE = re.compile(r"([a-z_]+)(?:\[(\d+)\])?")
# A problem's message starts with the path of the field it is about and a colon; a range
# (`results[0..3].sections`) names several results, so no one field.
_LEADING_RE = re.compile(rf"^({_STEP}(?:\.{_STEP})*):")


def is_path(text: str) -> bool:
    """Whether `text` is a field path."""
    return _PATH_RE.fullmatch(text) is not None


def leading_path(message: str) -> str:
    """The field path a message starts with; "" when it names none."""
    found = _LEADING_RE.match(message)
    return found.group(1) if found else ""


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
    node = digest
    for step in steps_of(path):
        node = node[step]
    return node


def set_field(digest: Any, path: str, value: Any) -> None:
    """Set the value at `path`, a field the digest has."""
    steps = steps_of(path)
    node = digest
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value
