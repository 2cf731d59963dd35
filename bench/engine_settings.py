"""llama-server's batch settings, measured: llama-batched-bench at the sample day's lengths for each choice.

Run `TQDM_DISABLE=1 .venv/bin/python bench/engine_settings.py` after `make engine-build model` (about 8 minutes
on 2 CPU cores). For a short paper's prompt (an abstract, ~750 tokens) and the trimmed full paper's (~5,800),
it prints prefill tok/s and the decode tok/s of `--parallel` sequences next to a context that long, for the
logical/physical batch (`-b`/`-ub`), flash attention on or off and the KV cache's type, side by side in one
run. The chosen values are `LLAMA_BATCH_TOKENS` / `LLAMA_UBATCH_TOKENS` in engines/commands.py (README, "Performance").
"""

from __future__ import annotations

import argparse
import os

from real_engine import ROOT, batched_bench

from papers_digest.engines.localmodel import DEFAULT_MODEL_PATH

PROMPTS = (750, 5_800)  # the sample day's abstract-only and trimmed full-paper prompts, in tokens
GENERATED = 64
CHOICES = (  # (batch, ubatch, flash attention, KV cache type)
    (256, 256, "on", "f16"),
    (512, 512, "on", "f16"),
    (512, 512, "off", "f16"),
    (512, 512, "on", "q8_0"),  # a quantized V cache needs flash attention
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / DEFAULT_MODEL_PATH))
    parser.add_argument("--parallel", type=int, default=4, help="sequences decoding at once")
    args = parser.parse_args()
    os.chdir(ROOT)
    print(f"\n#### llama-batched-bench: prefill, and decode of {args.parallel} sequences, by batch setting\n")
    head = " | ".join(f"prefill {n:,} tok/s | decode x{args.parallel} at {n:,} tok/s" for n in PROMPTS)
    print(f"| -b | -ub | flash attention | KV cache | {head} |")
    print("|---:|---:|---|---|" + "---:|---:|" * len(PROMPTS))
    for batch, ubatch, flash, kv in CHOICES:
        cells = []
        for npp in PROMPTS:
            # -pps: the prompt is computed once and shared, so prefill is one sequence's and each of the
            # sequences then decodes next to a context of npp tokens
            options = ("-pps", "-fa", flash, "-ctk", kv, "-ctv", kv)
            n = args.parallel
            row = batched_bench(args.model, npp, GENERATED, [n], batch=batch, ubatch=ubatch, options=options)[n]
            cells += [f"{row['s_pp']:.1f}", f"{row['s_tg']:.1f}"]
        print(f"| {batch} | {ubatch} | {flash} | {kv} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
