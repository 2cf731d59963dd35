"""`papers compare`: candidate models (or endpoints, or settings) on frozen days, each run as a DVC experiment.

A candidate runs on its endpoint (llm.base_url) or on a managed engine (engine.kind), started for its experiments
and stopped after them, one candidate's engine at a time. `--sample` compares on the sample day with the sample's
settings, each candidate's `model=NAME` an offline model as `papers sample --model NAME` runs it.

Each candidate and date is one `dvc exp run --temp`: the day's list and full texts are copied into the
experiment's temporary workspace from the main one (-C data/<date>), only digest_en, translate_zh and publish
run (forced, llm.reuse false), so no request goes to Hugging Face or arXiv. What each experiment wrote is read
back from its git ref and DVC's cache into data/compare/<first date>/, and notebooks/compare.ipynb renders
compare.json as compare.html (docs/experiments.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import yaml

from papers_digest.cli.commands import Command, examples
from papers_digest.cli.project import project_lock, set_dotted, temporary_params
from papers_digest.cli.runs import endpoint_for_the_batch
from papers_digest.cli.sample import SAMPLE_DATE, endpoint_overrides, local_model, offline_settings
from papers_digest.core.artefacts import write_json
from papers_digest.core.errors import ConfigError, PipelineError
from papers_digest.core.params import Params, ParamsError, load_params, validate_params
from papers_digest.engines.localmodel import DEFAULT_MODEL
from papers_digest.engines.process import ManagedEngine
from papers_digest.llm.endpoint import check_llm_endpoint
from papers_digest.pipeline import experiments
from papers_digest.pipeline.experiments import LOCK
from papers_digest.report.compare import candidate_dir, compare, load_candidate_day
from papers_digest.report.notebook import execute_and_render
from papers_digest.ways.registry import way_named

GENERATION = ("digest_en", "translate_zh", "publish")  # the stages an experiment runs, forced, in this order
# What an experiment hands back, read from its git ref (dvc.lock) and DVC's cache; list.json is the main
# workspace's (the experiment ran on a copy of it).
EXPERIMENT_OUTPUTS = ("digest_en", "translate_zh", "run.json", "calls.jsonl")
FIXED_KEYS = ("date", "llm.reuse")  # set by the comparison itself, never by a candidate
OFFLINE_KEY = "model"  # --sample: the candidate's offline model (a name or a GGUF file), not a param
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*$")
# Settings are split at a comma followed by the next KEY=, so a value may hold commas: llm.price={input: 1, output: 2}
SETTING_SPLIT = re.compile(r",(?=\s*[A-Za-z_][\w.]*\s*=)")
NOTEBOOK = Path("notebooks/compare.ipynb")
FROZEN = ("list", "fulltext")  # the stages whose outputs an experiment is given, as the day's own run left them


class CompareError(PipelineError):
    """A comparison that cannot start or whose experiment failed; the message says which and why."""

    label = ""


@dataclass
class Candidate:
    name: str
    settings: dict[str, str] = field(default_factory=dict)  # key -> value as given (DVC parses it as YAML)

    def experiment(self, date: str) -> str:
        return f"compare-{self.name}-{date}"

    @property
    def params(self) -> dict[str, str]:
        """The params it sets (`model=`, the offline model of --sample, is none)."""
        return {key: value for key, value in self.settings.items() if key != OFFLINE_KEY}


@click.command(
    "compare",
    cls=Command,
    short_help="compare models or endpoints on days already run: one DVC experiment per candidate and date",
    help="Run each candidate as a DVC experiment (dvc exp run --temp) on days already run: the days' lists and "
    "full texts are reused as they are (no request to Hugging Face or arXiv), the generation stages run again "
    "with llm.reuse false. Writes data/compare/<first date>/compare.json and compare.html; the first candidate "
    "is the reference the others' agreement is measured against. `dvc exp show` lists the experiments' "
    "run.json metrics side by side.",
    epilog=examples(
        "papers compare --date 2025-04-03 \\",
        "    --candidate small:llm.model=qwen-0.5b --candidate big:llm.model=qwen-7b,llm.concurrency=8",
        "papers compare --date 2025-04-02 --date 2025-04-03 \\",
        "    --candidate vllm:llm.base_url=http://gpu1:8000/v1 --candidate sglang:llm.base_url=http://gpu2:30000/v1",
        "papers compare --sample --candidate q15:llm.asking=steps \\",
        "    --candidate q05:model=qwen2.5-coder-0.5b-instruct,llm.asking=steps",
    ),
)
@click.option("--date", "dates", multiple=True, metavar="DATE", help="a day already run (repeatable)")
@click.option(
    "--sample",
    "on_sample",
    is_flag=True,
    help=f"the sample day ({SAMPLE_DATE}, as `papers sample` ran it) with the sample's settings: each candidate on "
    f"its own llama.cpp server, its model=NAME an offline model or a GGUF file (default {DEFAULT_MODEL})",
)
@click.option(
    "--candidate",
    "candidates",
    multiple=True,
    required=True,
    metavar="NAME:KEY=VALUE[,KEY=VALUE...]",
    help="a candidate: its name and the params it sets (repeatable; the first is the reference)",
)
@click.option("--params", default="params.yaml", help="the pipeline's parameters the candidates start from")
@click.option("--out", default="data/compare", help="where data/compare/<first date>/ goes")
@click.option("--no-report", is_flag=True, help="write compare.json only, not the notebook's HTML")
def compare_command(
    dates: tuple[str, ...], on_sample: bool, candidates: tuple[str, ...], params: str, out: str, no_report: bool
) -> int:
    if on_sample == bool(dates):
        raise click.UsageError("give --date (repeatable) or --sample, one or the other")
    return run_comparison(
        [SAMPLE_DATE] if on_sample else list(dates), list(candidates), Path(params), Path(out), not no_report, on_sample
    )


def parse_candidate(text: str) -> Candidate:
    """`NAME:KEY=VALUE[,KEY=VALUE...]` -> Candidate; a name alone sets nothing (the params as they are). A value
    is YAML as DVC's -S reads it, and may hold commas: `llm.price={input: 0.15, output: 0.6}`."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not NAME_RE.match(name):
        raise ConfigError(f"--candidate {text!r}: the name must be letters, digits, '_' or '.' (no spaces or '-')")
    settings: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in SETTING_SPLIT.split(rest))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"--candidate {text!r}: {part!r} is not KEY=VALUE")
        key = key.strip()
        if key in FIXED_KEYS:
            raise ConfigError(f"--candidate {text!r}: {key} is set by the comparison (--date; reuse is off)")
        settings[key] = value.strip()
    return Candidate(name, settings)


def offline_overrides(model: Path) -> dict[str, Any]:
    """The sample's params for an offline model (`papers sample --model`: its own llama.cpp server, the model's
    sampling), as dotted keys: written into params.yaml while the candidate's experiments run (an experiment
    starts from the workspace's params.yaml, uncommitted changes included), since DVC's `-S` merges a dict such
    as `llm.extra_body` into the one there instead of replacing it."""
    return endpoint_overrides(*offline_settings(model))


def with_overrides(base: Params, values: dict[str, Any]) -> Params:
    """`base` with dotted keys set, as temporary_params writes them into params.yaml."""
    raw: dict[str, Any] = base.model_dump(mode="json")
    set_dotted(raw, values)
    return validate_params(raw, "the sample's settings")


def candidate_params(base: Params, candidate: Candidate) -> Params:
    """The params a candidate's experiments run with, validated here so a typo stops before anything runs."""
    raw: dict[str, Any] = base.model_dump(mode="json")
    for key, value in candidate.params.items():
        node = raw
        *parents, last = key.split(".")
        for part in parents:
            if not isinstance(node.get(part), dict):
                raise ConfigError(f"candidate {candidate.name}: {key}: no such parameter")
            node = node[part]
        if last not in node:
            raise ConfigError(f"candidate {candidate.name}: {key}: no such parameter")
        node[last] = yaml.safe_load(value) if value else ""
    raw["llm"]["reuse"] = False
    try:
        return validate_params(raw, f"candidate {candidate.name}")
    except ParamsError as exc:
        raise ConfigError(str(exc)) from None


def exp_run_args(candidate: Candidate, date: str) -> list[str]:
    """What `dvc exp run --temp -n <experiment>` gets for one candidate and date: the day's files copied from
    the main workspace, only the generation stages and publish, forced (-f -s), reuse off."""
    settings = [arg for key, value in candidate.params.items() for arg in ("-S", f"{key}={value}")]
    return [
        *("-f", "-s"),
        *settings,
        *("-S", "llm.reuse=false", "-S", f"date={date}", "-C", f"data/{date}", "-C", str(LOCK)),
        *GENERATION,
    ]


def run_comparison(
    dates: list[str],
    candidate_texts: list[str],
    params_path: Path,
    out_root: Path,
    report: bool,
    on_sample: bool = False,
) -> int:
    dates = list(dict.fromkeys(dates))
    candidates = [parse_candidate(text) for text in candidate_texts]
    offline, runs = plan_candidates(candidates, params_path, on_sample)
    for date in dates:
        for needed in (f"data/{date}/list.json", f"data/{date}/fulltext"):
            if not Path(needed).exists():
                run = "papers sample" if on_sample else f"papers daily --date {date}"
                raise CompareError(f"{needed} is missing: run the day first ({run})")
    baseline = experiments.baseline()
    if baseline is None:
        raise CompareError("no git commit here: DVC experiments start from one (git commit the project first)")
    out = out_root / dates[0]
    with project_lock("papers compare"):
        check_candidates(runs)
        for candidate in candidates:
            with temporary_params(params_path, offline[candidate.name]), endpoint_for_the_batch(runs[candidate.name]):
                for date in dates:
                    with day_in_lock(params_path, date):
                        run_experiment(candidate, date, baseline, out)
    write_comparison(out, dates, candidates, baseline, report)
    return 0


def plan_candidates(
    candidates: list[Candidate], params_path: Path, on_sample: bool
) -> tuple[dict[str, dict[str, Any]], dict[str, Params]]:
    """(what params.yaml is set to while each candidate runs: --sample's offline model settings, the params each
    candidate's experiments run with), checked before anything runs: distinct names, model= with --sample only,
    each offline model fetched and its hash checked once, each candidate's params valid and its endpoint set."""
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise ConfigError(f"candidate names must differ: {', '.join(names)}")
    for candidate in candidates:
        if OFFLINE_KEY in candidate.settings and not on_sample:
            raise ConfigError(f"candidate {candidate.name}: {OFFLINE_KEY}= names an offline model with --sample only")
    offline: dict[str, dict[str, Any]] = {c.name: {} for c in candidates}  # --sample: params.yaml per candidate
    if on_sample:
        wanted = {c.name: c.settings.get(OFFLINE_KEY, DEFAULT_MODEL) for c in candidates}
        models = {name: local_model(name, "papers compare") for name in dict.fromkeys(wanted.values())}
        offline = {c.name: offline_overrides(models[wanted[c.name]]) for c in candidates}
    base = load_params(params_path)
    runs = {c.name: candidate_params(with_overrides(base, offline[c.name]), c) for c in candidates}
    for name, params in runs.items():
        way_named(params.llm.asking, f"candidate {name}")
        if not params.llm.configured:
            raise ConfigError(f"candidate {name}: llm.base_url and llm.model must both be set")
    return offline, runs


def check_candidates(runs: dict[str, Params]) -> None:
    """Before any experiment: every endpoint answers and serves its model, every engine can start (its model and
    program are there); each engine starts at its candidate's turn."""
    for name, params in runs.items():
        try:
            if params.engine.kind == "none":
                asyncio.run(check_llm_endpoint(params.llm))
            else:
                ManagedEngine.from_params(params)
        except PipelineError as exc:
            raise ConfigError(f"candidate {name}: {exc}") from None


def write_comparison(out: Path, dates: list[str], candidates: list[Candidate], baseline: str, report: bool) -> None:
    """compare.json (and, with `report`, compare.html) from the candidates' outputs in `out`, and one line each."""
    rows = compare(
        [(c.name, [load_candidate_day(candidate_dir(out, c.name, d)) for d in dates]) for c in candidates],
        {c.name: c.settings for c in candidates},
    )
    write_json(
        out / "compare.json",
        {
            "dates": dates,
            "reference": candidates[0].name,
            "baseline": baseline,
            "experiments": {c.name: {d: c.experiment(d) for d in dates} for c in candidates},
            "candidates": [row.model_dump(mode="json") for row in rows],
        },
    )
    if report:
        render_report(out)
    for row in sorted(rows, key=lambda r: r.rank):
        agreement = "reference" if row.reference else f"agreement {_share(row.agreement)}"
        print(
            f"papers compare: {row.rank}. {row.name}: {row.done}/{row.papers} done ({row.done_first_answer} on the "
            f"first answer), {row.failed} failed; p50 {row.latency_p50_s:.2f} s; {agreement}"
        )
    print(f"papers compare: {out / 'compare.json'}" + (f", {out / 'compare.html'}" if report else ""))


def day_in_lock(params_path: Path, date: str) -> contextlib.AbstractContextManager[None]:
    """dvc.lock holding `date`'s list and full texts while its experiments run, then put back as it was
    (experiments.outputs_in_lock says why)."""
    return experiments.outputs_in_lock(FROZEN, lambda: temporary_params(params_path, {"date": date}))


def run_experiment(candidate: Candidate, date: str, baseline: str, out: Path) -> None:
    """One candidate on one date as a DVC experiment, then its outputs copied into out/candidates/."""
    name = candidate.experiment(date)
    print(f"papers compare: {candidate.name} on {date}: dvc exp run (experiment {name})", flush=True)
    experiments.remove([name])  # a comparison run again replaces its experiments
    code = experiments.run_temporary(name, exp_run_args(candidate, date))
    if code != 0 or not experiments.committed(baseline, name):
        raise CompareError(f"candidate {candidate.name} on {date}: dvc exp run exited with {code}; see above")
    collect_outputs(baseline, name, date, candidate_dir(out, candidate.name, date))


def collect_outputs(baseline: str, name: str, date: str, dest: Path) -> None:
    """Copy an experiment's outputs for `date` (from its commit and DVC's cache) into `dest`, with the main
    workspace's list.json beside them: a folder report.compare.load_candidate_day reads."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    day = f"data/{date}"
    for path, content in experiments.read_files(baseline, name, [f"{day}/{output}" for output in EXPERIMENT_OUTPUTS]):
        local = dest / Path(path).relative_to(day)
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(content)
    shutil.copy2(Path(day) / "list.json", dest / "list.json")


def render_report(out: Path) -> None:
    """notebooks/compare.ipynb run by papermill into `out`, rendered as compare.html (no code) beside compare.json."""
    execute_and_render(NOTEBOOK, out / "compare.ipynb", {"compare_dir": str(out)})


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"
