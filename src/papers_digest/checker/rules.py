"""The rules an English digest and its Chinese translation must meet, as problems the one retry can fix."""

from __future__ import annotations

import re
from collections.abc import Iterable

from papers_digest.checker.numbers import normalise_for_match
from papers_digest.checker.parse import parse_digest
from papers_digest.core.models import Digest, MindMapNode

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{4,}")


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


def _tag_sort_key(tag: str) -> tuple[int, str]:
    return (0 if tag == "Abstract" else 1, tag)
