"""The one checker: digest schema, and the rules an English digest and its Chinese translation must meet."""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError

_FENCE_RE = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{4,}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class MindMapNode(_Strict):
    label: StrictStr
    children: list[MindMapNode] = Field(default_factory=list)


class Result(_Strict):
    finding: StrictStr
    numbers: list[StrictStr]
    sections: list[StrictStr] = Field(min_length=1)


class Digest(_Strict):
    """The digest's JSON object, in either language: exactly these keys."""

    one_sentence: StrictStr
    problem: StrictStr
    method: StrictStr
    results: list[Result] = Field(min_length=3, max_length=6)
    limitations: list[StrictStr]
    takeaways: list[StrictStr]
    mind_map: MindMapNode


DIGEST_KEYS = tuple(Digest.model_fields)


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


def parse_digest(reply: str) -> tuple[Digest | None, list[str]]:
    """Reply text -> Digest, or the list of schema problems in words."""
    data, error = extract_json(reply)
    if error:
        return None, [error]
    if not isinstance(data, dict):
        return None, [f"the reply must be one JSON object, got {type(data).__name__}"]
    try:
        return Digest.model_validate(data), []
    except ValidationError as exc:
        return None, [_describe_error(err) for err in exc.errors()]


def normalise_for_match(text: str) -> str:
    """NFKC and collapsed whitespace, so a number matches across a no-break space or line wrap."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def check_digest_en(reply: str, paper_text: str, tags: Iterable[str]) -> tuple[Digest | None, list[str]]:
    """Check an English digest against the text the model saw. Returns (digest, problems)."""
    digest, problems = parse_digest(reply)
    if digest is None:
        return None, problems
    haystack = normalise_for_match(paper_text)
    known = set(tags)
    # A run of Chinese characters has no place in English prose (a quoted name is rarely that long).
    chinese_fields = [path for path, text in _prose(digest) if _CJK_RUN_RE.search(text)]
    if chinese_fields:
        problems.append(f"not in English: {', '.join(chinese_fields)}")
    for i, result in enumerate(digest.results):
        for number in result.numbers:
            if not any(ch.isdigit() for ch in number):
                problems.append(f"results[{i}].numbers: {number!r} holds no digit")
            elif normalise_for_match(number) not in haystack:
                problems.append(f"results[{i}].numbers: {number!r} does not appear verbatim in the paper")
        for section in result.sections:
            if section not in known:
                problems.append(
                    f"results[{i}].sections: {section!r} is not a section of the paper "
                    f"(valid: {', '.join(sorted(known, key=_tag_sort_key))})"
                )
    return (digest if not problems else None), problems


def check_digest_zh(reply: str, english: Digest) -> tuple[Digest | None, list[str]]:
    """Check a Chinese translation: same keys and lengths, identical numbers and sections, Chinese text."""
    digest, problems = parse_digest(reply)
    if digest is None:
        return None, problems
    for key in ("results", "limitations", "takeaways"):
        got, want = len(getattr(digest, key)), len(getattr(english, key))
        if got != want:
            problems.append(f"{key}: {got} items, the English digest has {want}")
    for i, (zh, en) in enumerate(zip(digest.results, english.results, strict=False)):
        if zh.numbers != en.numbers:
            problems.append(f"results[{i}].numbers must stay exactly {en.numbers}, got {zh.numbers}")
        if zh.sections != en.sections:
            problems.append(f"results[{i}].sections must stay exactly {en.sections}, got {zh.sections}")
    problems.extend(_mind_map_shape_problems(digest.mind_map, english.mind_map, "mind_map"))
    english_fields = [path for path, text in _prose(digest) if len(text) >= 20 and not _CJK_RE.search(text)]
    if english_fields:
        problems.append(f"not translated into Chinese: {', '.join(english_fields)}")
    return (digest if not problems else None), problems


def retry_message(problems: list[str]) -> str:
    """The user message that asks the model to correct its JSON (DESIGN.md §1)."""
    return f"Your JSON has these problems: {'; '.join(problems)}. Return the corrected JSON object only."


def _prose(digest: Digest) -> list[tuple[str, str]]:
    """The free-text values of a digest that a translation must turn into Chinese, with their paths."""
    fields = [("one_sentence", digest.one_sentence), ("problem", digest.problem), ("method", digest.method)]
    fields += [(f"results[{i}].finding", r.finding) for i, r in enumerate(digest.results)]
    fields += [(f"limitations[{i}]", text) for i, text in enumerate(digest.limitations)]
    fields += [(f"takeaways[{i}]", text) for i, text in enumerate(digest.takeaways)]
    return fields


def _mind_map_shape_problems(zh: MindMapNode, en: MindMapNode, path: str) -> list[str]:
    if len(zh.children) != len(en.children):
        return [f"{path}.children: {len(zh.children)} items, the English digest has {len(en.children)}"]
    problems: list[str] = []
    for i, (a, b) in enumerate(zip(zh.children, en.children, strict=True)):
        problems.extend(_mind_map_shape_problems(a, b, f"{path}.children[{i}]"))
    return problems


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


def _tag_sort_key(tag: str) -> tuple[int, str]:
    return (0 if tag == "Abstract" else 1, tag)
