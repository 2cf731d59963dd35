"""Benchmarks: generation throughput against the batching simulator, no-op reruns, parser speed, memory.

Run `make bench` (`TQDM_DISABLE=1 .venv/bin/python bench/run.py`) from the repository root. Everything runs on
127.0.0.1; numbers are measured side by side in one run and printed as Markdown tables.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from papers_digest.core.models import FulltextDoc
from papers_digest.core.params import Params, validate_params
from papers_digest.llm.generation import digest_paper, translate_paper
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.generating import generate, llm_client
from papers_digest.report.perfmodel import Gpu, ModelShape
from papers_digest.sim.batching import BatchingConfig, ideal_makespan
from papers_digest.sources.latexml import parse_latexml

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    *sorted((ROOT / "tests" / "data" / "arxiv").glob("*v[0-9].html")),
    ROOT / "sample" / "arxiv" / "2503.20783v2.html",
]
DATE = "2026-01-01"
# The seed's KV budget: vLLM's default on a 24 GiB card leaves 7.12 GiB, 58,327 tokens of 128 KiB.
KV_CAPACITY = 58_327
# Completion lengths like the seed's (12,444 completion tokens per paper over its calls).
COMPLETION_MEANS = {"digest": 6_200, "translate": 6_200}
SEED_SLEEP_S = 3.0  # the seed slept 3 s between papers (simulated seconds here)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--time-scale", type=float, default=0.01, help="wall seconds per simulated second")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 3, 8])
    parser.add_argument("--memory-papers", type=int, default=50)
    parser.add_argument("--skip", nargs="*", default=[], choices=["throughput", "noop", "parser", "memory"])
    args = parser.parse_args()
    os.chdir(ROOT)
    if "throughput" not in args.skip:
        throughput(args.papers, args.time_scale, args.concurrency)
    if "noop" not in args.skip:
        noop_repro()
    if "parser" not in args.skip:
        parser_speed()
    if "memory" not in args.skip:
        peak_memory(args.memory_papers)


# --- throughput ----------------------------------------------------------------------------------


def synthetic_day(papers: int) -> list[FulltextDoc]:
    """`papers` documents cut from the recorded arXiv pages (real text, real section tags)."""
    parsed = [parse_latexml(p.read_bytes(), url=f"https://arxiv.org/html/{p.stem}") for p in PAGES]
    docs = []
    for i in range(papers):
        page = parsed[i % len(parsed)]
        docs.append(
            FulltextDoc(
                arxiv_id=f"2601.{90000 + i}",
                # A distinct title right after the system prompt: papers share only that as a prefix.
                title=f"Synthetic paper {i + 1}: {page.title}",
                version=1,
                source="html",
                text=page.text,
                sections=page.sections,
            )
        )
    return docs


class Sim:
    """`papers sim --batching` in its own process (so the client and the engine do not share a GIL)."""

    def __init__(self, time_scale: float) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = BatchingConfig(
            model=ModelShape(), gpu=Gpu(), kv_capacity_tokens=KV_CAPACITY, time_scale=time_scale
        )
        command = [
            str(Path(sys.executable).parent / "papers"),
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


# --- no-op dvc repro -----------------------------------------------------------------------------


def noop_repro(runs: int = 5) -> None:
    """Run the sample day once in a project copy, then time `dvc repro` when nothing changed."""
    from papers_digest.sim.replay import Replay
    from papers_digest.sim.routes import EngineSim
    from papers_digest.sim.serve import BackgroundServer

    work = Path(tempfile.mkdtemp(prefix="papers-bench-"))
    try:
        project = _project_copy(work)
        replay = Replay(ROOT / "sample" / "hf", ROOT / "sample" / "arxiv")
        engine = EngineSim()
        with BackgroundServer(replay.app) as replay_server, BackgroundServer(engine.app) as engine_server:
            _write_params(
                project,
                {
                    "date": "2025-04-03",
                    "limit": 4,
                    "source": {"hf_url": replay_server.url, "arxiv_url": replay_server.url, "arxiv_interval_s": 0},
                    "llm": {"base_url": f"{engine_server.url}/v1", "model": "sim-digest"},
                },
            )
            _dvc(project, "repro")
            before = replay.total_requests + engine.stats.requests
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                _dvc(project, "repro")
                times.append(time.perf_counter() - started)
            requests = replay.total_requests + engine.stats.requests - before
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n### No-op `dvc repro` of a finished day (the sample day)\n")
    print("| runs | median s | min s | max s | HTTP requests made |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {runs} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} | {requests} |")


# --- parser --------------------------------------------------------------------------------------


def parser_speed(rounds: int = 5) -> None:
    pages = [p.read_bytes() for p in PAGES]
    size = sum(len(p) for p in pages)
    started = time.perf_counter()
    for _ in range(rounds):
        for page in pages:
            parse_latexml(page)
    seconds = time.perf_counter() - started
    print("\n### LaTeXML parser over the recorded pages\n")
    print("| pages | MB per round | rounds | s | MB/s |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {len(pages)} | {size / 1e6:.2f} | {rounds} | {seconds:.2f} | {size * rounds / 1e6 / seconds:.1f} |")


# --- memory --------------------------------------------------------------------------------------


def peak_memory(papers: int) -> None:
    """Peak RSS of the fulltext-to-publish stage processes for a day of `papers` papers."""
    from papers_digest.core.artefacts import write_json
    from papers_digest.core.models import DayList, Paper
    from papers_digest.sim.routes import EngineSim
    from papers_digest.sim.serve import BackgroundServer

    work = Path(tempfile.mkdtemp(prefix="papers-bench-mem-"))
    try:
        project = _project_copy(work)
        day = project / "data" / DATE
        docs = synthetic_day(papers)
        for doc in docs:
            write_json(day / "fulltext" / f"{doc.arxiv_id}.json", doc)
        write_json(
            day / "list.json",
            DayList(
                date=DATE,
                limit=papers,
                papers=[Paper(arxiv_id=d.arxiv_id, title=d.title, summary="") for d in docs],
                picked=[d.arxiv_id for d in docs],
            ),
        )
        engine = EngineSim(completion_tokens=COMPLETION_MEANS)
        peaks = {}
        with BackgroundServer(engine.app) as server:
            _write_params(
                project,
                {"date": DATE, "llm": {"base_url": f"{server.url}/v1", "model": "sim-digest", "concurrency": 8}},
            )
            stage_args = {
                "digest_en": [
                    "--fulltext",
                    f"data/{DATE}/fulltext",
                    "--prompt",
                    "prompts/digest_en.md",
                    "--out",
                    f"data/{DATE}/digest_en",
                ],
                "translate_zh": [
                    "--digests",
                    f"data/{DATE}/digest_en",
                    "--prompt",
                    "prompts/translate_zh.md",
                    "--out",
                    f"data/{DATE}/translate_zh",
                ],
            }
            for stage, extra in stage_args.items():
                peaks[stage] = _peak_rss_mb(
                    [sys.executable, f"stages/{stage}.py", "--date", DATE, "--store", "data/store", *extra], project
                )
            peaks["publish"] = _peak_rss_mb(
                [
                    sys.executable, "stages/publish.py", "--date", DATE, "--list", f"data/{DATE}/list.json",
                    "--fulltext", f"data/{DATE}/fulltext", "--digest-en", f"data/{DATE}/digest_en",
                    "--translate-zh", f"data/{DATE}/translate_zh", "--db", "data/papers.db",
                    "--metrics", f"data/{DATE}/run.json", "--calls", f"data/{DATE}/calls.jsonl",
                ],
                project,
            )  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n### Peak memory of a {papers}-paper day (each stage is its own process)\n")
    print("| stage | peak RSS MB |")
    print("|---|---:|")
    for stage, mb in peaks.items():
        print(f"| {stage} | {mb:.0f} |")


def _peak_rss_mb(command: list[str], cwd: Path) -> float:
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with exit code {process.returncode}")
    return usage.ru_maxrss / 1024  # KiB on Linux


# --- helpers -------------------------------------------------------------------------------------


def _project_copy(work: Path) -> Path:
    """A runnable copy of the pipeline, as the tests make it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import copy_project

    return copy_project(work / "project")


def _write_params(project: Path, raw: dict[str, Any]) -> None:
    import yaml

    params = validate_params(raw).model_dump(mode="json")
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")


def _dvc(project: Path, *args: str) -> None:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "DVC_NO_ANALYTICS": "1"}
    done = subprocess.run([str(bin_dir / "dvc"), *args], cwd=project, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"dvc {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


if __name__ == "__main__":
    main()
