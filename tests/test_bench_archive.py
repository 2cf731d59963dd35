"""bench/archive.py --smoke: the archive benchmark runs end to end and prints its side-by-side comparison."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from papers_devtools.testing.harness import repo_root


@pytest.mark.slow
def test_the_archive_benchmark_publishes_into_both_archives_and_prints_the_ratio():
    root = repo_root()
    done = subprocess.run(
        [sys.executable, str(root / "bench" / "archive.py"), "--smoke"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TQDM_DISABLE": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ")[:2] for line in done.stdout.splitlines() if line.startswith("| publish")]
    assert rows == [
        ["| publish a new day", "its month, 1 days"],
        ["| publish a new day", "8 days"],
        ["| publish it again, nothing changed", "its month, 1 days"],
        ["| publish it again, nothing changed", "8 days"],
    ]
    assert "Publish into 8 days vs its month, 1 days: " in done.stdout
    assert "Of which finding the day's related papers" in done.stdout
