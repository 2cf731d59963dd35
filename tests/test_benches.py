"""Every bench in bench/ runs: its smoke mode (seconds, on the simulator or a stand-in), so a change that breaks a
bench fails here, and not the next time someone measures."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, bench_module

from papers_devtools.testing.browser import MISSING, have_chromium

BENCH = ROOT / "bench"
# Each bench one runs (`python bench/<name>`) and its smoke mode's arguments; bench/run.py runs the parts of
# `make bench` (throughput, pipeline_costs, archive).
SMOKES = {
    "run.py": ["--smoke"],
    "backfill.py": ["--smoke"],
    "asking.py": ["--smoke"],
    "real_engine.py": ["--smoke"],
    "engine_settings.py": ["--smoke"],
    "speculative.py": ["--smoke"],
    "search.py": ["--smoke"],
    "follow.py": ["--smoke"],
    "findings.py": ["--smoke", "--quiet"],
    "roles.py": ["--smoke", "--baselines"],
    "copying.py": ["--smoke"],
    "train_roles.py": ["--smoke"],
    "archive.py": ["--smoke"],
    "related.py": ["--smoke"],
    "translation.py": ["--smoke"],  # tests/test_translation_bench.py runs these three and reads what they print
    "roundtrip.py": ["--smoke"],
    "placeholders.py": ["--smoke"],
}
SMOKE_TIMEOUT_S = 600  # seconds on 2 busy cores; each takes seconds to a minute alone


def _smoke(name: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(BENCH / name), *SMOKES[name]]
    env = {**os.environ, "TQDM_DISABLE": "1"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S)


def test_every_bench_one_runs_has_a_smoke_mode_the_suite_runs():
    scripts = {p.name for p in BENCH.glob("*.py") if 'if __name__ == "__main__":' in p.read_text(encoding="utf-8")}
    assert scripts == set(SMOKES)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "run.py",
        "asking.py",
        "real_engine.py",
        "engine_settings.py",
        "speculative.py",
        "findings.py",
        "train_roles.py",
        "related.py",
    ],
)
def test_a_benchs_smoke_mode_runs_to_its_end(name):
    done = _smoke(name)
    assert done.returncode == 0, f"bench/{name} {' '.join(SMOKES[name])}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")  # DVC experiments (papers daily --jobs): one at a time
def test_the_parallel_backfill_benchs_smoke_mode_runs_to_its_end():
    done = _smoke("backfill.py")
    assert done.returncode == 0, f"bench/backfill.py --smoke:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.skipif(not have_chromium(), reason=MISSING)
def test_the_search_benchs_smoke_mode_runs_to_its_end():
    done = _smoke("search.py")
    assert done.returncode == 0, f"bench/search.py --smoke:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def test_the_speculative_benchs_launcher_asks_for_a_draft_model_on_the_servers_threads():
    """bench/speculative.py serves the model through its own launcher: speculative decoding stays out of the
    pipeline's embedded server (it made decoding slower here)."""
    xllamacpp = pytest.importorskip("xllamacpp", reason="make engine installs the embedded llama-server")
    bench = bench_module("speculative")
    flags = ["--model", "m.gguf", "--model-draft", "d.gguf", "--threads", "2", "--draft-max", "8"]
    spec = bench.speculative_params(bench.server_parser().parse_args(flags), xllamacpp).speculative
    drafted = xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE
    found = (spec.types, spec.draft.mparams.path, spec.draft.n_max, spec.draft.cpuparams.n_threads)
    assert found == ([drafted], "d.gguf", 8, 2)


def test_the_speculative_benchs_launcher_takes_the_prompts_n_grams_as_the_draft():
    xllamacpp = pytest.importorskip("xllamacpp", reason="make engine installs the embedded llama-server")
    bench = bench_module("speculative")
    args = bench.server_parser().parse_args(["--model", "m.gguf", "--spec-type", "ngram-simple"])
    kinds = xllamacpp.common_speculative_type
    assert bench.speculative_params(args, xllamacpp).speculative.types == [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]


def test_the_pipelines_embedded_server_decodes_without_speculation():
    xllamacpp = pytest.importorskip("xllamacpp", reason="make engine installs the embedded llama-server")
    from papers_digest.engines.embedded_server import parser, server_params

    params = server_params(parser().parse_args(["--model", "m.gguf"]), xllamacpp)
    assert params.speculative.types == [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NONE]


def test_the_pipelines_embedded_server_refuses_speculative_flags():
    done = subprocess.run(
        [sys.executable, "-m", "papers_digest.engines.embedded_server", "--model", "m.gguf", "--model-draft", "d"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, "--model-draft" in done.stderr) == (2, True)
