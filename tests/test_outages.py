"""An engine or endpoint that stops answering is reported as such, never recorded as the day's result.

Real processes and real HTTP on 127.0.0.1: a stand-in engine (papers_digest.testing.fake_engine) that
dies mid-run under `papers run`, and the engine simulator going away in the middle of a DVC stage.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlite_utils
from conftest import (
    SAMPLE_DATE,
    chats_of,
    copy_project,
    dvc_env,
    free_port,
    make_params,
    run_dvc,
    wait_until,
    write_params,
)

from papers_digest.engines.process import group_processes
from papers_digest.sim.faults import Fault
from papers_digest.sim.routes import EngineSim
from papers_digest.sim.serve import BackgroundServer
from papers_digest.testing.fake_engine import install_as_sglang

pytestmark = pytest.mark.slow  # every test runs DVC or papers daily/run (make test-fast leaves it out)

PAPERS = str(Path(sys.executable).parent / "papers")


def _papers(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PAPERS, *args], cwd=project, env=dvc_env(), capture_output=True, text=True, timeout=300)


def _generated(project: Path, stage: str) -> dict[str, str]:
    """arxiv id -> status of each paper result a generation stage left in its folder."""
    folder = project / "data" / SAMPLE_DATE / stage
    return {
        p.stem: json.loads(p.read_text())["status"] for p in sorted(folder.glob("*.json")) if p.name != "_stage.json"
    }


def _failed_in_db(project: Path) -> list[str]:
    path = project / "data" / "papers.db"
    if not path.exists():
        return []
    db = sqlite_utils.Database(path)
    return [r["arxiv_id"] for r in db.query("select arxiv_id from papers where status = 'failed'")]


@pytest.mark.parametrize(
    ("how", "words"),
    [
        ("kill", "killed by SIGKILL (killed, often by the kernel's out-of-memory killer"),
        ("sigill-exit", "exited with code 132 (128 + 4: SIGILL) (an illegal instruction: a build for another CPU"),
    ],
)
def test_an_engine_that_dies_mid_run_stops_the_run_with_one_line_and_fails_no_paper(
    tmp_path, sample_replay, how, words
):
    _, replay_url = sample_replay
    project = copy_project(tmp_path / "project")
    engine = {"kind": "sglang", "model": "Qwen/Qwen2.5-7B-Instruct", "port": free_port(), "startup_timeout_s": 120}
    write_params(
        project,
        make_params(source={"hf_url": replay_url, "arxiv_url": replay_url}, llm={"model": "sim-digest"}, engine=engine),
    )
    env = {
        **dvc_env(),
        "PYTHONPATH": str(install_as_sglang(tmp_path / "fake_engines")),
        "FAKE_ENGINE_PID_FILE": str(tmp_path / "engine.pid"),
        # the readiness check's completion and one paper's digest are answered; the next call kills it
        "FAKE_ENGINE_DIE_AFTER": "2",
        "FAKE_ENGINE_DIE_HOW": how,
    }
    done = subprocess.run([PAPERS, "run"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    report = next(line for line in done.stderr.splitlines() if line.startswith("papers run: "))
    assert report.startswith("papers run: the sglang engine (") and words in report
    assert "while the pipeline was using it; last lines of logs/engine-sglang.log:" in report
    assert "dying" in done.stderr  # the log's tail follows the line
    assert output.count("cannot connect") <= 1, output  # never once per paper
    assert "failed" not in _generated(project, "digest_en").values()
    assert _failed_in_db(project) == []
    assert group_processes(int((tmp_path / "engine.pid").read_text())) == []


def test_an_outage_mid_stage_is_not_the_days_result_and_a_plain_rerun_makes_only_the_missing_calls(
    tmp_path, sample_replay
):
    _, replay_url = sample_replay
    project = copy_project(tmp_path / "project")
    port = free_port()
    params = make_params(
        source={"hf_url": replay_url, "arxiv_url": replay_url},
        llm={"base_url": f"http://127.0.0.1:{port}/v1", "model": "sim-digest", "concurrency": 1},
    )
    write_params(project, params)
    # each answer takes 1 s, so the cut-off below lands while papers are still waiting even on a loaded
    # machine (at 0.3 s, a suite run next to a compile once saw every digest finish first)
    first = EngineSim(latency_s=1.0)
    server = BackgroundServer(first.app, port).start()

    def cut_off_after_one_answer() -> None:  # the host goes away while the stage runs, one paper done
        try:
            wait_until(lambda: _generated(project, "digest_en"), timeout_s=120, what="the first digest")
        finally:
            server.stop()

    cutter = threading.Thread(target=cut_off_after_one_answer)
    cutter.start()
    try:
        broken = run_dvc(project, "repro", check=False)
    finally:
        cutter.join()
        server.stop()
    assert broken.returncode != 0
    lines = [x for x in broken.stderr.splitlines() if x.startswith("digest_en: the LLM endpoint stopped answering")]
    assert len(lines) == 1, broken.stdout + broken.stderr
    [line] = lines
    finished = int(re.search(r"after (\d) of 4 papers \(", line).group(1))
    assert finished >= 1 and "finished answers are kept; run again when it is back" in line
    assert list(_generated(project, "digest_en").values()) == ["done"] * finished  # nobody failed for the outage
    lock = (project / "dvc.lock").read_text() if (project / "dvc.lock").exists() else ""
    assert "digest_en:" not in lock and "translate_zh:" not in lock  # DVC recorded nothing for them
    assert not (project / "data" / SAMPLE_DATE / "translate_zh").exists()

    second = EngineSim()
    with BackgroundServer(second.app, port):
        run_dvc(project, "repro")
    assert chats_of(second, "digest") == 4 - finished  # the missing digests, nothing twice
    assert list(_generated(project, "translate_zh").values()) == ["done"] * 4  # and the 4 translations
    assert set(_generated(project, "digest_en").values()) == {"done"}
    db = sqlite_utils.Database(project / "data" / "papers.db")
    assert dict(db.execute("select status, count(*) from papers group by 1").fetchall()) == {"done": 4}
    reused = [r for r in db.query("select arxiv_id from llm_calls where stage = 'digest_en' and from_store = 1")]
    assert len(reused) == finished


def test_retry_failed_asks_again_only_for_a_past_days_failed_papers(tmp_path, sample_replay):
    _, replay_url = sample_replay
    project = copy_project(tmp_path / "project")
    with BackgroundServer((sim := EngineSim()).app) as server:
        write_params(
            project,
            make_params(
                source={"hf_url": replay_url, "arxiv_url": replay_url},
                llm={"base_url": f"{server.url}/v1", "model": "sim-digest"},
            ),
        )
        sim.add_fault(Fault(kind="wrong_numbers", request="digest", match="MergeVQ", times=2))
        first = _papers(project, "daily", "--date", SAMPLE_DATE)
        assert first.returncode == 0, first.stdout + first.stderr
        assert len(_failed_in_db(project)) == 1
        digests_before = chats_of(sim, "digest")
        again = _papers(project, "daily", "--date", SAMPLE_DATE, "--retry-failed")
        assert again.returncode == 0, again.stdout + again.stderr
        assert chats_of(sim, "digest") - digests_before == 1  # the failed paper's digest (and its translation) only
    assert _failed_in_db(project) == []
    assert os.path.exists(project / "data" / SAMPLE_DATE / "report.html")
