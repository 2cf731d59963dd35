"""reading/glossary.py: the project's glossary, read once and validated, its terms found in real English texts."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_DIR, day_papers

from papers_digest.reading.glossary import GlossaryError, load_glossary, terms_in

SAMPLE = {p.arxiv_id: p for p in day_papers("2025-04-03", SAMPLE_DIR / "hf")}


def english(text: str) -> list[str]:
    return [term.en for term in terms_in(text)]


def test_the_glossary_holds_a_few_hundred_terms_each_with_its_usage():
    terms = load_glossary()
    assert len(terms) >= 250 and all(term.note for term in terms)


@pytest.mark.parametrize(
    ("term", "rendering"),
    [("agent", "智能体"), ("disentangled", "解耦"), ("benchmark", "基准"), ("fine-tuning", "微调"),
     ("simulation", "模拟"), ("trade-off", "权衡"), ("curated", "精选"), ("latent", "潜在"), ("scalable", "可扩展"),
     ("coherent", "连贯"), ("grounding", "定位 / 接地 / 落地 / 锚定"), ("token", "token")],
)  # fmt: skip
def test_the_issues_terms_are_rendered_as_the_field_renders_them(term, rendering):
    assert terms_in(term)[0].rendering == rendering


def test_token_and_transformer_are_kept_in_english():
    assert [t.keep for t in terms_in("token transformer")] == [True, True]


def test_the_terms_of_a_real_abstract_in_order_each_once():
    """2504.00883: "multi-modal large language models" is one term, not also "language model"; "Chain of
    Thought" is matched whatever its case."""
    assert english(SAMPLE["2504.00883"].summary)[:9] == [
        "attention", "reasoning", "multimodal", "large language model", "agent", "video", "visual-spatial",
        "training", "chain of thought",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("two agents", ["agent"]),
        ("policies", ["policy"]),
        ("trade-offs", ["trade-off"]),
        ("it was fine tuned", ["fine-tuning"]),
        ("outperformed", ["outperform"]),
        ("disentangling", ["disentangled"]),
        ("large language models", ["large language model"]),
        ("tokens", ["token"]),
    ],
)
def test_terms_are_found_in_their_plurals_and_inflections(text, found):
    assert english(text) == found


def test_a_noun_is_not_matched_as_a_verbs_inflection():
    """ "frames a gap" is no video frame, "labeled" no label: only verbs are matched inflected."""
    assert english("the paper frames a gap with labeled data") == []


def test_a_rendering_is_found_whatever_the_spaces_and_an_avoided_one_is_named():
    [simulation] = terms_in("life simulation")
    assert (simulation.rendered_in("动漫生活模拟"), simulation.avoided_in("动漫生活模拟器")) == (True, "模拟器")


def test_an_avoided_rendering_that_another_term_asks_for_is_allowed():
    [agent] = terms_in("agent")
    assert agent.avoided_in("智能体扮演角色", allowed=("角色",)) is None


def test_a_kept_term_is_rendered_only_by_itself():
    [token] = terms_in("tokens")
    assert (token.rendered_in("减少 token 数量"), token.rendered_in("减少令牌数量")) == (True, False)


def test_a_bad_entry_is_reported_with_the_file_and_the_entry(tmp_path):
    path = tmp_path / "glossary.yaml"
    path.write_text("terms:\n  - {en: agent, note: 'An entry without a rendering.'}\n", encoding="utf-8")
    with pytest.raises(GlossaryError, match=r"glossary.yaml: terms\.0: .*either zh .* or keep: true"):
        load_glossary(path)


def test_a_term_listed_twice_is_reported(tmp_path):
    path = tmp_path / "glossary.yaml"
    entry = "  - {en: Agent, zh: [智能体], note: 'Acts in an environment.'}\n"
    path.write_text(f"terms:\n{entry}{entry.replace('Agent', 'agent')}", encoding="utf-8")
    with pytest.raises(GlossaryError, match="each term once"):
        load_glossary(path)


def test_a_compound_suffix_is_a_term_only_after_a_hyphen():
    """ "R1-Zero-like training" asks for 式 or 类; "models like GPT-4o" asks for nothing."""
    assert (english("R1-Zero-like training"), english("models like GPT-4o")) == (["training", "like"], [])


def test_a_compound_the_glossary_has_whole_asks_for_its_own_rendering_not_its_suffix_s():
    # GlimpRouter's "step-wise collaboration" may be 分步协作; X-Part's "point-wise" (2025-09-15 listing) is 逐点
    assert english("step-wise collaboration") == ["step-wise"]
    assert english("incorporates point-wise semantic features") == ["pointwise", "feature"]
    assert english("channel-wise attention") == ["attention", "wise"]
