"""The whole pipeline under `dvc repro` over real HTTP on 127.0.0.1: sample day, reruns, cache, exclusion."""

import json
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
import sqlite_utils
from conftest import SAMPLE_DATE, SAMPLE_DIR, chat_calls, copy_project, make_params, run_dvc, write_params

from papers_devtools.sim.replay import Replay
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer

pytestmark = pytest.mark.slow  # every test runs the pipeline with DVC or papers sample (not in make test-fast)

SAMPLE_PICKS = ["2504.00999", "2504.00883", "2504.01014", "2503.20783"]


def _params(hf_url: str, llm_url: str, **overrides):
    return make_params(
        source={"hf_url": hf_url, "arxiv_url": hf_url, "arxiv_interval_s": 0},
        llm={"base_url": llm_url, "model": "sim-digest", "concurrency": 3},
        **overrides,
    )


def _requests(replay: Replay, sim: EngineSim) -> int:
    return replay.total_requests + sim.stats.requests


def _sample_day_run(tmp_path: Path, replay_url: str, llm_url: str, *targets: str) -> Path:
    """A project copy whose sample day `dvc repro` (to `targets`, else every stage) ran on the replay and the
    simulator."""
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, llm_url))
    run_dvc(project, "repro", *targets)
    return project


def test_sample_day_end_to_end_then_a_rerun_makes_no_http_call(tmp_path, sample_replay, engine):
    replay, replay_url = sample_replay
    sim, llm_url = engine
    project = _sample_day_run(tmp_path, replay_url, llm_url)

    day = project / "data" / SAMPLE_DATE
    listed = json.loads((day / "list.json").read_text())
    assert listed["picked"] == SAMPLE_PICKS
    assert len(listed["papers"]) == 12
    html = json.loads((day / "fulltext" / "2503.20783.json").read_text())
    assert html["source"] == "html" and html["version"] == 2
    assert html["title"] == "Understanding R1-Zero-Like Training: A Critical Perspective"
    assert "[§Abstract]" in html["text"] and "[§A" in html["text"]
    for arxiv_id in SAMPLE_PICKS[:3]:
        fallback = json.loads((day / "fulltext" / f"{arxiv_id}.json").read_text())
        assert fallback["source"] == "abstract"
        assert "no HTML" in fallback["reason"]
        assert fallback["text"].startswith("[§Abstract]\n")
        # never one paper's text under another paper's title
        summary = next(p["summary"] for p in listed["papers"] if p["arxiv_id"] == arxiv_id)
        assert fallback["text"].endswith(summary)

    db = sqlite_utils.Database(project / "data" / "papers.db")
    rows = {r["arxiv_id"]: r for r in db.query("select * from papers")}
    assert set(rows) == set(SAMPLE_PICKS)
    assert {r["status"] for r in rows.values()} == {"done"}
    assert rows["2503.20783"]["fulltext_source"] == "html"
    assert db.execute("select count(*) from digests").fetchone()[0] == 8
    langs = {(r["arxiv_id"], r["lang"]) for r in db.query("select arxiv_id, lang from digests")}
    assert langs == {(i, lang) for i in SAMPLE_PICKS for lang in ("en", "zh")}
    calls = list(db.query("select * from llm_calls"))
    # 4 digests, then each translation's units; a unit's English that an earlier paper had (a label "Abstract")
    # comes from the store
    asked = [c for c in calls if not c["from_store"]]
    assert len(calls) > 8 and len(asked) == chat_calls(sim)
    assert all(c["prompt_tokens"] > 0 and c["latency_s"] >= 0 and c["status"] == "ok" for c in calls)
    run = json.loads((day / "run.json").read_text())
    (runs_row,) = db.query("select * from runs")
    assert run["papers"] == runs_row["papers"] == 4 and run["papers_done"] == 4
    assert run["prompt_tokens"] == runs_row["prompt_tokens"] == sum(c["prompt_tokens"] for c in calls)
    # The engine's /metrics counters (vLLM's, from the simulator) match the calls' own usage.
    assert run["prefix_cache_queries"] == sum(c["prompt_tokens"] for c in asked)
    assert run["prefix_cache_hits"] == sum(c["cached_tokens"] for c in asked) > 0
    metrics = run_dvc(project, "metrics", "show", "--json")
    assert '"papers_done": 4' in metrics.stdout.replace(" ", "").replace('":', '": ')

    before = _requests(replay, sim)
    again = run_dvc(project, "repro")
    assert _requests(replay, sim) == before, again.stdout
    assert "didn't change" in again.stdout or "skipping" in again.stdout

    # Concurrency, endpoints, timeouts and retries are not dependencies: changing them reruns nothing.
    changed = _params("http://127.0.0.1:9", "http://127.0.0.1:9/v1")
    changed.llm.concurrency = 7
    changed.llm.timeout_s = 5
    changed.retry.attempts = 1
    write_params(project, changed)
    status = run_dvc(project, "status").stdout.replace("always changed", "")  # publish runs every time
    assert "changed" not in status, status
    run_dvc(project, "repro")
    assert _requests(replay, sim) == before

    # Publishing twice (rebuilding the view) changes nothing in the database.
    snapshot = {t: list(db[t].rows) for t in ("papers", "digests", "llm_calls", "runs")}
    run_dvc(project, "repro", "--force", "publish", "--single-item")
    assert {t: list(db[t].rows) for t in snapshot} == snapshot


def test_every_call_of_a_day_is_a_row_of_llm_calls(tmp_path, sample_replay, engine):
    sim, llm_url = engine
    project = _sample_day_run(tmp_path, sample_replay[1], llm_url, "publish")  # the report adds no call
    db = sqlite_utils.Database(project / "data" / "papers.db")
    assert db["llm_calls"].count == chat_calls(sim)


def test_switching_back_to_a_finished_day_restores_it_without_network(tmp_path, replay, engine):
    replay_server, replay_url = replay
    sim, llm_url = engine
    project = copy_project(tmp_path)
    first, second = "2025-07-07", "2024-05-27"
    write_params(project, _params(replay_url, llm_url, date=first, limit=2))
    run_dvc(project, "repro")
    first_files = {p.relative_to(project): p.read_bytes() for p in (project / "data" / first).rglob("*.json")}
    write_params(project, _params(replay_url, llm_url, date=second, limit=2))
    run_dvc(project, "repro")
    assert (project / "data" / second / "run.json").exists()

    shutil.rmtree(project / "data" / first)
    before = _requests(replay_server, sim)
    write_params(project, _params(replay_url, llm_url, date=first, limit=2))
    restored = run_dvc(project, "repro")
    assert _requests(replay_server, sim) == before, restored.stdout
    assert "restored" in restored.stdout.lower() or "cached" in restored.stdout.lower()
    assert {p.relative_to(project): p.read_bytes() for p in (project / "data" / first).rglob("*.json")} == first_files


def test_a_paper_digested_on_an_earlier_date_is_not_generated_again(tmp_path, engine):
    _, llm_url = engine
    hf_dir = tmp_path / "hf"
    hf_dir.mkdir()
    # HF lists a paper again on a later day now and then: the same real items under the next date.
    shutil.copy(SAMPLE_DIR / "hf" / f"{SAMPLE_DATE}.json", hf_dir / f"{SAMPLE_DATE}.json")
    shutil.copy(SAMPLE_DIR / "hf" / f"{SAMPLE_DATE}.json", hf_dir / "2025-04-04.json")
    replay = Replay(hf_dir, SAMPLE_DIR / "arxiv")
    project = copy_project(tmp_path / "project")
    with BackgroundServer(replay.app) as server:
        write_params(project, _params(server.url, llm_url))
        run_dvc(project, "repro", "publish")
        write_params(project, _params(server.url, llm_url, date="2025-04-04"))
        run_dvc(project, "repro", "publish")
    later = json.loads((project / "data" / "2025-04-04" / "list.json").read_text())
    assert later["excluded"] == {i: SAMPLE_DATE for i in sorted(SAMPLE_PICKS)}
    assert later["picked"] == ["2504.01956", "2504.01724", "2504.00824", "2504.01848"]
    db = sqlite_utils.Database(project / "data" / "papers.db")
    dates = {r["arxiv_id"]: r["date"] for r in db.query("select arxiv_id, date from papers")}
    assert all(dates[i] == SAMPLE_DATE for i in SAMPLE_PICKS)
    assert sum(d == "2025-04-04" for d in dates.values()) == 4


def test_without_an_endpoint_generation_says_so_and_papers_are_failed_with_the_reason(tmp_path, sample_replay):
    _, replay_url = sample_replay
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, ""))
    done = run_dvc(project, "repro", "publish")
    assert "no LLM endpoint configured" in done.stdout + done.stderr
    assert list((project / "data" / SAMPLE_DATE / "digest_en").glob("2*.json")) == []
    db = sqlite_utils.Database(project / "data" / "papers.db")
    rows = list(db.query("select status, error from papers"))
    assert len(rows) == 4
    assert all(r["status"] == "failed" and "no LLM endpoint configured" in r["error"] for r in rows)
    assert Path(project / "data" / SAMPLE_DATE / "run.json").exists()


def test_the_sample_command_on_the_simulator_runs_offline_and_restores_params(tmp_path):
    project = copy_project(tmp_path)
    params_before = (project / "params.yaml").read_bytes()
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bin_dir / "papers"), "sample", "--engine", "sim", "--latency", "0"],  # `make sample-sim`, faster
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 done, 0 failed" in done.stdout
    assert (project / "params.yaml").read_bytes() == params_before
    db = sqlite_utils.Database(project / "data" / "papers.db")
    assert dict(db.execute("select status, count(*) from papers group by 1").fetchall()) == {"done": 4}
    # Progress bars are shown for the long stages.
    assert "fulltext: 100%" in done.stderr and "digest_en: 100%" in done.stderr
    # no DVC hints to commit dvc.lock or push: a sample is not a day to keep
    output = done.stdout + done.stderr
    assert "git add" not in output and "autostage" not in output and "dvc push" not in output
    assert "Running stage 'digest_en'" in done.stdout  # DVC's own lines still are
    # the replay is asked without arXiv's 3 s between requests (4 papers: 9 s or more with it)
    fulltext = json.loads((project / "data" / SAMPLE_DATE / "fulltext" / "_stage.json").read_text())
    assert fulltext["elapsed_s"] < 6


def test_a_paper_over_the_budget_is_trimmed_and_the_database_says_what_the_model_saw(tmp_path, sample_replay, engine):
    _, replay_url = sample_replay
    _, llm_url = engine
    project = copy_project(tmp_path)
    params = _params(replay_url, llm_url)
    params.llm.max_input_tokens = 3000
    write_params(project, params)
    run_dvc(project, "repro", "publish")
    doc = json.loads((project / "data" / SAMPLE_DATE / "fulltext" / "2503.20783.json").read_text())
    assert doc["source"] == "trimmed" and doc["tokens"] <= 3000
    assert doc["counted_by"] == "engine /tokenize"
    assert doc["dropped"][-3:] == ["A", "B", "G"]  # the appendices went first
    db = sqlite_utils.Database(project / "data" / "papers.db")
    row = db["papers"].get("2503.20783")
    assert row["fulltext_source"] == "trimmed" and json.loads(row["fulltext_dropped"]) == doc["dropped"]
    assert row["status"] == "done"
    english = json.loads((project / "data" / SAMPLE_DATE / "digest_en" / "2503.20783.json").read_text())
    cited = {s for r in english["digest"]["results"] for s in r["sections"]}
    assert cited <= set(t for t in (s["tag"] for s in doc["sections"]))


def _day_counts(conn: sqlite3.Connection, date: str) -> tuple[int, int, int, int, int]:
    """What the database holds of `date`, read in one snapshot: papers, digests, calls, listed items, runs row."""
    tables = ("papers", "digests", "llm_calls", "day_items", "runs")
    return tuple(conn.execute(f"select count(*) from {t} where date = ?", [date]).fetchone()[0] for t in tables)


def test_an_analyst_holding_a_read_transaction_never_fails_the_run_nor_sees_half_a_day(tmp_path, engine):
    """A notebook with an open cursor holds a read transaction on papers.db; the next day's `dvc repro` still
    publishes, the notebook's snapshot stays what it was, and no reader ever sees part of the day."""
    _, llm_url = engine
    hf_dir = tmp_path / "hf"
    hf_dir.mkdir()
    later = "2025-04-04"  # the same real items listed again: the next day digests the next 4 papers
    for date in (SAMPLE_DATE, later):
        shutil.copy(SAMPLE_DIR / "hf" / f"{SAMPLE_DATE}.json", hf_dir / f"{date}.json")
    replay = Replay(hf_dir, SAMPLE_DIR / "arxiv")
    project = copy_project(tmp_path / "project")
    db_path = project / "data" / "papers.db"
    with BackgroundServer(replay.app) as server:
        write_params(project, _params(server.url, llm_url))
        run_dvc(project, "repro", "publish")  # the day before; the next day's run below goes to its report
        analyst = sqlite3.connect(db_path, isolation_level=None)
        analyst.execute("begin")
        before = analyst.execute("select count(*) from papers").fetchone()[0]
        assert before == 4 and _day_counts(analyst, later) == (0, 0, 0, 0, 0)

        seen: list[tuple[int, ...]] = []
        stop = threading.Event()

        def poll() -> None:  # another reader, opening a fresh snapshot again and again during the run
            with closing(sqlite3.connect(db_path, isolation_level=None)) as conn:
                while not stop.is_set():
                    conn.execute("begin")
                    seen.append(_day_counts(conn, later))
                    conn.execute("commit")
                    time.sleep(0.005)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            write_params(project, _params(server.url, llm_url, date=later))
            done = run_dvc(project, "repro", check=False)
        finally:
            stop.set()
            poller.join()
    assert done.returncode == 0, done.stdout + done.stderr
    # the open transaction still sees the database as it was when it began
    assert analyst.execute("select count(*) from papers").fetchone()[0] == before
    assert _day_counts(analyst, later) == (0, 0, 0, 0, 0)
    analyst.execute("commit")
    whole = _day_counts(analyst, later)
    assert whole[0] == 4 and whole[1] == 8 and whole[2] >= 8 and whole[3] == 12 and whole[4] == 1
    analyst.close()
    # every snapshot taken during the run held none of the day or all of it
    assert seen and set(seen) <= {(0, 0, 0, 0, 0), whole}, sorted(set(seen))
    assert whole in seen


def test_a_stage_reruns_when_a_package_it_imports_from_changes_and_not_for_another(tmp_path, sample_replay):
    """dvc.yaml lists package folders: editing the token estimator does not rerun the HF listing, editing the
    HF client does, and the bytecode Python writes beside the modules changes nothing."""
    _, replay_url = sample_replay
    project = copy_project(tmp_path)
    write_params(project, _params(replay_url, ""))
    run_dvc(project, "repro", "list")
    package = project / "src" / "papers_digest"
    (package / "core" / "__pycache__").mkdir()
    (package / "core" / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"\0bytecode")
    with (package / "llm" / "budget.py").open("a", encoding="utf-8") as budget:
        budget.write("\n# the token estimator, edited\n")
    assert "up to date" in run_dvc(project, "status", "list").stdout
    with (package / "sources" / "hf.py").open("a", encoding="utf-8") as hf:
        hf.write("\n# the HF client, edited\n")
    status = run_dvc(project, "status", "list").stdout
    assert "modified:" in status and "src/papers_digest/sources" in status, status
