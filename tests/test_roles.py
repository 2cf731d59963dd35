"""Sentence roles read by the program (#44): the committed classifier on CSAbstruct's dev split, the sample day's
abstracts, a recorded full text, the paper's own limitations and outcomes, sentences cut where a reader cuts them,
and the benchmark that measures it all (docs/reading.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from types import ModuleType

import pytest
from conftest import ROOT, bench_module, sample_papers
from test_checker import EP, MLX, R1, XQ, doc

from papers_digest.reading.model import MODEL_FILE
from papers_digest.reading.outcomes import introduces_work, states_outcome
from papers_digest.reading.roles import (
    ReadSentence,
    SentenceRole,
    abstract_roles,
    finding_candidates,
    fulltext_roles,
    states_limitation,
)
from papers_digest.reading.sentences import split_sentences

DEV = ROOT / "tests" / "data" / "csabstruct" / "dev.jsonl"
MERGEVQ, ANIMEGAMER, VSI, R1_ABSTRACT = "2504.00999", "2504.01014", "2504.00883", "2503.20783"


def bench() -> ModuleType:
    """bench/roles.py, whose measures the docs' table prints."""
    return bench_module("roles")


@cache
def dev_roles() -> list[list[SentenceRole]]:
    return [abstract_roles(a.sentences) for a in bench().load_abstracts(DEV)]


def dev_measured(**rule: float) -> object:
    labels = [a.labels for a in bench().load_abstracts(DEV)]
    return bench().precision_coverage(labels, [finding_candidates(roles, **rule) for roles in dev_roles()])


@cache
def sample_abstract(arxiv_id: str) -> tuple[list[str], list[SentenceRole]]:
    paper = next(p for p in sample_papers() if p.arxiv_id == arxiv_id)
    sentences = split_sentences(paper.summary)
    return sentences, abstract_roles(sentences)


def index_of(sentences: list[str], start: str) -> int:
    return next(i for i, s in enumerate(sentences) if s.startswith(start))


@cache
def read_fulltext(key: str) -> list[ReadSentence]:
    return fulltext_roles(doc(key))


# --- CSAbstruct dev (295 abstracts, never used to choose a setting) ---


def test_the_committed_candidates_are_results_with_the_issues_precision_on_dev():
    # 130 of 153 candidates are labelled `result`: 0.8497, the issue's 0.85 with no margin (docs/reading.md,
    # "What it scores")
    assert dev_measured().precision >= 0.845


def test_the_committed_candidates_cover_half_the_dev_abstracts_that_report_a_result():
    # the precision-first point; the issue's 0.75 is reached only by the coverage-first one (next test), at a
    # precision of 0.77: docs/reading.md, "What it scores"
    assert dev_measured().coverage >= 0.50


def test_the_coverage_first_thresholds_cover_080_of_the_dev_abstracts_that_report_a_result():
    from papers_digest.reading.model import role_model

    assert dev_measured(**role_model().trained["coverage_first"]).coverage >= 0.80


def test_the_pipelines_candidates_are_four_in_five_results_offered_for_nearly_three_in_four_dev_abstracts():
    # what a digest writes its findings from (bench/roles.py --out): 0.786 at 0.737 offered any, short of the
    # issue's 0.85 at 0.75 (docs/reading.md, "The pipeline's candidates"); 0.797 before the last fallback, whose
    # three dev sentences report findings ("In this paper we show that taking user context into account improves
    # the detection of cyberbullying") in abstracts whose annotators labelled no sentence a result
    from papers_digest.ways.steps.outline import abstract_findings

    abstracts = bench().load_abstracts(DEV)
    measured = bench().precision_coverage(
        [a.labels for a in abstracts], [abstract_findings(a.sentences) for a in abstracts]
    )
    assert measured.precision >= 0.78 and measured.offered_any >= 0.73


def test_the_committed_model_is_read_without_scikit_learn():
    code = (
        "import sys; from papers_digest.reading.roles import abstract_roles; "
        "abstract_roles(['We propose X.', 'Experiments show that X outperforms Y by 3%.']); "
        "print('sklearn' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"


# --- the sample day's abstracts (sample/hf/2025-04-03.json) ---


def test_mergevqs_result_sentence_is_a_finding_candidate():
    sentences, roles = sample_abstract(MERGEVQ)
    assert index_of(sentences, "Extensive experiments on ImageNet verify that MergeVQ") in finding_candidates(roles)


def test_mergevqs_opening_sentence_is_background():
    sentences, roles = sample_abstract(MERGEVQ)
    assert sentences[0].startswith("Masked Image Modeling (MIM) with Vector Quantization (VQ) has achieved great")
    assert roles[0].role == "background"


def test_mergevqs_opening_sentence_is_not_a_finding_candidate():
    _, roles = sample_abstract(MERGEVQ)
    assert 0 not in finding_candidates(roles, outcomes=True)


def test_animegamers_evaluation_sentence_is_a_finding_candidate():
    sentences, roles = sample_abstract(ANIMEGAMER)
    found = index_of(sentences, "Extensive evaluations using both automated metrics and human evaluations demonstrate")
    assert found in finding_candidates(roles)


def test_a_sentence_about_where_the_code_will_be_is_never_a_candidate():
    sentences, roles = sample_abstract(VSI)
    code = index_of(sentences, "The code and dataset will be available soon.")
    assert roles[code].role == "other" and code not in finding_candidates(roles, first=0.0, more=0.0, outcomes=True)


def test_a_figure_stated_mid_abstract_is_offered_when_outcomes_are():
    # CSAbstruct's annotators call such sentences results mostly at an abstract's end; a digest wants them anyway
    sentences, roles = sample_abstract(VSI)
    found = index_of(sentences, "With just 120 GPU hours, our vsGRPO-2B model")
    assert found in finding_candidates(roles, outcomes=True)


def test_no_sample_abstract_states_a_limitation():
    stated = [s for p in sample_papers() for s in split_sentences(p.summary) if states_limitation(s)]
    assert stated == []


# --- full texts (the sample's and tests/data/arxiv) ---


def test_a_full_texts_results_come_from_its_result_sections():
    results = [r for r in read_fulltext(R1) if r.role.role == "result"]
    from_results = [r for r in results if r.kind in ("results", "conclusion", "contributions")]
    assert len(from_results) >= 0.9 * len(results)


def test_a_full_texts_introduction_opens_with_background():
    opening = next(r for r in read_fulltext(R1) if r.section == "1")
    assert opening.sentence.startswith("DeepSeek-R1-Zero (Guo et al., 2025) revolutionizes")
    assert opening.role.role == "background"


def test_the_takeaways_an_introduction_announces_are_read_as_results():
    takeaways = [r for r in read_fulltext(R1) if r.kind == "contributions" and r.sentence.startswith("(Sec.")]
    assert len(takeaways) == 6 and sum(r.role.role == "result" for r in takeaways) >= 4


@pytest.mark.parametrize(
    ("sentence", "introduces"),
    [
        ("To push the limits of this paradigm, we propose MergeVQ, which incorporates token merging.", True),
        ("This technical report introduces Aya 23, a family of multilingual language models.", True),
        ("We posit that such datasets should be large, diverse and balanced, and propose a clustering-based "
         "approach for building ones satisfying all these criteria.", True),
        ("We present a novel generative 3D modeling system, coined CraftsMan.", True),
        # what a paper studies, observes or argues brings nothing of its own
        ("We study whether transformers can learn to implicitly reason over parametric knowledge.", False),
        ("We start this work by observing the simple but counterintuitive fact that marginal gains compound.", False),
        ("Then, we argue that failures of LLMs arise from mistakes in execution.", False),
        ("Existing methods introduce noise into the retrieved documents.", False),
    ],
)  # fmt: skip
def test_a_sentence_introducing_the_paper_s_own_work_is_told_from_one_that_studies(sentence, introduces):
    assert introduces_work(sentence) is introduces


def test_a_tables_rows_are_other():
    rows = [r for r in read_fulltext(R1) if r.sentence.count(" | ") >= 2]
    assert rows and {r.role.role for r in rows} == {"other"}


def test_captions_are_other():
    captions = [r for r in read_fulltext(R1) if r.sentence.startswith(("Figure 3:", "Table 1:", "Table 4:"))]
    assert len(captions) == 3 and {r.role.role for r in captions} == {"other"}


def test_the_paper_without_a_limitations_section_states_none():
    assert [r.sentence for r in read_fulltext(R1) if r.limitation] == []


@pytest.mark.parametrize(
    ("key", "sentence"),
    [
        (EP, "As part of our future work, we plan to extend EvicPress to react more quickly to bandwidth shifts"),
        (MLX, "Our framework currently supports only Apple Silicon, limiting deployment to macOS environments."),
        (MLX, "Model support depends on MLX community."),  # under a run-in "Limitations and Future Work." heading
        (XQ, "While this approach allows for aggressive memory compression with minimal accuracy loss"),
    ],
)
def test_a_full_texts_own_limitations_are_found(key, sentence):
    assert any(r.limitation for r in read_fulltext(key) if r.sentence.startswith(sentence))


def test_limitations_are_found_only_where_the_paper_discusses_them():
    flagged = {r.section for key in (EP, MLX, XQ) for r in read_fulltext(key) if r.limitation}
    assert flagged == {"8", "4.4", "Limitations"}


# --- the paper's own limitations and outcomes, on real sentences ---

OWN_LIMITATIONS = [
    "Extending EvicPress to multi-node deployments, cross-GPU cache sharing, highly multi-tenant environments with "
    "strict isolation requirements, and alternative serving systems and storage hierarchies is an important "
    "direction for future work.",
    "Future directions include speculative decoding for improved single-stream latency, distributed inference across "
    "multiple Apple Silicon devices via network-connected Mac clusters, and energy profiling for battery-powered "
    "deployments.",
    "We also plan to extend our caching approach to audio modalities for speech-enabled multimodal applications.",
    # CSAbstruct train
    "Illustrative examples of application are provided, although a systematic characterization and evaluation of "
    "different scenarios is left as future work.",
    "Future research is needed to identify whether cultural values always take precedence over personal "
    "characteristics and motives in determining behavior in the virtual world.",
]
NOT_LIMITATIONS = [
    # others' limitations: the papers' background (recorded abstracts and full texts)
    "However, existing inference solutions for Apple Silicon face significant limitations.",
    "Our work differs in providing pure MLX inference with integrated multimodal caching, which vLLM-metal does not "
    "support.",
    "This research tackles these limitations by investigating strategies based on low-cost proxies for data mixtures.",
    "How to calibrate erroneous behavioral patterns when executing TIR tasks, thereby exploring effective "
    "trajectories, remains an open-ended problem.",
    "However, this line of work only applies different eviction schemes on KV cache, not even considering combining "
    "with compression schemes to achieve higher cache hit rates.",
    # a finding, a hope, a release
    "Finally, we recruit top ML PhDs to attempt a subset of PaperBench, finding that models do not yet outperform the "
    "human baseline.",
    "We hope our findings presented in this paper, models released, and the codebase open-sourced could benefit "
    "future research in the field.",
    "We plan to release the database as an platform to evaluate methods under different variations.",
    "The drawback with caching X is that it requires rematerializing the KV cache on-the-fly.",
]


@pytest.mark.parametrize("sentence", OWN_LIMITATIONS)
def test_the_papers_own_limitation_is_found(sentence):
    assert states_limitation(sentence)


@pytest.mark.parametrize("sentence", NOT_LIMITATIONS)
def test_a_sentence_that_is_not_the_papers_limitation_is_not_one(sentence):
    assert not states_limitation(sentence)


@pytest.mark.parametrize(
    ("sentence", "outcome"),
    [
        ("With just 120 GPU hours, our vsGRPO-2B model, fine-tuned from Qwen2-VL-2B, can outperform the base model "
         "by 12.1% and surpass GPT-4o.", True),
        ("Leveraging these insights, we present a minimalist R1-Zero recipe that achieves 43.3% accuracy on AIME "
         "2024 with a 7B base model, establishing a new state-of-the-art.", True),
        ("Moreover, our vsGRPO-7B model, fine-tuned from Qwen2-VL-7B, achieves performance comparable to that of the "
         "best open-source model LLaVA-NeXT-Video-72B.", True),
        ("While recent image-based human animation methods achieve realistic body and facial motion synthesis, "
         "critical gaps remain in fine-grained holistic controllability.", False),
        ("We introduce AutoCoder, the first Large Language Model to surpass GPT-4 Turbo (April 2024) and GPT-4o in "
         "pass@1 on the Human Eval benchmark test (90.9% vs. 90.2%).", False),
        ("To push the limits of this paradigm, we propose MergeVQ, which incorporates token merging techniques into "
         "VQ-based generative models.", False),
    ],
)  # fmt: skip
def test_a_measured_outcome_of_the_papers_work_is_told_from_a_claim_about_others_or_a_purpose(sentence, outcome):
    assert states_outcome(sentence) is outcome


# --- sentences ---


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("To address this, we introduce Dr. GRPO, an unbiased optimization method. It works.",
         ["To address this, we introduce Dr. GRPO, an unbiased optimization method.", "It works."]),
        ("DeepSeek-R1-Zero (Guo et al., 2025) revolutionizes the pipeline. This new paradigm is appealing.",
         ["DeepSeek-R1-Zero (Guo et al., 2025) revolutionizes the pipeline.", "This new paradigm is appealing."]),
        ("The left plot of Fig. 3 shows it, as in Eq. (2). We observe that Llama improves, e.g. by 4.5%.",
         ["The left plot of Fig. 3 shows it, as in Eq. (2).", "We observe that Llama improves, e.g. by 4.5%."]),
        ("the trade-off for generation quality vs. Representation learning, i.e. Efficiency. Next.",
         ["the trade-off for generation quality vs. Representation learning, i.e. Efficiency.", "Next."]),
        ("It achieves 43.3% accuracy on AIME 2024. See arXiv:2504.00999 and https://apexgen-x.github.io/MergeVQ. Done.",
         ["It achieves 43.3% accuracy on AIME 2024.", "See arXiv:2504.00999 and https://apexgen-x.github.io/MergeVQ.",
          "Done."]),
        ("Overview of takeaways\n• (Sec. 2.1) Template is crucial. In addition, all base models possess it.",
         ["Overview of takeaways", "(Sec. 2.1) Template is crucial.", "In addition, all base models possess it."]),
        ("It says “Aha moment.” Then 3D CoCa v2 builds on CLIP.",
         ["It says “Aha moment.”", "Then 3D CoCa v2 builds on CLIP."]),
    ],
)  # fmt: skip
def test_sentences_end_where_a_reader_ends_them(text, sentences):
    assert split_sentences(text) == sentences


# --- the benchmark and the model file ---


def test_the_benchmark_smoke_run_prints_the_pipeline_and_the_committed_model_next_to_its_baselines(tmp_path):
    out = tmp_path / "pred.jsonl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "roles.py"), "--smoke", "--out", str(out)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    rows = [line.split(" | ")[0] for line in done.stdout.splitlines() if " | " in line]
    assert {"the pipeline's candidates (written to --out)", "committed model", "last sentence"} <= set(rows)


def test_the_benchmark_writes_a_role_per_sentence_and_the_candidates(tmp_path):
    out = tmp_path / "pred.jsonl"
    bench().main(["--smoke", "--out", str(out), "--data", str(DEV)])
    lines = out.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert len(first["labels"]) == len(bench().load_abstracts(DEV)[0].sentences)
    # the candidates are the sentences a digest of the abstract writes its findings from
    from papers_digest.ways.steps.outline import abstract_findings

    abstracts = bench().load_abstracts(DEV)[: len(lines)]
    assert [json.loads(line)["finding_candidates"] for line in lines] == [
        abstract_findings(a.sentences) for a in abstracts
    ]


@pytest.mark.slow
def test_training_again_gives_the_committed_model_byte_for_byte(tmp_path):
    out = tmp_path / MODEL_FILE
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "train_roles.py"), "--out", str(out)],
        capture_output=True, text=True, check=True, timeout=900,
    )  # fmt: skip
    committed = ROOT / "src" / "papers_digest" / "reading" / MODEL_FILE
    assert out.read_bytes() == committed.read_bytes()
