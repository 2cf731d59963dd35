"""What the checker reports: one problem per broken rule instance, each naming its rule, field and fix.

The rule ids are what the run report counts (first answer vs the retry) and docs/checker.md, "The rules", lists.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

# rule id -> what it demands, in a few words (the report's legend).
RULES: dict[str, str] = {
    "json": "one JSON object",
    "schema": "exactly the digest's keys, types and counts",
    "length": "an answer that was not cut off at the token limit",
    "english": "English prose in the English digest",
    "number_form": "each `numbers` entry is one number",
    "number_unknown": "each `numbers` entry appears in the paper",
    "number_section": "each `numbers` entry appears in a cited section",
    "section_unknown": "each cited section is a section of the paper",
    "prose_number": "every figure written in prose appears in the paper",
    "finding_number": "a finding's figures appear in its cited sections",
    "result_empty": "a result carries a number when its sections hold any",
    "finding_sentence": "a finding is a sentence that says what was found",
    "number_unrelated": "a result's numbers are its finding's: in it, or in the sentence it reports",
    "packaging": "a finding says what the paper found, not where its code is or what it leaves out",
    "results_count": "as many results as the input holds claims: 1 of an abstract, up to 3 of a full text",
    "cut_off": "a field ends as a sentence ends, not cut off mid-word",
    "title_restated": "one_sentence and problem say more than the title",
    "same_sections": "results do not all cite the same sections",
    "repeated": "findings differ, and no field repeats another",
    "copied": "fields in the model's words: no passage copied from the paper",
    "zh_shape": "the translation keeps every array length and the mind map's shape",
    "zh_lists": "the translation copies `numbers` and `sections` unchanged",
    "zh_numbers": "each translated field carries exactly the numbers of its English field",
    "zh_direction": "a figure the English says went down goes down in the Chinese, and who beats whom is kept",
    "zh_chinese": "each translated field is Chinese, not English behind a label",
    "zh_length": "each translated field is about as long as its English field, not a heading",
    "zh_repeated": "each translated field translates its own English field, not another's",
    "zh_placeholder": "each name's placeholder kept in the unit's answer, once per use, unchanged",
    "zh_name": "every name stays as the English writes it, and no other is added",
    "zh_english_word": "no ordinary English word left in the Chinese",
    "zh_term": "the glossary's terms rendered as the glossary says",
    "zh_punctuation": "Chinese punctuation in Chinese sentences, not the English comma or full stop",
    "zh_added": "each unit about as long as its English: no clause added",
    "zh_unfinished": "a translated sentence does not end on a verb that needs an object (实现了。, 优于。)",
    "echo": "no field repeats the prompt's or the checker's own words",
    "names": "every name is written as the paper writes it; none invented",
    "term": "a field uses no term of the field of study that its paper never writes",
    "acronym": "an acronym's expansion is the paper's own, or absent",
    "scope": "a field keeps its sentence's scope: parity, hedges, benchmark and model size",
    "finding_doing": "a finding says what the paper found, not what the paper does",
    "summary_figure": "the summary states the main result's figure where that result states one",
    "label": "a mind-map label is a label of a few words, not a sentence",
}


@dataclass(frozen=True)
class Problem:
    """One broken rule, as data: the rule, the field it is about (a path, `results[1].finding`; "" for the whole
    answer), what is wrong and how to fix it, the field or part it refers to (`about`: the finding a
    summary repeats) and the words it is about (`subjects`: the names a translation lost, the English words it
    left, its glossary terms as "en = zh"), which a unit asked again is told. `message` is how the model, the
    report and the page read it."""

    rule: str
    field: str
    text: str
    about: str = ""
    subjects: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"unknown checker rule {self.rule!r}")

    @property
    def message(self) -> str:
        return f"{self.field}: {self.text}" if self.field else self.text


def problem_texts(problems: Iterable[Problem]) -> list[str]:
    return [p.message for p in problems]


def rules_broken(problems: Iterable[Problem]) -> list[str]:
    """The rule ids, each once, in the order they first broke."""
    return list(dict.fromkeys(p.rule for p in problems))


def retry_message(problems: Iterable[Problem]) -> str:
    """The user message that asks the model to correct its JSON (docs/design.md §1)."""
    return f"{_listed(problems)}. Return the corrected JSON object only."


# The line of a repair's message that names the fields asked for again (the simulator reads it back).
REPAIR_KEYS = "Return one JSON object with only these keys, each the corrected value of that field: "


def repair_message(problems: Iterable[Problem], paths: list[str]) -> str:
    """The user message that asks again for the fields that failed only (llm/repair.py), by path."""
    return f"{_listed(problems)}.\n{REPAIR_KEYS}{json.dumps(paths)}"


def _listed(problems: Iterable[Problem]) -> str:
    return f"Your JSON has these problems: {'; '.join(problem_texts(problems))}"
