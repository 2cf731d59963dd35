"""Areas: a small fixed vocabulary (day/areas.yaml) a paper is filed under from its keywords and title (pure)."""

from pathlib import Path

import pytest
import yaml
from conftest import HF_DIR, SAMPLE_DIR, day_papers

from papers_digest.day.areas import (
    MAX_AREAS,
    AreasError,
    all_areas,
    area_of,
    paper_areas,
    singular,
    words_of,
)

RECORDED = [(p.stem, p.parent) for folder in (HF_DIR, SAMPLE_DIR / "hf") for p in sorted(folder.glob("*.json"))]


def test_the_vocabulary_is_small_named_in_both_languages_and_keeps_the_commonest_topic_slugs():
    areas = all_areas()
    assert 30 <= len(areas) <= 40
    assert len({a.slug for a in areas}) == len(areas)
    assert all(a.en and a.zh and any("\u4e00" <= c <= "\u9fff" for c in a.zh) for a in areas)
    # the slugs of the topic pages most papers had (their feeds' addresses stay)
    for slug in ("large-language-model", "reinforcement-learning", "diffusion-model", "benchmark", "dataset", "agent"):
        assert area_of(slug) is not None
    assert area_of("transformer") is None and area_of("nope") is None


@pytest.mark.parametrize(
    ("spellings", "words"),
    [
        (["Large Language Models", "large-language models", "LARGE LANGUAGE MODEL"], ("large", "language", "model")),
        (["Vision-Language Models (VLMs)"], ("vision", "language", "model", "vlm")),
        (["multi-modal", "multi modal"], ("multi", "modal")),
        (["Chains-of-Thought"], ("chain", "of", "thought")),
    ],
)
def test_every_spelling_is_the_same_words(spellings, words):
    assert {words_of(s) for s in spellings} == {words}


def test_singular_leaves_non_plurals_alone():
    for word in ("rl", "is", "gas", "bias", "corpus", "series", "class", "loss", "process", "physics", "3ds"):
        assert singular(word) == word
    assert [singular(w) for w in ("models", "gaussians", "boxes", "patches", "images", "policies", "llms")] == [
        "model", "gaussian", "box", "patch", "image", "policy", "llm",
    ]  # fmt: skip


def test_one_area_however_hugging_face_spells_it():
    for keywords in (["multimodal"], ["multi-modal"], ["Multimodal LLMs"], ["vision-language models"], ["MLLMs"]):
        assert paper_areas("A title", keywords) == ["multimodal-large-language-model"], keywords


def test_the_longest_term_wins_a_keyword():
    """`vision language model` is a multimodal model's term, not also a language model's; a spoken language model
    is speech."""
    assert paper_areas("A title", ["vision-language models"]) == ["multimodal-large-language-model"]
    assert paper_areas("A title", ["spoken language models"]) == ["speech-and-audio"]
    assert paper_areas("A title", ["large language models"]) == ["large-language-model"]


def test_the_title_counts_more_than_a_keyword_and_at_most_five_areas_come_out():
    keywords = ["benchmark", "large language models", "quantization", "speech recognition", "robot manipulation",
                "gaussian splatting", "diffusion models"]  # fmt: skip
    found = paper_areas("Agents that reason", keywords)
    assert len(found) == MAX_AREAS
    assert found[:2] == ["reasoning", "agent"]  # in the title, in the vocabulary's order


def test_without_keywords_the_title_and_the_abstract_decide():
    abstract = "We train a diffusion model. The diffusion model beats GANs; a benchmark is released."
    assert paper_areas("Faster sampling", [], abstract) == ["inference-efficiency", "diffusion-model"]
    assert paper_areas("Faster sampling", ["image editing"], abstract) == ["inference-efficiency", "image-generation"]
    assert paper_areas("The Road Less Scheduled", [], "") == []


@pytest.mark.parametrize(("date", "folder"), RECORDED)
def test_recorded_days_of_every_era_get_areas(date, folder):
    papers = day_papers(date, folder)
    filed = [paper_areas(p.title, p.ai_keywords, p.summary) for p in papers]
    assert all(len(a) <= MAX_AREAS and len(set(a)) == len(a) for a in filed)
    assert sum(bool(a) for a in filed) >= len(papers) * 0.9  # nearly every paper, keywords or not


def test_a_bad_vocabulary_file_names_the_entry(tmp_path: Path):
    path = tmp_path / "areas.yaml"
    good = {"slug": "a", "en": "A", "zh": "甲", "keywords": ["a"]}
    for areas, expected in (
        ([good, good], "each slug once"),
        ([good | {"slug": "Not A Slug"}], "areas.0.slug"),
        ([good | {"keywords": []}], "areas.0.keywords"),
        ([good | {"colour": "red"}], "areas.0.colour"),
    ):
        path.write_text(yaml.safe_dump({"areas": areas}), encoding="utf-8")
        all_areas.cache_clear()
        with pytest.raises(AreasError, match=expected):
            all_areas(path)
    all_areas.cache_clear()
