"""The checker on a real paper's text: what it accepts and every kind of answer it must reject."""

import copy
import json

import pytest
from conftest import abstract_docs, sample_papers

from papers_digest.checker.rules import check_digest_en, check_digest_zh, retry_message
from papers_digest.core.models import Digest

# 2504.00883 "Improved Visual-Spatial Reasoning via R1-Zero-Like Training", abstract only.
DOC = next(d for d in abstract_docs(sample_papers()) if d.arxiv_id == "2504.00883")

GOOD_EN = {
    "one_sentence": "GRPO with a KL penalty unlocks visual-spatial reasoning in small Qwen2-VL models.",
    "problem": "Small and medium MLLMs cannot be prompted into visual-spatial reasoning with CoT.",
    "method": "R1-Zero-like GRPO training on the curated VSI-100k dataset, keeping the KL penalty.",
    "results": [
        {
            "finding": "vsGRPO-2B beats its base model and GPT-4o.",
            "numbers": ["12.1%"],
            "sections": ["Abstract"],
        },
        {"finding": "Training takes little compute.", "numbers": ["120 GPU hours"], "sections": ["Abstract"]},
        {"finding": "vsGRPO-7B matches the best open model.", "numbers": ["72B"], "sections": ["Abstract"]},
    ],
    "limitations": ["Only video-based spatial reasoning is evaluated."],
    "takeaways": ["Keep the KL penalty in GRPO."],
    "mind_map": {"label": "vsGRPO", "children": [{"label": "VSI-100k", "children": []}, {"label": "GRPO"}]},
}


def _zh(english: dict) -> dict:
    zh = copy.deepcopy(english)
    zh["one_sentence"] = "带 KL 惩罚的 GRPO 训练解锁了小型 Qwen2-VL 模型的视觉空间推理能力。"
    zh["problem"] = "小型多模态模型无法通过思维链提示进行视觉空间推理。"
    zh["method"] = "在 VSI-100k 数据集上进行 R1-Zero 式 GRPO 训练。"
    for result in zh["results"]:
        result["finding"] = "结果：" + result["finding"]
    zh["limitations"] = ["只评估了基于视频的空间推理。"]
    zh["takeaways"] = ["在 GRPO 中保留 KL 惩罚。"]
    return zh


def check_en(answer: dict | str):
    reply = answer if isinstance(answer, str) else json.dumps(answer)
    return check_digest_en(reply, DOC.text, DOC.tags)


def test_a_faithful_digest_passes():
    digest, problems = check_en(GOOD_EN)
    assert problems == []
    assert isinstance(digest, Digest)
    assert digest.results[0].numbers == ["12.1%"]


def test_a_markdown_fence_around_the_json_is_tolerated():
    digest, problems = check_en("```json\n" + json.dumps(GOOD_EN, indent=2) + "\n```")
    assert problems == [] and digest is not None


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: "this is not JSON {", "not valid JSON"),
        (lambda d: "", "empty"),
        (lambda d: "[1, 2]", "one JSON object"),
        (lambda d: {k: v for k, v in d.items() if k != "method"}, "method: missing"),
        (lambda d: {**d, "score": 9}, "score: unexpected key"),
        (lambda d: {**d, "results": d["results"][:2]}, "results"),
        (lambda d: {**d, "results": d["results"] * 3}, "results"),
        (lambda d: {**d, "limitations": "one string"}, "limitations"),
        (lambda d: {**d, "mind_map": {"label": "x", "children": [{"name": "y"}]}}, "mind_map.children[0]"),
    ],
)
def test_invalid_json_or_schema_is_rejected(mutate, expected):
    answer = mutate(copy.deepcopy(GOOD_EN))
    digest, problems = check_en(answer)
    assert digest is None
    assert any(expected in p for p in problems), problems


def test_numbers_must_hold_a_digit_and_appear_verbatim_in_the_paper():
    answer = copy.deepcopy(GOOD_EN)
    answer["results"][0]["numbers"] = ["twelve percent", "12.5%", "12.1 %"]
    digest, problems = check_en(answer)
    assert digest is None
    assert problems == [
        "results[0].numbers: 'twelve percent' holds no digit",
        "results[0].numbers: '12.5%' does not appear verbatim in the paper",
        "results[0].numbers: '12.1 %' does not appear verbatim in the paper",
    ]


def test_sections_must_be_tags_of_the_paper():
    answer = copy.deepcopy(GOOD_EN)
    answer["results"][1]["sections"] = ["3.2"]
    digest, problems = check_en(answer)
    assert digest is None
    assert problems == ["results[1].sections: '3.2' is not a section of the paper (valid: Abstract)"]
    answer["results"][2]["sections"] = []
    digest, problems = check_en(answer)
    assert digest is None
    assert problems[0].startswith("results[2].sections:")


def test_a_faithful_translation_passes():
    english = Digest.model_validate(GOOD_EN)
    digest, problems = check_digest_zh(json.dumps(_zh(GOOD_EN), ensure_ascii=False), english)
    assert problems == [] and digest is not None


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d["results"][0].update(numbers=["12.1％"]),
            "results[0].numbers must stay exactly ['12.1%']",
        ),
        (
            lambda d: d["results"][1].update(sections=["摘要"]),
            "results[1].sections must stay exactly ['Abstract']",
        ),
        (lambda d: d["takeaways"].append("多一条"), "takeaways: 2 items, the English digest has 1"),
        (lambda d: d["mind_map"]["children"].pop(), "mind_map.children: 1 items"),
        (
            lambda d: d.update(problem="Small MLLMs cannot reason about space."),
            "not translated into Chinese: problem",
        ),
        (
            lambda d: d["takeaways"].__setitem__(0, "Keep the KL penalty in GRPO."),
            "not translated into Chinese: takeaways[0]",
        ),
    ],
)
def test_translation_must_keep_structure_numbers_sections_and_be_chinese(mutate, expected):
    english = Digest.model_validate(GOOD_EN)
    zh = _zh(GOOD_EN)
    mutate(zh)
    digest, problems = check_digest_zh(json.dumps(zh, ensure_ascii=False), english)
    assert digest is None
    assert any(expected in p for p in problems), problems


def test_retry_message_lists_the_problems_as_the_seed_worded_it():
    message = retry_message(["a is wrong", "b is missing"])
    assert message == "Your JSON has these problems: a is wrong; b is missing. Return the corrected JSON object only."
