"""What a careful summary copies from its paper (#44 item 4): the runs of the paper's words Hugging Face's one-line
summaries and the papers' titles keep, against the checker's `copied` bound (bench/copying.py, docs/reading.md,
"Copying")."""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

from conftest import ROOT, bench_module

from papers_digest.checker.substance import COPY_WORDS


def copying() -> ModuleType:
    return bench_module("copying")


def test_no_careful_summary_of_the_recorded_listings_copies_a_run_the_checker_rejects():
    bench = copying()
    longest = max(bench.longest_copy(pair).length for pair in bench.careful_pairs(bench.LISTINGS))
    assert longest < COPY_WORDS


def test_the_benchmark_smoke_run_prints_what_each_bound_rejects():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "copying.py"), "--smoke"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert f"run >= {COPY_WORDS} | " in done.stdout
