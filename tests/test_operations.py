"""Daily operations: ranges and catch-up in one `papers daily`, and every day DVC restores reaching the views.

Real DVC runs of project copies, over real HTTP to the HF/arXiv replay and the engine simulator on 127.0.0.1.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils
from conftest import (
    SAMPLE_DATE,
    chat_calls,
    copy_project,
    dvc_env,
    make_params,
    run_dvc,
    sent_calls,
    wait_until,
    write_params,
)

from papers_devtools.sim.replay import ReplayFault
from papers_digest.cli.runs import DatePlan, plan_dates

PAPERS = str(Path(sys.executable).parent / "papers")


def _papers(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PAPERS, *args], cwd=project, env=dvc_env(), capture_output=True, text=True, timeout=600)


def _project(tmp_path: Path, replay_url: str, engine_url: str, name: str = "project") -> Path:
    project = copy_project(tmp_path / name)
    write_params(
        project,
        make_params(
            source={"hf_url": replay_url, "arxiv_url": replay_url},
            llm={"base_url": engine_url, "model": "sim-digest"},
        ),
    )
    return project


def _runs(project: Path) -> dict[str, int]:
    db = sqlite_utils.Database(project / "data" / "papers.db")
    return {r["date"]: r["papers_done"] for r in db.query("select date, papers_done from runs")}


# --- which dates a `papers daily` runs -----------------------------------------------------------------


def _db_with_runs(path: Path, dates: list[str]) -> Path:
    sqlite_utils.Database(path)["runs"].insert_all([{"date": d, "papers": 1} for d in dates], pk="date")
    return path


def test_plain_daily_runs_yesterday_and_the_days_missed_since_the_last_finished_one(tmp_path):
    yesterday = dt.date(2026, 11, 30)
    params = make_params(catch_up_days=7)
    db = _db_with_runs(tmp_path / "papers.db", ["2026-11-20", "2026-11-26"])  # then the machine was off
    assert plan_dates(DatePlan(), params, yesterday, db) == ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert plan_dates(DatePlan(catch_up=False), params, yesterday, db) == ["2026-11-30"]
    far = _db_with_runs(tmp_path / "far.db", ["2026-10-01"])  # off for two months: at most catch_up_days back
    two_back = ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert plan_dates(DatePlan(), make_params(catch_up_days=2), yesterday, far) == two_back
    assert plan_dates(DatePlan(), params, yesterday, tmp_path / "none.db") == ["2026-11-30"]  # a new install
    done = _db_with_runs(tmp_path / "done.db", ["2026-11-30"])
    assert plan_dates(DatePlan(), params, yesterday, done) == ["2026-11-30"]  # a rerun restores it, no work


def test_a_range_is_every_date_in_order_and_bad_ranges_say_why(tmp_path):
    params = make_params()
    yesterday = dt.date(2026, 11, 30)
    assert plan_dates(DatePlan(start="2026-11-28"), params, yesterday) == ["2026-11-28", "2026-11-29", "2026-11-30"]
    assert plan_dates(DatePlan(start="2024-02-28", end="2024-03-01"), params, yesterday) == [
        "2024-02-28",
        "2024-02-29",
        "2024-03-01",
    ]
    from papers_digest.core.params import ParamsError

    with pytest.raises(ParamsError, match="--from 2026-11-29 is after --to 2026-11-28"):
        plan_dates(DatePlan(start="2026-11-29", end="2026-11-28"), params, yesterday)
    with pytest.raises(ParamsError, match="--to needs --from"):
        plan_dates(DatePlan(end="2026-11-28"), params, yesterday)
    with pytest.raises(ParamsError, match="--from must be a date written YYYY-MM-DD"):
        plan_dates(DatePlan(start="28.11.2026"), params, yesterday)


# --- a range through the whole pipeline --------------------------------------------------------------


@pytest.mark.slow
def test_a_range_runs_each_date_and_one_dates_failure_does_not_stop_the_others(tmp_path, start_replay, engine):
    sim, engine_url = engine
    replay, replay_url = start_replay()
    project = _project(tmp_path, replay_url, engine_url)
    replay.add_fault(ReplayFault(target="hf", kind="http_error", status=503, match="2025-07-06", times=-1))
    done = _papers(project, "daily", "--from", "2025-07-05", "--to", "2025-07-07")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [x for x in done.stdout.splitlines() if x.startswith("papers daily: 2025-07-0")][-3:]
    assert lines[0] == "papers daily: 2025-07-05: ok (0 papers done, 0 failed)"
    assert lines[1].startswith("papers daily: 2025-07-06: FAILED (dvc repro exited with ")
    assert lines[2] == "papers daily: 2025-07-07: ok (1 papers done, 0 failed)", done.stdout + done.stderr
    assert "papers daily: 2 of 3 dates ok" in done.stdout
    assert _runs(project) == {"2025-07-05": 0, "2025-07-07": 1}
    # every call made was for the one paper of 2025-07-07, its digest and its translation
    day = "2025-07-07"
    assert chat_calls(sim) == sent_calls(project, "digest_en", date=day) + sent_calls(project, "translate_zh", date=day)


# --- restored days reach the database and the site -------------------------------------------------------


@pytest.mark.slow
def test_a_date_switched_back_is_restored_into_the_database_and_the_site(tmp_path, sample_replay, engine):
    sim, engine_url = engine
    _, replay_url = sample_replay
    project = _project(tmp_path, replay_url, engine_url)
    assert _papers(project, "daily", "--date", SAMPLE_DATE).returncode == 0
    assert _papers(project, "daily", "--date", "2025-04-04").returncode == 0  # an empty day after it
    (project / "data" / "papers.db").unlink()  # the views lost, e.g. a fresh checkout of the files
    shutil.rmtree(project / "data" / "site")
    calls = chat_calls(sim)
    switched = _papers(project, "daily", "--date", SAMPLE_DATE)
    assert switched.returncode == 0, switched.stdout + switched.stderr
    assert "Stage 'digest_en' is cached - skipping run, checking out outputs" in switched.stdout
    assert chat_calls(sim) == calls  # restored, not regenerated
    assert _runs(project)[SAMPLE_DATE] == 4
    assert len(list((project / "data" / "site" / SAMPLE_DATE).glob("*.html"))) == 5  # the day page and 4 papers


@pytest.mark.slow
def test_another_machine_restores_a_day_from_a_dvc_remote_with_no_request_and_sees_it(
    tmp_path, start_replay, start_engine
):
    replay, replay_url = start_replay(*_sample_dirs())
    sim, engine_url = start_engine()
    origin = _project(tmp_path, replay_url, engine_url, "origin")
    remote = tmp_path / "dvc-remote"
    run_dvc(origin, "remote", "add", "-d", "shared", str(remote))
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "the project")
    machine_a = tmp_path / "a"
    _git(tmp_path, "clone", "-q", str(origin), str(machine_a))
    assert _papers(machine_a, "daily", "--date", SAMPLE_DATE).returncode == 0
    run_dvc(machine_a, "push", "--run-cache")
    machine_b = tmp_path / "b"  # the same commit, so the same params as machine A's run of the day
    _git(tmp_path, "clone", "-q", str(origin), str(machine_b))
    before = (replay.total_requests, chat_calls(sim))
    restored = _papers(machine_b, "daily", "--date", SAMPLE_DATE, "--pull")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert (replay.total_requests, chat_calls(sim)) == before  # nothing asked of HF, arXiv or the LLM
    assert "Stage 'translate_zh' is cached - skipping run, checking out outputs" in restored.stdout
    assert _runs(machine_b) == {SAMPLE_DATE: 4}
    assert (machine_b / "data" / "site" / SAMPLE_DATE / "index.html").is_file()


def _sample_dirs() -> tuple[Path, Path]:
    from conftest import SAMPLE_DIR

    return SAMPLE_DIR / "hf", SAMPLE_DIR / "arxiv"


def _git(where: Path, *args: str) -> None:
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    env = {**dvc_env(), **who}
    subprocess.run(["git", *args], cwd=where, env=env, check=True)


def test_dvc_started_by_a_run_launched_with_sigint_ignored_can_still_be_stopped_by_sigint():
    # `papers daily &` in a script (or nohup) starts papers with SIGINT ignored; the DVC it starts must still
    # take the SIGINT that stops it cleanly, or it would run on until SIGKILL
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    parent = (
        "import subprocess, sys\n"
        "from papers_digest.cli.project import start_group\n"
        f"child = start_group([sys.executable, '-c', {probe!r}], stdout=subprocess.PIPE, text=True)\n"
        "print(child.communicate()[0].strip())\n"
        "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", parent], capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # DVC takes SIGINT as KeyboardInterrupt; papers itself keeps ignoring it, as it was started
    assert done.stdout.split() == ["True", "True"]


# --- Ctrl-C and SIGTERM ------------------------------------------------------------------------------------


def _digests(project: Path) -> dict[str, str]:
    """arxiv id -> status of each English digest on disk."""
    folder = project / "data" / SAMPLE_DATE / "digest_en"
    return {p.stem: json.loads(p.read_text())["status"] for p in folder.glob("*.json") if p.name != "_stage.json"}


def _as_a_terminal_starts_it() -> None:
    """SIGINT as a shell in a terminal hands it to a command: caught by default, not blocked. A pytest-xdist
    worker may hold it otherwise after other tests (in the full suite on 4 workers the Ctrl-C never reached
    the run, twice; alone it always did), and a blocked or ignored signal is inherited across exec."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_an_interrupt_mid_stage_is_one_line_per_process_keeps_the_finished_papers_and_a_rerun_asks_the_rest(
    tmp_path, sample_replay, start_engine, how
):
    # 0.3 s a call, one at a time: a digest asked in steps takes about 12 calls, so the signal lands mid-stage
    sim, engine_url = start_engine(latency_s=0.3)
    _, replay_url = sample_replay
    project = copy_project(tmp_path / "project")
    write_params(
        project,
        make_params(
            source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0},
            llm={"base_url": engine_url, "model": "sim-digest", "concurrency": 1},
        ),
    )
    run = subprocess.Popen(
        [PAPERS, "run"], cwd=project, env=dvc_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_as_a_terminal_starts_it,
    )  # fmt: skip
    try:
        wait_until(lambda: len(_digests(project)) >= 2, timeout_s=120, what="two digests")
    finally:
        if how == "ctrl-c":
            os.killpg(run.pid, signal.SIGINT)  # what a terminal does: SIGINT to papers' process group
        else:
            run.send_signal(signal.SIGTERM)  # a service manager, `kill`
        out, err = run.communicate(timeout=120)
    assert run.returncode == 130, out + err
    assert "Traceback" not in out + err
    kept = _digests(project)
    assert len(kept) >= 2 and set(kept.values()) == {"done"}
    said = [line for line in (out + err).splitlines() if "interrupted" in line]
    assert said == [
        f"interrupted during digest_en: {len(kept)} of 4 papers kept; rerun to finish",
        "papers run: interrupted",
    ]
    assert not (project / "data" / SAMPLE_DATE / "translate_zh").exists()

    asked = chat_calls(sim)
    sim.latency_s = 0.0  # the rerun's ~100 calls, one at a time, need no pace: 100 s of waiting before
    rerun = _papers(project, "run")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    # the rerun asks only the digests missing and the 4 translations: what their records say was sent
    missing = set(_digests(project)) - set(kept)
    assert chat_calls(sim) - asked == sent_calls(project, "digest_en", missing) + sent_calls(project, "translate_zh")
    assert set(_digests(project).values()) == {"done"} and len(_digests(project)) == 4
