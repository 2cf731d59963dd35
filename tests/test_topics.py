"""Topics: one spelling per topic (normalise_topic), file-safe slugs, and the vocabulary fallback (pure)."""

import re

import pytest
from conftest import day_papers

from papers_digest.core.models import Paper
from papers_digest.day.topics import (
    HF,
    VOCABULARY,
    VOCABULARY_TERMS,
    normalise_topic,
    normalise_topics,
    paper_topics,
    singular,
    topic_slug,
    vocabulary_topics,
)


@pytest.mark.parametrize(
    ("spellings", "topic"),
    [
        (["Large Language Models", "large language model", "large-language models", "large language models (LLMs)"],
         "large language model"),
        (["RL", "rl"], "rl"),
        (["LLMs", "LLM", "llms"], "llm"),
        (["Retrieval-Augmented Generation (RAG)", "retrieval augmented generation"], "retrieval augmented generation"),
        (["Chains-of-Thought", "chain of thought", "Chain-of-Thought"], "chain of thought"),
        (["Mixture-of-Experts", "mixture of experts"], "mixture of experts"),
        (["vision–language  models", " Vision-Language Model "], "vision language model"),
        (["text-to-image (T2I) generation", "Text-to-Image generation"], "text to image generation"),
        (["policies"], "policy"),
        (["approaches"], "approach"),
        (["KV caches"], "kv cache"),
        (["losses"], "loss"),
        (["Robotics"], "robotics"),
        (["dynamics"], "dynamics"),
        (["Analysis", "analyses"], "analysis"),
        (["(RAG)"], "rag"),
    ],
)  # fmt: skip
def test_every_spelling_of_a_topic_normalises_to_one(spellings, topic):
    assert {normalise_topic(s) for s in spellings} == {topic}


def test_normalising_keeps_order_drops_repeats_and_empty_keywords():
    assert normalise_topics(["LLMs", "Diffusion Models", "llm", " - ", "diffusion model"]) == ["llm", "diffusion model"]


def test_singular_leaves_non_plurals_alone():
    for word in ("rl", "is", "gas", "bias", "corpus", "series", "class", "loss", "process", "physics", "3ds"):
        assert singular(word) == word
    assert [singular(w) for w in ("models", "gaussians", "boxes", "patches", "images", "responses")] == [
        "model", "gaussian", "box", "patch", "image", "response",
    ]  # fmt: skip


def test_slugs_are_ascii_file_names_and_never_shared_by_two_topics():
    assert topic_slug("large language model") == "large-language-model"
    odd = ["c++", "c#", "c", "q&a", "gpt 4.5", "gpt 45", "模型", "ünïcode", "x" * 200, "../etc/passwd"]
    slugs = [topic_slug(normalise_topic(t)) for t in odd]
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s) and len(s) <= 90 for s in slugs)
    assert len(set(slugs)) == len(slugs)


def test_the_vocabulary_is_written_in_normal_form():
    assert all(normalise_topic(t) == t for t in VOCABULARY_TERMS)
    assert len(set(VOCABULARY_TERMS)) == len(VOCABULARY_TERMS)


def test_vocabulary_topics_are_terms_the_paper_itself_contains_title_first():
    title = "Scaling Reasoning in Large Language Models"
    abstract = "We train LLMs with reinforcement learning. Agents use tools; our benchmarks and agents show gains."
    topics = vocabulary_topics(title, abstract)
    assert topics[:2] == ["large language model", "reasoning"]  # in the title, in the vocabulary's order
    assert topics[2] == "agent"  # twice in the abstract
    assert "language model" not in topics  # part of a longer term found
    assert "diffusion model" not in topics
    assert vocabulary_topics("Attentional pooling", "A pretrainer") == []  # whole words only


def test_a_paper_takes_hf_keywords_when_given_else_the_vocabulary():
    with_keywords = Paper(arxiv_id="2501.00001", title="Diffusion models", ai_keywords=["RL", "Large Language Models"])
    assert paper_topics(with_keywords) == (["rl", "large language model"], HF)
    without = Paper(arxiv_id="2501.00002", title="Diffusion models for video generation")
    assert paper_topics(without) == (["diffusion model", "video generation"], VOCABULARY)
    assert paper_topics(Paper(arxiv_id="2501.00003", title="The Road Less Scheduled")) == ([], None)


def test_recorded_days_of_every_era_get_topics():
    for date in ("2024-05-27", "2025-03-10", "2026-01-13"):
        papers = day_papers(date)
        sourced = [paper_topics(p) for p in papers]
        assert sum(bool(t) for t, _ in sourced) >= len(papers) // 2
        assert {s for _, s in sourced if s} == ({HF} if date == "2026-01-13" else {VOCABULARY})
