"""A checker retry that asks only for the fields that failed: a translation's, on the offline model's real
answers, and an English digest's, on faithful digests of recorded papers with one planted fault."""

import json
import re

import pytest
from conftest import DATA
from test_checker import R1, doc, en, facts, judge_en

from papers_digest.checker.chinese import check_digest_zh
from papers_digest.checker.paths import get_field, leading_path, set_field
from papers_digest.checker.problems import REPAIR_KEYS, Problem
from papers_digest.core.models import Digest
from papers_digest.llm.prompting import digest_messages, load_prompt
from papers_digest.llm.repair import digest_repair, translation_repair

SYSTEM_PROMPT, _ = load_prompt("prompts/translate_zh.md")
RECORDED = json.loads((DATA / "llm" / "2504.01014-translation.json").read_text(encoding="utf-8"))
ENGLISH = Digest.model_validate(RECORDED["english"])
FIRST_ANSWER = RECORDED["first_answer"]


def first_problems() -> list[Problem]:
    verdict = check_digest_zh(FIRST_ANSWER, ENGLISH)
    assert verdict.digest is None
    return verdict.problems


# The offline model translated results[0] and results[3] (the same English finding, written twice) as its
# one_sentence: the checker's zh_repeated names them. A translation of that finding, written by hand.
FINDING_ZH = (
    "AnimeGamer 基于多模态大语言模型（MLLMs）生成每个游戏状态，包括描绘角色动作与角色状态更新的动态动画镜头，"
    "如图1所示。作者提出新的动作感知多模态表示来表示动画镜头，可由视频扩散模型解码为高质量的视频片段。"
)
ASKED = ["limitations[2]", "results[0].finding", "results[3].finding"]


def test_the_model_left_one_limitation_in_english_and_the_repair_asks_for_the_failed_fields_alone():
    problems = first_problems()
    assert [p.field for p in problems] == ASKED
    assert [p.rule for p in problems] == ["zh_chinese", "zh_repeated", "zh_repeated"]
    repair = translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, problems)
    assert repair is not None
    english = {"limitations[2]": ENGLISH.limitations[2], "results[0].finding": ENGLISH.results[0].finding,
               "results[3].finding": ENGLISH.results[3].finding}  # fmt: skip
    assert repair.fields == english
    system, user = repair.messages
    assert system == {"role": "system", "content": SYSTEM_PROMPT}  # the first request's prefix, cached
    assert user["role"] == "user" and json.loads(user["content"]) == english
    assert repair.schema["required"] == ASKED and not repair.schema["additionalProperties"]
    pattern = repair.schema["properties"]["limitations[2]"]["pattern"]
    assert re.fullmatch(pattern, "它未能在游戏体验中集成必要的动态")
    assert not re.fullmatch(pattern, ENGLISH.limitations[2])  # held to start in Chinese, as the full schema


def test_the_repaired_fields_go_back_into_the_first_answer_and_the_whole_translation_passes():
    repair = translation_repair(SYSTEM_PROMPT, ENGLISH, FIRST_ANSWER, first_problems())
    assert repair is not None
    recorded = check_digest_zh(repair.merged(RECORDED["repair_reply"]), ENGLISH)  # the limitation alone
    assert [(p.rule, p.field) for p in recorded.problems] == [
        ("zh_repeated", "results[0].finding"),
        ("zh_repeated", "results[3].finding"),
    ]
    reply = json.loads(RECORDED["repair_reply"]) | {"results[0].finding": FINDING_ZH, "results[3].finding": FINDING_ZH}
    verdict = check_digest_zh(repair.merged(json.dumps(reply, ensure_ascii=False)), ENGLISH)
    assert verdict.digest is not None, verdict.problems
    first = json.loads(FIRST_ANSWER)
    assert verdict.digest.limitations == [*first["limitations"][:2], "它未能在游戏体验中集成必要的动态"]
    assert [r.finding for r in verdict.digest.results][::3] == [FINDING_ZH, FINDING_ZH]
    kept = {"limitations": True, "results": {0: {"finding"}, 3: {"finding"}}}
    assert verdict.digest.model_dump(exclude=kept) == Digest.model_validate(first).model_dump(exclude=kept)


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
        Problem("json", "", "the reply is not valid JSON (Expecting value at line 1 column 1)"),
        Problem("length", "", "the answer was cut off at the token limit (finish_reason: length)"),
        Problem("zh_shape", "limitations", "2 items, the English digest has 3"),
        Problem("zh_lists", "results[0].numbers", "must stay exactly ['1'], got []"),
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
