"""The pipeline's own costs: a no-op `dvc repro`, the LaTeXML parser's speed, peak memory per stage."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

from common import COMPLETION_MEANS, DATE, PAGES, ROOT, peak_rss_mb, stage_command, synthetic_day

from papers_devtools.testing.harness import copy_project, run_dvc, write_params
from papers_digest.core.params import load_params
from papers_digest.sources.latexml import parse_latexml

# --- no-op dvc repro -----------------------------------------------------------------------------


def noop_repro(runs: int = 5) -> None:
    """Run the sample day once in a project copy, then time `dvc repro` when nothing changed."""
    from papers_devtools.sim.replay import Replay
    from papers_devtools.sim.routes import EngineSim
    from papers_devtools.sim.serve import BackgroundServer

    work = Path(tempfile.mkdtemp(prefix="papers-bench-"))
    try:
        project = copy_project(work / "project")
        replay = Replay(ROOT / "sample" / "hf", ROOT / "sample" / "arxiv")
        engine = EngineSim()
        with BackgroundServer(replay.app) as replay_server, BackgroundServer(engine.app) as engine_server:
            write_params(
                project,
                {
                    "date": "2025-04-03",
                    "limit": 4,
                    "source": {"hf_url": replay_server.url, "arxiv_url": replay_server.url, "arxiv_interval_s": 0},
                    "llm": {"base_url": f"{engine_server.url}/v1", "model": "sim-digest"},
                },
            )
            run_dvc(project, "repro")
            before = replay.total_requests + engine.stats.requests
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                run_dvc(project, "repro")
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
    """Peak RSS of the digest_en, translate_zh and publish stage processes for a day of `papers` papers, each run
    with its command line from dvc.yaml, on the engine simulator."""
    from papers_devtools.sim.routes import EngineSim
    from papers_devtools.sim.serve import BackgroundServer

    work = Path(tempfile.mkdtemp(prefix="papers-bench-mem-"))
    try:
        project = copy_project(work / "project")
        _write_day(project / "data" / DATE, synthetic_day(papers))
        engine = EngineSim(completion_tokens=COMPLETION_MEANS)
        with BackgroundServer(engine.app) as server:
            params = {"date": DATE, "llm": {"base_url": f"{server.url}/v1", "model": "sim-digest", "concurrency": 8}}
            write_params(project, params)
            values = {"date": DATE, "llm.asking": load_params(project / "params.yaml").llm.asking}
            peaks = {
                stage: peak_rss_mb(stage_command(stage, values, project), project)
                for stage in ("digest_en", "translate_zh", "publish")
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n### Peak memory of a {papers}-paper day (each stage is its own process)\n")
    print("| stage | peak RSS MB |")
    print("|---|---:|")
    for stage, mb in peaks.items():
        print(f"| {stage} | {mb:.0f} |")


def _write_day(day: Path, docs: list) -> None:
    """A day's list and full texts, as the list and fulltext stages leave them."""
    from papers_digest.core.artefacts import write_json
    from papers_digest.core.models import DayList, Paper

    for doc in docs:
        write_json(day / "fulltext" / f"{doc.arxiv_id}.json", doc)
    papers = [Paper(arxiv_id=d.arxiv_id, title=d.title, summary="") for d in docs]
    write_json(day / "list.json", DayList(date=DATE, limit=len(docs), papers=papers, picked=[d.arxiv_id for d in docs]))
