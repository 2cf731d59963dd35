"""A digest's prose as the rules read it: its free-text fields by path, their words, and each field's cap."""

from __future__ import annotations

import re

from papers_digest.core.models import Digest, MindMapNode

_WORD_RE = re.compile(r"[a-z0-9]+")

# Characters a string of the digest may take in the structured-output schema (a JSON escape counts as one
# character); the prompt asks for less: one sentence, 2-4 sentences, short list items.
STRING_CAPS = {"one_sentence": 300, "problem": 600, "method": 700, "finding": 400, "item": 200, "label": 120}


def words(text: str) -> list[str]:
    """The text's words (letters and digits), case-folded: what the rules that compare wording count."""
    return _WORD_RE.findall(text.casefold())


def prose_fields(digest: Digest, *, findings: bool = True) -> list[tuple[str, str]]:
    """The free-text values of a digest with their paths: one_sentence, problem, method, the findings,
    limitations, takeaways and the mind map's labels."""
    fields = [("one_sentence", digest.one_sentence), ("problem", digest.problem), ("method", digest.method)]
    if findings:
        fields += [(f"results[{i}].finding", r.finding) for i, r in enumerate(digest.results)]
    fields += [(f"limitations[{i}]", text) for i, text in enumerate(digest.limitations)]
    fields += [(f"takeaways[{i}]", text) for i, text in enumerate(digest.takeaways)]
    fields += _labels(digest.mind_map, "mind_map")
    return fields


def cap_of(path: str) -> int:
    """The schema's character cap of the field at `path` (`results[2].finding` -> the finding's cap)."""
    if path in STRING_CAPS:
        return STRING_CAPS[path]
    if path.endswith(".finding"):
        return STRING_CAPS["finding"]
    return STRING_CAPS["label" if path.endswith(".label") else "item"]


def _labels(node: MindMapNode, path: str) -> list[tuple[str, str]]:
    found = [(f"{path}.label", node.label)]
    for i, child in enumerate(node.children):
        found += _labels(child, f"{path}.children[{i}]")
    return found
