"""`papers compare`: candidates as DVC experiments on a frozen day, the simulator's quality, the figures (pure)."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlite_utils
from conftest import ARXIV_DIR, HF_DIR, SAMPLE_DATE, copy_project, free_port, make_params, run_dvc, write_params

from papers_devtools.sim.faults import Fault, paper_point
from papers_devtools.sim.replay import ReplayFault
from papers_devtools.testing.fake_engine import llama_server_script
from papers_devtools.testing.harness import dvc_env
from papers_devtools.testing.servers import engine_server, replay_server, sample_replay_server
from papers_digest.cli import backfill
from papers_digest.cli import compare as cli_compare
from papers_digest.cli.main import main as papers_cli
from papers_digest.cli.sample import SAMPLE_INPUT_TOKENS
from papers_digest.core.errors import ConfigError
from papers_digest.core.models import CallRecord, DayList, GenerationResult, Paper, RunRecord
from papers_digest.engines.localmodel import OFFLINE_MODELS
from papers_digest.pipeline import experiments
from papers_digest.report import compare

# --- candidates on the command line ---------------------------------------------------------------------


def test_a_candidate_is_a_name_and_the_params_it_sets():
    small = cli_compare.parse_candidate("small:llm.model=qwen-0.5b")
    big = cli_compare.parse_candidate("big: llm.model=qwen-7b , llm.concurrency=8")
    assert (small.name, small.settings) == ("small", {"llm.model": "qwen-0.5b"})
    assert big.settings == {"llm.model": "qwen-7b", "llm.concurrency": "8"}
    assert cli_compare.parse_candidate("as_is").settings == {}
    priced = cli_compare.parse_candidate("p:llm.price={input: 0.15, output: 0.6},llm.model=m")
    assert priced.settings == {"llm.price": "{input: 0.15, output: 0.6}", "llm.model": "m"}
    for bad, why in [
        ("has space:llm.model=x", "name"),
        ("dash-name:llm.model=x", "name"),
        ("x:llm.model", "KEY=VALUE"),
        ("x:date=2025-04-03", "set by the comparison"),
        ("x:llm.reuse=true", "set by the comparison"),
    ]:
        with pytest.raises(ConfigError, match=why):
            cli_compare.parse_candidate(bad)


def test_a_candidates_params_are_validated_before_anything_runs():
    base = make_params(llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    params = cli_compare.candidate_params(base, cli_compare.parse_candidate("big:llm.model=qwen-7b,llm.concurrency=8"))
    assert (params.llm.model, params.llm.concurrency, params.llm.reuse) == ("qwen-7b", 8, False)
    priced = cli_compare.candidate_params(base, cli_compare.parse_candidate("p:llm.price={input: 1, output: 2}"))
    assert priced.llm.price is not None and (priced.llm.price.input, priced.llm.price.output) == (1, 2)
    with pytest.raises(ConfigError, match=r"llm\.modle: no such parameter"):
        cli_compare.candidate_params(base, cli_compare.parse_candidate("x:llm.modle=qwen"))
    with pytest.raises(ConfigError, match="candidate x"):
        cli_compare.candidate_params(base, cli_compare.parse_candidate("x:llm.concurrency=many"))


def test_each_experiment_copies_the_day_and_forces_only_the_generation_stages():
    args = cli_compare.exp_run_args(cli_compare.parse_candidate("big:llm.model=qwen-7b"), "2025-04-03")
    assert cli_compare.parse_candidate("big").experiment("2025-04-03") == "compare-big-2025-04-03"  # its -n
    assert args[:2] == ["-f", "-s"]
    joined = " ".join(args)
    assert "-S llm.model=qwen-7b" in joined and "-S llm.reuse=false" in joined and "-S date=2025-04-03" in joined
    assert "-C data/2025-04-03" in joined
    assert args[-3:] == ["digest_en", "translate_zh", "publish"]  # list and fulltext never run


def _papers_compare(capsys, *argv: str) -> tuple[int, str]:
    """`papers compare <argv>` in this process: (exit code, standard error)."""
    with pytest.raises(SystemExit) as exited:
        papers_cli(["compare", *argv])
    return exited.value.code, capsys.readouterr().err


def test_a_day_not_run_yet_stops_the_comparison_before_anything_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_params(tmp_path, make_params(llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"}))
    code, err = _papers_compare(capsys, "--date", SAMPLE_DATE, "--candidate", "a", "--candidate", "b:llm.model=n")
    assert code == 1 and err == f"papers compare: data/{SAMPLE_DATE}/list.json is missing: run the day first " \
        f"(papers daily --date {SAMPLE_DATE})\n"  # fmt: skip


def test_an_endpoint_that_does_not_answer_stops_the_comparison_before_any_experiment(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_params(tmp_path, make_params(llm={"base_url": f"http://127.0.0.1:{free_port()}/v1", "model": "m"}))
    (tmp_path / "data" / SAMPLE_DATE / "fulltext").mkdir(parents=True)
    (tmp_path / "data" / SAMPLE_DATE / "list.json").write_text("{}")
    subprocess.run(["git", "init", "-q"], check=True)
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "project")
    code, err = _papers_compare(capsys, "--date", SAMPLE_DATE, "--candidate", "down")
    assert code == 2 and err.startswith("papers compare: candidate down: ") and len(err.splitlines()) == 1
    assert not (tmp_path / "data" / "compare").exists()


def test_the_sample_day_or_dates_one_or_the_other_and_model_only_with_the_sample(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_params(tmp_path, make_params(llm={"base_url": "http://127.0.0.1:9/v1", "model": "m"}))
    for argv in (["--candidate", "a"], ["--sample", "--date", SAMPLE_DATE, "--candidate", "a"]):
        code, err = _papers_compare(capsys, *argv)
        assert code == 2 and "give --date (repeatable) or --sample, one or the other" in err
    code, err = _papers_compare(capsys, "--date", SAMPLE_DATE, "--candidate", "a:model=qwen2.5-coder-0.5b-instruct")
    assert code == 2 and err == "papers compare: candidate a: model= names an offline model with --sample only\n"
    code, err = _papers_compare(capsys, "--sample", "--candidate", "a:model=no-such-model")
    assert code == 2 and "'no-such-model' is neither an offline model" in err


def test_a_candidate_on_an_offline_model_runs_with_the_samples_settings_and_its_own_on_top():
    model = OFFLINE_MODELS["qwen2.5-coder-0.5b-instruct"]
    offline = cli_compare.offline_overrides(model.path)
    base = make_params(llm={"base_url": "http://127.0.0.1:9/v1", "model": "production", "asking": "steps"})
    candidate = cli_compare.parse_candidate(f"small:model={model.name},llm.asking=json")
    assert candidate.params == {"llm.asking": "json"}  # model= is not a param
    params = cli_compare.candidate_params(cli_compare.with_overrides(base, offline), candidate)
    assert (params.llm.model, params.llm.asking, params.llm.extra_body) == (model.name, "json", model.sampling)
    assert (params.engine.kind, params.engine.model) == ("llama-cpp", str(model.path))
    assert params.llm.base_url == f"http://127.0.0.1:{params.engine.port}/v1"  # the engine started for it
    assert (params.llm.max_input_tokens, params.llm.temperature, params.llm.reuse) == (SAMPLE_INPUT_TOKENS, 0, False)


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")  # DVC experiments (papers compare, daily --jobs): one at a time
def test_candidates_on_the_sample_day_each_run_on_an_engine_started_for_them_with_the_samples_settings(tmp_path):
    with sample_replay_server() as (_, replay_url), engine_server(model="sim-digest") as (_, day_url):
        project = _day_run(tmp_path, replay_url, day_url, "sim-digest")  # the day, as `papers sample` leaves it
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "the project")
    params_before = (project / "params.yaml").read_bytes()
    gguf = tmp_path / "sim-digest.gguf"  # served as its stem, which the stand-in engine answers for
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    server = llama_server_script(tmp_path / "bin")
    engine = f"model={gguf},engine.binary={server}"
    candidates = ("--candidate", f"steps:{engine},llm.asking=steps", "--candidate", f"json:{engine},llm.asking=json")
    done = _compared(project, "--sample", "--no-report", *candidates, timeout_s=600)
    # the endpoint the day ran on is gone: only the engines the comparison started, one per candidate, answered
    assert done.stdout.count("papers: starting the llama-cpp engine") == 2
    assert done.stdout.count("papers: the llama-cpp engine stopped") == 2
    assert (project / "params.yaml").read_bytes() == params_before  # the sample's settings were put back
    rows = {
        r["name"]: r
        for r in json.loads((project / "data" / "compare" / SAMPLE_DATE / "compare.json").read_text())["candidates"]
    }
    assert rows["steps"]["done"] == rows["json"]["done"] == 4
    assert rows["steps"]["params"] == {"model": str(gguf), "engine.binary": str(server), "llm.asking": "steps"}
    # each candidate's calls counted from its own run (the translation's units are most of them, either way)
    assert rows["json"]["llm_calls"] > 0 and rows["steps"]["llm_calls"] > 0


# --- the simulator's quality ----------------------------------------------------------------------------


def test_a_faults_share_picks_the_same_papers_every_time():
    papers = [["system", f"Title {n}\nSections: …\n[§1 Intro]\ntext {n}"] for n in range(200)]
    half = Fault(kind="wrong_numbers", share=0.5, times=-1)
    picked = [p for p in papers if half.applies(p, "first", "digest")]
    assert 60 < len(picked) < 140  # about half
    assert picked == [p for p in papers if half.applies(p, "retry", "digest")]  # the same papers on the retry
    assert all(paper_point(p) == paper_point(list(p)) for p in papers)
    assert not any(Fault(kind="wrong_numbers", share=0.0, times=-1).applies(p, "first", "digest") for p in papers)
    assert all(Fault(kind="wrong_numbers", times=-1).applies(p, "first", "digest") for p in papers)
    assert not Fault(kind="wrong_numbers", times=-1, request="translate").applies(papers[0], "first", "digest")


# --- the figures (pure) ---------------------------------------------------------------------------------

A, B, C, X = "2504.00001", "2504.00002", "2504.00003", "2504.00009"


def _call(arxiv_id, stage, attempt, status="ok", rules=(), prompt=100, completion=50, latency=1.0, error_kind=None):
    return CallRecord(
        date=SAMPLE_DATE,
        arxiv_id=arxiv_id,
        stage=stage,
        attempt=attempt,
        status=status,
        prompt_tokens=prompt,
        completion_tokens=completion,
        cached_tokens=prompt // 2 if attempt > 1 else 0,
        started_at=0.0,
        ended_at=latency,
        latency_s=latency,
        checker_rules=list(rules),
        error_kind=error_kind,
    )


def _digest(*results):
    return {"results": [{"finding": "f", "numbers": list(n), "sections": list(s)} for s, n in results]}


def _result(arxiv_id, stage, calls, digest=None, failed=False, error_kind=None):
    return GenerationResult(
        arxiv_id=arxiv_id,
        stage=stage,
        status="failed" if failed else "done",
        digest=None if failed else digest,
        error="broken" if failed else None,
        error_kind=error_kind if failed else None,
        model="m",
        prompt_version="v",
        calls=calls,
    )


def _day(english, chinese, cost=None):
    ids = sorted(english)
    run = RunRecord.model_validate(
        {name: 0 for name in RunRecord.model_fields if name not in ("date", "cost_usd", "failed_by_rule")}
        | {"date": SAMPLE_DATE, "generation_s": 10.0, "cost_usd": cost}
    )
    calls = [c for results in (english, chinese) for r in results.values() for c in r.calls]
    day = DayList(date=SAMPLE_DATE, limit=3, papers=[Paper(arxiv_id=i, title=f"Paper {i}") for i in ids], picked=ids)
    return compare.CandidateDay(SAMPLE_DATE, day, english, chinese, run, calls)


DIGEST_A = _digest((["3.1"], ["43.3%"]), (["4"], ["1,000", "2.5×"]), (["5"], []))
DIGEST_B = _digest((["2"], ["7"]), (["3"], ["8"]), (["4"], ["9"]))


def _reference():
    english = {
        A: _result(A, "digest_en", [_call(A, "digest_en", 1)], DIGEST_A),
        B: _result(B, "digest_en", [_call(B, "digest_en", 1)], DIGEST_B),
        C: _result(C, "digest_en", [_call(C, "digest_en", 1)], DIGEST_B),
    }
    chinese = {i: _result(i, "translate_zh", [_call(i, "translate_zh", 1)], {}) for i in english}
    return _day(english, chinese, cost=0.03)


def _poorer():
    """a: done after a retry, same citations (numbers written differently); b: done first time, one result of
    three differs; c: failed, its retry broke number_unknown and section_unknown."""
    same_as_a = _digest((["3.1"], ["43.3 %"]), (["4"], ["2.5×", "1000"]), (["5"], []))
    one_differs = _digest((["2"], ["7"]), (["3"], ["8"]), (["9"], ["9"]))
    english = {
        A: _result(
            A,
            "digest_en",
            [_call(A, "digest_en", 1, "rejected", ["number_unknown"]), _call(A, "digest_en", 2)],
            same_as_a,
        ),
        B: _result(B, "digest_en", [_call(B, "digest_en", 1, latency=3.0)], one_differs),
        C: _result(
            C,
            "digest_en",
            [
                _call(C, "digest_en", 1, "rejected", ["number_unknown"]),
                _call(C, "digest_en", 2, "rejected", ["number_unknown", "section_unknown"]),
            ],
            failed=True,
            error_kind="checker",
        ),
    }
    chinese = {i: _result(i, "translate_zh", [_call(i, "translate_zh", 1)], {}) for i in (A, B)}
    return _day(english, chinese, cost=None)


def test_outcomes_rules_tokens_and_agreement_of_each_candidate():
    rows = compare.compare([("ref", [_reference()]), ("poor", [_poorer()])], {"poor": {"llm.model": "small"}})
    ref, poor = rows
    assert ref.reference and not poor.reference and poor.params == {"llm.model": "small"}
    assert (ref.papers, ref.done_first_answer, ref.done_after_retry, ref.done, ref.failed) == (3, 3, 0, 3, 0)
    assert (poor.papers, poor.done_first_answer, poor.done_after_retry, poor.done, poor.failed) == (3, 1, 1, 2, 1)
    assert poor.failed_by_rule == {"number_unknown": 1, "section_unknown": 1}
    assert ref.agreement == 1.0 and (ref.agreement_results, ref.agreement_papers) == (9, 3)
    assert (poor.agreement_results, poor.agreement_papers) == (6, 2) and poor.agreement == round(5 / 6, 4)
    assert (ref.rank, poor.rank) == (1, 2)
    # tokens and calls: every call of the day, retries included, the same as calls.jsonl
    assert poor.llm_calls == 7 and poor.llm_calls_rejected == 3
    assert poor.prompt_tokens == 700 and poor.completion_tokens == 350 and poor.prompt_tokens_per_paper == 233.3
    assert poor.cached_tokens == 100 and poor.cached_share == round(100 / 700, 4)
    assert ref.latency_p50_s == 1.0 and poor.latency_p90_s > 1.0
    assert ref.generated_tok_s == 30.0  # 300 completion tokens in the stages' 10 s
    assert (ref.cost_usd, ref.cost_per_paper_usd) == (0.03, 0.01) and poor.cost_usd is None


def test_a_paper_that_failed_on_an_error_counts_under_the_errors_kind():
    english = {X: _result(X, "digest_en", [_call(X, "digest_en", 1, "error")], failed=True, error_kind="http")}
    (row,) = compare.compare([("only", [_day(english, {})])])
    assert row.failed_by_rule == {"http": 1} and row.agreement is None and row.rank == 1


def test_the_per_paper_table_links_both_digests_and_escapes_titles(tmp_path):
    table = compare.papers_table([("ref", [_reference()]), ("poor", [_poorer()])])
    assert list(table["arxiv_id"]) == [A, B, C]
    row_c = table.set_index("arxiv_id").loc[C]
    assert row_c["poor"] == "failed (number_unknown, section_unknown)" and row_c["poor agreement"] == ""
    assert table.set_index("arxiv_id").loc[B, "poor agreement"] == "2/3"
    html = compare.linked_papers_html(table.assign(title="<b>Paper</b>"))
    assert f'<a href="candidates/poor/2025-04-03/digest_en/{A}.json">digest</a>' in html
    assert "&lt;b&gt;Paper&lt;/b&gt;" in html and "<b>Paper" not in html


# --- the whole comparison under DVC ---------------------------------------------------------------------


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=project,
        check=True,
        capture_output=True,
    )


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")  # DVC experiments (papers compare, daily --jobs): one at a time
def test_two_candidates_on_the_sample_day_rank_as_set_and_count_what_their_experiments_did(tmp_path):
    poor_faults = [  # every first digest answer breaks a number; half the papers' retries cite a section it lacks
        Fault(kind="bad_section", on="retry", request="digest", times=-1, share=0.5),
        Fault(kind="wrong_numbers", on="first", request="digest", times=-1),
    ]
    with (
        sample_replay_server() as (replay, replay_url),
        engine_server(model="sim-good") as (good, good_url),
        engine_server(model="sim-poor", faults=poor_faults) as (poor, poor_url),
    ):
        project = _day_run(tmp_path, replay_url, good_url, "sim-good")  # the day, run once as every day is
        # committed as an operator's cron leaves it: dvc.lock untracked, so no experiment workspace has it
        _git(project, "add", "-A")
        _git(project, "rm", "-q", "--cached", "dvc.lock")
        _git(project, "commit", "-qm", "the project")
        before = replay.total_requests
        main_views = _views(project)
        main_lock = (project / "dvc.lock").read_bytes()
        good.reset_stats()
        price = "llm.price={input: 1, output: 2}"  # USD per million tokens; a value with a comma

        one_answer = "llm.asking=json"  # the poor engine's faults are the JSON answer's: both candidates ask so
        done = _compared(
            project,
            *("--date", SAMPLE_DATE),
            *("--candidate", f"good:llm.base_url={good_url},{one_answer}"),
            *("--candidate", f"poor:llm.model=sim-poor,llm.base_url={poor_url},llm.concurrency=2,{price},{one_answer}"),
        )
        # the generation calls and nothing else: not one request to Hugging Face or arXiv, no list or fulltext
        # stage run, and the main workspace's database and site as they were (nothing published there)
        assert replay.total_requests == before
        for stage in ("list", "fulltext"):
            assert f"Running stage '{stage}'" not in done.stdout
        assert _views(project) == main_views
        # each experiment's publish wrote run.json and calls.jsonl, and no site into a workspace thrown away
        assert done.stdout.count("in a temporary DVC experiment workspace, thrown away after it: no site") == 2
        assert (project / "dvc.lock").read_bytes() == main_lock  # recorded the day for the experiments, put back

    out = project / "data" / "compare" / SAMPLE_DATE
    data = json.loads((out / "compare.json").read_text())
    rows = {r["name"]: r for r in data["candidates"]}
    assert data["reference"] == "good" and rows["good"]["reference"]
    assert (rows["good"]["rank"], rows["poor"]["rank"]) == (1, 2)
    assert rows["good"]["done_first_answer"] == rows["good"]["done"] == 4 and rows["good"]["agreement"] == 1.0
    poor_sections = sum(r.fault == "bad_section" for r in poor.stats.records)
    assert 0 < poor_sections < 4  # the share picked some papers, not all
    assert rows["poor"]["done_first_answer"] == 0
    assert rows["poor"]["failed"] == poor_sections and rows["poor"]["done_after_retry"] == 4 - poor_sections
    assert rows["poor"]["failed_by_rule"] == {"section_unknown": poor_sections}

    for name, sim in (("good", good), ("poor", poor)):
        chat = [r for r in sim.stats.records if r.path == "/v1/chat/completions"]
        calls = (out / "candidates" / name / SAMPLE_DATE / "calls.jsonl").read_text().splitlines()
        assert rows[name]["llm_calls"] == len(calls) == len(chat)  # reuse off: every call reached its engine
        assert rows[name]["prompt_tokens"] == sum(r.prompt_tokens for r in chat)
        assert rows[name]["completion_tokens"] == sum(r.completion_tokens for r in chat)
        run = json.loads((out / "candidates" / name / SAMPLE_DATE / "run.json").read_text())
        assert run["llm_calls"] == len(calls) and run["papers_done"] == rows[name]["done"]
        assert rows[name]["cost_usd"] == run["cost_usd"]
    assert rows["good"]["cost_per_paper_usd"] is None  # not priced
    cost = (rows["poor"]["prompt_tokens"] + 2 * rows["poor"]["completion_tokens"]) / 1e6
    assert rows["poor"]["cost_usd"] == pytest.approx(cost, abs=1e-6)
    assert rows["poor"]["cost_per_paper_usd"] == pytest.approx(cost / 4, abs=1e-6)

    # the experiments' run.json are DVC metrics: `dvc exp show` lists them side by side
    shown = json.loads(run_dvc(project, "exp", "show", "--json").stdout)
    metrics = {
        exp["name"]: rev["data"]["metrics"][f"data/{SAMPLE_DATE}/run.json"]["data"]
        for baseline in shown
        for exp in baseline.get("experiments") or []
        for rev in exp["revs"]
    }
    assert metrics[f"compare-good-{SAMPLE_DATE}"]["papers_done"] == 4
    assert metrics[f"compare-poor-{SAMPLE_DATE}"]["papers_failed"] == poor_sections
    for name in ("good", "poor"):  # compare.json's figures, each a metric of its experiment (one date each)
        shown_run = metrics[f"compare-{name}-{SAMPLE_DATE}"]
        assert shown_run["papers_done_first_answer"] == rows[name]["done_first_answer"]
        assert (shown_run["papers_done"], shown_run["papers_failed"]) == (rows[name]["done"], rows[name]["failed"])
        # a rule per column (failed_by_rule.section_unknown); a candidate with no failure has none
        assert shown_run.get("failed_by_rule", {}) == rows[name]["failed_by_rule"]
        for key in ("prompt_tokens", "completion_tokens", "latency_p50_s", "latency_p90_s"):
            assert shown_run[key] == rows[name][key], key
    # the main workspace's day is untouched: still the day as it was run
    assert json.loads((project / "data" / SAMPLE_DATE / "run.json").read_text())["papers_done"] == 4

    page = (out / "compare.html").read_text()
    assert "Agreement with the reference" in page and "candidates/poor/2025-04-03/digest_en/" in page
    assert os.path.getsize(out / "compare.ipynb") > 0


def _day_run(tmp_path: Path, replay_url: str, base_url: str, model: str) -> Path:
    """A project whose sample day ran once (`dvc repro publish`) on the endpoint at `base_url`."""
    project = copy_project(tmp_path / "project")
    params = make_params(
        source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0},
        llm={"base_url": base_url, "model": model},
    )
    write_params(project, params)
    run_dvc(project, "repro", "publish")
    return project


def _compared(project: Path, *argv: str, timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    """`papers compare <argv>` in `project`, as an operator runs it; it must end well."""
    papers = str(Path(sys.executable).parent / "papers")
    done = subprocess.run(
        [papers, "compare", *argv], cwd=project, env=dvc_env(), capture_output=True, text=True, timeout=timeout_s
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _views(project: Path) -> dict[str, bytes]:
    """The main workspace's database and site, file by file."""
    files = [project / "data" / "papers.db", *sorted((project / "data" / "site").rglob("*"))]
    return {str(f.relative_to(project)): f.read_bytes() for f in files if f.is_file()}


# --- the parallel backfill ------------------------------------------------------------------------------


def test_each_date_is_queued_to_its_report_and_its_end_is_read_from_its_ref_or_its_absence(monkeypatch):
    assert backfill.queue_settings("2025-09-15", 5) == ["date=2025-09-15", "llm.concurrency=5"]
    assert (backfill.experiment_name("2025-09-15"), backfill.TARGET) == ("daily-2025-09-15", "report")
    monkeypatch.setattr(backfill, "POLL_S", 0.0)
    commits = iter([False, False, False, False, True])
    monkeypatch.setattr(experiments, "committed", lambda baseline, name: next(commits))
    assert backfill.wait_for("b" * 40, "daily-x", pending=lambda: {"daily-x"}) == "done"
    monkeypatch.setattr(experiments, "committed", lambda baseline, name: False)
    seen = iter([{"daily-x"}, set(), {"daily-x"}, set(), set()])  # in neither list once is not yet gone
    polls = []
    assert backfill.wait_for("b" * 40, "daily-x", lambda: polls.append(1), pending=lambda: next(seen)) == "failed"
    assert len(polls) == 4


def test_a_date_whose_worker_is_gone_fails_after_the_grace_and_not_before(monkeypatch):
    """A worker killed mid-experiment leaves its task "running" in DVC's queue for good: the wait ends
    "failed" (the date then runs in the main workspace) once no worker was alive for gone_s, and a worker
    seen alive again restarts the count."""
    monkeypatch.setattr(backfill, "POLL_S", 0.01)
    monkeypatch.setattr(experiments, "committed", lambda baseline, name: False)
    started = time.monotonic()
    state = backfill.wait_for("b" * 40, "daily-x", pending=lambda: {"daily-x"}, alive=lambda: False, gone_s=0.3)
    assert state == "failed" and time.monotonic() - started >= 0.3
    started, revived = time.monotonic(), []

    def alive_once_after_a_while() -> bool:  # alive once, 0.2 s in: the count starts again
        if not revived and time.monotonic() - started >= 0.2:
            revived.append(True)
            return True
        return False

    state = backfill.wait_for(
        "b" * 40, "daily-x", pending=lambda: {"daily-x"}, alive=alive_once_after_a_while, gone_s=0.3
    )
    assert state == "failed" and revived and time.monotonic() - started >= 0.5


def test_whether_a_worker_answers_is_asked_at_most_every_few_seconds(monkeypatch):
    """Asking the workers waits up to experiments.ANSWER_S for an answer: a wait polling every second asks it only
    every `every_s`, and keeps the last answer in between."""
    answers = iter([True, False])
    asked: list[float] = []

    def workers_alive() -> bool:
        asked.append(time.monotonic())
        return next(answers)

    monkeypatch.setattr(experiments, "workers_alive", workers_alive)
    seen = experiments.WorkersSeen(every_s=0.2)
    assert [seen(), seen(), seen()] == [True, True, True] and len(asked) == 1
    time.sleep(0.2)
    assert [seen(), seen()] == [False, False] and len(asked) == 2


PACE_S = 0.2  # source.arxiv_interval_s: held across every date of the run
BACKFILL_DATES = ["2025-09-15", "2025-09-16", "2025-09-17"]  # recorded days; the last one's list fails


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")  # DVC experiments (papers compare, daily --jobs): one at a time
@pytest.mark.timeout(600)  # two papers daily --jobs 2 runs: 296 s of the default 300 on shared cores (2026-12-03)
def test_dates_generated_in_parallel_each_reach_the_database_a_failed_one_is_reported_and_a_rerun_asks_nothing(
    tmp_path,
):
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "2025-09-15.json").write_bytes((HF_DIR / "2025-09-15.json").read_bytes())
    (hf / "2025-09-16.json").write_bytes((HF_DIR / "2026-01-13.json").read_bytes())
    papers = [str(Path(sys.executable).parent / "papers"), "daily", "--jobs", "2", "--to", BACKFILL_DATES[-1]]
    with (
        replay_server(hf, ARXIV_DIR) as (replay, replay_url),
        # calls long enough (4 papers x 2 s, one at a time, each stage) that the first date still generates
        # when the second date's worker has started
        engine_server(latency_s=2.0) as (sim, llm_url),
    ):
        replay.add_fault(ReplayFault(target="hf", kind="http_error", status=503, match=BACKFILL_DATES[-1], times=-1))
        project = copy_project(tmp_path / "project")
        params = make_params(
            source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": PACE_S},
            llm={"base_url": llm_url, "model": "sim-digest", "concurrency": 2},
            retry={"attempts": 1},
        )
        write_params(project, params)
        _git(project, "add", "-A")
        _git(project, "commit", "-qm", "the project")

        done = subprocess.run(
            [*papers, "--from", BACKFILL_DATES[0]],
            cwd=project,
            env=dvc_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # one date failed
        first_run = [r for r in sim.stats.records if r.path == "/v1/chat/completions"]
        arxiv = sorted(replay.arxiv_times)
        peak = sim.stats.max_in_flight
        before = sum(replay.requests.values()), len(first_run)
        ok_dates = BACKFILL_DATES[:2]
        again = subprocess.run(
            [*papers[:-2], "--from", ok_dates[0], "--to", ok_dates[1]],
            cwd=project,
            env=dvc_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
        after_ok = (
            sum(replay.requests.values()),
            len([r for r in sim.stats.records if r.path == "/v1/chat/completions"]),
        )

    assert peak == 2  # llm.concurrency bounds every worker together, and two dates were generated at once
    assert len(arxiv) >= 8 and min(b - a for a, b in itertools.pairwise(arxiv)) >= PACE_S - 0.01  # arXiv's pace
    db = sqlite_utils.Database(project / "data" / "papers.db")
    runs = {r["date"]: r for r in db.query("select * from runs")}
    assert sorted(runs) == ok_dates
    day_calls = [(project / "data" / date / "calls.jsonl").read_text().splitlines() for date in ok_dates]
    assert sum(r["llm_calls"] for r in runs.values()) == len(first_run) == sum(len(calls) for calls in day_calls)
    for date in ok_dates:
        assert f"papers daily: {date}: ok ({runs[date]['papers_done']} papers done, 0 failed)" in done.stdout
        assert runs[date]["papers_done"] > 0
        assert (project / "data" / "site" / date / "index.html").is_file()
    assert (
        f"papers daily: {BACKFILL_DATES[-1]}: FAILED" in done.stdout and "papers daily: 2 of 3 dates ok" in done.stdout
    )
    # the last pass restored every generation stage from the run-cache: nothing was generated twice
    assert done.stdout.count("Stage 'digest_en' is cached - skipping run") >= len(ok_dates)
    # rerunning the finished dates asks Hugging Face, arXiv and the engine nothing
    assert after_ok == before
    # arXiv was asked from the main workspace as each date was listed, ahead of its experiment, and the
    # experiments kept their answers in the main workspace's store (a date run here again reuses them)
    ahead = re.search(r"arXiv pages fetched ahead of the experiments: (\d+) request", done.stdout)
    assert ahead and 0 < int(ahead.group(1)) <= len(arxiv)
    answers = list((project / "data" / "store" / "llm").rglob("*.json.gz"))
    kept = db.execute("select count(*) from llm_calls where status = 'ok' and not from_store").fetchone()[0]
    # each done paper's digest and its translation's units (a unit's English that two papers share: one answer)
    assert sum(r["papers_done"] for r in runs.values()) * 2 <= len(answers) <= kept
    assert "daily-" not in run_dvc(project, "exp", "list", "--all-commits").stdout  # experiments removed
