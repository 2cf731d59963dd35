"""The digest's JSON schema for structured output: the checker's rules that an engine's grammar can enforce."""

from __future__ import annotations

import copy
from typing import Any

from papers_digest.checker.chinese import must_be_chinese
from papers_digest.checker.paper import PaperFacts
from papers_digest.core.models import Digest, MindMapNode, Result


def digest_json_schema() -> dict[str, Any]:
    """The JSON schema of a digest, as the checker reads it."""
    return Digest.model_json_schema()


def digest_schema(facts: PaperFacts) -> dict[str, Any]:
    """The English digest's schema for structured output: the checker's rules an engine's grammar can enforce.

    Each result is one of the paper's sections with the figures that section holds: `sections` is that
    section's tag and `numbers` draws from its figures (at least one when it has any, unless the model saw
    only the abstract), then the finding. Lists, strings and the mind map are capped (see
    `_base_schema`). An answer in this shape can still be wrong: the checker still judges it.
    """
    schema = _base_schema()
    alternatives = [_section_result(facts, tag) for tag in _citable(facts)]
    schema["properties"]["results"]["items"] = {"anyOf": alternatives} if len(alternatives) > 1 else alternatives[0]
    return schema


def translation_schema(english: Digest) -> dict[str, Any]:
    """The translation's schema: the English digest's shape exactly, each result's numbers and sections pinned
    to the English ones, and prose that starts in Chinese."""
    schema = _base_schema(like=english)
    props = schema["properties"]
    for key in ("results", "limitations", "takeaways"):
        props[key].update(minItems=len(getattr(english, key)), maxItems=len(getattr(english, key)))
    props["results"]["prefixItems"] = [_pinned_result(r) for r in english.results]
    for key in ("one_sentence", "problem", "method"):
        props[key] = _chinese(key)
    for key in ("limitations", "takeaways"):
        props[key]["items"] = _chinese("item")
    return schema


def _base_schema(like: Digest | None = None) -> dict[str, Any]:
    """The digest's schema with every string and list capped and the mind map three levels deep (or, for a
    translation, exactly the English one's shape). A grammar with a cap must close the string or the list,
    so a small model that starts repeating itself runs into the cap instead of into llm.max_tokens with the
    JSON unfinished (measured on llama-server, whose grammar compiler takes caps of a thousand)."""
    schema = copy.deepcopy(digest_json_schema())
    props = schema["properties"]
    for key in ("limitations", "takeaways"):
        props[key].update(minItems=1, maxItems=6, items=_capped("item"))
    for key in ("one_sentence", "problem", "method"):
        props[key] = _capped(key)
    props["mind_map"] = _mind_map_schema(like.mind_map if like else None, depth=3)
    del schema["$defs"]
    props["results"] = {"type": "array", "minItems": 3, "maxItems": 6}
    return schema


def _citable(facts: PaperFacts) -> list[str]:
    """The sections a result may cite in the schema: the abstract and the top-level sections (a section's
    text includes its subsections'), or every section of a short paper."""
    if len(facts.tags) <= MAX_ALTERNATIVES:
        return list(facts.tags)
    levels = facts.levels
    top = [tag for tag in facts.tags if levels.get(tag, 1) <= 1]
    return top[:MAX_ALTERNATIVES] or list(facts.tags[:MAX_ALTERNATIVES])


def _section_result(facts: PaperFacts, tag: str) -> dict[str, Any]:
    figures = list(dict.fromkeys(n.text for n in [*facts.figures_in([tag]), *facts.unsectioned] if n.counts_in_prose))
    figures = figures[:MAX_FIGURES]
    if figures:
        choices = {"type": "string", "enum": figures}
        numbers: dict[str, Any] = {"type": "array", "items": choices, "maxItems": MAX_NUMBERS}
        if not facts.abstract_only:
            numbers["minItems"] = 1
    else:
        numbers = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    # sections first, then its numbers, then the finding: the model picks the evidence before it writes
    properties = {"sections": {"const": [tag]}, "numbers": numbers, "finding": _capped("finding")}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


MAX_NUMBERS = 6  # a result quotes at most this many numbers
MAX_ALTERNATIVES = 24  # sections a result may cite in the schema; beyond, only the top-level ones
MAX_FIGURES = 60  # figures offered per section (the first ones); the grammar grows with every choice


def _pinned_result(english: Result) -> dict[str, Any]:
    """A result of a translation: its finding in Chinese, its numbers and sections exactly the English ones."""
    properties = {
        "finding": _chinese("finding"),
        "numbers": {"const": list(english.numbers)},
        "sections": {"const": list(english.sections)},
    }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


# Characters a string of the digest may take (a JSON escape counts as its characters); the prompt asks
# for less: one sentence, 2-4 sentences, short list items.
STRING_CAPS = {"one_sentence": 400, "problem": 900, "method": 1000, "finding": 500, "item": 300, "label": 120}


def _capped(kind: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": STRING_CAPS[kind]}


def _chinese(kind: str) -> dict[str, Any]:
    # Prose starts with a Chinese character: a small model held to that writes Chinese instead of copying
    # the English. The rest is JSON string content, capped like the English: llama.cpp applies the pattern
    # to the raw string, so an escape must be a valid one (a TeX backslash comes out as \\).
    cap = STRING_CAPS[kind] - 1
    body = r'([^"\\\n]|\\["\\/bfnrt])'
    return {"type": "string", "pattern": rf"^[\u4e00-\u9fff]{body}{{0,{cap}}}$"}


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
    # A translated label starts in Chinese when its English is a phrase (the checker's rule); a name stays.
    label = _chinese("label") if shape is not None and must_be_chinese(shape.label, label=True) else _capped("label")
    return {
        "type": "object",
        "properties": {"label": label, "children": children},
        "required": ["label", "children"] if shape is not None else ["label"],
        "additionalProperties": False,
    }


MIND_MAP_CHILDREN = 6
