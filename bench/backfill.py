"""A parallel backfill: `papers daily --from A --to B --jobs 4` against `--jobs 1`, side by side on the simulator.

Eight dates of ten papers (recorded HF days, dated anew), every call answered in LATENCY_S by an engine
simulator with room for every call; arXiv is the replay, paced at ARXIV_INTERVAL_S. Each mode runs in a
fresh project copy. Printed: wall seconds of each, the speed-up (target >= 2.5x), the closest two arXiv
requests came (target: never under the interval), and whether the database and the site hold every date.

    .venv/bin/python bench/backfill.py                  # about 10 minutes on 2 cores
    .venv/bin/python bench/backfill.py --latency-s 30   # calls as long as a busy GPU endpoint's, about 20 minutes
    .venv/bin/python bench/backfill.py --smoke          # 2 dates of 1 paper, --jobs 2 against --jobs 1 (a minute)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import sqlite_utils
from common import ROOT

from papers_devtools.sim.routes import CHAT_PATH
from papers_devtools.testing.harness import copy_project, dvc_env, make_params, write_params
from papers_devtools.testing.servers import engine_server, replay_server

DAYS = 8
PAPERS = 10
LATENCY_S = 8.0  # a call of a real digest on a busy GPU endpoint takes tens of seconds; 8 s keeps the run short
ARXIV_INTERVAL_S = 0.5  # arXiv's is 3 s; the pace is what is checked, not its length
RECORDED = ["2024-05-27", "2025-03-10", "2025-09-15", "2026-01-13"]  # HF days with more than ten papers
FIRST = dt.date(2025, 6, 1)


def recorded_days(folder: Path, days: int = DAYS) -> list[str]:
    """DAYS dates in a row, each a recorded HF day's papers (the first PAPERS by upvotes are picked). There are
    fewer recorded days than dates: a day's second use has its papers under other arXiv ids, titles and
    abstracts, so both modes digest PAPERS new papers every date and no answer of its first use serves it."""
    folder.mkdir(parents=True, exist_ok=True)
    dates = [(FIRST + dt.timedelta(days=n)).isoformat() for n in range(days)]
    for n, date in enumerate(dates):
        source = ROOT / "tests" / "data" / "hf" / f"{RECORDED[n % len(RECORDED)]}.json"
        items = json.loads(source.read_text(encoding="utf-8"))
        for item in items if n >= len(RECORDED) else []:
            paper = item["paper"]
            month, number = paper["id"].split(".")
            paper["id"] = f"{month}.{(int(number) + 50_000) % 100_000:05d}"
            paper["title"] += f" (copy {n // len(RECORDED) + 1})"
            paper["summary"] = f"This copy of the paper is dated {date}. {paper['summary']}"  # its digest differs too
        (folder / f"{date}.json").write_text(json.dumps(items), encoding="utf-8")
    return dates


def run_mode(jobs: int, hf: Path, dates: list[str], work: Path, latency_s: float, papers: int = PAPERS) -> dict:
    with (
        replay_server(hf, ROOT / "tests" / "data" / "arxiv") as (replay, replay_url),
        engine_server(latency_s=latency_s) as (sim, llm_url),
    ):
        project = copy_project(work / f"jobs{jobs}")
        params = make_params(
            limit=papers,
            source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": ARXIV_INTERVAL_S},
            llm={"base_url": llm_url, "model": "sim-digest", "concurrency": 4 * papers},
        )
        write_params(project, params)
        for args in (["add", "-A"], ["commit", "-qm", "bench"]):
            subprocess.run(["git", *args], cwd=project, env=_git_env(), check=True)
        started = time.monotonic()
        done = subprocess.run(
            [str(Path(sys.executable).parent / "papers"), "daily", "--from", dates[0], "--to", dates[-1], "--jobs",
             str(jobs)],
            cwd=project, env=dvc_env(), capture_output=True, text=True,
        )  # fmt: skip
        wall = time.monotonic() - started
        times = sorted(replay.arxiv_times)
        gaps = [b - a for a, b in pairwise(times)]
    db = sqlite_utils.Database(project / "data" / "papers.db")
    published = {r["date"] for r in db.query("select date from runs")} if "runs" in db.table_names() else set()
    pages = {d for d in dates if (project / "data" / "site" / d / "index.html").is_file()}
    return {
        "jobs": jobs,
        "exit": done.returncode,
        "wall_s": wall,
        "arxiv_requests": len(times),
        "closest_s": min(gaps) if gaps else None,
        "every_date": published == set(dates) == pages,
        "peak_in_flight": sim.stats.max_in_flight,
        "llm_calls": sim.stats.by_path.get(CHAT_PATH, 0),  # the same in both modes: none answered from the store
        # --jobs N: how long the lists and the queueing took, and when each date was restored (cli/runs.py)
        "phases": [line for line in done.stdout.splitlines() if " s in)" in line or "lists made" in line],
    }


def _git_env() -> dict[str, str]:
    who = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    return {**dvc_env(), **who}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-s", type=float, default=LATENCY_S, help="seconds the simulator takes per call")
    parser.add_argument("--smoke", action="store_true", help="2 dates of 1 paper, --jobs 2 against --jobs 1")
    args = parser.parse_args()
    days, papers, modes = (2, 1, (1, 2)) if args.smoke else (DAYS, PAPERS, (1, 4))
    latency_s = 0.0 if args.smoke else args.latency_s
    with tempfile.TemporaryDirectory(prefix="bench-backfill-") as tmp:
        work = Path(tmp)
        dates = recorded_days(work / "hf", days)
        rows = [run_mode(jobs, work / "hf", dates, work, latency_s, papers) for jobs in modes]
    print(f"\n### Parallel backfill: {days} dates x {papers} papers, {latency_s:g} s per call, simulator\n")
    print(
        "| --jobs | exit | wall (s) | arXiv requests | closest two (s) | interval (s) | all published | LLM calls "
        "| peak calls |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        closest = f"{r['closest_s']:.3f}" if r["closest_s"] is not None else "-"
        print(
            f"| {r['jobs']} | {r['exit']} | {r['wall_s']:.1f} | {r['arxiv_requests']} | {closest} | "
            f"{ARXIV_INTERVAL_S:g} | {r['every_date']} | {r['llm_calls']} | {r['peak_in_flight']} |"
        )
    for line in rows[1]["phases"]:
        print(f"    {line}")
    print(f"\nspeed-up --jobs {modes[1]} / --jobs 1: {rows[0]['wall_s'] / rows[1]['wall_s']:.2f}x (target >= 2.5x)")


if __name__ == "__main__":
    main()
