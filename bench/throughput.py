"""Generation throughput against the batching simulator's ideal, and against a seed-style serial client."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from common import COMPLETION_MEANS, DATE, KV_CAPACITY, SEED_SLEEP_S, synthetic_day

from papers_devtools.sim.batching import BatchingConfig, ideal_makespan
from papers_devtools.sim.serve import free_port
from papers_digest.core.models import FulltextDoc
from papers_digest.core.params import Params, validate_params
from papers_digest.llm.generation import digest_paper, translate_paper
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.generating import generate, llm_client
from papers_digest.report.perfmodel import Gpu, ModelShape

# --- throughput ----------------------------------------------------------------------------------


class Sim:
    """`papers dev sim --batching` in its own process (so the client and the engine do not share a GIL)."""

    def __init__(self, time_scale: float) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = BatchingConfig(
            model=ModelShape(), gpu=Gpu(), kv_capacity_tokens=KV_CAPACITY, time_scale=time_scale
        )
        command = [
            str(Path(sys.executable).parent / "papers"),
            "dev",
            "sim",
            "--port",
            str(self.port),
            "--batching",
            "--time-scale",
            str(time_scale),
            "--kv-capacity",
            str(KV_CAPACITY),
            *[f"--completion-tokens={kind}={n}" for kind, n in COMPLETION_MEANS.items()],
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.url}/health", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the simulator did not start") from None
                time.sleep(0.1)

    def reset(self) -> None:
        httpx.post(f"{self.url}/__sim/reset").raise_for_status()
        httpx.delete(f"{self.url}/__sim/cache").raise_for_status()

    def stats(self) -> dict[str, Any]:
        return httpx.get(f"{self.url}/__sim/stats", timeout=30).json()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _params(base_url: str, concurrency: int) -> Params:
    return validate_params(
        {
            "date": DATE,
            "llm": {"base_url": f"{base_url}/v1", "model": "sim-digest", "concurrency": concurrency, "reuse": False},
            "retry": {"attempts": 1},
        }
    )


async def pipeline_day(params: Params, docs: list[FulltextDoc]) -> None:
    """What digest_en then translate_zh do, without the stage processes around them."""
    english = await generate("digest_en", params, DATE, docs, load_prompt("prompts/digest_en.md"), lambda r: None)
    await generate("translate_zh", params, DATE, english, load_prompt("prompts/translate_zh.md"), lambda r: None)


async def seed_day(params: Params, docs: list[FulltextDoc], time_scale: float) -> None:
    """The seed's client: one paper at a time, digest then translation, 3 s between papers."""
    digest_prompt, translate_prompt = load_prompt("prompts/digest_en.md"), load_prompt("prompts/translate_zh.md")
    async with llm_client(params) as client:
        for i, doc in enumerate(docs):
            if i:
                await asyncio.sleep(SEED_SLEEP_S * time_scale)
            english = await digest_paper(client, doc, *digest_prompt, DATE)
            if english.status == "done":
                await translate_paper(client, english, *translate_prompt, DATE)


def throughput(papers: int, time_scale: float, levels: list[int]) -> None:
    docs = synthetic_day(papers)
    sim = Sim(time_scale)
    rows = []
    try:
        for label, concurrency in [("seed-style serial (3 s between papers)", 1), *[("pipeline", c) for c in levels]]:
            sim.reset()
            params = _params(sim.url, concurrency)
            started = time.perf_counter()
            if label == "pipeline":
                asyncio.run(pipeline_day(params, docs))
            else:
                asyncio.run(seed_day(params, docs, time_scale))
            wall = time.perf_counter() - started
            rows.append(_throughput_row(label, concurrency, wall, sim.stats(), sim.config))
    finally:
        sim.close()
    records = rows[1]["records"]
    print(
        f"\n### Generation: {papers} papers, simulated Llama-3.1-8B shape, 1 TB/s, KV {KV_CAPACITY:,} tokens, "
        f"time scale {time_scale:g}\n"
    )
    print(
        f"Per paper: {statistics.mean(r['prompt'] for r in records) * 2:,.0f} prompt and "
        f"{statistics.mean(r['completion'] for r in records) * 2:,.0f} completion tokens on average "
        "(digest + translation); simulated seconds and tok/s are engine time (wall / time scale).\n"
    )
    columns = (
        "client | concurrency | wall s | simulated s | generated tok/s | ideal tok/s | ratio | peak batch | preempted"
    )
    print(f"| {columns} |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['label']} | {row['concurrency']} | {row['wall']:.2f} | {row['sim_s']:,.0f} | "
            f"{row['tok_s']:.1f} | {row['ideal_tok_s']:.1f} | {row['ratio']:.3f} | {row['peak_batch']} | "
            f"{row['preemptions']} |"
        )
    serial = rows[0]
    by_level = {r["concurrency"]: r for r in rows[1:]}
    if 3 in by_level:
        print(f"\nConcurrency 3 vs the serial seed-style client: {serial['wall'] / by_level[3]['wall']:.2f}x faster")


def _throughput_row(label: str, concurrency: int, wall: float, stats: dict, config: BatchingConfig) -> dict[str, Any]:
    calls = [r for r in stats["records"] if r["path"] == "/v1/chat/completions" and r["status"] == 200]
    calls.sort(key=lambda r: r["started"])
    records = [
        {
            "kind": r["kind"],
            "prompt": r["prompt_tokens"],
            "completion": r["completion_tokens"],
            "cached": r["cached_tokens"],
        }
        for r in calls
    ]
    generated = sum(r["completion"] for r in records)
    phases = [
        [(r["prompt"], r["completion"], r["cached"]) for r in records if r["kind"] == kind]
        for kind in ("digest", "translate")
    ]
    ideal_s = ideal_makespan(phases, concurrency, config)
    if label != "pipeline":  # the serial client's ideal is one call at a time, papers interleaved
        ideal_s = ideal_makespan([[(r["prompt"], r["completion"], r["cached"]) for r in records]], 1, config)
    sim_s = wall / config.time_scale
    return {
        "label": label,
        "concurrency": concurrency,
        "wall": wall,
        "sim_s": sim_s,
        "tok_s": generated / sim_s,
        "ideal_tok_s": generated / ideal_s,
        "ratio": ideal_s / sim_s,
        "peak_batch": stats["peak_batch"],
        "preemptions": stats["preemptions"],
        "records": records,
    }
