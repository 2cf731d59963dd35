"""What the benchmarks share: the repository, the recorded pages, the day they use, peak RSS of a process."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from papers_digest.core.models import FulltextDoc
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


def peak_rss_mb(command: list[str], cwd: Path) -> float:
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with exit code {process.returncode}")
    return usage.ru_maxrss / 1024  # KiB on Linux


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
