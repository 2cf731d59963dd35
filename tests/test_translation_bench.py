"""The translation's benchmarks run on the engine simulator (`--smoke`): bench/translation.py counts a reader's
faults over done translations, bench/roundtrip.py compares back translations with the English."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT


def smoke(script: str) -> str:
    done = subprocess.run(
        [sys.executable, f"bench/{script}", "--smoke"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_translation_benchmark_counts_no_fault_over_the_simulators_done_translations():
    out = smoke("translation.py")
    assert "2025-04-03: 4 of 4 done" in out and "0 English words left, 0 name faults, 0 of " in out


def test_the_round_trip_benchmark_reports_each_signal_on_every_recorded_case():
    out = smoke("roundtrip.py")
    rows = [line for line in out.splitlines() if line.startswith(("| figures", "| negations", "| comparison"))]
    cases = json.loads((ROOT / "tests" / "data" / "zh" / "units.json").read_text(encoding="utf-8"))["cases"]
    faults = sum(not c["faithful"] for c in cases)
    assert len(rows) == 3 and f"{faults} recorded faults, {len(cases) - faults} faithful translations" in out
