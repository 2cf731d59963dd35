"""A daily job nobody watches: crashes lose nothing, runs do not collide, bad config stops early, secrets stay out.

Every test runs the real pipeline (`dvc repro` in a project copy) against the replay and the engine
simulator on 127.0.0.1.
"""

import gzip
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlite_utils
from conftest import (
    HF_DIR,
    SAMPLE_DATE,
    SAMPLE_DIR,
    copy_project,
    dvc_command,
    dvc_env,
    kill_dvc_when,
    make_params,
    run_dvc,
    wait_until,
    write_params,
)

from papers_devtools.sim.faults import Fault
from papers_devtools.testing.servers import engine_server, recorded_dirs, sample_replay_server

DAY = SAMPLE_DATE
SLOW_CALL_S = 0.1  # a call long enough that a kill lands mid-stage; a digest is about 12 calls, a translation 25


def _params(replay_url: str, llm_url: str, **overrides):
    llm = {"base_url": llm_url, "model": "sim-digest", "concurrency": 1, **overrides.pop("llm", {})}
    source = {"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0.3, **overrides.pop("source", {})}
    return make_params(source=source, llm=llm, **overrides)


def db_state(project: Path) -> dict[str, list]:
    """What a run leaves in the database, less what differs between two runs by nature (times)."""
    db = sqlite_utils.Database(project / "data" / "papers.db")
    papers = [{k: v for k, v in r.items() if k != "generated_at"} for r in db.query("select * from papers order by 1")]
    calls = list(
        db.query(
            "select date, arxiv_id, stage, attempt, retry, status, error_kind, prompt_tokens, completion_tokens "
            "from llm_calls order by 1, 2, 3, 4, 5, 6, 7, 8, 9"  # steps and units: many calls of one attempt
        )
    )
    runs = list(db.query("select date, papers, papers_done, papers_failed, prompt_tokens, completion_tokens from runs"))
    return {
        "papers": papers,
        "digests": list(db.query("select * from digests order by 1, 2")),
        "llm_calls": calls,
        "runs": runs,
        "day_items": list(db.query("select * from day_items order by 1, 2")),
    }


@pytest.fixture
def servers(start_replay, start_engine):
    replay, replay_url = start_replay(*recorded_dirs("sample"))
    sim, llm_url = start_engine(latency_s=SLOW_CALL_S)
    return replay, replay_url, sim, llm_url


def _papers_in(folder: Path) -> int:
    return len(list(folder.glob("2*.json"))) if folder.is_dir() else 0


KILL_POINTS: dict[str, Callable[[Path], bool]] = {
    "fulltext": lambda day: _papers_in(day / "fulltext") >= 1,
    "digest_en": lambda day: _papers_in(day / "digest_en") >= 1,
    "translate_zh": lambda day: _papers_in(day / "translate_zh") >= 1,
    "publish": lambda day: (day.parent / "papers.db").exists(),
}


@pytest.fixture(scope="module")
def reference_state(tmp_path_factory) -> dict[str, list]:
    """The database after one uninterrupted run of the sample day (up to publish)."""
    with sample_replay_server() as (_, replay_url), engine_server(latency_s=SLOW_CALL_S) as (_, llm_url):
        project = copy_project(tmp_path_factory.mktemp("reference"))
        write_params(project, _params(replay_url, llm_url))
        run_dvc(project, "repro", "publish")
    return db_state(project)


@pytest.mark.slow
@pytest.mark.xdist_group("kill-9")  # on one worker of `make test`: reference_state is one DVC run, once
@pytest.mark.parametrize("stage", list(KILL_POINTS))
def test_kill_9_in_any_stage_then_repro_gives_the_same_database(tmp_path, servers, reference_state, stage):
    _, replay_url, sim, llm_url = servers
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url))
    day = project / "data" / DAY
    kill_dvc_when(project, lambda: KILL_POINTS[stage](day), "repro", "publish")
    # a request the killed client sent is still being answered
    wait_until(lambda: not sim.stats.in_flight, timeout_s=30, what="the engine to finish the killed run's call")

    run_dvc(project, "repro", "publish")
    assert db_state(project) == reference_state
    assert not list(project.rglob("*.tmp"))  # no half-written file left behind


@pytest.mark.slow
def test_a_second_run_at_the_same_time_stops_with_a_clear_message_and_changes_nothing(tmp_path, servers):
    _, replay_url, _, llm_url = servers
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url))
    first = subprocess.Popen(
        dvc_command("repro", "publish"), cwd=project, env=dvc_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )

    def first_fetched_a_paper() -> bool:
        assert first.poll() is None, "the first run ended before the second could start"
        return _papers_in(project / "data" / DAY / "fulltext") >= 1

    try:
        wait_until(first_fetched_a_paper, timeout_s=120, what="the first run to fetch a paper")
    except AssertionError:
        first.kill()
        raise
    second = run_dvc(project, "repro", "publish", check=False)
    assert second.returncode != 0
    assert "is busy, it is being blocked by" in second.stderr  # DVC names the running process
    assert first.wait(timeout=120) == 0
    rows = sqlite_utils.Database(project / "data" / "papers.db").execute("select count(*) from papers").fetchone()
    assert rows == (4,)


@pytest.mark.slow
def test_papers_daily_refuses_to_start_while_another_run_holds_the_project(tmp_path):
    project = copy_project(tmp_path)
    params_before = (project / "params.yaml").read_bytes()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time; os.chdir(sys.argv[1]);"
            "from papers_digest.cli.project import project_lock\n"
            "with project_lock('papers daily'):\n    print('held', flush=True); time.sleep(30)",
            str(project),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run(
            [str(Path(sys.executable).parent / "papers"), "daily", "--date", "2026-11-29"],
            cwd=project,
            capture_output=True,
            text=True,
            env=dvc_env(),
        )
    finally:
        holder.kill()
    assert done.returncode == 2
    assert "another run is in progress in this project (papers daily, pid" in done.stderr
    assert "nothing was changed" in done.stderr
    assert (project / "params.yaml").read_bytes() == params_before


@pytest.mark.slow
def test_a_failed_paper_is_retried_on_a_later_day_and_marked_backfilled(tmp_path, start_replay, start_engine):
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / f"{DAY}.json").write_bytes((SAMPLE_DIR / "hf" / f"{DAY}.json").read_bytes())
    (hf / "2025-04-04.json").write_bytes((HF_DIR / "2025-07-07.json").read_bytes())  # a real one-paper day
    _, replay_url = start_replay(hf, SAMPLE_DIR / "arxiv")
    sim, llm_url = start_engine()
    failing = "AnimeGamer"  # 2504.01014: the engine refuses its English digest on the first day (a 400)
    sim.add_fault(Fault(kind="http_error", status=400, request="digest", match=failing, times=-1))
    project = copy_project(tmp_path / "project")
    write_params(project, _params(replay_url, llm_url, source={"arxiv_interval_s": 0}))
    run_dvc(project, "repro", "publish")
    db = sqlite_utils.Database(project / "data" / "papers.db")
    assert db["papers"].get("2504.01014")["status"] == "failed"
    sim.clear_faults()
    write_params(project, _params(replay_url, llm_url, date="2025-04-04", source={"arxiv_interval_s": 0}))
    run_dvc(project, "repro")
    later = json.loads((project / "data" / "2025-04-04" / "list.json").read_text())
    assert later["backfill_from"] == {"2504.01014": DAY}
    assert "2504.01014" in later["picked"]
    row = db["papers"].get("2504.01014")
    assert (row["status"], row["date"], row["backfilled_from"]) == ("done", "2025-04-04", DAY)
    report = (project / "data" / "2025-04-04" / "report.html").read_text()
    assert "backfilled" in report and "2504.01014" in report


@pytest.mark.slow
@pytest.mark.parametrize(
    ("line", "bad", "message"),
    [
        (
            'date: "2025-04-03"',
            'date: "2025-4-3"',
            "params.yaml: date must be a date written YYYY-MM-DD, got '2025-4-3'",
        ),
        ("limit: 20", "limit: -4", "params.yaml: limit input should be greater than or equal to 1, got -4"),
    ],
)
def test_bad_params_stop_the_run_at_once_with_one_line(tmp_path, line, bad, message):
    project = copy_project(tmp_path)
    shipped = (project / "params.yaml").read_text(encoding="utf-8")
    assert line in shipped
    (project / "params.yaml").write_text(shipped.replace(line, bad), encoding="utf-8")
    done = run_dvc(project, "repro", check=False)
    assert done.returncode != 0
    assert message in done.stderr + done.stdout
    assert not list((project / "data").glob("*/list.json"))


@pytest.mark.slow
def test_an_unreachable_endpoint_or_a_missing_key_stops_the_run_before_any_paper(tmp_path, start_replay, start_engine):
    replay, replay_url = start_replay(*recorded_dirs("sample"))
    sim, llm_url = start_engine(api_key="sk-needed-1234")
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, "http://127.0.0.1:9/v1"))
    done = run_dvc(project, "repro", check=False)
    assert done.returncode != 0
    assert "fulltext: llm.base_url is unreachable: cannot connect to http://127.0.0.1:9/v1/models" in done.stderr
    write_params(project, _params(replay_url, llm_url))
    done = run_dvc(project, "repro", check=False, env=dvc_env(OPENAI_LLM_API_KEY=""))
    assert done.returncode != 0
    assert "wants an API key (HTTP 401): set the environment variable OPENAI_LLM_API_KEY" in done.stderr
    assert replay.requests["arxiv"] == 0  # no paper was touched: the day was listed, no text fetched
    assert sim.stats.by_path.get("/v1/chat/completions", 0) == 0


@pytest.mark.slow
def test_the_api_key_never_reaches_a_file(tmp_path, start_replay, start_engine):
    key = "sk-papers-digest-secret-7f3a9c21b4e8"
    _, replay_url = start_replay(*recorded_dirs("sample"))
    sim, llm_url = start_engine(api_key=key)
    # An engine that echoes the key in an error body (some do, in 401/403 messages).
    sim.add_fault(Fault(kind="http_error", status=400, body=f"bad request from {key}", match="MergeVQ", times=-1))
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url, source={"arxiv_interval_s": 0}))
    run_dvc(project, "repro", env=dvc_env(OPENAI_LLM_API_KEY=key))
    db = sqlite_utils.Database(project / "data" / "papers.db")
    assert db["papers"].get("2504.00999")["error"].endswith("HTTP 400: bad request from ***")
    assert {r["status"] for r in db.query("select status from papers")} == {"done", "failed"}
    leaks = []
    for path in project.rglob("*"):
        if not path.is_file() or ".git" in path.parts:
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if key.encode() in data:
            leaks.append(str(path.relative_to(project)))
    assert leaks == []
    assert (project / "data" / DAY / "report.html").exists() and (project / "data" / "site" / "index.html").exists()


def test_the_retry_queue_counts_days_from_the_first_failure(tmp_path):
    from papers_digest.db.queries import failed_recently
    from papers_digest.db.schema import ensure_schema

    db = sqlite_utils.Database(tmp_path / "papers.db")
    ensure_schema(db)
    row = {"title": "t", "upvotes": 1, "summary": "s", "authors": "[]", "status": "failed"}
    db["papers"].insert_all(
        [
            {**row, "arxiv_id": "2504.00001", "date": "2025-04-01"},  # failed once, 2 days ago
            {**row, "arxiv_id": "2504.00002", "date": "2025-04-02", "backfilled_from": "2025-03-28"},  # again
            {**row, "arxiv_id": "2504.00003", "date": "2025-04-02", "status": "done"},
        ],
        alter=True,
    )
    queue = failed_recently(tmp_path / "papers.db", "2025-04-03", days=3)
    assert [(p.arxiv_id, first) for p, first in queue] == [("2504.00001", "2025-04-01")]
    assert [p.arxiv_id for p, _ in failed_recently(tmp_path / "papers.db", "2025-04-03", days=6)] == [
        "2504.00002",
        "2504.00001",
    ]
    assert failed_recently(tmp_path / "papers.db", "2025-04-03", days=0) == []
