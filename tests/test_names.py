"""reading/names.py on real abstracts (the sample day, tests/data/hf): the names a translation keeps, and the
acronyms their words define."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_DIR, day_papers

from papers_digest.reading.names import acronym_definitions, names_in, title_names

SAMPLE = {p.arxiv_id: p for p in day_papers("2025-04-03", SAMPLE_DIR / "hf")}
VSI = SAMPLE["2504.00883"].summary  # "Improved Visual-Spatial Reasoning via R1-Zero-Like Training"


def test_the_names_of_an_abstract_are_its_models_methods_datasets_and_acronyms_in_order():
    assert names_in(VSI) == [
        "MLLMs", "AI", "VSI", "R1-Zero", "Qwen2-VL", "CoT", "GRPO", "VSI-100k", "DeepSeek-R1-Zero", "KL", "GPU",
        "vsGRPO-2B", "Qwen2-VL-2B", "GPT-4o", "vsGRPO-7B", "Qwen2-VL-7B", "LLaVA-NeXT-Video-72B", "vsGRPO",
    ]  # fmt: skip


def test_sentence_initial_and_other_capitalised_words_are_no_names():
    found = {name for paper in SAMPLE.values() for name in names_in(paper.summary)}
    assert found.isdisjoint({"Increasing", "Technically", "However", "Moreover", "Figure", "Extensive", "The"})


def test_an_ordinary_word_joined_to_a_name_is_no_part_of_it():
    """ "R1-Zero-like training" names R1-Zero; "VQ-based models" names VQ; a figure with a unit is a number."""
    assert names_in("via R1-Zero-like training of VQ-based models with a 7B base model and 2.5x speed") == [
        "R1-Zero",
        "VQ",
    ]


def test_a_name_beside_chinese_characters_is_read_whole():
    assert names_in("基于MergeVQ的方法超过了GPT-4o，在Qwen2.5上") == ["MergeVQ", "GPT-4o", "Qwen2.5"]


def test_a_title_abbreviation_belongs_to_the_name_after_it():
    assert "Dr. GRPO" in names_in(SAMPLE["2503.20783"].summary)


def test_a_benchmark_s_edition_belongs_to_its_name():
    # PaCoRe's "HMMT 2025" became 2025年在HMMT上 in the 2026-01-13 run at 20fbed1: the year is part of the name
    text = "An 8B model reaches 94.5% on HMMT 2025, and 43.3% on AIME 2024; in 2024, LLMs grew to 2025.5 units."
    assert names_in(text) == ["HMMT 2025", "AIME 2024", "LLMs"]


def test_web_addresses_are_not_read_for_names():
    assert names_in("Codes are at https://github.com/TencentARC/AnimeGamer.") == []


@pytest.mark.parametrize(
    ("title", "own"),
    [
        ("AnimeGamer: Infinite Anime Life Simulation with Next Game State Prediction", "AnimeGamer"),
        ("LSNet: See Large, Focus Small", "LSNet"),
        ("Soohak: A Benchmark of Korean Mathematics", "Soohak"),  # a name of ordinary spelling, before the colon
    ],
)
def test_a_papers_own_name_is_read_from_its_title(title, own):
    assert title_names(title)[0] == own


def test_a_title_without_a_colon_names_only_what_its_spelling_says():
    assert title_names("Improved Visual-Spatial Reasoning via R1-Zero-Like Training") == ["R1-Zero"]


def test_acronyms_defined_in_the_sample_days_abstracts():
    defined = {}
    for paper in SAMPLE.values():
        defined = acronym_definitions(" ".join(paper.summary.split())) | defined  # the first paper's stands
    assert {k: defined[k] for k in ("GRPO", "MLLMs", "VSI", "CoT", "LFQ", "RAG", "AKD")} == {
        "GRPO": "Group Relative Policy Optimization",
        "MLLMs": "multi-modal large language models",
        "VSI": "visual-spatial intelligence",
        "CoT": "Chain of Thought",
        "LFQ": "Look-up Free Quantization",
        "RAG": "Retrieval-Augmented Generation",
        "AKD": "Articulated Kinematics Distillation",
    }


def test_an_acronym_before_its_words_is_defined_too():
    assert acronym_definitions("we train with GRPO (Group Relative Policy Optimization) on math") == {
        "GRPO": "Group Relative Policy Optimization"
    }


def test_a_parenthesis_whose_initials_do_not_spell_the_acronym_defines_nothing():
    """ "the base model (GPT-4o)" and "GRPO (our method)" are no definitions."""
    assert acronym_definitions("the base model (GPT-4o) and GRPO (our method) and a loss (KL)") == {}


@pytest.mark.parametrize(
    ("written", "nearest"),
    [
        ("MergingVQ", "MergeVQ"),  # the sample run at 291fff1
        ("Qwen2VL", "Qwen2-VL"),
        ("GPT4o", "GPT-4o"),
        ("vsGRPO2B", "vsGRPO-2B"),
        ("VQ-merge", None),  # renamed, not misspelt
        ("vsGRPO-3B", None),  # other figures: another claim
        ("LLaVA", None),  # beside LLaMA: another model
        ("VideoDR", None),  # beside VideoRAG: other endings
        ("GPRO", None),  # beside GRPO: too far apart to say
    ],
)
def test_a_misspelt_name_is_the_paper_name_it_is_like_and_no_other(written, nearest):
    from papers_digest.checker.naming import nearest_name

    known = {"MergeVQ", "VQ", "Qwen2-VL", "Qwen2-VL-2B", "GPT-4o", "vsGRPO-2B", "vsGRPO-7B", "GRPO", "LLaMA"}
    known.add("VideoRAG")
    assert nearest_name(written, known) == nearest


def test_a_capitalised_word_quoted_alone_is_a_name_and_a_quotations_first_word_is_not():
    from papers_digest.reading.names import proper_nouns

    # 2503.02130's summary on the 2025-03-10 listing at 0eb6ac4
    english = 'The paper introduces a "Pro" block design that improves both FoX and the Transformer.'
    assert proper_nouns(english) == ["Pro", "Transformer"]
    assert proper_nouns('Reviewers said "Results are strong" of the Transformer.') == ["Transformer"]
