"""`papers daily` and `papers run`: the pipeline for a date, on an endpoint or on an engine started for it."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from papers_digest.cli.project import DB_PATH, dvc_repro, project_lock, set_params, sigterm_as_interrupt
from papers_digest.core.artefacts import write_json
from papers_digest.core.params import Params, ParamsError, load_params
from papers_digest.db.writer import record_engine_start
from papers_digest.engines.process import ManagedEngine
from papers_digest.llm.endpoint import check_llm_endpoint


def register(sub: argparse._SubParsersAction) -> None:
    daily = sub.add_parser("daily", help="set `date` in params.yaml (default: yesterday, UTC) and run `dvc repro`")
    daily.add_argument("--date", help="the day to process, YYYY-MM-DD (default: yesterday in UTC)")
    daily.add_argument("--params", default="params.yaml")
    daily.add_argument("--force", action="store_true", help="pass --force to dvc repro (rerun every stage)")
    daily.set_defaults(func=cmd_daily)

    run = sub.add_parser(
        "run",
        help="start the engine of params.yaml (engine.kind), wait until it answers, run `dvc repro`, stop it",
    )
    run.add_argument("--params", default="params.yaml")
    run.add_argument("--force", action="store_true", help="pass --force to dvc repro (rerun every stage)")
    run.add_argument("targets", nargs="*", help="stages for dvc repro (default: all)")
    run.set_defaults(func=cmd_run)


def cmd_daily(args: argparse.Namespace) -> int:
    date = args.date or (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    params_path = Path(args.params)
    with project_lock("papers daily"):
        params = load_params(params_path)
        asyncio.run(check_llm_endpoint(params.llm))  # before anything is changed or fetched
        set_params(params_path, {"date": date})
        print(f"papers daily: date = {date}")
        return dvc_repro(force=args.force)


def cmd_run(args: argparse.Namespace) -> int:
    params_path = Path(args.params)
    with project_lock("papers run"):
        params = load_params(params_path)
        if params.engine.kind == "none":
            # Nothing to manage: the same as `papers daily` for the date already in params.yaml.
            print(f"papers run: engine.kind is none: dvc repro for {params.date} against llm.base_url")
            asyncio.run(check_llm_endpoint(params.llm))
            return dvc_repro(*args.targets, force=args.force)
        if not params.llm.model:
            raise ParamsError(
                f"{params_path}: llm.model is empty: set it to the name the {params.engine.kind} engine should "
                "serve the model under (the stages send it with every request)"
            )
        return repro_with_engine(params, *args.targets, force=args.force)


def repro_with_engine(params: Params, *targets: str, force: bool = False) -> int:
    """Start params' engine, wait until it answers, `dvc repro`, stop it (also on errors and Ctrl-C).

    `data/<date>/engine.json` records the engine (kind, model, startup_s, started_at, stopped_at) for the
    run record: written once the engine is ready (stopped_at null while the stages run) and again after
    it stopped. It is not a DVC output.
    """
    engine = ManagedEngine.from_params(params)
    record = Path("data") / params.date / "engine.json"
    print(f"papers: starting the {engine.kind} engine: {' '.join(engine.command)}", flush=True)
    print(f"papers: its log: {engine.log_path}; waiting up to {engine.startup_timeout_s:g} s for it", flush=True)
    try:
        with sigterm_as_interrupt(), engine:
            print(f"papers: engine ready on {engine.url} after {engine.startup_s:.1f} s", flush=True)
            write_engine_record(record, engine.record())
            asyncio.run(check_llm_endpoint(params.llm))
            code = dvc_repro(*targets, force=force, watch=engine.death_report)
    finally:
        if engine.startup_s is not None:
            write_engine_record(record, engine.record())
            print(f"papers: engine stopped; {record} written")
    if code == 0 and engine.startup_s is not None:
        # The run record of the day (the database's runs row) gets the engine's start-up time too.
        record_engine_start(DB_PATH, params.date, engine.kind, engine.startup_s)
    return code


def write_engine_record(path: Path, record: Mapping[str, Any]) -> None:
    write_json(path, dict(record))
