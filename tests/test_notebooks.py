"""Both notebooks executed with papermill on the sample day: the `report` stage under `dvc repro`, then explore."""

import html
import json
import re
from io import StringIO

import nbformat
import pandas as pd
import papermill
import pytest
import sqlite_utils
from conftest import ROOT, SAMPLE_DATE, copy_project, make_params, run_dvc, sample_papers, write_params

from papers_devtools.sim.faults import Fault
from papers_digest.checker.problems import RULES
from papers_digest.day import metrics as day_metrics
from papers_digest.report import tables

pytestmark = pytest.mark.slow  # every test runs the pipeline with DVC (make test-fast leaves it out)

TITLES = {p.arxiv_id: p.title for p in sample_papers()}


def test_the_report_stage_renders_a_code_free_report_whose_numbers_are_the_databases(tmp_path, sample_replay, engine):
    _, replay_url = sample_replay
    sim, llm_url = engine
    # A day with something to report: an answer the checker rejects then accepts on the retry, a 503
    # retried by the transport, and a paper whose two answers both cite a section it does not have.
    sim.add_fault(Fault(kind="wrong_numbers", match=TITLES["2504.00999"], on="first", times=1))
    sim.add_fault(Fault(kind="http_error", status=503, body="busy", match=TITLES["2504.00883"], times=1))
    sim.add_fault(Fault(kind="bad_section", match=TITLES["2504.01014"], times=2))
    project = copy_project(tmp_path)
    params = make_params(
        source={"hf_url": replay_url, "arxiv_url": replay_url, "arxiv_interval_s": 0},
        # the faults above are the JSON answer's: its wrong numbers and sections, rejected and retried
        llm={"asking": "json", "base_url": llm_url, "model": "sim-digest", "concurrency": 3},
    )
    write_params(project, params)
    repro = run_dvc(project, "repro")

    day = project / "data" / SAMPLE_DATE
    page = (day / "report.html").read_text(encoding="utf-8")
    db = sqlite_utils.Database(project / "data" / "papers.db")

    def one(sql: str) -> int:
        return db.execute(sql, [SAMPLE_DATE]).fetchone()[0]

    expected = {
        "Papers picked": one("select count(*) from day_items where date = ? and picked"),
        "Papers done": one("select count(*) from papers where date = ? and status = 'done'"),
        "Papers failed": one("select count(*) from papers where date = ? and status = 'failed'"),
        "LLM calls": one("select count(*) from llm_calls where date = ?"),
        "Answers rejected by the checker": one("select count(*) from llm_calls where date = ? and status = 'rejected'"),
        "Checker retries (attempt 2)": one("select count(*) from llm_calls where date = ? and attempt > 1"),
        "Transport retries": one("select count(*) from llm_calls where date = ? and retry > 0"),
        "Prompt tokens": one("select sum(prompt_tokens) from llm_calls where date = ?"),
        "Completion tokens": one("select sum(completion_tokens) from llm_calls where date = ?"),
    }
    made = len((day / "calls.jsonl").read_text(encoding="utf-8").splitlines())  # every call, a translation's units too
    assert expected["Papers done"] == 3 and expected["Papers failed"] == 1 and expected["LLM calls"] == made
    (summary,) = pd.read_html(StringIO(page), match="Papers picked", index_col=0, thousands=None)
    assert {metric: summary.loc[metric, "value"] for metric in expected} == {
        metric: f"{value:,}" for metric, value in expected.items()
    }

    # The failure and its reason, and the retries' reasons, as the database holds them.
    (reason,) = db.execute("select error from papers where status = 'failed'").fetchone()
    assert reason.startswith("digest_en: the answer failed the checks 2 times")
    assert html.escape(reason[:60]) in page
    assert "HTTP 503" in page
    assert page.count("data:image/png") >= 4  # token histograms, context vs budget, timeline, planner
    # each figure says what it plots to a screen reader: its axes titles, not nbconvert's placeholder
    alts = re.findall(r"<img alt=['\"]([^'\"]*)['\"][^>]*src=\"data:image/png", page)
    tokens, context = "Prompt tokens per call; Completion tokens per call", "Context of each call (prompt + completion)"
    assert alts[:2] == [tokens, context]
    assert len(alts) == page.count("<img ") == 4 and "No description has been provided" not in page
    assert "Alternative text is missing" not in repro.stdout + repro.stderr
    assert "Capacity planner" in page and "Prefix cache" in page

    # Checker outcomes by rule: the rules the rejected answers broke, as llm_calls holds them (JSON text).
    broken: dict[tuple[str, str], list[int]] = {}
    sql = (
        "select stage, attempt > 1 as again, j.value as rule, count(*) as n"
        " from llm_calls, json_each(llm_calls.checker_rules) as j where date = ? group by 1, 2, 3"
    )
    for row in db.query(sql, [SAMPLE_DATE]):
        broken.setdefault((row["rule"], row["stage"]), [0, 0])[row["again"]] += row["n"]
    outcomes = tables.checker_outcomes(tables.load_calls(day))
    assert {(r.rule, r.stage): [r.first_attempt, r.retry] for r in outcomes.itertuples()} == broken
    assert broken[("section_unknown", "digest_en")] == [1, 1]  # bad_section, on both of its answers
    (shown,) = pd.read_html(StringIO(page), match="first_attempt")
    assert {"section_unknown", "number_unknown"} <= set(shown.iloc[:, 0].astype(str))
    assert all(html.escape(RULES[rule]) in page for rule, _ in broken)

    # Code-free: no input area, and no line of any code cell of the notebook.
    assert "hl-ipython3" not in page  # the class of highlighted code cells
    source = nbformat.read(ROOT / "notebooks" / "run_report.ipynb", as_version=4)
    code_lines = {
        line.strip() for cell in source.cells if cell.cell_type == "code" for line in cell.source.splitlines()
    }
    leaked = [line for line in code_lines if len(line) > 12 and (line in page or html.escape(line) in page)]
    assert leaked == []

    # run.json carries what `dvc exp show` compares, and agrees with the report's own tables.
    run = json.loads((day / "run.json").read_text())
    calls = tables.load_calls(day)
    assert (run["checker_retries"], run["transport_retries"], run["llm_calls_rejected"]) == (2, 1, 3)
    assert run["latency_p90_s"] == round(day_metrics.latency_percentiles(calls).loc["all", "p90_s"], 3)
    assert 1 <= run["max_in_flight"] <= params.llm.concurrency
    metrics = json.loads(run_dvc(project, "metrics", "show", "--json").stdout)
    shown = next(iter(metrics.values()))["data"][f"data/{SAMPLE_DATE}/run.json"]["data"]
    assert {k: shown[k] for k in ("papers_failed", "max_in_flight", "latency_p50_s")} == {
        k: run[k] for k in ("papers_failed", "max_in_flight", "latency_p50_s")
    }

    # The exploration notebook, run as an analyst would, on the same database.
    explored = papermill.execute_notebook(
        str(ROOT / "notebooks" / "explore.ipynb"),
        str(tmp_path / "explore.ipynb"),
        parameters={"db": "data/papers.db", "search_term": "R1-Zero"},
        kernel_name="python3",
        cwd=str(project),
        progress_bar=False,
    )
    shown = "\n".join(
        str(output.get("data", {}).get("text/html", "")) + str(output.get("data", {}).get("text/markdown", ""))
        for cell in explored.cells
        for output in cell.get("outputs", [])
    )
    assert all(row["arxiv_id"] in shown for row in db.query("select arxiv_id from papers"))  # the day's table
    assert "matches for **R1-Zero**" in shown
    for lang in ("en", "zh"):
        (text,) = db.execute("select digest from digests where arxiv_id = '2504.00999' and lang = ?", [lang]).fetchone()
        assert html.escape(json.loads(text)["one_sentence"]) in shown  # side by side, first paper of the day
