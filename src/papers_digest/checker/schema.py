"""The digest's JSON schema for structured output: the checker's rules that an engine's grammar can enforce."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from papers_digest.checker.numbers import normalise_for_match
from papers_digest.core.models import Digest, MindMapNode


def digest_json_schema() -> dict[str, Any]:
    """The JSON schema of a digest, as the checker reads it."""
    return Digest.model_json_schema()


def generation_schema(tags: Sequence[str], numbers: Sequence[str] | None, like: Digest | None = None) -> dict[str, Any]:
    """A stricter schema for structured output: the checker's rules an engine's grammar can enforce.

    Section tags and numbers become enums of what the paper holds, lists get caps and the mind map three
    levels, so a small model cannot wander off. For a translation (`like`: the English digest) every
    array and the mind map take the English shape. String lengths are not capped: llama.cpp's grammar
    compiler expands a maxLength into nested rules and fails on a few hundred. An answer in this shape
    can still be wrong: the checker still judges it.
    """
    schema = copy.deepcopy(digest_json_schema())
    props = schema["properties"]
    result = schema["$defs"]["Result"]["properties"]
    result["sections"]["items"] = {"type": "string", "enum": list(dict.fromkeys(tags))}
    if numbers is not None:
        if numbers:
            result["numbers"]["items"] = {"type": "string", "enum": list(dict.fromkeys(numbers))}
        else:
            result["numbers"]["maxItems"] = 0
    for key in ("limitations", "takeaways"):
        props[key]["maxItems"] = 6
    props["mind_map"] = _mind_map_schema(like.mind_map if like else None, depth=3)
    del schema["$defs"]["MindMapNode"]
    if like is not None:
        for key in ("results", "limitations", "takeaways"):
            props[key].update(minItems=len(getattr(like, key)), maxItems=len(getattr(like, key)))
        # Prose starts with a Chinese character: a small model held to that writes Chinese instead of
        # copying the English. The rest is JSON string content: llama.cpp applies the pattern to the
        # raw string, so an escape must be a valid one (a TeX backslash comes out as \\).
        chinese = {"type": "string", "pattern": r'^[\u4e00-\u9fff]([^"\\\n]|\\["\\/bfnrt])*$'}
        for key in ("one_sentence", "problem", "method"):
            props[key] = dict(chinese)
        result["finding"] = dict(chinese)
        for key in ("limitations", "takeaways"):
            props[key]["items"] = dict(chinese)
    return schema


def _mind_map_schema(shape: MindMapNode | None, depth: int) -> dict[str, Any]:
    """A node: a capped label and children, either exactly like `shape` or up to `depth` levels."""
    # An empty list is written with items and maxItems 0: prefixItems must not be empty (JSON Schema),
    # and llama.cpp's grammar converter needs items or prefixItems to build an array rule.
    no_children: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    if shape is not None:
        children: dict[str, Any] = (
            {
                "type": "array",
                "prefixItems": [_mind_map_schema(c, depth) for c in shape.children],
                "minItems": len(shape.children),
                "maxItems": len(shape.children),
            }
            if shape.children
            else no_children
        )
    elif depth > 1:
        children = {"type": "array", "items": _mind_map_schema(None, depth - 1), "maxItems": MIND_MAP_CHILDREN}
    else:
        children = no_children
    return {
        "type": "object",
        "properties": {"label": {"type": "string"}, "children": children},
        "required": ["label", "children"] if shape is not None else ["label"],
        "additionalProperties": False,
    }


MIND_MAP_CHILDREN = 12
_NUMBER_RE = re.compile(r"(\d+(?:[.,]\d+)*)(\s?%|x\b|×|[KMB]\b)?")
MAX_NUMBER_CHOICES = 400  # beyond this the grammar gets slow to build; the first ones (abstract, intro) stay


def paper_numbers(text: str) -> list[str]:
    """Numbers printed in the paper, as printed, with and without their unit (`43.3%` and `43.3`), first
    occurrence first: the choices structured output offers."""
    found: dict[str, None] = {}
    for match in _NUMBER_RE.finditer(normalise_for_match(text)):
        found.setdefault(match.group(0))
        found.setdefault(match.group(1))
    return list(found)[:MAX_NUMBER_CHOICES]


