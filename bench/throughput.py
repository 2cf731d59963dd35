"""Generation throughput against the batching simulator's ideal, and against a seed-style serial client."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from common import COMPLETION_MEANS, DATE, KV_CAPACITY, SEED_SLEEP_S, chinese_prompt, english_prompt, synthetic_day

from papers_devtools.sim.batching import BatchingConfig, ideal_makespan
from papers_devtools.sim.serve import free_port
from papers_digest.core.models import FulltextDoc
from papers_digest.core.params import Params, validate_params
from papers_digest.llm.conversation import Task
from papers_digest.llm.generation import translate_paper
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.generating import llm_client
from papers_digest.pipeline.translating import generate_translations
from papers_digest.report.perfmodel import Gpu, ModelShape
from papers_digest.ways.registry import way_named

# --- throughput ----------------------------------------------------------------------------------

PROFILE_LINES = 30  # of pyinstrument's flat listing: the functions the client spends the most own time in


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
    """What digest_en then translate_zh do, without the stage processes around them, asked the params' way."""
    english_asked = english_prompt(params.llm.asking)
    english = await generate_digests(params, DATE, docs, english_asked, lambda r: None)
    await generate_translations(params, DATE, english, chinese_prompt(), lambda r: None)


async def seed_day(params: Params, docs: list[FulltextDoc], time_scale: float) -> None:
    """The seed's client: one paper at a time, digest then translation, 3 s between papers."""
    digest_prompt, translate_prompt = english_prompt(params.llm.asking), chinese_prompt()
    way = way_named(params.llm.asking)
    async with llm_client(params) as client:
        for i, doc in enumerate(docs):
            if i:
                await asyncio.sleep(SEED_SLEEP_S * time_scale)
            task = Task(DATE, doc.arxiv_id, "digest_en", digest_prompt[1])
            english = await way.ask(client, doc, digest_prompt[0], task, 1)
            if english.status == "done":
                await translate_paper(client, english, *translate_prompt, DATE)


def throughput(papers: int, time_scale: float, levels: list[int], profile: bool = False) -> list[dict[str, Any]]:
    """The pipeline at each concurrency in `levels` and the seed-style serial client, on one simulator, asking
    the English digest the default way (params' llm.asking): one row each, printed as a table. `profile`: the
    client's time at the highest concurrency, by function (pyinstrument), printed after it."""
    docs = synthetic_day(papers)
    sim = Sim(time_scale)
    rows = []
    profiler = _profiler() if profile else None
    try:
        for label, concurrency in [("seed-style serial (3 s between papers)", 1), *[("pipeline", c) for c in levels]]:
            sim.reset()
            params = _params(sim.url, concurrency)
            watched = profiler is not None and label == "pipeline" and concurrency == max(levels)
            started = time.perf_counter()
            with profiler if watched else contextlib.nullcontext():
                asyncio.run(pipeline_day(params, docs) if label == "pipeline" else seed_day(params, docs, time_scale))
            wall = time.perf_counter() - started
            rows.append(_throughput_row(label, concurrency, wall, sim.stats(), sim.config))
    finally:
        sim.close()
    _print_rows(rows, papers, time_scale, params.llm.asking)
    if profiler is not None:
        _print_profile(profiler, rows[-1])
    return rows


def _profiler() -> Any:
    try:
        from pyinstrument import Profiler
    except ModuleNotFoundError:
        raise SystemExit("--profile needs pyinstrument: .venv/bin/pip install pyinstrument") from None
    return Profiler(interval=0.001, async_mode="disabled")


def _print_profile(profiler: Any, row: dict[str, Any]) -> None:
    """The client's CPU per call at the profiled concurrency, and the functions it spends its own time in."""
    session = profiler.last_session
    calls = len(row["records"])
    per_call_ms, ideal_ms = 1000 * session.cpu_time / calls, 1000 * row["wall"] * row["ratio"] / calls
    print(
        f"\n#### The client at concurrency {row['concurrency']}: {session.cpu_time:.2f} s of CPU in "
        f"{row['wall']:.2f} s of wall time, {per_call_ms:.1f} ms per call ({calls} calls); the simulated engine's "
        f"ideal is {ideal_ms:.1f} ms of wall time per call at this time scale\n"
    )
    flat = profiler.output_text(unicode=False, color=False, flat=True, show_all=False)
    print("```\n" + "\n".join(flat.splitlines()[:PROFILE_LINES]) + "\n```")


def _print_rows(rows: list[dict[str, Any]], papers: int, time_scale: float, asking: str) -> None:
    records = rows[1]["records"]
    print(
        f"\n### Generation: {papers} papers, simulated Llama-3.1-8B shape, 1 TB/s, KV {KV_CAPACITY:,} tokens, "
        f"time scale {time_scale:g}\n"
    )
    print(
        f"Per paper: {len(records) / papers:.1f} calls, {sum(r['prompt'] for r in records) / papers:,.0f} prompt and "
        f"{sum(r['completion'] for r in records) / papers:,.0f} completion tokens on average (English digest asked "
        f"{asking}, and translation); simulated seconds and tok/s are engine time (wall / time scale).\n"
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
    phases = [  # the English digest's calls (asked in steps or as a draft: "draft"), then the translations'
        [(r["prompt"], r["completion"], r["cached"]) for r in records if (r["kind"] == "translate") == translating]
        for translating in (False, True)
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
