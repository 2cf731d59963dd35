"""What a digest owes the paper's names and the sentences it was written from (#44 item 3): names written as the
paper writes them, acronyms expanded as the paper does or not at all, a finding's and a summary's scope kept.
Each rule on the faults the 1.5B model wrote on the sample day (and on another day's abstracts), and on
faithful variants of the same fields."""

from __future__ import annotations

import pytest
from test_checker import doc

from papers_digest.checker.evidence import finding_owes, summary_owes
from papers_digest.checker.naming import acronym, names
from papers_digest.checker.paper import read_paper
from papers_digest.core.models import Digest

MERGEVQ, VSGRPO = "abs:2504.00999", "abs:2504.00883"
# The abstracts' own sentences (sample/hf/2025-04-03.json).
MERGEVQ_RESULT = (
    "Extensive experiments on ImageNet verify that MergeVQ as an AR generative model achieves competitive "
    "performance in both visual representation learning and image generation tasks while maintaining favorable "
    "token efficiency and inference speed."
)
VSGRPO_2B = (
    "With just 120 GPU hours, our vsGRPO-2B model, fine-tuned from Qwen2-VL-2B, can outperform the base model by "
    "12.1% and surpass GPT-4o."
)
VSGRPO_7B = (
    "Moreover, our vsGRPO-7B model, fine-tuned from Qwen2-VL-7B, achieves performance comparable to that of the "
    "best open-source model LLaVA-NeXT-Video-72B."
)
# BabyVision's result (the recorded 2026-01-13 listing, 2601.06521): the 1.5B model wrote "comparably".
BABYVISION = (
    "Empirical results and human evaluation reveal that leading MLLMs perform significantly below human baselines."
)
# PaCoRe's main result (the recorded 2026-01-13 listing, 2601.05593).
PACORE = (
    "The approach yields strong improvements across diverse domains, and notably pushes reasoning beyond frontier "
    "systems in mathematics: an 8B model reaches 94.5% on HMMT 2025, surpassing GPT-5's 93.2% by scaling effective "
    "TTC to roughly two million tokens."
)
# A result sentence of the kind abstracts state: its hedge and its benchmark are the result's scope.
SCOPED = "WebPilot achieves up to a 14.2-point gain on unseen tasks with 21.5% fewer tool calls on WebArena."


def digest_with(field: str, text: str) -> Digest:
    """A digest whose `field` says `text`, its other fields plain words that break no rule."""
    data = {
        "one_sentence": "The paper reports results on images.",
        "problem": "Image models trade quality for efficiency.",
        "method": "The method merges tokens before quantization.",
        "results": [
            {"finding": "Merged tokens keep quality while cutting cost.", "numbers": [], "sections": ["Abstract"]}
        ],
        "limitations": [],
        "takeaways": ["Fewer tokens can serve two tasks."],
        "mind_map": {"label": "Token merging", "children": []},
    }
    if field == "finding":
        data["results"][0]["finding"] = text
    else:
        data[field] = text
    return Digest.model_validate(data)


@pytest.mark.parametrize(
    ("key", "field", "text", "named"),
    [
        (MERGEVQ, "one_sentence", "VQ-merge unifies visual generation and representation learning.", "VQ-merge"),
        (MERGEVQ, "method", "The paper proposes MergeVq, a token-merging tokenizer.", "MergeVq"),
        (VSGRPO, "finding", "vsGRPO-3B surpasses GPT-4o after 120 GPU hours of training.", "vsGRPO-3B"),
        (VSGRPO, "problem", "Video models such as GPT-4 reason poorly about space.", "GPT-4"),
    ],
)
def test_a_name_the_paper_never_writes_is_rejected(key, field, text, named):
    problems = names(digest_with(field, text), read_paper(doc(key)))
    assert [(p.rule, named in p.text) for p in problems] == [("names", True)]


@pytest.mark.parametrize(
    ("key", "field", "text"),
    [
        (MERGEVQ, "one_sentence", "MergeVQ unifies visual generation and representation learning with LFQ."),
        (VSGRPO, "finding", "vsGRPO-2B, fine-tuned from Qwen2-VL-2B, beats GPT-4o after 120 GPU hours."),
        (VSGRPO, "method", "GRPO training of Qwen2-VL models for visual-spatial reasoning, with a KL penalty."),
        (VSGRPO, "problem", "LLMs and MLLMs reason poorly about space in video."),  # the field's common acronyms
    ],
)
def test_the_paper_s_own_names_pass(key, field, text):
    assert names(digest_with(field, text), read_paper(doc(key))) == []


@pytest.mark.parametrize(
    ("key", "text", "expanded"),
    [
        (VSGRPO, "GRPO (Gradient Projection) trains the model to reason about space.", "GRPO"),
        (VSGRPO, "vsGRPO (Visual-Spatial Reasoning via R1-Zero-Like Training) improves spatial reasoning.", "vsGRPO"),
        (MERGEVQ, "Tokens are quantized by Lookup Free Quantizer (LFQ) after merging.", "LFQ"),
    ],
)
def test_an_acronym_expanded_otherwise_than_the_paper_does_is_rejected(key, text, expanded):
    problems = acronym(digest_with("method", text), read_paper(doc(key)))
    assert [(p.rule, p.text.startswith(f"expands {expanded} as")) for p in problems] == [("acronym", True)]


@pytest.mark.parametrize(
    ("key", "text"),
    [
        (MERGEVQ, "Tokens are quantized by Look-up Free Quantization (LFQ) after merging."),
        (VSGRPO, "Chain of Thought (CoT) prompts do not activate spatial reasoning in small models."),
        (VSGRPO, "GRPO training improves visual-spatial reasoning (VSI) of small models."),  # no expansion: a name
        (MERGEVQ, "Large language models (LLMs) are not what MergeVQ builds on."),  # a common acronym's usual one
    ],
)
def test_the_paper_s_own_expansion_or_none_passes(key, text):
    assert acronym(digest_with("method", text), read_paper(doc(key))) == []


@pytest.mark.parametrize(
    ("text", "sentence", "wrong"),
    [
        # make sample at 99f9b34: MergeVQ's summary, one of its 6 rejected rounds
        ("MergeVQ, a generative model for augmented reality, is competitive on ImageNet.", MERGEVQ_RESULT, "AR"),
        ("MergeVQ, an autoregressive generative model, is competitive on ImageNet.", MERGEVQ_RESULT, None),
        ("MergeVQ, an AR generative model, is competitive on ImageNet.", MERGEVQ_RESULT, None),
        # a common acronym's usual words, and words that spell no acronym of the sentence
        ("Leading multimodal large language models fall well below human baselines.", BABYVISION, None),
        ("MergeVQ achieves robust results on ImageNet.", MERGEVQ_RESULT, None),
        # PaCoRe's summary and finding in the 2026-01-13 run at 6f6e3a3: its TTC (test-time compute) written as
        # the parts of a hyphen-joined word; the acronym kept, or the field's common words, pass
        ("An 8B model reaches 94.5% on HMMT 2025 by scaling effective time-to-completion.", PACORE, "TTC"),
        ("An 8B model reaches 94.5% on HMMT 2025 by scaling effective TTC.", PACORE, None),
        ("A state-of-the-art recipe lets an 8B model reach 94.5% on HMMT 2025.", PACORE, None),
        # the same finding at 983be3c and eb60280: TTC written as other words in its place, between its neighbours
        ("An 8B model reaches 94.5% on HMMT 2025 by scaling effective token throughput to roughly two million tokens.",
         PACORE, "TTC"),
        ("An 8B model reaches 94.5% on HMMT 2025 by scaling effective TTC to about two million tokens.", PACORE, None),
    ],
)  # fmt: skip
def test_an_acronym_of_the_sentence_written_as_words_the_paper_never_writes_is_rejected(text, sentence, wrong):
    from papers_digest.checker.naming import acronyms_spelled

    problems = acronyms_spelled(
        digest_with("one_sentence", text), read_paper(doc(MERGEVQ)), {"one_sentence": [sentence]}
    )
    assert [(p.rule, p.text.split("for ")[1].split(",")[0]) for p in problems] == (
        [("acronym", wrong)] if wrong else []
    )


@pytest.mark.parametrize(
    ("finding", "sentence", "said"),
    [
        ("MergeVQ outperforms other generators on ImageNet in both tasks.", MERGEVQ_RESULT, "'outperforms'"),
        ("MergeVQ achieves exceptional performance on ImageNet.", MERGEVQ_RESULT, "'exceptional'"),
        # MergeVQ's summary in the sample run at f439731: the paper's "favorable" said as "optimal"
        (
            "On ImageNet, MergeVQ performs comparably in both visual representation learning and image generation, "
            "ensuring optimal token efficiency and inference speed.",
            MERGEVQ_RESULT,
            "'optimal'",
        ),
        ("vsGRPO-7B beats LLaVA-NeXT-Video-72B on spatial reasoning.", VSGRPO_7B, "'comparable'"),
        ("WebPilot gains 14.2 points on unseen tasks with 21.5% fewer tool calls on WebArena.", SCOPED, "'up to'"),
        ("Leading MLLMs perform comparably to human baselines in visual reasoning tasks.", BABYVISION, "'below'"),
        ("WebPilot gains up to 14.2 points on unseen tasks with 21.5% fewer tool calls.", SCOPED, "WebArena"),
        (
            "A large WebPilot gains up to 14.2 points on unseen tasks with 21.5% fewer tool calls on WebArena.",
            SCOPED,
            "'large'",
        ),
        (
            "GRPO training on VSI-100k significantly improves spatial reasoning, comparable to DeepSeek-R1-Zero.",
            "We then incorporate GRPO training for improved visual-spatial reasoning, using the carefully curated "
            "VSI-100k dataset, following DeepSeek-R1-Zero.",
            "'comparable'",
        ),
    ],
)
def test_a_finding_that_changes_its_sentence_s_scope_is_rejected(finding, sentence, said):
    problems = finding_owes("results[0].finding", finding, sentence)
    assert [(p.rule, said in p.text) for p in problems] == [("scope", True)]


@pytest.mark.parametrize(
    ("finding", "sentence"),
    [
        ("On ImageNet, MergeVQ is competitive in both tasks while staying token-efficient and fast.", MERGEVQ_RESULT),
        ("vsGRPO-7B performs comparably to the much larger LLaVA-NeXT-Video-72B.", VSGRPO_7B),
        ("On WebArena, WebPilot gains up to 14.2 points on unseen tasks and makes 21.5% fewer tool calls.", SCOPED),
        ("After 120 GPU hours, vsGRPO-2B beats its base model by 12.1% and surpasses GPT-4o.", VSGRPO_2B),
        ("Leading MLLMs perform well below human baselines, as human evaluation shows.", BABYVISION),
        ("Leading MLLMs fall significantly short of human baselines.", BABYVISION),
        # "large" in the name of a kind of model claims no size (the paper's sentence writes "MLLMs")
        ("Leading multimodal large language models perform well below human baselines.", BABYVISION),
        # a field's term, not praise, where the sentence compares nothing
        ("On ImageNet, MergeVQ is competitive in both tasks, as optimal transport tokenizers are.", MERGEVQ_RESULT),
    ],
)
def test_a_finding_that_keeps_its_sentence_s_scope_passes(finding, sentence):
    assert finding_owes("results[0].finding", finding, sentence) == []


def test_a_finding_that_copies_its_sentence_or_adds_a_figure_is_rejected():
    copied = finding_owes("results[0].finding", VSGRPO_2B.removeprefix("With just "), VSGRPO_2B)
    foreign = finding_owes("results[0].finding", "vsGRPO-2B beats its base model by 14.5% and GPT-4o.", VSGRPO_2B)
    assert ([p.rule for p in copied], [p.rule for p in foreign]) == (["copied"], ["finding_number"])


INFGEN = (
    "Experiments show InfGen is capable of improving many models into the arbitrary high-resolution era while "
    "cutting 4K image generation time to under 10 seconds."
)


@pytest.mark.parametrize(
    ("finding", "sentence", "foreign"),
    [
        # the 2025-09-15 listing at 8cf3c2e: a ratio the sentence never states, a lone digit with "times"
        (
            "InfGen achieves 4K image generation time under 10 seconds, which is about 4 times faster than the "
            "current state-of-the-art.",
            INFGEN,
            ["'4 times'"],
        ),
        ("InfGen cuts 4K image generation time to under 10 seconds for many models.", INFGEN, []),
        ("It is 4 times faster.", "It is four times faster than the baseline on every benchmark.", []),
        ("It is 3 times faster.", "It is 3× faster than the baseline on every benchmark.", []),
        ("It is 3 times faster.", "It is four times faster than the baseline on every benchmark.", ["'3 times'"]),
    ],
)
def test_a_ratio_said_with_times_is_a_figure_the_sentence_must_state(finding, sentence, foreign):
    said = [p.text.partition(" is not")[0] for p in finding_owes("results[0].finding", finding, sentence)]
    assert said == foreign


def test_a_summary_keeps_the_main_result_s_figure():
    without = summary_owes("vsGRPO-2B, trained briefly, beats its base model and GPT-4o.", VSGRPO_2B)
    kept = summary_owes("vsGRPO-2B beats its base model by 12.1% and surpasses GPT-4o.", VSGRPO_2B)
    assert ([p.rule for p in without], kept) == (["summary_figure"], [])


def test_a_summary_naming_only_the_resolution_states_no_figure():
    # InfGen's summary on the 2025-09-15 listing at 256f0d6: "4K" names the format, the result is the time
    resolution_only = "InfGen achieves high-resolution image synthesis with reduced 4K generation time."
    assert [p.text for p in summary_owes(resolution_only, INFGEN)] == [
        "states no figure of the main result (10): give one"
    ]
    assert summary_owes("InfGen cuts 4K image generation time to under 10 seconds.", INFGEN) == []


def _paper(text: str):
    from papers_digest.core.models import FulltextDoc, Section

    doc_ = FulltextDoc(
        arxiv_id="2501.00002",
        title="A test paper",
        source="abstract",
        text=f"[§Abstract]\n{text}",
        sections=[Section(tag="Abstract", title="Abstract", level=0)],
    )
    return read_paper(doc_)


PAPER = (
    "We introduce RoboBench, a suite for robotic manipulation comprising 214 tasks from 37 RoboSuite environments. "
    "Across them, we find that careful data filtering matters more than the choice of optimizer in every setting."
)


def test_a_careful_summary_keeps_a_name_with_its_description():
    """12 words in a row, 3 of them names and figures (counted half): what a careful summary keeps."""
    from papers_digest.checker.substance import copied

    kept = digest_with(
        "method",
        "To compare policies, the paper builds RoboBench, a suite for robotic manipulation comprising 214 tasks "
        "from 37 RoboSuite environments.",
    )
    assert copied(kept, _paper(PAPER)) == []


def test_twelve_ordinary_words_in_a_row_are_still_copied():
    from papers_digest.checker.substance import copied

    lifted = digest_with(
        "one_sentence", "Data filtering matters more than the choice of optimizer in every setting they tried."
    )
    assert [p.rule for p in copied(lifted, _paper(PAPER))] == ["copied"]


VIDEODR = (  # the 2026-01-13 listing's 2601.06943, its first three sentences
    "In real-world video question answering scenarios, videos often provide only localized visual cues, while "
    "verifiable answers are distributed across the open web; models therefore need to jointly perform cross-frame "
    "clue extraction, iterative retrieval, and multi-hop reasoning-based verification. To bridge this gap, we "
    "construct the first video deep research benchmark, VideoDR. VideoDR centers on video-conditioned open-domain "
    "video question answering, requiring cross-frame visual anchor extraction, interactive web retrieval, and "
    "multi-hop reasoning over joint video-web evidence; through rigorous human annotation and quality control, we "
    "obtain high-quality video deep research samples spanning six semantic domains."
)


def test_a_hyphenated_compound_counts_once_in_a_run():
    """VideoDR's problem at 481993e kept the paper's words "cross-frame clue extraction, iterative retrieval, and
    multi-hop reasoning-based verification", 12 as the words are split at hyphens, and failed `copied` in all 6
    rounds. A reader counts "video-conditioned" or "cross-frame" as one word: 13 words split, 10 so counted."""
    from papers_digest.checker.passages import PaperWords
    from papers_digest.checker.substance import copied

    text = (
        "To test video agents, the benchmark holds video-conditioned open-domain video question answering, requiring "
        "cross-frame visual anchor extraction."
    )
    (run,) = PaperWords.of(VIDEODR).runs(text)
    assert (run.length, run.weight) == (13, 10)
    assert copied(digest_with("method", text), _paper(VIDEODR)) == []


def test_a_list_of_the_paper_s_terms_counts_as_names_do():
    """VideoDR's method at af13bab kept the paper's list of three requirements (17 words, 14 with compounds once)
    and failed `copied` in all 6 rounds; a word of a list of three or more terms counts half, as a name does. The
    sentence around the list copied too is still rejected."""
    from papers_digest.checker.substance import copied

    kept = digest_with(
        "method",
        "The paper builds a benchmark of video-conditioned questions. It necessitates cross-frame visual anchor "
        "extraction, interactive web retrieval, and multi-hop reasoning over joint video-web evidence.",
    )
    assert copied(kept, _paper(VIDEODR)) == []
    lifted = digest_with(
        "method",
        "The benchmark holds video-conditioned open-domain video question answering, requiring cross-frame "
        "visual anchor extraction, interactive web retrieval, and multi-hop reasoning over joint video-web evidence.",
    )
    assert [p.rule for p in copied(lifted, _paper(VIDEODR))] == ["copied"]


def _with_finding(text: str) -> Digest:
    digest = digest_with("one_sentence", "The paper reports results on videos.")
    return digest.model_copy(update={"results": [digest.results[0].model_copy(update={"finding": text})]})


def test_a_field_that_writes_a_term_its_paper_never_uses_is_asked_again():
    """VideoDR's finding on the 2026-01-13 listing at 8cf3c2e turned "video deep research agents" into "video deep
    learning research", a field the paper is not about; a term of the paper's, or its acronym's words, pass."""
    from papers_digest.checker.naming import terms
    from papers_digest.ways.steps.conversation import STEPS_RULES

    invented = _with_finding("VideoDR identifies the obstacles for future video deep learning research.")
    assert [(p.rule, p.field) for p in terms(invented, _paper(VIDEODR))] == [("term", "results[0].finding")]
    kept = _with_finding("VideoDR reveals the key challenges for next-generation video deep research agents.")
    assert terms(kept, _paper(VIDEODR)) == []
    spelled = _with_finding("Large language models fail on long tasks.")
    assert terms(spelled, _paper("We test LLMs on long tasks and find that they fail.")) == []
    # a term's one-word spelling in the paper counts: 2504.01956 writes "pretrained" (the suite's simulated day)
    one_word = _with_finding("Pre-training on video helps the model generate scenes.")
    assert terms(one_word, _paper("We adapt a pretrained video diffusion model to generate 3D scenes.")) == []
    assert ("term", terms) in STEPS_RULES
    # InfGen's takeaway on the 2025-09-15 listing at 8cf3c2e, of a paper that never says state of the art
    infgen = _with_finding("InfGen cuts 4K image generation time to under 10 seconds.").model_copy(
        update={"takeaways": ["InfGen cuts 4K generation time, comparable to state-of-the-art models."]}
    )
    assert [(p.rule, p.field) for p in terms(infgen, _paper(INFGEN))] == [("term", "takeaways[0]")]


XPART_CLAIM = (
    "This work establishes a new paradigm for creating production-ready, editable, and structurally sound 3D assets."
)
GLIMPROUTER_CLAIM = (
    "These results suggest a simple yet effective mechanism for reasoning: allocating computation based on a "
    "glimpse of thought rather than full-step evaluation."
)


@pytest.mark.parametrize(
    ("finding", "sentence", "doing"),
    [
        # the 2025-09-15 and 2026-01-13 listings at 9ea04b0: a claim or a reading of the results said as the method
        ("The paper introduces a new approach for crafting high-quality 3D assets suitable for production.",
         XPART_CLAIM, "The paper introduces"),
        ("The paper presents a straightforward yet efficient approach for reasoning by distributing computation "
         "based on a partial understanding rather than a complete evaluation.",
         GLIMPROUTER_CLAIM, "The paper presents"),
        ("We propose allocating computation by a glimpse of thought.", GLIMPROUTER_CLAIM, "We propose"),
        # faithful: the claim said as a claim, a reading of the results said as one, an outcome with its figure
        ("X-Part sets a new paradigm for making editable, production-ready and structurally sound 3D assets.",
         XPART_CLAIM, None),
        ("Allocating computation by a glimpse of each step, not by evaluating it whole, is a simple and effective "
         "way to reason, the results suggest.", GLIMPROUTER_CLAIM, None),
        ("The study presents a minimalist R1-Zero recipe reaching 43.3% on AIME 2024 with a 7B base model.",
         "Leveraging these insights, we present a minimalist R1-Zero recipe that achieves 43.3% accuracy on AIME "
         "2024 with a 7B base model, establishing a new state-of-the-art.", None),
        # a sentence that itself says what the paper does may be said so (reading/ offers none as a finding)
        ("The paper explores solving visual reasoning with generation models through BabyVision-Gen.",
         "We also explore solving visual reasoning with generation models by proposing BabyVision-Gen and automatic "
         "evaluation toolkit.", None),
    ],
)  # fmt: skip
def test_a_finding_that_says_what_the_paper_does_is_asked_again(finding, sentence, doing):
    found = [p for p in finding_owes("results[1].finding", finding, sentence) if p.rule == "finding_doing"]
    assert [p.text.split("'")[1] for p in found] == ([doing] if doing else [])


def test_a_summary_that_says_what_the_paper_does_is_asked_again():
    problems = summary_owes("The paper presents an efficient approach to reasoning.", GLIMPROUTER_CLAIM)
    assert [p.rule for p in problems] == ["finding_doing"]


R1_TEMPLATE = (
    "As shown in Table 1, not using any template can drastically boost the average performance, resulting in an "
    "improvement of about 60% compared to the traditional 4-shot prompting."
)  # 2503.20783's section 2.2 (sample/arxiv)
GLIMPROUTER_RESULT = (
    "For instance, GlimpRouter attains a substantial 10.7% improvement in accuracy while reducing inference latency "
    "by 25.9% compared to a standalone large model on AIME25."
)


@pytest.mark.parametrize(
    ("finding", "sentence", "dropped"),
    [
        # the sample run at 983be3c: the 60% kept, what it is a gain over dropped
        ("Not using a template can significantly boost the average performance, resulting in an improvement of "
         "about 60%.", R1_TEMPLATE, True),
        ("GlimpRouter gains 10.7% in accuracy and cuts latency by 25.9% on AIME25.", GLIMPROUTER_RESULT, True),
        # faithful: the baseline in other words or another ending, and a sentence comparing nothing with a figure
        ("Using no template drastically boosts average performance, by about 60% over 4-shot prompts.",
         R1_TEMPLATE, False),
        ("GlimpRouter achieves a 10.7% accuracy improvement and reduces inference latency by 25.9% compared to a "
         "standalone large model on AIME25.", GLIMPROUTER_RESULT, False),
        ("Our method scores 71.2% on 5 tasks.", "Our method, compared to prior work, scores 71.2% on 5 tasks.", False),
    ],
)  # fmt: skip
def test_a_figure_kept_without_what_it_is_compared_with_is_rejected(finding, sentence, dropped):
    problems = [p for p in finding_owes("results[0].finding", finding, sentence) if p.rule == "scope"]
    assert [p.text.startswith("drops what the figure is compared with") for p in problems] == (
        [True] if dropped else []
    )


def test_the_question_names_what_a_figure_is_compared_with():
    from papers_digest.checker.scope import scope_words

    assert scope_words(R1_TEMPLATE) == ["about 60%", "the traditional 4-shot prompting"]
    assert scope_words(GLIMPROUTER_RESULT) == ["AIME25", "a standalone large model"]


@pytest.mark.parametrize(
    ("summary", "lost"),
    [
        # the 2026-01-13 listing at 30a28be: "improves … latency by 25.9%", and the Chinese raised it (提高 … 延迟)
        ("GlimpRouter improves accuracy by 10.7% and latency by 25.9% compared to a standalone large model on AIME25.",
         True),
        ("GlimpRouter achieves a 10.7% accuracy improvement and reduces inference latency by 25.9% compared to a "
         "standalone large model on AIME25.", False),
        ("GlimpRouter gains 10.7% accuracy with 25.9% lower latency compared to a standalone large model on AIME25.",
         False),
        ("GlimpRouter gains 10.7% in accuracy and a 25.9% latency reduction against a standalone large model on "
         "AIME25.", False),
    ],
)  # fmt: skip
def test_a_decrease_kept_without_its_direction_is_rejected(summary, lost):
    problems = summary_owes(summary, GLIMPROUTER_RESULT)
    assert [p.text for p in problems if "without the decrease" in p.text] == (
        ["says 25.9% without the decrease the paper states: say it went down (reduced, lower, fewer)"] if lost else []
    )


@pytest.mark.parametrize(
    ("finding", "sentence", "dropped"),
    [
        # the sample run at 3bbae28: "not using any template" came back as "Use templates", and its Chinese too
        ("Use templates to enhance performance, leading to an improvement of about 60% compared to traditional "
         "4-shot prompting.", R1_TEMPLATE, "not using any template"),
        ("Qwen2.5 models perform best with templates, achieving a 100% answering rate.",
         "However, Qwen2.5 models work best (with 100% answering rate) when no template is used.",
         "no template is used"),
        # the sample run at 0c20fad: the 60% that "not using any template" brings, given to another subject; and
        # the same figure with no subject, what brings it left out
        ("R1-Zero-Like Training significantly improves average performance over traditional 4-shot prompting by "
         "about 60%.", R1_TEMPLATE, "not using any template"),
        ("Average performance rises drastically, by about 60% compared to traditional 4-shot prompting.",
         R1_TEMPLATE, "not using any template"),
        # faithful: the negation in other words, and a finding that leaves the negated words and their figures out
        ("Removing templates drastically boosts average performance, by about 60% over traditional 4-shot "
         "prompting.", R1_TEMPLATE, None),
        ("Template-free prompting drastically boosts average performance, by about 60% compared to traditional "
         "4-shot prompting.", R1_TEMPLATE, None),
        ("Qwen2.5 models perform best without templates, achieving a 100% answering rate.",
         "However, Qwen2.5 models work best (with 100% answering rate) when no template is used.", None),
        ("Qwen2.5 models perform best, with a 100% answering rate, as the paper reports.",
         "Qwen2.5 models reach a 100% answering rate, though not with every template.", None),
        ("Our method improves recall and precision.", "Our method improves not only recall but also precision.", None),
    ],
)  # fmt: skip
def test_a_finding_that_turns_a_negation_over_is_rejected(finding, sentence, dropped):
    from papers_digest.checker.qualifiers import negation_dropped

    assert negation_dropped(finding, sentence) == dropped
    problems = [p.text for p in finding_owes("results[0].finding", finding, sentence) if "negation" in p.text]
    assert len(problems) == (1 if dropped else 0)


@pytest.mark.parametrize(
    ("summary", "claimed"),
    [
        # the sample run at e6798fc: "maintaining favorable token efficiency" said as a gain (its Chinese 提高了)
        ("MergeVQ delivers competitive results in both visual representation learning and image generation tasks "
         "while enhancing efficiency and speed.", "enhancing"),
        ("MergeVQ is competitive on ImageNet and improves inference speed.", "improves"),
        # the sample run at 45e7f15
        ("MergeVQ performs comparably in both visual representation learning and image generation, optimizing "
         "token efficiency and inference speed.", "optimizing"),
        # faithful: the level kept as a level
        ("MergeVQ is competitive on ImageNet in both visual representation learning and image generation, keeping "
         "token efficiency and inference speed favorable.", None),
    ],
)  # fmt: skip
def test_a_gain_the_sentence_never_states_is_rejected(summary, claimed):
    problems = summary_owes(summary, MERGEVQ_RESULT)
    said = [p.text for p in problems if p.rule == "scope"]
    assert said == (
        [f"claims {claimed!r}, which the paper's sentence does not: say only what it states"] if claimed else []
    )


@pytest.mark.parametrize(
    ("takeaway", "lost"),
    [
        # the 2026-01-13 listing at eb60280: the findings' latency reduction said as a gain, its Chinese 增加
        ("GlimpRouter improves accuracy by 10.7% and latency by 25.9% compared to a standalone model on AIME25.", True),
        ("GlimpRouter raises accuracy by 10.7% and cuts latency by 25.9% against a standalone model.", False),
        ("Route each step by its first token to save compute.", False),
    ],
)
def test_a_takeaway_keeps_the_findings_decreases(takeaway, lost):
    from papers_digest.checker.evidence import evidence_problems

    digest = Digest.model_validate({**digest_with("one_sentence", "x").model_dump(), "takeaways": [takeaway]})
    problems = evidence_problems(digest, {"takeaways": [GLIMPROUTER_RESULT]})
    assert [(p.rule, p.field) for p in problems] == ([("scope", "takeaways[0]")] if lost else [])


@pytest.mark.parametrize(
    ("finding", "dropped"),
    [
        # PaCoRe's finding on the 2026-01-13 listing at 94b905f: "roughly two million" said as exactly that
        ("PaCoRe outperforms GPT-5 by scaling TTC to two million tokens.", "drops 'about' before two million"),
        ("PaCoRe outperforms GPT-5 by scaling effective TTC to approximately two million tokens.", None),
        ("PaCoRe outperforms GPT-5 by scaling its effective TTC.", None),
    ],
)
def test_a_hedge_before_a_figure_said_in_words_is_kept(finding, dropped):
    from papers_digest.checker.scope import scope_dropped

    sentence = (
        "Notably, an 8B model reaches 94.5% on HMMT 2025, surpassing GPT-5's 93.2% by scaling effective TTC to "
        "roughly two million tokens."
    )
    said = scope_dropped(finding, sentence)
    assert (said.split(":")[0] if said else None) == dropped
