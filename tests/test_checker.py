"""The checker on the recorded pages: each rule on its own, then faithful digests and planted faults.

Faithful digests are built from the papers' own text: findings that are real sentences of a section (or
close restatements of them) with the figures they rest on, cited to that section. The planted faults are
what a model gets wrong: numbers from nowhere or from another section, reformatted numbers, sections that
do not exist, translations that change or drop a number or leave English behind a label, digests that say
nothing. Every fault must be caught with its rule and every faithful digest must pass.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, abstract_docs, check_en, check_zh, sample_papers

from papers_digest.checker.chinese import check_digest_zh, cjk_share, copied_run
from papers_digest.checker.english import Verdict, check_digest_en, prose_fields
from papers_digest.checker.numbers import numbers_in, prose_numbers
from papers_digest.checker.paper import EVIDENCE_CHARS, OUTSIDE, PaperFacts, read_paper
from papers_digest.checker.problems import RULES, Problem, retry_message, rules_broken
from papers_digest.checker.zh_words import ZH_TEXT_RULES
from papers_digest.core.markup import blocks_of
from papers_digest.core.models import Digest, FulltextDoc, Paper
from papers_digest.llm.prompting import load_prompt
from papers_digest.sources.arxiv import doc_from_page
from papers_digest.sources.latexml import parse_latexml

PAGES: dict[str, Path] = {
    "2503.20783": ROOT / "sample" / "arxiv" / "2503.20783v2.html",  # Understanding R1-Zero-Like Training
    "2508.10395": ROOT / "tests" / "data" / "arxiv" / "2508.10395v1.html",  # XQuant
    "2512.14946": ROOT / "tests" / "data" / "arxiv" / "2512.14946v1.html",  # EvicPress
    "2601.19139": ROOT / "tests" / "data" / "arxiv" / "2601.19139v2.html",  # vllm-mlx on Apple Silicon
}
R1, XQ, EP, MLX = "2503.20783", "2508.10395", "2512.14946", "2601.19139"
VSI, SCHOLAR, PAPERBENCH, MERGEVQ = "abs:2504.00883", "abs:2504.00824", "abs:2504.01848", "abs:2504.00999"
FLOATS = "floats:2601.19139"  # the Apple Silicon page with Table 4 placed outside every section


@cache
def doc(key: str) -> FulltextDoc:
    """A recorded page as the fulltext stage builds it (`abs:<id>`: the sample day's abstract-only text)."""
    if key.startswith("abs:"):
        return next(d for d in abstract_docs(sample_papers()) if d.arxiv_id == key[4:])
    if key == FLOATS:
        return _with_table_outside(doc(MLX), "Table 4.", "Both (full cache)")
    path = PAGES[key]
    url = f"https://arxiv.org/html/{path.stem}"
    page = parse_latexml(path.read_bytes(), url=url)
    return doc_from_page(Paper(arxiv_id=key, title=page.title or key), page, url)


@cache
def facts(key: str) -> PaperFacts:
    return read_paper(doc(key))


def _with_table_outside(base: FulltextDoc, first: str, last: str) -> FulltextDoc:
    """`base` with the lines from `first` to `last` moved to the end of the abstract's block and listed as
    unsectioned, as LaTeXML leaves floats placed before section 1 (R1-Zero's Figures 1 and 2)."""
    lines = base.text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith(last))
    table, rest = lines[start : end + 1], lines[:start] + lines[end + 1 :]
    first_body = next(i for i, line in enumerate(rest) if i > 0 and line.startswith("[§"))
    text = "\n".join(rest[:first_body] + table + rest[first_body:])
    return base.model_copy(update={"text": text, "unsectioned": [*base.unsectioned, *table]})


def judge_en(answer: dict[str, Any] | str, key: str) -> Verdict:
    reply = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    return check_digest_en(reply, facts(key))


def judge_zh(answer: dict[str, Any] | str, english: dict[str, Any]) -> Verdict:
    reply = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    return check_digest_zh(reply, Digest.model_validate(english))


def messages_of(verdict: Verdict, rule: str) -> list[str]:
    return [p.message for p in verdict.problems if p.rule == rule]


# --- faithful digests, written by hand from the recorded pages ------------------------------------------

R1_EN: dict[str, Any] = {
    "one_sentence": "A critical look at R1-Zero-like training finds that base models already reason before RL and "
    "that GRPO's normalisation terms bias optimisation, which the unbiased Dr. GRPO fixes.",
    "problem": "Reports of R1-Zero-like training credit RL for reasoning gains without separating what the base "
    "models already do, and GRPO may optimise a biased objective.",
    "method": "The authors test base models such as Qwen2.5, Llama and DeepSeek-V3-Base with and without prompt "
    "templates, analyse the GRPO objective, and propose Dr. GRPO, which removes its length and std normalisation.",
    "results": [
        {
            "finding": "Leveraging these insights, we present a minimalist R1-Zero recipe that achieves 43.3% accuracy "
            "on AIME 2024 with a 7B base model, establishing a new state-of-the-art.",
            "numbers": ["43.3%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "As shown in Table 1, not using any template can drastically boost the average performance, "
            "resulting in an improvement of about 60% compared to the traditional 4-shot prompting.",
            "numbers": ["60%"],
            "sections": ["2.2"],
        },
        {
            "finding": "Oat-Zero-7B scores 43.3 on AIME24 and 51.4 on average over the five benchmarks.",
            "numbers": ["43.3", "51.4"],
            "sections": ["B"],
        },
        {
            "finding": "The ORZ question set holds 57k questions, against 12k for MATH and 8k for GSM.",
            "numbers": ["57k", "12k", "8k"],
            "sections": ["3.3"],
        },
    ],
    "limitations": [
        "The experiments are limited to math reasoning benchmarks.",
        "RL runs use small base models such as Qwen2.5-Math-1.5B and Llama-3.2-3B.",
    ],
    "takeaways": [
        "Match the prompt template to the base model before running RL.",
        "Drop GRPO's length and std normalisation to keep incorrect responses from growing longer.",
    ],
    "mind_map": {
        "label": "R1-Zero-like training",
        "children": [
            {"label": "Base models", "children": [{"label": "Templates"}, {"label": "Aha moment"}]},
            {"label": "Dr. GRPO", "children": [{"label": "No length or std normalisation"}]},
        ],
    },
}

R1_ZH: dict[str, Any] = {
    "one_sentence": "对 R1-Zero 式训练的批判性审视发现，基础模型在 RL 之前就已具备推理能力，而 GRPO 的归一化项会使"
    "优化产生偏差，无偏的 Dr. GRPO 修正了这一问题。",
    "problem": "关于 R1-Zero 式训练的报告把推理能力的提升归功于 RL，却没有区分基础模型本身已有的能力，而且 GRPO "
    "优化的目标可能存在偏差。",
    "method": "作者在使用和不使用提示模板的情况下测试了 Qwen2.5、Llama 和 DeepSeek-V3-Base 等基础模型，分析了 "
    "GRPO 的目标函数，并提出去掉长度与标准差归一化的 Dr. GRPO。",
    "results": [
        {
            "finding": "基于这些发现，作者提出了一个极简的 R1-Zero 训练方案，用 7B 基础模型在 AIME 2024 上达到 "
            "43.3% 的准确率，创造了新的最佳成绩。",
            "numbers": ["43.3%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "如表1所示，不使用任何模板即可大幅提升平均性能，与传统的 4-shot 提示相比提升约 60%。",
            "numbers": ["60%"],
            "sections": ["2.2"],
        },
        {
            "finding": "Oat-Zero-7B 在 AIME24 上得分 43.3，在五个基准上的平均分为 51.4。",
            "numbers": ["43.3", "51.4"],
            "sections": ["B"],
        },
        {
            "finding": "ORZ 问题集包含 57k 个问题，而 MATH 为 12k 个，GSM 为 8k 个。",
            "numbers": ["57k", "12k", "8k"],
            "sections": ["3.3"],
        },
    ],
    "limitations": ["实验仅限于数学推理基准。", "RL 实验使用的是 Qwen2.5-Math-1.5B 和 Llama-3.2-3B 等小型基础模型。"],
    "takeaways": [
        "在运行 RL 之前，先让提示模板与基础模型相匹配。",
        "去掉 GRPO 的长度与标准差归一化，避免错误回答越来越长。",
    ],
    "mind_map": {
        "label": "R1-Zero 式训练",
        "children": [
            {"label": "基础模型", "children": [{"label": "提示模板"}, {"label": "Aha 时刻"}]},
            {"label": "Dr. GRPO", "children": [{"label": "无长度或标准差归一化"}]},
        ],
    },
}

MLX_EN: dict[str, Any] = {
    "one_sentence": "vllm-mlx serves text and multimodal models natively on Apple Silicon with continuous batching "
    "and content-based prefix caching, reaching 21% to 87% higher throughput than llama.cpp.",
    "problem": "Inference tools for Apple Silicon either lack native optimization or support only text models, and "
    "multimodal serving re-encodes the same image on every request.",
    "method": "The framework builds on MLX, adds continuous batching and text prefix caching on top of mlx-lm, and "
    "caches vision embeddings and KV state under a hash of the decoded pixels.",
    "results": [
        {
            "finding": "For Qwen3-0.6B, throughput scales from 441 tok/s with a single request to 1642 tok/s with 16 "
            "concurrent requests, a 3.7x improvement.",
            "numbers": ["441", "1642", "3.7x"],
            "sections": ["4.1"],
        },
        {
            "finding": "Caching cuts multi-turn image latency from 21.7 s to 0.78 s by the third turn, a 28x speedup.",
            "numbers": ["21.7s", "0.78s", "28x"],
            "sections": ["4.2"],
        },
        {
            "finding": "Vision embedding caching provides 7.8x speedup by eliminating the vision encoder forward pass.",
            "numbers": ["7.8x"],
            "sections": ["4.3"],
        },
        {
            "finding": "Video analysis with up to 64 frames achieves 24.7x cache speedup.",
            "numbers": ["24.7x"],
            "sections": ["Abstract"],
        },
    ],
    "limitations": [
        "All experiments run on one Apple M4 Max with 128 GB of unified memory.",
        "Models are evaluated with 4-bit quantization only.",
    ],
    "takeaways": [
        "Use continuous batching when many users share one Mac.",
        "Cache vision embeddings when the same images recur across turns.",
    ],
    "mind_map": {
        "label": "vllm-mlx",
        "children": [
            {"label": "Text: continuous batching"},
            {
                "label": "Multimodal: prefix caching",
                "children": [{"label": "Vision embeddings"}, {"label": "KV state"}],
            },
        ],
    },
}

MLX_ZH: dict[str, Any] = {
    "one_sentence": "vllm-mlx 借助连续批处理和基于内容的前缀缓存，在 Apple Silicon 上原生运行文本与多模态模型，"
    "吞吐量比 llama.cpp 高 21% 至 87%。",
    "problem": "面向 Apple Silicon 的推理工具要么缺乏原生优化，要么只支持文本模型；多模态服务还会在每次请求时重复"
    "编码同一张图像。",
    "method": "该框架基于 MLX 构建，在 mlx-lm 之上加入连续批处理和文本前缀缓存，并以解码后像素的哈希为键缓存视觉"
    "嵌入和 KV 状态。",
    "results": [
        {
            "finding": "对于 Qwen3-0.6B，吞吐量从单个请求时的 441 tok/s 增长到 16 个并发请求时的 1,642 tok/s，"
            "提升 3.7x。",
            "numbers": ["441", "1642", "3.7x"],
            "sections": ["4.1"],
        },
        {
            "finding": "缓存使多轮图像对话的延迟从 21.7 秒降至第三轮的 0.78 秒，加速 28 倍。",
            "numbers": ["21.7s", "0.78s", "28x"],
            "sections": ["4.2"],
        },
        {
            "finding": "视觉嵌入缓存省去了视觉编码器的前向计算，带来 7.8x 的加速。",
            "numbers": ["7.8x"],
            "sections": ["4.3"],
        },
        {
            "finding": "最多 64 帧的视频分析获得 24.7x 的缓存加速。",
            "numbers": ["24.7x"],
            "sections": ["Abstract"],
        },
    ],
    "limitations": [
        "所有实验都在一台配备 128 GB 统一内存的 Apple M4 Max 上运行。",
        "模型只在 4-bit 量化下进行了评估。",
    ],
    "takeaways": ["多个用户共用一台 Mac 时，应使用连续批处理。", "同一图像在多轮对话中反复出现时，应缓存视觉嵌入。"],
    "mind_map": {
        "label": "vllm-mlx",
        "children": [
            {"label": "文本：连续批处理"},
            {"label": "多模态：前缀缓存", "children": [{"label": "视觉嵌入"}, {"label": "KV 状态"}]},
        ],
    },
}

XQ_EN: dict[str, Any] = {
    "one_sentence": "XQuant caches quantized layer inputs instead of the KV cache and rematerializes keys and values "
    "on the fly, saving up to 7.7× memory with under 0.1 perplexity degradation.",
    "problem": "LLM inference is bound by memory capacity and bandwidth, and the KV cache dominates memory at long "
    "context lengths and large batch sizes.",
    "method": "XQuant quantizes and caches the input activations X of each layer and recomputes keys and values from "
    "them; XQuant-CL quantizes the differences of X between successive layers, and an SVD of the projection "
    "weights extends both to GQA models.",
    "results": [
        {
            "finding": "For the same memory footprint, XQuant achieves 0.88 and 0.67 less perplexity degradation "
            "compared to KIVI* for the Llama-2-7B and Llama-2-13B models, respectively.",
            "numbers": ["0.88", "0.67"],
            "sections": ["4.1"],
        },
        {
            "finding": "On an NVIDIA H100, sequences of up to 2.3K tokens for Llama-2-7B and 40.6K for Llama-3.1-8B "
            "can be rematerialized without compute becoming the bottleneck.",
            "numbers": ["2.3K", "40.6K"],
            "sections": ["3.4"],
        },
        {
            "finding": "XQuant-CL-2bit uses 1.8× less memory than KVQuant-4bit-1% for only 0.12 more perplexity "
            "degradation on WikiText-2.",
            "numbers": ["1.8×", "0.12"],
            "sections": ["4.3"],
        },
        {
            "finding": "Caching X needs 2× less memory than caching keys and values, since one tensor per layer "
            "replaces two.",
            "numbers": ["2×"],
            "sections": ["3.1"],
        },
    ],
    "limitations": [
        "Only Llama 2, Llama 3.1 and Mistral models are evaluated.",
        "Rematerialization adds compute that only pays off when inference is memory-bandwidth bound.",
    ],
    "takeaways": [
        "Caching X instead of KV halves the memory to quantize.",
        "Cross-layer deltas of X quantize well down to 2 or 3 bits.",
    ],
    "mind_map": {
        "label": "XQuant",
        "children": [
            {"label": "Quantize X instead of KV"},
            {"label": "XQuant-CL: cross-layer deltas"},
            {"label": "GQA via SVD"},
        ],
    },
}

XQ_ZH: dict[str, Any] = {
    "one_sentence": "XQuant 不缓存 KV cache，而是缓存量化后的层输入，并在运行时重新计算键和值，最多节省 7.7× 内存，"
    "困惑度下降不到 0.1。",
    "problem": "LLM 推理受限于内存容量和带宽，在长上下文和大批量时 KV cache 占据了大部分内存。",
    "method": "XQuant 对每一层的输入激活 X 进行量化并缓存，再由它重新计算键和值；XQuant-CL 量化相邻层之间 X 的差值；"
    "对投影权重做 SVD 分解后，两者都能扩展到 GQA 模型。",
    "results": [
        {
            "finding": "在相同内存占用下，对于 Llama-2-7B 和 Llama-2-13B 模型，XQuant 的困惑度下降分别比 KIVI* 少 "
            "0.88 和 0.67。",
            "numbers": ["0.88", "0.67"],
            "sections": ["4.1"],
        },
        {
            "finding": "在 NVIDIA H100 上，Llama-2-7B 最长 2.3K、Llama-3.1-8B 最长 40.6K 的序列可以在计算不成为瓶颈"
            "的情况下完成重计算。",
            "numbers": ["2.3K", "40.6K"],
            "sections": ["3.4"],
        },
        {
            "finding": "XQuant-CL-2bit 比 KVQuant-4bit-1% 少用 1.8 倍内存，而在 WikiText-2 上的困惑度下降只多 0.12。",
            "numbers": ["1.8×", "0.12"],
            "sections": ["4.3"],
        },
        {
            "finding": "缓存 X 所需的内存比缓存键和值少 2 倍，因为每层只需存一个张量而不是两个。",
            "numbers": ["2×"],
            "sections": ["3.1"],
        },
    ],
    "limitations": [
        "只评估了 Llama 2、Llama 3.1 和 Mistral 模型。",
        "重计算会增加计算量，只有在推理受内存带宽限制时才划算。",
    ],
    "takeaways": ["缓存 X 而不是 KV，需要量化的内存减半。", "X 的跨层差值即使降到 2 或 3 比特也能很好地量化。"],
    "mind_map": {
        "label": "XQuant",
        "children": [{"label": "量化 X 而不是 KV"}, {"label": "XQuant-CL：跨层差值"}, {"label": "通过 SVD 支持 GQA"}],
    },
}

EP_EN: dict[str, Any] = {
    "one_sentence": "EvicPress decides per context whether to compress, evict or keep each KV cache across storage "
    "tiers, using a utility function that weighs generation quality against loading delay.",
    "problem": "KV caches outgrow GPU memory, and prior systems either evict them to slower tiers or compress them, "
    "never choosing both per context.",
    "method": "A profiler scores each context's eviction-compression configurations with a utility function of "
    "quality and delay, and a selection module places and compresses KV caches across tiers.",
    "results": [
        {
            "finding": "There are 40.3%, 40.0% and 19.7% contexts whose optimal methods are kvzip, knorm and snapkv, "
            "suggesting that there is no dominant compression method that works for all contexts, and per-context "
            "method adaptation is needed.",
            "numbers": ["40.3%", "40.0%", "19.7%"],
            "sections": ["3.2"],
        },
        {
            "finding": "As shown in the figure, for example, Wikipedia articles (2wikimQA) have high sensitivities, "
            "with median of 0.681.",
            "numbers": ["0.681"],
            "sections": ["3.1"],
        },
        {
            "finding": "For example, in the 2wikimQA dataset, a compression ratio of 0.4 yields a quality score of "
            "0.82 and a TTFT of 0.20 seconds, whereas a ratio of 0.2 improves quality to 0.92 but increases TTFT "
            "to 0.24 seconds.",
            "numbers": ["0.82", "0.92"],
            "sections": ["4.2"],
        },
        {
            "finding": "We implement EvicPress on top of vLLM v0.11.2 and LMCache v0.3.9post2, with about 3K lines of "
            "code in Python based on PyTorch v2.9.",
            "numbers": ["3K"],
            "sections": ["5"],
        },
    ],
    "limitations": ["Profiling adds brief latency spikes when it runs."],
    "takeaways": ["Contexts differ in how much compression they tolerate, so decide per context."],
    "mind_map": {
        "label": "EvicPress",
        "children": [{"label": "Utility function"}, {"label": "Profiler"}, {"label": "Multi-tier placement"}],
    },
}

VSI_EN: dict[str, Any] = {
    "one_sentence": "GRPO training with a kept KL penalty unlocks visual-spatial reasoning in small Qwen2-VL models "
    "that chain-of-thought prompting cannot activate.",
    "problem": "Small and medium Qwen2-VL models cannot be prompted into visual-spatial reasoning with "
    "chain-of-thought prompts.",
    "method": "The authors curate the VSI-100k dataset and apply R1-Zero-like GRPO training, keeping the KL penalty.",
    "results": [
        {
            "finding": "With just 120 GPU hours, the vsGRPO-2B model outperforms its base model by 12.1% and "
            "surpasses GPT-4o.",
            "numbers": ["120", "12.1%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "The vsGRPO-7B model performs comparably to the best open-source model LLaVA-NeXT-Video-72B.",
            "numbers": [],
            "sections": ["Abstract"],
        },
        {
            "finding": "Keeping the KL penalty in GRPO, even with a small value, is necessary for visual-spatial "
            "reasoning.",
            "numbers": [],
            "sections": ["Abstract"],
        },
    ],
    "limitations": ["Only the abstract was available, so details beyond it are not covered."],
    "takeaways": ["Keep the KL penalty when training with GRPO."],
    "mind_map": {"label": "vsGRPO", "children": [{"label": "VSI-100k"}, {"label": "GRPO with KL penalty"}]},
}

VSI_ZH: dict[str, Any] = {
    "one_sentence": "保留 KL 惩罚的 GRPO 训练解锁了小型 Qwen2-VL 模型的视觉空间推理能力，"
    "而思维链提示无法激活这种能力。",
    "problem": "中小型 Qwen2-VL 模型无法通过思维链提示进行视觉空间推理。",
    "method": "作者构建了 VSI-100k 数据集，并在保留 KL 惩罚的前提下进行 R1-Zero 式的 GRPO 训练。",
    "results": [
        {
            "finding": "仅用 120 个 GPU 小时，vsGRPO-2B 模型就比基础模型高出 12.1%，并超过了 GPT-4o。",
            "numbers": ["120", "12.1%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "vsGRPO-7B 模型的表现与最好的开源模型 LLaVA-NeXT-Video-72B 相当。",
            "numbers": [],
            "sections": ["Abstract"],
        },
        {
            "finding": "在 GRPO 中保留 KL 惩罚（即使取值很小）对视觉空间推理是必要的。",
            "numbers": [],
            "sections": ["Abstract"],
        },
    ],
    "limitations": ["只有摘要可用，因此未涵盖摘要之外的细节。"],
    "takeaways": ["使用 GRPO 训练时应保留 KL 惩罚。"],
    "mind_map": {"label": "vsGRPO", "children": [{"label": "VSI-100k"}, {"label": "带 KL 惩罚的 GRPO"}]},
}

SCHOLAR_EN: dict[str, Any] = {
    "one_sentence": "ScholarCopilot trains one model to decide when to retrieve citations with a retrieval token and "
    "to write academic text around them.",
    "problem": "Retrieval-augmented generation systems do not support professional academic writing with accurate "
    "citations well.",
    "method": "The model emits a retrieval token, looks up citations with its representation, and is optimised "
    "jointly for generation and citation.",
    "results": [
        {
            "finding": "Trained on 500K papers from arXiv, the model reaches a top-1 retrieval accuracy of 40.1%, "
            "ahead of E5-Mistral-7B-Instruct at 15.0% and BM25 at 9.8%.",
            "numbers": ["500K", "40.1%", "15.0%", "9.8%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "On 1000 academic writing samples, ScholarCopilot scores 16.2/25 in generation quality against "
            "15.8/25 for Qwen-2.5-72B-Instruct, a model with 10x more parameters.",
            "numbers": ["1,000", "16.2/25", "15.8/25", "10x"],
            "sections": ["Abstract"],
        },
        {
            "finding": "Human studies confirm its superior citation recall and writing efficiency.",
            "numbers": [],
            "sections": ["Abstract"],
        },
    ],
    "limitations": ["Only the abstract was available, so details beyond it are not covered."],
    "takeaways": ["Let the model decide when to retrieve citations."],
    "mind_map": {"label": "ScholarCopilot", "children": [{"label": "Retrieval token"}, {"label": "Joint training"}]},
}

PAPERBENCH_EN: dict[str, Any] = {
    "one_sentence": "PaperBench asks AI agents to replicate ICML papers from scratch and grades them with rubrics and "
    "an LLM judge, finding that the best agent still trails human researchers.",
    "problem": "There is no benchmark of whether AI agents can replicate state-of-the-art AI research end to end.",
    "method": "Rubrics co-developed with the papers' authors decompose each replication into gradable sub-tasks, "
    "scored by an LLM-based judge.",
    "results": [
        {
            "finding": "The benchmark covers 20 ICML 2024 Spotlight and Oral papers and 8316 individually gradable "
            "tasks.",
            "numbers": ["20", "8,316"],
            "sections": ["Abstract"],
        },
        {
            "finding": "The best tested agent, Claude 3.5 Sonnet with open-source scaffolding, achieves an average "
            "replication score of 21.0%.",
            "numbers": ["21.0%"],
            "sections": ["Abstract"],
        },
        {
            "finding": "Models do not yet outperform the human baseline of top ML PhDs.",
            "numbers": [],
            "sections": ["Abstract"],
        },
    ],
    "limitations": ["Only the abstract was available, so details beyond it are not covered."],
    "takeaways": ["Agents are far from replicating research papers reliably."],
    "mind_map": {"label": "PaperBench", "children": [{"label": "Rubrics"}, {"label": "LLM judge"}]},
}

MERGEVQ_EN: dict[str, Any] = {
    "one_sentence": "MergeVQ adds token merging to vector-quantized generative models so that one model serves both "
    "image generation and visual representation learning.",
    "problem": "Masked image modeling with vector quantization trades generation quality against representation "
    "learning and efficiency in a shared latent space.",
    "method": "Token merging after self-attention decouples top-k semantics for Look-up Free Quantization, and "
    "cross-attention in the decoder recovers details; MergeAR compresses the KV cache for raster-order prediction.",
    "results": [
        {
            "finding": "MergeVQ achieves competitive performance in both representation learning and generation on "
            "ImageNet.",
            "numbers": [],
            "sections": ["Abstract"],
        },
        {
            "finding": "It maintains favorable token efficiency and inference speed as an AR generative model.",
            "numbers": [],
            "sections": ["Abstract"],
        },
        {
            "finding": "MergeAR performs KV cache compression for efficient raster-order prediction.",
            "numbers": [],
            "sections": ["Abstract"],
        },
    ],
    "limitations": ["Only the abstract was available, so details beyond it are not covered."],
    "takeaways": ["Token merging can serve generation and representation at once."],
    "mind_map": {"label": "MergeVQ", "children": [{"label": "Token merging"}, {"label": "MergeAR"}]},
}

# The sample day's 2504.00999 finding: the abstract's fifth sentence, cut off by the schema's cap of a
# finding (400 characters) mid-word, with no full sentence before the cut.
MERGEVQ_ABSTRACT_CUT = (
    "During pre-training, MergeVQ decouples top-k semantics from latent space with the token merge module after "
    "self-attention blocks in the encoder for subsequent Look-up Free Quantization (LFQ) and global alignment and "
    "recovers their fine-grained details through cross-attention in the decoder for reconstruction, and "
    "during pre-training, MergeVQ decouples top-k semantics from latent space with the tok"
)
assert len(MERGEVQ_ABSTRACT_CUT) == 400

HAND: dict[str, dict[str, Any]] = {
    R1: R1_EN,
    MLX: MLX_EN,
    XQ: XQ_EN,
    EP: EP_EN,
    VSI: VSI_EN,
    SCHOLAR: SCHOLAR_EN,
    PAPERBENCH: PAPERBENCH_EN,
    MERGEVQ: MERGEVQ_EN,
}
CHINESE: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {  # key -> (English, its Chinese translation)
    R1: (R1_EN, R1_ZH),
    MLX: (MLX_EN, MLX_ZH),
    XQ: (XQ_EN, XQ_ZH),
    VSI: (VSI_EN, VSI_ZH),
}


def en(key: str) -> dict[str, Any]:
    return copy.deepcopy(HAND[key])


def zh(key: str) -> dict[str, Any]:
    return copy.deepcopy(CHINESE[key][1])


# --- faithful digests built programmatically from the pages' own sentences --------------------------------

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def real_results(key: str, most: int = 5) -> list[dict[str, Any]]:
    """Per section, in paper order, the first clean sentence of its own text that holds a decimal, a
    percentage or a ×: the finding, with its figures as the numbers, cited to that section."""
    found = []
    for block in blocks_of(doc(key)):
        tag = block.section.tag
        for sentence in (s for line in block.text.split("\n")[1:] for s in _SENTENCE_RE.split(line)):
            words = sentence.split()
            if any(c in sentence for c in "\\{}|[]") or not 8 <= len(words) <= 45:
                continue
            if sentence.startswith(("Figure", "Table", "Algorithm", "Left:", "•")):
                continue
            figures = prose_numbers(sentence)
            if not any("." in n.value or n.unit for n in figures):
                continue
            assert all(facts(key).in_sections(n, [tag]) for n in figures), (tag, sentence)
            numbers = list(dict.fromkeys(n.text for n in figures))[:3]
            found.append({"finding": sentence, "numbers": numbers, "sections": [tag]})
            break
        if len(found) == most:
            break
    assert len(found) >= 3, key
    return found


def auto_digest(key: str) -> dict[str, Any]:
    """The hand-written frame of `key` with programmatically chosen results."""
    return {**en(key), "results": real_results(key)}


# --- the suite: faithful variants and planted faults --------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One answer to judge: `rule` None for a faithful one, else the rule that must catch it and what its
    message must name (the field, the value and where it was expected)."""

    name: str
    kind: str
    key: str
    build: Callable[[], dict[str, Any] | str]
    rule: str | None = None
    names: tuple[str, ...] = ()
    english: Callable[[], dict[str, Any]] | None = None  # a translation case: the English digest it translates

    def judge(self) -> Verdict:
        if self.english is not None:
            return judge_zh(self.build(), self.english())
        return judge_en(self.build(), self.key)


def edit(base: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], Any]) -> Callable[[], dict[str, Any]]:
    """A builder: a fresh copy of `base()` with `change` applied in place."""

    def build() -> dict[str, Any]:
        answer = base()
        change(answer)
        return answer

    return build


def setting(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets a dotted path (`results.1.numbers`) to `value`."""

    def change(answer: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = answer
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return change


def _unused_number(key: str, candidates: tuple[str, ...]) -> str:
    """The first candidate that appears nowhere in the paper."""
    for candidate in candidates:
        if not any(facts(key).anywhere(n) for n in numbers_in(candidate)):
            return candidate
    raise AssertionError(f"every candidate appears in {key}")


def _other_section(key: str, result: dict[str, Any]) -> str:
    """A real section of the paper that holds none of the result's numbers."""
    f = facts(key)
    numbers = [n for entry in result["numbers"] for n in numbers_in(entry)]
    return next(
        tag
        for tag in f.tags
        if tag not in result["sections"] and f.texts.get(tag) and not any(f.in_sections(n, [tag]) for n in numbers)
    )


def _reformatted(key: str, entry: str) -> str:
    """`entry` printed another way that does not occur in the paper: 43.3% as 0.433, 1.8 as 1.80, 57k as 57,000."""
    (number,) = numbers_in(entry)
    options = []
    if number.unit == "%":
        options.append(f"{float(number.value) / 100:g}")
    if number.unit.lower() == "k":
        options.append(f"{round(float(number.value) * 1000):,}")
    options.append(f"{number.sign}{number.value}{'0' if '.' in number.value else '.0'}{number.unit}")
    return _unused_number(key, tuple(options))


def _figure_elsewhere(key: str, result: dict[str, Any]) -> str:
    """A figure of the paper (two digits or more) that none of the result's cited sections holds."""
    f = facts(key)
    for tag in f.tags:
        for number in f.numbers[tag]:
            if (
                number.counts_in_prose
                and number.unit in ("%", "x", "×")
                and f.in_sections(number, result["sections"]) is None
            ):
                return number.text
    raise AssertionError(key)


def planted_on(key: str) -> list[Case]:
    """The faults planted programmatically on the auto digest of a page."""
    base = lambda: auto_digest(key)  # noqa: E731
    results = base()["results"]
    nowhere = _unused_number(key, ("987.65", "31.337%", "4242"))
    wrong = _other_section(key, results[1])
    odd = _unused_number(key, ("13.37x", "77.7%", "0.031"))
    first = results[0]["numbers"][0]
    reformatted = _reformatted(key, first)
    elsewhere = _figure_elsewhere(key, results[0])
    title = doc(key).title
    c = [
        Case(f"{key} number nowhere", "number appears nowhere", key,
             edit(base, lambda d: d["results"][0]["numbers"].append(nowhere)), "number_unknown",
             ("results[0].numbers", repr(nowhere), results[0]["sections"][0])),
        Case(f"{key} wrong section", "number from another section", key,
             edit(base, setting("results.1.sections", [wrong])), "number_section",
             ("results[1].numbers", repr(results[1]["numbers"][0]), wrong)),
        Case(f"{key} finding figure nowhere", "prose number nowhere (finding)", key,
             edit(base, lambda d: d["results"][2].update(finding=d["results"][2]["finding"][:-1] + f", a {odd} gain.")),
             "prose_number", ("results[2].finding", repr(odd))),
        Case(f"{key} one_sentence figure nowhere", "prose number nowhere (one_sentence)", key,
             edit(base, lambda d: d.update(one_sentence=d["one_sentence"][:-1] + f" with {nowhere} fewer errors.")),
             "prose_number", ("one_sentence", repr(nowhere), "paper")),
        Case(f"{key} finding figure from another section", "finding number in another section", key,
             edit(base, lambda d: d["results"][0].update(finding=f"{d['results'][0]['finding']} It adds {elsewhere}.")),
             "finding_number", ("results[0].finding", repr(elsewhere), results[0]["sections"][0])),
        Case(f"{key} reformatted {first} as {reformatted}", "reformatted number", key,
             edit(base, setting("results.0.numbers.0", reformatted)), "number_unknown",
             ("results[0].numbers", repr(reformatted), results[0]["sections"][0])),
        Case(f"{key} section that does not exist", "section does not exist", key,
             edit(base, setting("results.0.sections", ["99.9"])), "section_unknown",
             ("results[0].sections", "'99.9'", results[0]["sections"][0])),
        Case(f"{key} bare number as finding", "says nothing: bare number", key,
             edit(base, lambda d: d["results"][0].update(finding=first)), "finding_sentence",
             ("results[0].finding", repr(first))),
        Case(f"{key} empty numbers", "says nothing: empty numbers", key,
             edit(base, setting("results.1.numbers", [])), "result_empty",
             ("results[1].numbers", results[1]["sections"][0])),
        Case(f"{key} one section for all", "says nothing: same sections", key,
             edit(base, lambda d: [r.update(sections=list(results[0]["sections"])) for r in d["results"]]),
             "same_sections", ("sections", results[0]["sections"][0])),
        Case(f"{key} one_sentence is the title", "says nothing: title restated", key,
             edit(base, setting("one_sentence", title)), "title_restated", ("one_sentence", title[:40])),
    ]  # fmt: skip
    return c


def faithful_cases() -> list[Case]:
    c = [Case(f"{key} hand-written", "faithful", key, lambda key=key: en(key)) for key in HAND]
    c += [Case(f"{key} built from its sentences", "faithful", key, lambda key=key: auto_digest(key)) for key in PAGES]
    c += [
        Case(
            f"{key} translation", "faithful translation", key, lambda key=key: zh(key), english=lambda key=key: en(key)
        )
        for key in CHINESE
    ]
    c += [
        Case("fenced JSON", "faithful", R1, lambda: "```json\n" + json.dumps(en(R1), indent=2) + "\n```"),
        Case("a table of a subsection cited under its section (3.3 under 3)", "faithful", R1,
             edit(lambda: en(R1), setting("results.3.sections", ["3"]))),
        Case("Table 1 of 4.1 cited under 4", "faithful", MLX,
             edit(lambda: en(MLX), setting("results.0", {
                 "finding": "Qwen3-0.6B reaches 525.5 tok/s against 281.5 tok/s for llama.cpp, a 1.87x speedup.",
                 "numbers": ["525.5", "281.5", "1.87x"], "sections": ["4"]}))),
        Case("two sections cited, the number in the second", "faithful", R1,
             edit(lambda: en(R1), setting("results.1.sections", ["2.1", "2.2"]))),
        Case("a finding restating only its listed numbers", "faithful", EP,
             edit(lambda: en(EP), setting("results.2.finding",
                  "A compression ratio of 0.2 raises the quality score to 0.92 instead of 0.82."))),
        Case("percentages and decimals with their units dropped", "faithful", XQ,
             edit(lambda: en(XQ), setting("results.2.numbers", ["1.8", "0.12"]))),
        Case("thousands separators either way", "faithful", MLX,
             edit(lambda: en(MLX), setting("results.0.numbers", ["441", "1,642", "3.7×"]))),
        Case("a version written apart from its name (Llama 3.1 for Llama-3.1-8B)", "faithful", XQ,
             edit(lambda: en(XQ), setting("results.1.finding",
                  "Llama 3.1 8B can rematerialize sequences of up to 40.6K tokens on an NVIDIA H100, and "
                  "Llama-2-7B up to 2.3K, without compute becoming the bottleneck."))),
        Case("a number outside every section cited under the section it belongs to", "faithful", FLOATS,
             edit(lambda: en(MLX), setting("results.2", {
                 "finding": "Caching only the vision embeddings cuts the second turn's latency to 2.8 s.",
                 "numbers": ["2.8s"], "sections": ["4.3"]}))),
        Case("a number outside every section cited under another section", "faithful", FLOATS,
             edit(lambda: en(MLX), setting("results.2", {
                 "finding": "Caching only the vision embeddings cuts the second turn's latency to 2.8 s.",
                 "numbers": ["2.8s"], "sections": ["1"]}))),
        Case("translation keeping a six-word name in Latin", "faithful translation", R1,
             edit(lambda: zh(R1), setting("method",
                  "作者在使用和不使用提示模板的情况下测试了多种基础模型，分析了 GRPO 的目标函数，并提出 Dr. GRPO"
                  "（Group Relative Policy Optimization Done Right），去掉了长度与标准差归一化。")),
             english=edit(lambda: en(R1), setting("method",
                  "The authors test base models with and without prompt templates, analyse the GRPO objective, and "
                  "propose Dr. GRPO (Group Relative Policy Optimization Done Right), which removes its length and "
                  "std normalisation."))),
        Case("translation writing 1.8 倍 and 2 倍 as 1.8× and 2×", "faithful translation", XQ,
             edit(lambda: zh(XQ), lambda d: [r.update(finding=r["finding"].replace(" 倍", "×")) for r in d["results"]]),
             english=lambda: en(XQ)),
        Case("translation writing 1,642 and 28 倍 as 1642 and 28x", "faithful translation", MLX,
             edit(lambda: zh(MLX), lambda d: [r.update(finding=r["finding"].replace("1,642", "1642").replace(
                 "28 倍", "28x")) for r in d["results"]]),
             english=lambda: en(MLX)),
        Case("translation with full-width digits", "faithful translation", MLX,
             edit(lambda: zh(MLX), setting("results.3.finding", "最多 ６４ 帧的视频分析获得 ２４．７x 的缓存加速。")),
             english=lambda: en(MLX)),
    ]  # fmt: skip
    return c


def hand_faults() -> list[Case]:
    """Faults of every kind planted by hand on the hand-written digests and translations."""
    r1, mlx, xq, ep = (lambda: en(R1)), (lambda: en(MLX)), (lambda: en(XQ)), (lambda: en(EP))
    c = [
        # a number from nowhere, or from another section
        Case("61.3% appears nowhere", "number appears nowhere", R1, edit(r1, setting("results.1.numbers", ["61.3%"])),
             "number_unknown", ("results[1].numbers", "'61.3%'", "2.2")),
        Case("57k cited to 2.2", "number from another section", R1, edit(r1, setting("results.3.sections", ["2.2"])),
             "number_section", ("results[3].numbers", "'57k'", "2.2", "3.3")),
        Case("7.8x cited to 4.1", "number from another section", MLX, edit(mlx, setting("results.2.sections", ["4.1"])),
             "number_section", ("results[2].numbers", "'7.8x'", "4.1", "4.3")),
        Case("0.88 cited to 4.3", "number from another section", XQ, edit(xq, setting("results.0.sections", ["4.3"])),
             "number_section", ("results[0].numbers", "'0.88'", "4.3", "4.1")),
        # a digest may drop a unit or a sign, not add one
        Case("43.3% where B prints 43.3", "unit or sign added", R1,
             edit(r1, setting("results.2.numbers", ["43.3%", "51.4"])),
             "number_section", ("results[2].numbers", "'43.3%'", "B", "Abstract")),
        Case("-0.88 where the paper prints 0.88", "unit or sign added", XQ,
             edit(xq, setting("results.0.numbers", ["-0.88", "0.67"])),
             "number_unknown", ("results[0].numbers", "'-0.88'", "4.1")),
        Case("0.681% where the paper prints 0.681", "unit or sign added", EP,
             edit(ep, setting("results.1.numbers", ["0.681%"])),
             "number_unknown", ("results[1].numbers", "'0.681%'", "3.1")),
        # reformatted numbers
        Case("43.3% written 0.433", "reformatted number", R1, edit(r1, setting("results.0.numbers", ["0.433"])),
             "number_unknown", ("results[0].numbers", "'0.433'", "Abstract")),
        Case("1.8× written 1.80×", "reformatted number", XQ, edit(xq, setting("results.2.numbers", ["1.80×", "0.12"])),
             "number_unknown", ("results[2].numbers", "'1.80×'", "4.3")),
        Case("57k written 57,000", "reformatted number", R1, edit(r1, setting("results.3.numbers", ["57,000"])),
             "number_unknown", ("results[3].numbers", "'57,000'", "3.3")),
        Case("0.433 written in a finding", "reformatted number", R1,
             edit(r1, setting("results.0.finding", "A minimalist R1-Zero recipe reaches an accuracy of 0.433 on AIME "
                                                   "2024 with a 7B base model.")),
             "prose_number", ("results[0].finding", "'0.433'")),
        # a "number" that is none
        Case("twelve percent", "number without a digit", R1, edit(r1, setting("results.1.numbers", ["twelve percent"])),
             "number_form", ("results[1].numbers", "'twelve percent'", "2.2")),
        Case("an identifier as a number", "number without a digit", VSI,
             edit(lambda: en(VSI), setting("results.0.numbers", ["GPT-4o"])),
             "number_form", ("results[0].numbers", "'GPT-4o'", "Abstract")),
        Case("a table label as a number", "number without a digit", R1,
             edit(r1, setting("results.1.numbers", ["Table 1"])),
             "number_form", ("results[1].numbers", "'Table 1'", "2.2")),
        Case("an empty string as a number", "number without a digit", MLX,
             edit(mlx, setting("results.2.numbers", ["", "7.8x"])), "number_form", ("results[2].numbers", "''", "4.3")),
        # sections that do not exist
        Case("section 3.7", "section does not exist", R1, edit(r1, setting("results.3.sections", ["3.7"])),
             "section_unknown", ("results[3].sections", "'3.7'", "3.4")),
        Case("section 'Results'", "section does not exist", MLX, edit(mlx, setting("results.0.sections", ["Results"])),
             "section_unknown", ("results[0].sections", "'Results'", "4.1")),
        Case("section 'Section 4.1'", "section does not exist", XQ,
             edit(xq, setting("results.0.sections", ["Section 4.1"])),
             "section_unknown", ("results[0].sections", "'Section 4.1'", "4.1")),
        Case("section 2 of an abstract-only paper", "section does not exist", VSI,
             edit(lambda: en(VSI), setting("results.0.sections", ["2"])),
             "section_unknown", ("results[0].sections", "'2'", "Abstract")),
        # figures in prose that the paper does not print
        Case("a takeaway's figure", "prose number nowhere (other fields)", MLX,
             edit(mlx, setting("takeaways.0", "Continuous batching gives a 9.9x speedup for many users.")),
             "prose_number", ("takeaways[0]", "'9.9x'", "paper")),
        Case("a mind-map label's figure", "prose number nowhere (other fields)", R1,
             edit(r1, setting("mind_map.children.1.label", "Dr. GRPO: 37% shorter answers")),
             "prose_number", ("mind_map.children[1].label", "'37%'", "paper")),
        Case("a limitation's figure", "prose number nowhere (other fields)", XQ,
             edit(xq, setting("limitations.0", "Only 13 models are evaluated, all below 70B.")),
             "prose_number", ("limitations[0]", "'70B'", "paper")),
        Case("a finding's figure from the abstract cited to B", "finding number in another section", R1,
             edit(r1, setting("results.2.finding", "Oat-Zero-7B scores 43.3% on AIME24 and 51.4 on average over the "
                                                   "five benchmarks.")),
             "finding_number", ("results[2].finding", "'43.3%'", "B", "Abstract")),
        # digests that say nothing
        Case("one_sentence = the title", "says nothing: title restated", R1,
             edit(r1, setting("one_sentence", "Understanding R1-Zero-Like Training: A Critical Perspective.")),
             "title_restated", ("one_sentence", "Understanding R1-Zero-Like Training")),
        Case("one_sentence = 'This paper presents' + title", "says nothing: title restated", MLX,
             edit(mlx, setting("one_sentence", "This paper presents native LLM and MLLM inference at scale on Apple "
                                               "Silicon.")),
             "title_restated", ("one_sentence", "Native LLM and MLLM Inference")),
        Case("finding '43.3%'", "says nothing: bare number", R1, edit(r1, setting("results.0.finding", "43.3%")),
             "finding_sentence", ("results[0].finding", "'43.3%'")),
        Case("finding '57k'", "says nothing: bare number", R1, edit(r1, setting("results.3.finding", "57k")),
             "finding_sentence", ("results[3].finding", "'57k'")),
        Case("finding 'Aha moment'", "says nothing: noun phrase", R1,
             edit(r1, setting("results.1.finding", "Aha moment")),
             "finding_sentence", ("results[1].finding", "'Aha moment'")),
        Case("finding as a long noun phrase", "says nothing: noun phrase", R1,
             edit(r1, setting("results.1.finding",
                              "Average performance of the Qwen2.5-Math base model without any template")),
             "finding_sentence", ("results[1].finding", "'Average performance")),
        Case("finding as a caption", "says nothing: noun phrase", MLX,
             edit(mlx, setting("results.2.finding", "Ablation: Cache component contribution (Qwen3-VL-8B, Turn 2).")),
             "finding_sentence", ("results[2].finding", "'Ablation")),
        Case("empty numbers where 2.2 holds figures", "says nothing: empty numbers", R1,
             edit(r1, setting("results.1.numbers", [])), "result_empty", ("results[1].numbers", "2.2", "60%")),
        Case("empty numbers where 4.3's tables hold figures", "says nothing: empty numbers", MLX,
             edit(mlx, setting("results.2.numbers", [])), "result_empty", ("results[2].numbers", "4.3", "7.8x")),
        Case("every result cites 4.1", "says nothing: same sections", MLX,
             edit(mlx, lambda d: [r.update(sections=["4.1"]) for r in d["results"]]),
             "same_sections", ("sections", "4.1")),
        Case("every result cites the abstract of a full paper", "says nothing: same sections", R1,
             edit(r1, lambda d: [r.update(sections=["Abstract"]) for r in d["results"]]),
             "same_sections", ("sections", "Abstract")),
        # invented words: a name the paper never writes, an acronym expanded as the paper does not (#44)
        Case("a method renamed", "invented words: name changed", R1,
             edit(r1, setting("method", "GRPO-Done drops the length and standard-deviation terms from GRPO's "
                                        "objective, which removes its bias.")),
             "names", ("method", "'GRPO-Done'")),
        Case("an acronym given an invented expansion", "invented words: acronym expanded", R1,
             edit(r1, setting("method", "GRPO (Gradient Projection Optimization) is made unbiased by dropping two "
                                        "normalisation terms from its objective.")),
             "acronym", ("method", "GRPO", "'Gradient Projection Optimization'")),
        Case("problem = the title", "says nothing: title restated", R1,
             edit(r1, setting("problem", "Understanding R1-Zero-Like Training: A Critical Perspective")),
             "title_restated", ("problem", "Understanding R1-Zero-Like Training")),
        Case("a finding cut mid-word at its cap", "says nothing: cut off", MERGEVQ,
             edit(lambda: en(MERGEVQ), setting("results.0.finding", MERGEVQ_ABSTRACT_CUT)),
             "cut_off", ("results[0].finding", "cut off mid-sentence")),
        Case("one finding written twice", "says nothing: repeated", MLX,
             edit(mlx, lambda d: d["results"].append(copy.deepcopy(d["results"][1]))),
             "repeated", ("results[4].finding", "repeats results[1].finding")),
        Case("method copied from the abstract", "says nothing: copied", MERGEVQ,
             edit(lambda: en(MERGEVQ), setting("method", "To push the limits of this paradigm, we propose MergeVQ, "
                  "which incorporates token merging techniques into VQ-based generative models.")),
             "copied", ("method", "copies")),
        Case("a number of another sentence", "says nothing: number unrelated", VSI,
             edit(lambda: en(VSI), setting("results.2.numbers", ["12.1%"])),
             "number_unrelated", ("results[2].numbers", "'12.1%'")),
        Case("code availability as a finding", "says nothing: packaging", VSI,
             edit(lambda: en(VSI), setting("results.2.finding", "Codes and checkpoints are available at "
                                                                "https://github.com/example/vsgrpo.")),
             "packaging", ("results[2].finding", "packaging")),
        # the wrong language, broken JSON, a wrong shape
        Case("a Chinese finding in the English digest", "wrong language", R1,
             edit(r1, setting("results.3.finding", "ORZ 问题集包含 57k 个问题，而 MATH 为 12k 个，GSM 为 8k 个。")),
             "english", ("results[3].finding",)),
        Case("chatter around the JSON", "broken JSON or schema", R1, lambda: "Here it is: " + json.dumps(en(R1)),
             "json", ("not valid JSON",)),
        Case("two results", "too few results", R1, edit(r1, lambda d: d["results"].pop() and d["results"].pop()),
             "results_count", ("results: 2 of at least 3",)),
        Case("an extra key", "broken JSON or schema", R1, edit(r1, setting("score", 9)), "schema", ("score",)),
    ]  # fmt: skip
    return c


def translation_faults() -> list[Case]:
    r1, mlx, xq, vsi = (lambda: zh(R1)), (lambda: zh(MLX)), (lambda: zh(XQ)), (lambda: zh(VSI))
    e = {key: (lambda key=key: en(key)) for key in CHINESE}
    english_problem = R1_EN["problem"]
    c = [
        Case("1.8 becomes 1.1", "translation changes a number", XQ,
             edit(xq, setting("results.2.finding", "XQuant-CL-2bit 比 KVQuant-4bit-1% 少用 1.1 倍内存，而在 WikiText-2 "
                                                   "上的困惑度下降只多 0.12。")),
             "zh_numbers", ("results[2].finding", "1.8", "1.1"), english=e[XQ]),
        Case("43.3% becomes 43.8%", "translation changes a number", R1,
             edit(r1, lambda d: d["results"][0].update(finding=d["results"][0]["finding"].replace("43.3%", "43.8%"))),
             "zh_numbers", ("results[0].finding", "43.3", "43.8"), english=e[R1]),
        Case("57k becomes 5.7万", "translation changes a number", R1,
             edit(r1, lambda d: d["results"][3].update(finding=d["results"][3]["finding"].replace("57k", "5.7万"))),
             "zh_numbers", ("results[3].finding", "57", "5.7"), english=e[R1]),
        Case("21% to 87% loses 87%", "translation drops a number", MLX,
             edit(mlx, lambda d: d.update(one_sentence=d["one_sentence"].replace(" 21% 至 87%", "超过 21%"))),
             "zh_numbers", ("one_sentence", "87"), english=e[MLX]),
        Case("3.7x dropped", "translation drops a number", MLX,
             edit(mlx, lambda d: d["results"][0].update(finding=d["results"][0]["finding"].replace("，提升 3.7x", ""))),
             "zh_numbers", ("results[0].finding", "3.7"), english=e[MLX]),
        Case("12.1% dropped", "translation drops a number", VSI,
             edit(vsi, setting("results.0.finding", "仅用 120 个 GPU 小时，vsGRPO-2B 模型就超过了基础模型和 GPT-4o。")),
             "zh_numbers", ("results[0].finding", "12.1"), english=e[VSI]),
        Case("a number added", "translation adds a number", R1,
             edit(r1, setting("takeaways.0", "在运行 RL 之前，先让提示模板与基础模型相匹配，可提升 60%。")),
             "zh_numbers", ("takeaways[0]", "60"), english=e[R1]),
        Case("译文： + the English", "label instead of translation", R1,
             edit(r1, setting("problem", "译文：" + english_problem)), "zh_chinese", ("problem",), english=e[R1]),
        Case("翻译： + the English takeaway", "label instead of translation", MLX,
             edit(mlx, setting("takeaways.1", "翻译：" + MLX_EN["takeaways"][1])), "zh_chinese", ("takeaways[1]",),
             english=e[MLX]),
        Case("a long Chinese label + the English", "label instead of translation", XQ,
             edit(xq, setting("problem", "以下是这一段内容的中文翻译，请参阅：" + XQ_EN["problem"])),
             "zh_chinese", ("problem",), english=e[XQ]),
        Case("the English left as is", "label instead of translation", VSI,
             edit(vsi, setting("method", VSI_EN["method"])), "zh_chinese", ("method",), english=e[VSI]),
        Case("a finding left in English", "label instead of translation", R1,
             edit(r1, setting("results.1.finding", "结果：" + R1_EN["results"][1]["finding"])),
             "zh_chinese", ("results[1].finding",), english=e[R1]),
        Case("an empty field", "label instead of translation", MLX, edit(mlx, setting("problem", "")),
             "zh_chinese", ("problem",), english=e[MLX]),
        Case("numbers list with a full-width percent", "translation changes the lists", R1,
             edit(r1, setting("results.0.numbers", ["43.3％"])), "zh_lists", ("results[0].numbers", "43.3%"),
             english=e[R1]),
        Case("sections translated", "translation changes the lists", R1,
             edit(r1, setting("results.0.sections", ["摘要"])), "zh_lists", ("results[0].sections", "Abstract"),
             english=e[R1]),
        Case("a takeaway dropped", "translation changes the shape", MLX, edit(mlx, lambda d: d["takeaways"].pop()),
             "zh_shape", ("takeaways", "2"), english=e[MLX]),
        Case("a mind-map child dropped", "translation changes the shape", XQ,
             edit(xq, lambda d: d["mind_map"]["children"].pop()), "zh_shape", ("mind_map.children", "3"),
             english=e[XQ]),
        Case("a heading for a problem", "translation is a heading", R1, edit(r1, setting("problem", "方法")),
             "zh_length", ("problem", "'方法'"), english=e[R1]),
        Case("another field's translation", "translation of another field", MLX,
             edit(mlx, lambda d: d.update(method=d["one_sentence"])), "zh_repeated",
             ("method", "one_sentence"), english=e[MLX]),
        Case("Dr. GRPO as 博士GRPO", "translation changes a name", R1,
             edit(r1, lambda d: d.update(method=d["method"].replace("Dr. GRPO", "博士 GRPO"))), "zh_name",
             ("method", "Dr. GRPO"), english=e[R1]),
        Case("prefix caching left in English", "translation leaves English words", MLX,
             edit(mlx, lambda d: d.update(method=d["method"].replace("文本前缀缓存", "文本 prefix caching"))),
             "zh_english_word", ("method", "prefix", "caching"), english=e[MLX]),
        Case("KV cache as 键值存储", "translation renders a term otherwise", XQ,
             edit(xq, lambda d: d.update(problem=d["problem"].replace("KV cache", "键值存储"))), "zh_term",
             ("problem", "KV cache"), english=e[XQ]),
        Case("English commas in Chinese", "translation copies English punctuation", VSI,
             edit(vsi, lambda d: d.update(one_sentence=d["one_sentence"].replace("，", ", "))), "zh_punctuation",
             ("one_sentence",), english=e[VSI]),
    ]  # fmt: skip
    return c


@lru_cache(maxsize=1)
def all_cases() -> tuple[Case, ...]:
    planted = [case for key in PAGES for case in planted_on(key)]
    return (*faithful_cases(), *planted, *hand_faults(), *translation_faults())


def _ids(cases: tuple[Case, ...]) -> list[str]:
    return [case.name for case in cases]


FAITHFUL = tuple(c for c in all_cases() if c.rule is None)
FAULTS = tuple(c for c in all_cases() if c.rule is not None)


@pytest.mark.parametrize("case", FAITHFUL, ids=_ids(FAITHFUL))
def test_a_faithful_digest_passes(case: Case):
    verdict = case.judge()
    assert verdict.problems == [], [p.message for p in verdict.problems]
    assert verdict.digest is not None


@pytest.mark.parametrize("case", FAULTS, ids=_ids(FAULTS))
def test_a_planted_fault_is_caught_with_its_rule(case: Case):
    verdict = case.judge()
    assert verdict.digest is None
    assert case.rule in rules_broken(verdict.problems), [(p.rule, p.message) for p in verdict.problems]
    messages = messages_of(verdict, case.rule)
    assert any(all(name in message for name in case.names) for message in messages), (case.names, messages)


def test_catch_rate_and_false_alarms(capsys):
    caught: Counter[str] = Counter()
    planted: Counter[str] = Counter()
    alarms = []
    for case in FAULTS:
        planted[case.kind] += 1
        verdict = case.judge()
        caught[case.kind] += verdict.digest is None and case.rule in rules_broken(verdict.problems)
    for case in FAITHFUL:
        verdict = case.judge()
        if verdict.problems:
            alarms.append((case.name, [p.message for p in verdict.problems]))
    with capsys.disabled():
        print(f"\nplanted faults: {sum(caught.values())}/{sum(planted.values())} caught")
        for kind in sorted(planted):
            print(f"  {kind:40} {caught[kind]:3}/{planted[kind]}")
        print(f"faithful variants: {len(FAITHFUL) - len(alarms)}/{len(FAITHFUL)} accepted")
    assert sum(planted.values()) >= 60 and len(FAITHFUL) >= 15
    assert len({c.kind for c in FAULTS}) >= 15
    assert caught == planted  # catch rate 100%
    assert alarms == []  # false-alarm rate 0


def test_every_rule_of_the_checker_is_exercised_by_the_suite():
    exercised = {case.rule for case in FAULTS}
    # `length` is the generation stage's (finish_reason); `echo` needs the conversation (tested below); `scope`,
    # `summary_figure` and `finding_doing` are what a part asked in steps owes its sentence
    # (tests/test_evidence.py), `label` a label asked in steps and `term` a finding asked in steps
    # (tests/test_steps.py); a translation unit's own (tests/test_translation.py)
    elsewhere = {"length", "echo", "scope", "summary_figure", "finding_doing", "label", "term", "zh_placeholder"}
    elsewhere |= {"zh_added"}
    elsewhere |= {"zh_direction", "zh_unfinished"}
    assert set(RULES) - exercised == elsewhere


# --- each rule on its own: exactly that rule breaks, and its message names field, value and where -----------


RULE_CASES = [
    ("json", R1, lambda d: "{ not json", ["not valid JSON"]),
    ("json", R1, lambda d: "[1, 2]", ["one JSON object", "list"]),
    ("schema", R1, lambda d: {k: v for k, v in d.items() if k != "method"}, ["method: missing"]),
    ("schema", R1, lambda d: {**d, "score": 9}, ["score: unexpected key"]),
    ("schema", R1, lambda d: {**d, "limitations": "one string"}, ["limitations"]),
    ("english", R1, lambda d: {**d, "method": "作者测试了基础模型并提出了 Dr. GRPO。"},
     ["method", "'作者测试了基础模型并提出了'"]),
    ("number_form", R1, setting("results.1.numbers", ["sixty percent"]),
     ["results[1].numbers", "'sixty percent'", "holds no digit", "2.2"]),
    ("number_unknown", R1, setting("results.1.numbers", ["61.3%"]),
     ["results[1].numbers", "'61.3%'", "appears nowhere in the paper", "2.2"]),
    ("number_unknown", R1, setting("results.1.numbers", ["from 60% to 61.3%"]), ["'from 60% to 61.3%'", "('61.3%')"]),
    ("number_section", R1, setting("results.3.numbers", ["57k", "60%"]),
     ["results[3].numbers", "'60%'", "not in the cited sections 3.3", "it appears in 1, 2, 2.2"]),
    ("section_unknown", R1, setting("results.3.sections", ["3.3", "3.7"]),
     ["results[3].sections", "'3.7'", "not a section of the paper", "3.4"]),
    ("prose_number", R1, setting("problem", "Reports credit RL for a 35.5% gain in reasoning."),
     ["problem", "'35.5%'", "appears nowhere in the paper"]),
    ("finding_number", R1, setting("results.3.finding", "The ORZ question set holds 57k questions, against 12k for "
                                   "MATH, 8k for GSM and 500 sampled from MATH."),
     ["results[3].finding", "'500'", "not in the cited sections 3.3", "it appears in 2"]),
    ("result_empty", R1, setting("results.2.numbers", []), ["results[2].numbers: empty", "B", "1.5B"]),
    ("finding_sentence", R1, setting("results.1.finding", "60%"), ["results[1].finding", "'60%'", "not a sentence"]),
    ("title_restated", R1, setting("one_sentence", "Understanding R1-Zero-like training, a critical perspective."),
     ["one_sentence", "restates the title", "'Understanding R1-Zero-Like Training: A Critical Perspective'"]),
    ("same_sections", MLX, lambda d: [r.update(sections=["4"]) for r in d["results"]] and d,
     ["results", "every result cites 4", "Abstract"]),
    ("title_restated", R1, setting("problem", "Understanding R1-Zero-like training: a critical perspective."),
     ["problem", "restates the title"]),
    ("cut_off", R1, lambda d: d.update(one_sentence=d["one_sentence"].removesuffix("O fixes.")) or d,
     ["one_sentence", "cut off mid-sentence", "unbiased Dr. GRP'"]),
    ("repeated", R1, lambda d: d.update(one_sentence=d["problem"]) or d,
     ["one_sentence", "repeats problem"]),
    ("repeated", R1, lambda d: d["results"].append({**d["results"][3], "finding": "Notably, " + d["results"][3][
        "finding"]}) or d, ["results[4].finding", "repeats results[3].finding"]),
    ("copied", R1, setting("method", "The authors critically examine R1-Zero-like training by analyzing its two core "
                                     "components: base models and RL."),
     ["method", "copies 16 words of the paper", "critically examine r1 zero like training"]),
    ("copied", VSI, setting("results.2.finding", "Using the carefully curated VSI-100k dataset, following "
                                                 "DeepSeek-R1-Zero. During the investigation, we identify the "
                                                 "necessity to keep the KL penalty (even with a small value) in GRPO."),
     ["results[2].finding", "copies a passage of the paper", "words across its sentences"]),
    ("number_unrelated", VSI, setting("results.1.numbers", ["120"]),
     ["results[1].numbers", "'120'", "not in the finding", "With just 120 GPU hours"]),
    ("packaging", VSI, setting("results.2.finding", "The code and dataset will be available soon."),
     ["results[2].finding", "packaging", "dataset will be available"]),
    ("packaging", R1, setting("results.0.finding", "The paper does not provide any specific details about the use of "
                                                   "Qwen2.5 base models in RL with a 7B model."),
     ["results[0].finding", "packaging", "does not provide"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "key", "mutate", "names"), RULE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(RULE_CASES)]
)
def test_each_english_rule_alone(rule, key, mutate, names):
    answer = en(key)
    changed = mutate(answer)
    verdict = judge_en(answer if changed is None else changed, key)
    assert verdict.digest is None
    assert rules_broken(verdict.problems) == [rule], [(p.rule, p.message) for p in verdict.problems]
    assert any(all(name in p.message for name in names) for p in verdict.problems), [
        p.message for p in verdict.problems
    ]


ZH_RULE_CASES = [
    ("zh_shape", lambda d: d["takeaways"].append("多一条要点。"), ["takeaways", "3 items", "has 2"]),
    ("zh_shape", lambda d: d["mind_map"]["children"][0]["children"].pop(),
     ["mind_map.children[0].children", "1 items"]),
    ("zh_lists", setting("results.0.numbers", ["43.3 %"]), ["results[0].numbers", "['43.3%']", "['43.3 %']"]),
    ("zh_lists", setting("results.2.sections", ["附录B"]), ["results[2].sections", "['B']"]),
    ("zh_numbers", lambda d: d["results"][2].update(finding=d["results"][2]["finding"].replace("51.4", "51.9")),
     ["results[2].finding", "(43.3, 51.4)", "missing 51.4", "51.9 not in the English"]),
    ("zh_numbers", setting("limitations.1", "RL 实验使用的是 Qwen2.5-Math-1.5B 和 Llama-3.2 等小型基础模型。"),
     ["limitations[1]", "missing 3B"]),
    ("zh_chinese", setting("takeaways.1", "译文：Drop GRPO's length and std normalisation to keep incorrect responses "
                                         "from growing longer."),
     ["takeaways[1]", "not translated", "Drop GRPO's length and std normalisation"]),
    ("zh_length", setting("problem", "方法"), ["problem", "'方法'", "too short for its English", "25 English words"]),
    ("zh_length", setting("results.3.finding", "结果，57k、12k 与 8k。"), ["results[3].finding", "a heading"]),
    ("zh_repeated", lambda d: d.update(method=d["problem"]), ["method", "is the translation of problem"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "mutate", "names"), ZH_RULE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ZH_RULE_CASES)]
)
def test_each_translation_rule_alone(rule, mutate, names):
    """Exactly that rule of the fields breaks (a field cut to a heading also loses its names and terms: the
    rules of the words, tests/test_translation.py, say so too)."""
    answer = zh(R1)
    mutate(answer)
    verdict = judge_zh(answer, en(R1))
    assert verdict.digest is None
    fields = [r for r in rules_broken(verdict.problems) if r not in dict(ZH_TEXT_RULES)]
    assert fields == [rule], [(p.rule, p.message) for p in verdict.problems]
    assert any(all(name in p.message for name in names) for p in verdict.problems), [
        p.message for p in verdict.problems
    ]


# --- what a passing verdict carries, and the retry message ---------------------------------------------------


def test_a_passing_digest_carries_the_sentence_each_number_stands_in():
    verdict = judge_en(en(R1), R1)
    assert verdict.digest is not None
    abstract, table_1, table_4, table_3 = verdict.evidence
    assert [(e.number, e.section) for e in abstract] == [("43.3%", "Abstract"), ("7B", "Abstract")]
    assert "achieves 43.3% accuracy on AIME 2024" in abstract[0].sentence
    assert [e.number for e in table_4] == ["43.3", "51.4"] and {e.section for e in table_4} == {"B"}
    assert [e.number for e in table_3] == ["57k", "12k", "8k"] and table_3[0].section == "3.3"
    assert table_1[0].section == "2.2"
    for evidence in (e for result in verdict.evidence for e in result):
        assert len(evidence.sentence) <= EVIDENCE_CHARS


def test_a_number_outside_every_section_is_evidenced_as_outside():
    verdict = judge_en(edit(lambda: en(MLX), setting("results.2", {
        "finding": "Caching only the vision embeddings cuts the second turn's latency to 2.8 s.",
        "numbers": ["2.8s"], "sections": ["1"]}))(), FLOATS)  # fmt: skip
    assert verdict.digest is not None, verdict.problems
    (evidence,) = verdict.evidence[2]
    assert evidence.section == OUTSIDE and "2.8s" in evidence.sentence


def test_a_digest_of_an_abstract_only_paper_may_carry_no_numbers():
    digest, problems = check_en(json.dumps(en(MERGEVQ)), doc(MERGEVQ))
    assert problems == [] and digest is not None
    assert all(r.numbers == [] for r in digest.results)


def test_the_conftest_helpers_agree_with_the_verdicts():
    digest, problems = check_en(json.dumps(en(R1)), doc(R1))
    assert problems == [] and digest is not None
    chinese, problems = check_zh(json.dumps(zh(R1), ensure_ascii=False), digest)
    assert problems == [] and chinese is not None


def test_retry_message_lists_every_problem():
    problems = judge_en(edit(lambda: en(R1), setting("results.1.numbers", ["61.3%"]))(), R1).problems
    assert retry_message(problems) == (
        f"Your JSON has these problems: {problems[0].message}. Return the corrected JSON object only."
    )
    two = [Problem("json", "", "a is wrong"), Problem("schema", "", "b is missing")]
    assert (
        retry_message(two)
        == "Your JSON has these problems: a is wrong; b is missing. Return the corrected JSON object only."
    )
    with pytest.raises(ValueError):
        Problem("no_such_rule", "", "x")


def test_chinese_share_and_copied_runs():
    assert cjk_share(R1_ZH["method"]) > 0.8
    assert cjk_share("译文：" + R1_EN["problem"]) < 0.2
    assert cjk_share("KV cache 的 LRU 淘汰") >= 0.5  # acronyms are terms, not English
    assert copied_run("译文：" + R1_EN["problem"], R1_EN["problem"]).startswith("Reports of")
    assert copied_run(R1_ZH["problem"], R1_EN["problem"]) is None


def test_prose_fields_cover_every_free_text_value():
    digest = Digest.model_validate(en(R1))
    paths = [path for path, _ in prose_fields(digest)]
    assert paths[:3] == ["one_sentence", "problem", "method"]
    assert "results[3].finding" in paths and "takeaways[1]" in paths
    assert "mind_map.children[1].children[0].label" in paths


def test_a_web_address_kept_in_a_translation_is_a_name_not_english_left_over():
    """Measured on the sample day: "The code will be available at https://github.com/TencentARC/AnimeGamer."
    translated with its address kept was rejected as English copied over; the address is a name."""
    english, chinese = en(R1), zh(R1)
    url = "https://github.com/TencentARC/AnimeGamer"
    english["takeaways"][0] = f"The code is available at {url}"
    chinese["takeaways"][0] = f"代码已公开，见 {url}"  # the 0.5B model wrote "见 at": the "at" is English left over
    digest = Digest.model_validate(english)
    accepted, problems = check_zh(json.dumps(chinese, ensure_ascii=False), digest)
    assert accepted is not None, problems
    chinese["takeaways"][0] = f"译文：The code is available at {url}"
    rejected, problems = check_zh(json.dumps(chinese, ensure_ascii=False), digest)
    assert rejected is None and any(p.startswith("takeaways[0]: not translated") for p in problems), problems


def test_an_answer_that_repeats_the_checkers_problem_list_is_an_echo():
    """Measured on the real engine: asked to correct results[1].finding, the 0.5B model wrote the problem
    message as its `problem`, and every other rule passed."""
    from papers_digest.checker.echo import echoed
    from papers_digest.llm.conversation import instructions
    from papers_digest.llm.prompting import digest_messages

    system = load_prompt(ROOT / "prompts" / "digest_en_json.md")[0]
    first = Problem(
        "finding_number",
        "results[1].finding",
        "'27' is not in the cited sections 2 (it appears in 1): cite the section it comes from",
    )
    messages = [
        *digest_messages(system, doc(R1)),
        {"role": "assistant", "content": json.dumps(en(R1))},
        {"role": "user", "content": retry_message([first])},
    ]
    asked = instructions(messages)
    assert asked[0] == system and asked[1] == retry_message([first])  # not the paper, not the answer
    echo = Digest.model_validate(
        {
            **en(R1),
            "problem": "Results[1].finding: '27' is not in the cited sections 2 "
            "(it appears in 1): cite the section it comes from",
        }
    )
    (problem,) = echoed(echo, asked)
    assert problem.rule == "echo" and problem.field == "problem"
    assert "is not in the cited sections" in problem.message


def test_no_faithful_digest_is_an_echo_of_its_prompt_or_of_the_problems_of_its_faults():
    """The words a problem message quotes (the paper's, the answer's) are not instructions: a faithful digest
    shares runs of words with them and is no echo."""
    from papers_digest.checker.echo import echoed

    system = load_prompt(ROOT / "prompts" / "digest_en_json.md")[0]
    retries: dict[str, list[str]] = {}  # each paper's faults judged once, not once per faithful digest of it
    for case in FAITHFUL:
        if case.english is not None or not isinstance(answer := case.build(), dict):
            continue
        if case.key not in retries:
            faults = [c for c in FAULTS if c.key == case.key and c.english is None]
            retries[case.key] = [retry_message(c.judge().problems) for c in faults]
        assert echoed(Digest.model_validate(answer), [system, *retries[case.key]]) == [], case.name
