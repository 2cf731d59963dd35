"""A checker retry that asks only for the fields that failed: an English digest's, on faithful digests of recorded
papers with one planted fault (a translation asks each unit alone: tests/test_translation.py)."""

import json

import pytest
from conftest import DATA
from test_checker import R1, doc, en, facts, judge_en

from papers_digest.checker.paths import get_field, leading_path, set_field
from papers_digest.checker.problems import REPAIR_KEYS, Problem
from papers_digest.core.models import Digest
from papers_digest.llm.prompting import digest_messages, load_prompt
from papers_digest.llm.repair import digest_repair

RECORDED = json.loads((DATA / "llm" / "2504.01014-translation.json").read_text(encoding="utf-8"))
FIRST_ANSWER = RECORDED["first_answer"]


def test_fields_are_set_by_the_paths_problems_name():
    digest = json.loads(FIRST_ANSWER)
    set_field(digest, "mind_map.children[0].children[0].label", "新标签")
    set_field(digest, "results[0].finding", "新发现")
    set_field(digest, "one_sentence", "一句话")
    assert digest["mind_map"]["children"][0]["children"][0]["label"] == "新标签"
    assert digest["results"][0]["finding"] == "新发现" and digest["one_sentence"] == "一句话"
    assert get_field(digest, "results[0].finding") == "新发现"
    with pytest.raises(ValueError, match="not a field path"):
        set_field(digest, "results[x]", "?")


def test_a_problem_names_its_field_only_when_its_message_starts_with_one():
    assert leading_path("results[2].numbers: empty, but its sections B hold figures") == "results[2].numbers"
    assert leading_path("mind_map.children[1].label: not translated") == "mind_map.children[1].label"
    assert leading_path("results[0..3].sections: every result cites 2") == ""  # several results: no one field
    assert leading_path("the answer was cut off at the token limit (finish_reason: length)") == ""


# --- an English digest's repair --------------------------------------------------------------------------

DIGEST_PROMPT, _ = load_prompt("prompts/digest_en_json.md")


def planted(change) -> tuple[str, list[Problem]]:
    """R1-Zero's faithful digest with one change, as the model's answer, and the checker's problems with it."""
    answer = en(R1)
    change(answer)
    reply = json.dumps(answer, ensure_ascii=False)
    verdict = judge_en(reply, R1)
    assert verdict.digest is None
    return reply, verdict.problems


def repair_of(reply: str, problems: list[Problem]):
    return digest_repair(digest_messages(DIGEST_PROMPT, doc(R1)), facts(R1), reply, problems)


def wrong_section(answer: dict) -> None:
    answer["results"][1]["sections"] = ["3.3"]  # "60%" is in 2.2, not 3.3


def test_a_result_cited_to_the_wrong_section_is_asked_for_again_alone_in_its_conversation():
    reply, problems = planted(wrong_section)
    assert {p.field for p in problems} == {"results[1].numbers", "results[1].finding"}
    repair = repair_of(reply, problems)
    assert repair is not None
    assert list(repair.fields) == ["results[1]"]  # the result as a whole: its sections, numbers and finding
    system, paper, assistant, user = repair.messages
    assert [system, paper] == digest_messages(DIGEST_PROMPT, doc(R1))  # the first request, the engine's prefix
    assert assistant == {"role": "assistant", "content": reply}
    assert user["content"].startswith("Your JSON has these problems: results[1].")
    assert user["content"].endswith(f'{REPAIR_KEYS}["results[1]"]')
    assert repair.schema["required"] == ["results[1]"] and not repair.schema["additionalProperties"]
    cited = [alt["properties"]["sections"]["const"] for alt in repair.schema["properties"]["results[1]"]["anyOf"]]
    assert ["2.2"] in cited and ["3.3"] in cited  # one of the paper's sections, with that section's figures


def test_the_repaired_result_goes_back_into_the_first_answer_and_the_whole_digest_passes():
    reply, problems = planted(wrong_section)
    repair = repair_of(reply, problems)
    assert repair is not None
    mended = en(R1)["results"][1]
    verdict = judge_en(repair.merged(json.dumps({"results[1]": mended})), R1)
    assert verdict.digest is not None, verdict.problems
    assert verdict.digest.model_dump() == Digest.model_validate(en(R1)).model_dump()
    still = judge_en(repair.merged('{"results[1]": "not a result"}'), R1)  # a value of another type is not taken
    assert still.digest is None and {p.field for p in still.problems} == {p.field for p in problems}


def test_a_restated_title_asks_for_one_sentence_alone_held_to_its_cap():
    reply, problems = planted(lambda answer: answer.update(one_sentence=facts(R1).title))
    assert [p.rule for p in problems] == ["title_restated"]
    repair = repair_of(reply, problems)
    assert repair is not None and list(repair.fields) == ["one_sentence"]
    assert repair.schema["properties"]["one_sentence"]["type"] == "string"


@pytest.mark.parametrize(
    "extra",
    [
        Problem("same_sections", "results", "every result cites 2: cite the section each comes from"),
        Problem("length", "", "the answer was cut off at the token limit (finish_reason: length)"),
        Problem("schema", "results", "at least 3 items"),
        Problem("number_unknown", "results[9].numbers", "'1' appears nowhere in the paper"),  # no such result
    ],
)
def test_a_problem_of_the_whole_digest_gets_the_whole_conversation_retry(extra):
    reply, problems = planted(wrong_section)
    assert repair_of(reply, [*problems, extra]) is None
