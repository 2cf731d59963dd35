"""`papers daily` and `papers run`: the pipeline for one date or many, on an endpoint or on a managed engine
started once for all of them and always stopped after."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click

from papers_digest.cli import backfill
from papers_digest.cli.alerts import date_runs, send_alert
from papers_digest.cli.commands import Command, examples
from papers_digest.cli.deliveries import deliver_days
from papers_digest.cli.project import (
    DB_PATH,
    EngineDied,
    Watch,
    dvc_repro,
    project_lock,
    set_params,
    sigterm_as_interrupt,
)
from papers_digest.core.artefacts import write_json
from papers_digest.core.params import Params, ParamsError, load_params
from papers_digest.db.queries import last_run_date, run_summary
from papers_digest.db.writer import record_engine_start
from papers_digest.engines.process import ManagedEngine
from papers_digest.llm.endpoint import check_llm_endpoint
from papers_digest.pipeline import experiments
from papers_digest.site.subscribers import unknown_areas
from papers_digest.ways.registry import way_named

MAX_RANGE_DAYS = 366


@dataclass(frozen=True)
class DatePlan:
    """Which dates `papers daily` was asked for: one (--date), a range (--from, --to), or yesterday and, with
    catch_up, the days missed before it."""

    date: str | None = None
    start: str | None = None
    end: str | None = None
    catch_up: bool = True


@click.command(
    "daily",
    cls=Command,
    short_help="run the pipeline for yesterday (UTC) and the days missed before it, or for the dates given",
    help="Run the pipeline (dvc repro) for yesterday (UTC) and the days missed before it, or for the dates given, "
    "one date after the other; one date's failure does not stop the others. With engine.kind set in "
    "params.yaml, the managed engine is started once for all the dates and always stopped after.",
    epilog=examples(
        "papers daily                                   # yesterday, and the missed days (catch_up_days)",
        "papers daily --date 2025-04-03                 # one day",
        "papers daily --from 2025-04-01 --to 2025-04-03 # a range, oldest first",
        "papers daily --date 2025-04-03 --retry-failed  # ask again only for that day's failed papers",
        "papers daily --from 2025-03-01 --to 2025-03-31 --jobs 4  # a month, 4 dates generated at a time",
        "papers daily --from 2025-03-01 --to 2025-03-31 --pull    # what other machines pushed is restored",
    ),
)
@click.option("--date", metavar="DATE", help="one day, YYYY-MM-DD (default: yesterday and the missed days)")
@click.option("--from", "start", metavar="DATE", help="the first day of a range (with --to); not with --date")
@click.option("--to", "end", metavar="DATE", help="the last day of a range (default: yesterday)")
@click.option("--no-catch-up", is_flag=True, help="only yesterday, not the missed days before it (catch_up_days)")
@click.option("--params", default="params.yaml", help="the pipeline's parameters")
@click.option("--force", is_flag=True, help="pass --force to dvc repro (rerun every stage)")
@click.option(
    "--retry-failed",
    is_flag=True,
    help="ask again for the failed papers of each date only (done answers come from data/store)",
)
@click.option(
    "--pull",
    is_flag=True,
    help="restore what another machine ran from the DVC remote (dvc repro --pull): a date it pushed with "
    "`dvc push --run-cache` is checked out, not generated again",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    metavar="N",
    help="run N dates at a time, each a DVC experiment in its own workspace; Hugging Face is still asked one "
    "date after the other, arXiv at one pace for all of them, and llm.concurrency bounds the calls of all of "
    "them together",
)
def daily_command(
    date: str | None,
    start: str | None,
    end: str | None,
    no_catch_up: bool,
    params: str,
    force: bool,
    retry_failed: bool,
    pull: bool,
    jobs: int,
) -> int:
    if date and start:
        raise click.UsageError("--date and --from cannot be used together")
    plan = DatePlan(date, start, end, catch_up=not no_catch_up)
    return run_daily(Path(params), plan, force=force, retry_failed=retry_failed, pull=pull, jobs=jobs)


@click.command(
    "run",
    cls=Command,
    short_help="the date already in params.yaml, as `papers daily --date <it>` (engine included)",
    help="Run the pipeline for the date already in params.yaml, as `papers daily --date <it>` does (the "
    "managed engine included), or only the stages named (TARGETS: stages for dvc repro; default: all).",
    epilog=examples(
        "papers run             # every stage, for params.yaml's date",
        "papers run publish     # the stages up to publish",
    ),
)
@click.option("--params", default="params.yaml", help="the pipeline's parameters")
@click.option("--force", is_flag=True, help="pass --force to dvc repro (rerun every stage)")
@click.argument("targets", nargs=-1)
def run_command(params: str, force: bool, targets: tuple[str, ...]) -> int:
    return run_params_date(Path(params), force=force, targets=list(targets))


@dataclass
class Outcome:
    date: str
    code: int | None  # dvc repro's exit code; None: not run
    note: str = ""


def run_daily(params_path: Path, plan: DatePlan, *, force: bool, retry_failed: bool, pull: bool, jobs: int) -> int:
    """`papers daily`: the planned dates one after the other, or `jobs` at a time as DVC experiments."""
    with project_lock("papers daily"), sigterm_as_interrupt():
        params = _run_params(params_path)
        dates = plan_dates(plan, params, utc_yesterday())
        if retry_failed and not params.llm.reuse:
            raise ParamsError(
                f"{params_path}: llm.reuse is false: --retry-failed would ask again for every paper, not only "
                "the failed ones (it relies on data/store for the done answers)"
            )
        if jobs > 1 and len(dates) > 1 and not (force or retry_failed or pull):
            return run_parallel("papers daily", params_path, params, dates, jobs)
        targets = ["--pull"] if pull else []
        return run_batch("papers daily", params_path, params, dates, force=force, retry=retry_failed, targets=targets)


def run_params_date(params_path: Path, *, force: bool = False, targets: list[str] | None = None) -> int:
    """`papers run`: params.yaml's own date, the stages named or all of them."""
    with project_lock("papers run"), sigterm_as_interrupt():
        params = _run_params(params_path)
        return run_batch("papers run", params_path, params, [params.date], force=force, targets=targets)


def _run_params(params_path: Path) -> Params:
    """The params a run starts from, with what a managed engine needs checked before anything starts."""
    params = load_params(params_path)
    way_named(params.llm.asking, str(params_path))  # a way of asking that is no more fails before anything runs
    if unknown := unknown_areas(params.subscribers, str(params_path)):  # before anything runs, not at the end
        raise ParamsError("\n".join(unknown))
    if params.engine.kind != "none" and not params.llm.model:
        raise ParamsError(
            f"{params_path}: llm.model is empty: set it to the name the {params.engine.kind} engine should "
            "serve the model under (the stages send it with every request)"
        )
    return params


def run_batch(
    command: str,
    params_path: Path,
    params: Params,
    dates: list[str],
    *,
    force: bool = False,
    retry: bool = False,
    targets: list[str] | None = None,
) -> int:
    """`dvc repro` for each date in turn (one date's failure does not stop the others), on the batch's
    endpoint; then one line per date. A dead engine stops the batch: EngineDied after the summary."""
    print(f"{command}: {len(dates)} date(s): {', '.join(dates)}", flush=True)
    outcomes: list[Outcome] = []
    engine: ManagedEngine | None = None
    try:
        with endpoint_for_the_batch(params) as (watch, engine):
            for date in dates:
                if date != load_params(params_path).date:
                    set_params(params_path, {"date": date})
                print(f"{command}: {date}", flush=True)
                try:
                    code = retry_failed(watch) if retry else dvc_repro(*(targets or ()), force=force, watch=watch)
                    died = watch() if watch is not None else None
                    if code != 0 and died is not None:  # the stage saw the outage first; the death is the cause
                        raise EngineDied(died)
                except EngineDied:
                    outcomes.append(Outcome(date, 1, "the engine died"))
                    outcomes += [Outcome(d, None, "not run: the engine died") for d in dates[len(outcomes) :]]
                    _summary(command, outcomes, params)
                    raise
                outcomes.append(Outcome(date, code))
                if engine is not None and code == 0:
                    # the day's run record: the engine that served it, and what starting it cost the batch
                    record_engine_start(DB_PATH, date, engine.kind, engine.startup_s if len(outcomes) == 1 else 0.0)
    finally:
        if engine is not None and engine.startup_s is not None:
            _write_engine_records(engine, [o.date for o in outcomes if o.code is not None])
    return _summary(command, outcomes, params)


def run_parallel(command: str, params_path: Path, params: Params, dates: list[str], jobs: int) -> int:
    """Many dates at once (docs/experiments.md, "A parallel backfill"). Each date's list is made in this
    workspace, one date after the other (it picks against this database), its arXiv pages are fetched into
    the store by a thread, date after date, and the date is queued at once as a DVC experiment that runs the
    rest of the day to its report in a temporary workspace; `jobs` workers run them, each at its share of
    llm.concurrency, all of them with this workspace's store and its one arXiv pace (cli/backfill.py). As
    each experiment ends, in date order, a plain `dvc repro` here restores its stages from the run-cache and
    publishes the day. A date whose experiment failed is run here, serially (its done answers are in the
    store); the summary and exit code are as for one date after the other."""
    baseline = experiments.baseline()
    if baseline is None:
        raise ParamsError("--jobs needs a git commit here: DVC experiments start from one (git commit the project)")
    workers = min(jobs, params.llm.concurrency, len(dates))
    share = params.llm.concurrency // workers
    print(
        f"{command}: {len(dates)} date(s), generated {workers} at a time with {share} call(s) in flight each"
        + (f" (--jobs {jobs} capped by llm.concurrency {params.llm.concurrency})" if workers < jobs else ""),
        flush=True,
    )
    names = [backfill.experiment_name(date) for date in dates]
    started = time.monotonic()
    with endpoint_for_the_batch(params) as (watch, _engine):
        experiments.remove(names)  # a date run before from this commit would seem done at once
        run = backfill.ParallelRun(command, params_path, watch, started)
        pages, starts = backfill.PagesAhead(params), experiments.WorkerStarts(backfill.store_env())
        try:
            listed, queued = run.list_and_queue(dates, workers, share, pages, starts)
            queued_s = time.monotonic() - started
            alive = experiments.WorkersSeen()  # one for the run: it asks the workers at most every 10 s
            outcomes = [
                Outcome(date, run.restore_or_run(date, listed[date], date in queued, baseline, alive)) for date in dates
            ]
            pages.close()
        except BaseException:
            pages.close(wait=False)
            experiments.stop(names)
            raise
    print(f"{command}: lists made and dates queued in {queued_s:.0f} s; all done in {time.monotonic() - started:.0f} s")
    print(f"{command}: arXiv pages fetched ahead of the experiments: {pages.requests} request(s)", flush=True)
    for failure in pages.failures:
        print(f"{command}: fetching ahead failed for {failure}; its fulltext stage asked instead", flush=True)
    experiments.remove(names)
    return _summary(command, outcomes, params)


def plan_dates(plan: DatePlan, params: Params, yesterday: dt.date, db_path: Path = DB_PATH) -> list[str]:
    """The dates to run, oldest first: --date; --from/--to; else the days since the last one that ran to the
    end (its run record in the database), at most catch_up_days before yesterday, and yesterday itself, so
    a machine that was off for a few days catches up on its next run."""
    if plan.date:
        return [_day(plan.date, "--date").isoformat()]
    if plan.start or plan.end:
        if not plan.start:
            raise ParamsError("--to needs --from")
        start, end = _day(plan.start, "--from"), _day(plan.end, "--to") if plan.end else yesterday
        if end < start:
            raise ParamsError(f"--from {start} is after --to {end}")
        if (end - start).days >= MAX_RANGE_DAYS:
            raise ParamsError(f"--from {start} --to {end} spans more than {MAX_RANGE_DAYS} days")
        return _days(start, end)
    last = last_run_date(db_path, before=yesterday.isoformat())
    if not plan.catch_up or last is None:
        return [yesterday.isoformat()]
    start = max(dt.date.fromisoformat(last) + dt.timedelta(days=1), yesterday - dt.timedelta(days=params.catch_up_days))
    return _days(min(start, yesterday), yesterday)


def _days(start: dt.date, end: dt.date) -> list[str]:
    return [(start + dt.timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]


def utc_yesterday() -> dt.date:
    return dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)


@contextlib.contextmanager
def endpoint_for_the_batch(params: Params) -> Iterator[tuple[Watch | None, ManagedEngine | None]]:
    """The endpoint every date of the batch uses: llm.base_url, checked once; or the managed engine, started
    once, watched while the stages run, and stopped on the way out (success, failure, Ctrl-C, SIGTERM)."""
    if params.engine.kind == "none":
        asyncio.run(check_llm_endpoint(params.llm))  # before anything is changed or fetched
        yield None, None
        return
    engine = ManagedEngine.from_params(params)
    print(f"papers: starting the {engine.kind} engine: {' '.join(engine.command)}", flush=True)
    print(f"papers: its log: {engine.log_path}; waiting up to {engine.startup_timeout_s:g} s for it", flush=True)
    with engine:
        print(f"papers: engine ready on {engine.url} after {engine.startup_s:.1f} s", flush=True)
        asyncio.run(check_llm_endpoint(params.llm))
        yield engine.death_report, engine
    print(f"papers: the {engine.kind} engine stopped", flush=True)


def retry_failed(watch: Watch | None = None) -> int:
    """The date's failed papers asked again, nothing else: the day is brought up to date, then both
    generation stages rerun on their own (a done paper's requests are answered from data/store, a failed
    one's are not there: rejected answers and errors are never stored), then publish and the report."""
    for step in ((), ("--force", "--single-item", "digest_en"), ("--force", "--single-item", "translate_zh"), ()):
        code = dvc_repro(*step, watch=watch)
        if code != 0:
            return code
    return 0


def _write_engine_records(engine: ManagedEngine, dates: list[str]) -> None:
    """data/<date>/engine.json (not a DVC output) for each date the engine served: kind, model, start-up
    seconds (on the first date, the one that paid for them), when it started and stopped."""
    for n, date in enumerate(dates):
        record = {**engine.record(), "startup_s": engine.startup_s if n == 0 else 0.0, "dates_in_batch": len(dates)}
        write_json(Path("data") / date / "engine.json", record)
    if dates:
        print(f"papers: engine record written to data/<date>/engine.json for {len(dates)} date(s)")


def _summary(command: str, outcomes: list[Outcome], params: Params) -> int:
    """One line per date, then the alert when a date failed or a day went bad (cli/alerts.py), then each date's
    digest or notice to the subscribers (cli/deliveries.py); exit 0 only when every date ran to the end."""
    failed = 0
    for outcome in outcomes:
        if outcome.code == 0:
            counts = run_summary(DB_PATH, outcome.date)
            shown = f"{counts[0]} papers done, {counts[1]} failed" if counts else "done"
            print(f"{command}: {outcome.date}: ok ({shown})")
        else:
            failed += 1
            why = outcome.note or f"dvc repro exited with {outcome.code}; see above"
            print(f"{command}: {outcome.date}: FAILED ({why})")
    if len(outcomes) > 1:
        print(f"{command}: {len(outcomes) - failed} of {len(outcomes)} dates ok")
    finished = [(o.date, None if o.code == 0 else o.note or f"dvc repro exited with {o.code}") for o in outcomes]
    alerted = send_alert(command, params.alerts, date_runs(DB_PATH, finished))
    deliver_days(params, [(o.date, o.code == 0) for o in outcomes], DB_PATH, command, alerted=alerted > 0)
    return 1 if failed else 0


def _day(value: str, flag: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ParamsError(f"{flag} must be a date written YYYY-MM-DD, got {value!r}") from None
