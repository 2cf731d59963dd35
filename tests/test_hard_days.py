"""Hard days: one paper's error never holds a day hostage, a bad day reaches the operator, spending has a ceiling.

The slow tests run `papers daily` in project copies over real HTTP to the HF/arXiv replay, the engine
simulator and a chat webhook stand-in, all on 127.0.0.1; the others call the pure parts directly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest
import sqlite_utils
import yaml
from conftest import HF_DIR, SAMPLE_DATE, SAMPLE_DIR, copy_project, dvc_env, make_params, write_params

from papers_devtools.sim.faults import Fault
from papers_devtools.sim.replay import ReplayFault
from papers_devtools.testing.servers import webhook_server
from papers_digest.cli.alerts import ALERT_WEBHOOK_ENV, send_alert, webhook_url
from papers_digest.core.params import AlertParams, Price
from papers_digest.day.status import ALL_DIGESTED_BEFORE, NOTHING_LISTED, DateRun, DayStatus, alert
from papers_digest.llm.spending import TokenBudget

PAPERS = str(Path(sys.executable).parent / "papers")


def _daily(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [PAPERS, "daily", *args], cwd=project, env=dvc_env(**env), capture_output=True, text=True, timeout=600
    )
    return done


def _project(tmp_path: Path, replay_url: str, engine_url: str, **sections) -> Path:
    project = copy_project(tmp_path / "project")
    llm = {"base_url": engine_url, "model": "sim-digest", **sections.pop("llm", {})}
    write_params(project, make_params(source={"hf_url": replay_url, "arxiv_url": replay_url}, llm=llm, **sections))
    return project


def _db(project: Path) -> sqlite_utils.Database:
    return sqlite_utils.Database(project / "data" / "papers.db")


def _status_rows(project: Path) -> dict[str, list[str]]:
    page = lxml.html.parse(str(project / "data" / "site" / "status.html")).getroot()
    rows = {}
    for tr in page.cssselect("table.status tbody tr"):
        cells = [c.text_content().strip() for c in tr.cssselect("th, td")]
        rows[cells[0]] = cells[1:]
    return rows


# --- a poison paper, the retry queue and the alert -------------------------------------------------------


@pytest.mark.slow
def test_a_poison_paper_fails_alone_and_a_day_with_none_done_reaches_the_operator(tmp_path, start_replay, engine):
    sim, engine_url = engine
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "2025-03-10.json").write_bytes((HF_DIR / "2025-03-10.json").read_bytes())  # 13 papers; 2025-03-11: none
    _, replay_url = start_replay(hf, SAMPLE_DIR / "arxiv")
    poison = "2503.02130"  # the third by upvotes: every call of it gets an HTTP 500, as a server bug would give
    title = next(
        i["paper"]["title"] for i in json.loads((hf / "2025-03-10.json").read_text()) if i["paper"]["id"] == poison
    )
    sim.add_fault(Fault(kind="http_error", status=500, match=title, times=-1))
    project = _project(tmp_path, replay_url, engine_url, limit=6)
    with webhook_server() as (receiver, hook):
        done = _daily(project, "--from", "2025-03-10", "--to", "2025-03-11", **{ALERT_WEBHOOK_ENV: hook})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "papers daily: 2025-03-10: ok (5 papers done, 1 failed)" in done.stdout
    row = _db(project)["papers"].get(poison)
    assert row["status"] == "failed" and "HTTP 500" in row["error"], row
    assert "(the endpoint answers other requests)" in row["error"]
    # the next day's retry queue lists the paper; it fails again there, so that day has none done
    later = json.loads((project / "data" / "2025-03-11" / "list.json").read_text())
    assert later["backfill_from"] == {poison: "2025-03-10"} and later["picked"] == [poison]
    assert "papers daily: 2025-03-11: ok (0 papers done, 1 failed)" in done.stdout
    # one message for the run, naming the bad day and its reason; the good day (1 of 6 failed) is not in it
    assert len(receiver.received) == 1, output
    message = receiver.received[0]
    assert [d["date"] for d in message["dates"]] == ["2025-03-11"]
    assert "2025-03-11: 0 of 1 papers done" in message["text"] and "HTTP 500" in message["text"]
    assert "papers daily: alert sent for 1 date(s)" in done.stdout and hook not in output  # the URL holds a token
    status = _status_rows(project)
    assert status["2025-03-10"][:4] == ["13", "6", "5", "1"] and status["2025-03-10"][-1] == "1 of 6 failed"
    assert status["2025-03-11"][-1] == "none done: all 1 failed"


@pytest.mark.slow
def test_an_empty_day_says_why_and_a_webhook_that_fails_changes_nothing(tmp_path, start_replay, engine):
    sim, engine_url = engine
    replay, replay_url = start_replay()
    replay.add_fault(ReplayFault(target="hf", kind="http_error", status=503, match="2025-07-06", times=-1))
    project = _project(tmp_path, replay_url, engine_url, retry={"attempts": 1})
    with webhook_server(status=500) as (receiver, hook):
        write_params(project, {**_params_of(project), "alerts": {"webhook_url": hook}})
        done = _daily(project, "--from", "2025-07-05", "--to", "2025-07-06")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output  # a date failed: as without a webhook
    assert "papers daily: 2025-07-05: ok (0 papers done, 0 failed)" in done.stdout
    assert "papers daily: 2025-07-06: FAILED (dvc repro exited with" in done.stdout
    assert len(receiver.received) == 1 and "2025-07-06: FAILED (dvc repro exited with" in receiver.received[0]["text"]
    assert (
        "papers daily: the alert was not delivered to the webhook (alerts.webhook_url): "
        "Failed to send JSON POST notification: Internal server error., error=500." in done.stdout
    )
    run = _db(project)["runs"].get("2025-07-05")
    assert (run["papers"], run["papers_done"], run["papers_failed"]) == (0, 0, 0)
    assert _status_rows(project)["2025-07-05"][-1] == f"empty: {NOTHING_LISTED}"
    day = (project / "data" / "site" / "2025-07-05" / "index.html").read_text()
    assert f"No paper was picked this day: {NOTHING_LISTED}." in day
    assert sim.stats.by_path.get("/v1/chat/completions", 0) == 0


def _params_of(project: Path) -> dict:
    return yaml.safe_load((project / "params.yaml").read_text())


# --- the ceiling on spending ---------------------------------------------------------------------------


@pytest.mark.slow
def test_papers_past_the_budget_end_failed_the_day_publishes_and_the_next_day_takes_them_up(
    tmp_path, sample_replay, engine
):
    _, engine_url = engine
    _, replay_url = sample_replay
    # asked in steps, the simulator's sample papers take 2,500-3,300 tokens each (digest and translation), about
    # 12,000 the day, 8,000 of it the English digests: the ceiling falls inside them
    budget = 5_000
    price = {"input": 0.5, "cached_input": 0.25, "output": 1.5}
    project = _project(
        tmp_path, replay_url, engine_url, llm={"concurrency": 1, "budget_tokens_per_day": budget, "price": price}
    )
    done = _daily(project, "--date", SAMPLE_DATE)
    assert done.returncode == 0, done.stdout + done.stderr
    db = _db(project)
    papers = {r["arxiv_id"]: r for r in db.query("select * from papers where date = ?", [SAMPLE_DATE])}
    over = sorted(i for i, r in papers.items() if r["status"] == "failed")
    # the papers' conversations run side by side, so the ceiling fails each paper still in progress, and not the day
    assert over
    assert all(
        "budget reached: " in papers[i]["error"] and f" of {budget} tokens used" in papers[i]["error"] for i in over
    )
    # the day's calls as its files hold them (the database's llm_calls holds the same, a row each)
    calls = [json.loads(line) for line in (project / "data" / SAMPLE_DATE / "calls.jsonl").read_text().splitlines()]
    spent = sum((c["prompt_tokens"] or 0) + (c["completion_tokens"] or 0) for c in calls if not c["from_store"])
    assert spent <= budget  # the ceiling held, the calls in flight included
    run = json.loads((project / "data" / SAMPLE_DATE / "run.json").read_text())
    expected = Price(**price).cost_usd(
        prompt_tokens=sum(c["prompt_tokens"] or 0 for c in calls),
        cached_tokens=sum(c["cached_tokens"] or 0 for c in calls),
        completion_tokens=sum(c["completion_tokens"] or 0 for c in calls),
    )
    assert run["cost_usd"] == expected > 0 and db["runs"].get(SAMPLE_DATE)["cost_usd"] == expected
    assert _status_rows(project)[SAMPLE_DATE][5] == f"{expected:.4f}"  # the status page's cost column
    # the next day (Hugging Face lists nothing), under a raised budget: the retry queue brings them in
    raised = _params_of(project)
    raised["llm"]["budget_tokens_per_day"] = 100_000  # the day's papers take about 12,000
    write_params(project, raised)
    done = _daily(project, "--date", "2025-04-04")
    assert done.returncode == 0, done.stdout + done.stderr
    later = json.loads((project / "data" / "2025-04-04" / "list.json").read_text())
    assert sorted(later["backfill_from"]) == over
    assert {
        r["arxiv_id"]: r["status"] for r in db.query("select * from papers where date = '2025-04-04'")
    } == dict.fromkeys(over, "done")


@pytest.mark.slow
def test_an_exhausted_quota_stops_the_day_with_one_line_and_records_nothing(tmp_path, sample_replay, engine):
    sim, engine_url = engine
    _, replay_url = sample_replay
    sim.add_fault(Fault(kind="http_error", status=429, times=-1, body='{"error":{"code":"insufficient_quota"}}'))
    project = _project(tmp_path, replay_url, engine_url)
    done = _daily(project, "--date", SAMPLE_DATE)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if "quota" in line]
    assert len(lines) == 1 and lines[0].startswith(
        "digest_en: the LLM account's quota is exhausted after 0 of 4 papers"
    )
    assert "insufficient_quota" in lines[0]
    assert not (project / "data" / "papers.db").exists() or not _db(project)["runs"].count


# --- the pure parts ----------------------------------------------------------------------------------


def _status(**counts) -> DayStatus:
    return DayStatus(**{"date": "2026-11-30", "listed": 20, "picked": 10, "done": 10, "failed": 0, **counts})


def test_a_day_is_flagged_when_none_is_done_or_too_many_failed_and_never_for_an_empty_day():
    assert _status().alarm(0.5) is None
    assert _status(done=5, failed=5).alarm(0.5) is None  # exactly half: not more than the share
    assert _status(done=4, failed=6).alarm(0.5) == "6 of 10 papers failed (more than 50%)"
    assert _status(picked=2, done=0, failed=2).alarm(0.9) == "0 of 2 papers done"
    assert _status(picked=0, done=0, listed=0).alarm(0.0) is None
    assert _status(picked=0, done=0, listed=0).outcome == f"empty: {NOTHING_LISTED}"
    assert _status(picked=0, done=0, listed=7).outcome == f"empty: {ALL_DIGESTED_BEFORE}"


def test_the_alert_names_each_bad_date_with_its_counts_and_first_reasons():
    bad = _status(date="2026-11-29", done=0, failed=10, reasons=("2511.00001: digest_en: LLM call failed: HTTP 500",))
    runs = [
        DateRun("2026-11-28", _status()),
        DateRun("2026-11-29", bad),
        DateRun("2026-11-30", None, "dvc repro exited with 1"),
    ]
    message = alert(runs, 0.5)
    assert message is not None and [d["date"] for d in message["dates"]] == ["2026-11-29", "2026-11-30"]
    assert message["text"].splitlines() == [
        "papers-digest: 2 date(s) need a look",
        "2026-11-29: 0 of 10 papers done (0 done, 10 failed of 10 picked, 20 listed)",
        "  - 2511.00001: digest_en: LLM call failed: HTTP 500",
        "2026-11-30: FAILED (dvc repro exited with 1)",
    ]
    assert alert([DateRun("2026-11-28", _status())], 0.5) is None


def test_the_webhook_from_the_environment_wins_and_a_dead_one_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv(ALERT_WEBHOOK_ENV, "https://hooks.example.invalid/T000/secret")
    assert (
        webhook_url(AlertParams(webhook_url="https://other.example.invalid/"))
        == "https://hooks.example.invalid/T000/secret"
    )
    monkeypatch.delenv(ALERT_WEBHOOK_ENV)
    with webhook_server() as (receiver, hook):
        pass  # the server is gone: nothing listens there now
    send_alert("papers daily", AlertParams(webhook_url=hook), [DateRun("2026-11-30", None, "dvc repro exited with 1")])
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "papers daily: the alert was not delivered to the webhook (alerts.webhook_url): "
        "A Connection error occurred sending JSON notification to ***."
    ]
    assert "secret-token" not in out[0] and receiver.received == []


def test_the_budget_admits_a_call_only_while_the_spent_and_the_reserved_tokens_stay_under_it():
    budget = TokenBudget(limit=1000, used=300)
    assert budget.admit(400) and budget.admit(300)  # 300 spent + 700 reserved = 1000
    assert not budget.admit(1)
    budget.settle(400, 250)  # a call ended having spent less than it reserved
    assert budget.admit(150) and not budget.admit(1)
    assert budget.refusal() == "budget reached: 550 of 1000 tokens used"
    assert TokenBudget(limit=None).admit(10**9)


def test_the_price_charges_cached_prompt_tokens_at_their_own_rate():
    price = Price(input=1.0, cached_input=0.1, output=4.0)
    assert price.cost_usd(prompt_tokens=1_000_000, cached_tokens=500_000, completion_tokens=250_000) == 1.55
    assert (
        Price(input=1.0, output=4.0).cost_usd(prompt_tokens=1_000_000, cached_tokens=500_000, completion_tokens=0)
        == 1.0
    )
