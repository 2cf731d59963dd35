"""A translation's retry that asks again only for the fields that failed (docs/design.md §1, step 4).

Measured on the sample day: resent the whole conversation, the 0.5B model repeated its first answer, the same
limitation left in English and the same figure dropped, and spent 100-115 s of a busy slot on it; asked for
that one field alone, with the same system prompt (served from the prefix cache), it translated it in 3 s (24 tokens).
The checker still judges the whole translation, the repaired fields put back into the first answer.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from papers_digest.checker.english import prose_fields
from papers_digest.checker.parse import extract_json
from papers_digest.checker.problems import Problem
from papers_digest.checker.schema import fields_schema
from papers_digest.core.models import Digest
from papers_digest.llm.prompting import Message, translate_messages

# The rules a field answers for alone; any other problem (the JSON, the shape, the lists, a cut-off answer)
# is the whole answer's, and the retry resends the conversation.
FIELD_RULES = frozenset({"zh_numbers", "zh_chinese", "echo"})
_STEP_RE = re.compile(r"([a-z_]+)(?:\[(\d+)\])?")


@dataclass(frozen=True)
class Repair:
    """The fields to ask for again, the request that asks for them, and the first answer they go back into."""

    fields: dict[str, str]  # path -> the English text to translate
    messages: list[Message]
    schema: dict[str, Any]
    answer: dict[str, Any]  # the first answer, parsed

    def merged(self, reply: str) -> str:
        """The first answer with the fields the reply translated, as the checker reads an answer; a reply that
        is no JSON object is returned as it is, so the checker says so."""
        values, error = extract_json(reply)
        if error or not isinstance(values, dict):
            return reply
        merged = copy.deepcopy(self.answer)
        for path, text in values.items():
            if path in self.fields and isinstance(text, str):
                set_field(merged, path, text)
        return json.dumps(merged, ensure_ascii=False)


def translation_repair(system_prompt: str, english: Digest, answer: str, problems: list[Problem]) -> Repair | None:
    """The repair of a translation whose problems are all in fields' prose (FIELD_RULES), or None when any
    problem is the whole answer's."""
    if not problems or any(p.rule not in FIELD_RULES or not p.field for p in problems):
        return None
    parsed, error = extract_json(answer)
    source = dict(prose_fields(english))
    paths = list(dict.fromkeys(p.field for p in problems))
    if error or not isinstance(parsed, dict) or any(path not in source for path in paths):
        return None
    fields = {path: source[path] for path in paths}
    return Repair(fields, translate_messages(system_prompt, fields), fields_schema(fields), parsed)


def set_field(digest: dict[str, Any], path: str, value: str) -> None:
    """Set the value at a problem's path (`one_sentence`, `results[1].finding`, `mind_map.children[0].label`)."""
    steps: list[str | int] = []
    for part in path.split("."):
        found = _STEP_RE.fullmatch(part)
        if found is None:
            raise ValueError(f"{path!r} is not a field path")
        steps.append(found.group(1))
        if found.group(2) is not None:
            steps.append(int(found.group(2)))
    node: Any = digest
    for step in steps[:-1]:
        node = node[step]
    node[steps[-1]] = value
