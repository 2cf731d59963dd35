"""A checker retry that asks again only for the fields that failed (docs/design.md §1, steps 3 and 4).

Measured on the sample day: resent the whole conversation, the 0.5B model repeated its first translation, the
same limitation left in English and the same figure dropped, and spent 100-115 s of a busy slot on it; asked
for that one field alone, with the same system prompt (served from the prefix cache), it translated it in 3 s
(24 tokens). An English digest's retry wrote the whole digest again (about 700 tokens, 86-108 s next to the
full paper's context) to mend one result; its repair keeps the conversation (the paper and the first answer,
in the prefix cache) and asks for that result alone. Either way the checker still judges the whole answer,
the repaired fields put back into the first one.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.parse import extract_json
from papers_digest.checker.paths import get_field, result_index, set_field
from papers_digest.checker.problems import Problem, repair_message
from papers_digest.checker.schema import digest_fields_schema
from papers_digest.llm.prompting import Message

# The rules a field answers for alone; any other problem (the JSON, the shape, results that all cite the same
# sections, a cut-off answer) is the whole answer's, and the retry resends the conversation.
DIGEST_RULES = frozenset(
    {
        "english",
        "number_form",
        "number_unknown",
        "number_section",
        "section_unknown",
        "prose_number",
        "finding_number",
        "result_empty",
        "finding_sentence",
        "title_restated",
        "number_unrelated",
        "packaging",
        "cut_off",
        "repeated",
        "copied",
        "echo",
    }
)


@dataclass(frozen=True)
class Repair:
    """The fields to ask for again, the request that asks for them, and the first answer they go back into."""

    fields: dict[str, Any]  # path -> what it held: the English to translate, or the digest's rejected value
    messages: list[Message]
    schema: dict[str, Any]
    answer: dict[str, Any]  # the first answer, parsed

    def merged(self, reply: str) -> str:
        """The first answer with the fields the reply gave (each of its field's type), as the checker reads
        an answer; a reply that is no JSON object is returned as it is, so the checker says so."""
        values, error = extract_json(reply)
        if error or not isinstance(values, dict):
            return reply
        merged = copy.deepcopy(self.answer)
        for path, value in values.items():
            if path in self.fields and isinstance(value, type(self.fields[path])):
                set_field(merged, path, value)
        return json.dumps(merged, ensure_ascii=False)


def digest_repair(messages: list[Message], facts: PaperFacts, answer: str, problems: list[Problem]) -> Repair | None:
    """The repair of an English digest whose problems are all single fields' (DIGEST_RULES): the conversation,
    the first answer, and a message that lists the problems and asks for those fields alone by path, a result
    as a whole (its sections, numbers and finding); None when any problem is the whole answer's."""
    parsed = _fields_only(answer, problems, DIGEST_RULES)
    if parsed is None:
        return None
    paths = list(dict.fromkeys(_asked(p.field) for p in problems))
    try:
        fields = {path: get_field(parsed, path) for path in paths}
        schema = digest_fields_schema(facts, paths, problems)
    except (KeyError, IndexError, TypeError):  # a path the answer or the schema does not have
        return None
    asked = [
        *messages,
        {"role": "assistant", "content": answer},
        {"role": "user", "content": repair_message(problems, paths)},
    ]
    return Repair(fields, asked, schema, parsed)


def _fields_only(answer: str, problems: list[Problem], rules: frozenset[str]) -> dict[str, Any] | None:
    """The answer as a JSON object when every problem is one of `rules` and names its field; else None."""
    if not problems or any(p.rule not in rules or not p.field for p in problems):
        return None
    parsed, error = extract_json(answer)
    return parsed if not error and isinstance(parsed, dict) else None


def _asked(path: str) -> str:
    """The field a digest's repair asks for: a result as a whole (`results[1].numbers` -> `results[1]`)."""
    index = result_index(path)
    return path if index is None else f"results[{index}]"
