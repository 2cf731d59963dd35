"""What the benchmarks share: the repository, the recorded pages, the day they use, peak RSS of a process, the
stages' command lines and prompts as dvc.yaml gives them (from the test harness)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from papers_devtools.testing.harness import chinese_prompt, english_prompt, stage_command
from papers_digest.core.models import FulltextDoc
from papers_digest.sources.latexml import parse_latexml

__all__ = ["chinese_prompt", "english_prompt", "stage_command"]  # the pipeline's own, as the tests take them

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
# Linux carries a process's resident high-water mark through fork and exec into its child's ru_maxrss, so
# a command this process started would never measure below this process's own size (121 MB once the
# archive is built in it). A bare interpreter forks the command instead, reports its exit code, wall time
# and peak, and so sets a floor of its own few megabytes.
_LAUNCHER = """
import os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), time.perf_counter() - started, usage.ru_maxrss)
"""


def measured_run(command: list[str], cwd: Path) -> tuple[float, float]:
    """Run `command` in `cwd` (output discarded): (wall seconds, peak RSS MB) of that process alone."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", _LAUNCHER, *command], cwd=cwd, capture_output=True, text=True, check=True
    )
    code, seconds, kib = done.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{' '.join(command)} failed with exit code {code}")
    return float(seconds), int(kib) / 1024  # KiB on Linux


def peak_rss_mb(command: list[str], cwd: Path) -> float:
    return measured_run(command, cwd)[1]


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
