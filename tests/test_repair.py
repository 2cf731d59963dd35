"""A translation's repair: the retry asks only for the fields that failed, on the offline model's real answers."""

import json
import re

import pytest
from conftest import DATA

from papers_digest.checker.chinese import check_digest_zh
from papers_digest.checker.problems import Problem
from papers_digest.core.models import Digest
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.repair import set_field, translation_repair

SYSTEM_PROMPT, _ = load_prompt("prompts/translate_zh.md")
RECORDED = json.loads((DATA / "llm" / "2504.01014-translation.json").read_text(encoding="utf-8"))
ENGLISH = Digest.model_validate(RECORDED["english"])
FIRST_ANSWER = RECORDED["first_answer"]


def first_problems() -> list[Problem]:
    verdict = check_digest_zh(FIRST_ANSWER, ENGLISH)
    assert verdict.digest is None
    return verdict.problems


def test_the_model_left_one_limitation_in_english_and_the_repair_asks_for_that_field_alone():
    problems = first_problems()
    assert [p.field for p in problems] == ["limitations[2]"]
    repair = translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, problems)
    assert repair is not None
    assert repair.fields == {"limitations[2]": ENGLISH.limitations[2]}
    system, user = repair.messages
    assert system == {"role": "system", "content": SYSTEM_PROMPT}  # the first request's prefix, cached
    assert user["role"] == "user" and json.loads(user["content"]) == {"limitations[2]": ENGLISH.limitations[2]}
    assert repair.schema["required"] == ["limitations[2]"] and not repair.schema["additionalProperties"]
    pattern = repair.schema["properties"]["limitations[2]"]["pattern"]
    assert re.fullmatch(pattern, "它未能在游戏体验中集成必要的动态")
    assert not re.fullmatch(pattern, ENGLISH.limitations[2])  # held to start in Chinese, as the full schema


def test_the_repaired_field_goes_back_into_the_first_answer_and_the_whole_translation_passes():
    repair = translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, first_problems())
    assert repair is not None
    merged = repair.merged(RECORDED["repair_reply"])
    verdict = check_digest_zh(merged, ENGLISH)
    assert verdict.digest is not None, verdict.problems
    first = json.loads(FIRST_ANSWER)
    assert verdict.digest.limitations == [*first["limitations"][:2], "它未能在游戏体验中集成必要的动态"]
    assert verdict.digest.model_dump(exclude={"limitations"}) == Digest.model_validate(first).model_dump(
        exclude={"limitations"}
    )


@pytest.mark.parametrize(
    "reply",
    ["I cannot do that.", "[1, 2]", '{"takeaways[0]": "不相关的字段"}', '{"limitations[2]": 3}'],
)
def test_a_repair_reply_that_translates_nothing_asked_leaves_the_answer_failing(reply):
    repair = translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, first_problems())
    assert repair is not None
    verdict = check_digest_zh(repair.merged(reply), ENGLISH)
    assert verdict.digest is None and verdict.problems  # the checker names what is still wrong
    assert json.loads(repair.merged('{"takeaways[0]": "不相关的字段"}'))["takeaways"] == json.loads(FIRST_ANSWER)[
        "takeaways"
    ]  # a field that was not asked for is not taken


@pytest.mark.parametrize(
    "problem",
    [
        Problem("json", "the reply is not valid JSON (Expecting value at line 1 column 1)"),
        Problem("length", "the answer was cut off at the token limit (finish_reason: length)"),
        Problem("zh_shape", "limitations: 2 items, the English digest has 3"),
        Problem("zh_lists", "results[0].numbers must stay exactly ['1'], got []"),
    ],
)
def test_a_problem_of_the_whole_answer_gets_the_whole_conversation_retry(problem):
    assert translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, [*first_problems(), problem]) is None


def test_fields_are_set_by_the_paths_problems_name():
    digest = json.loads(FIRST_ANSWER)
    set_field(digest, "mind_map.children[0].children[0].label", "新标签")
    set_field(digest, "results[0].finding", "新发现")
    set_field(digest, "one_sentence", "一句话")
    assert digest["mind_map"]["children"][0]["children"][0]["label"] == "新标签"
    assert digest["results"][0]["finding"] == "新发现" and digest["one_sentence"] == "一句话"
    with pytest.raises(ValueError, match="not a field path"):
        set_field(digest, "results[x]", "?")
