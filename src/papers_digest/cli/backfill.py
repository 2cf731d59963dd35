"""`papers backfill`: many past days at once: lists and full texts one day after the other, generation as
parallel DVC experiments, then each day restored from DVC's run-cache into the workspace, database and site.

Hugging Face and arXiv are asked serially (arXiv wants 3 s between requests), in the main workspace; only
the generation, the slow part, runs N days at a time, each day in its own temporary workspace
(`dvc exp run --queue`, then `dvc exp run --run-all -j N`). Stage runs there land in the shared run-cache,
so the last pass, a plain `dvc repro` per day, restores them and only publish and the report run
(docs/experiments.md, "A parallel backfill").
"""

from __future__ import annotations

import argparse
from pathlib import Path

from papers_digest.cli.compare import CompareError, git_output, run_dvc_command
from papers_digest.cli.project import dvc_repro, project_lock, set_params, sigterm_as_interrupt
from papers_digest.cli.runs import Outcome, _summary, endpoint_for_the_batch, plan_dates, utc_yesterday
from papers_digest.core.errors import ConfigError
from papers_digest.core.params import load_params

GENERATED = "translate_zh"  # an experiment runs the pipeline up to here; publish needs the main database


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "backfill",
        help="many past days at once: fetched one day after the other, generated N days in parallel",
        description="Run many past days at once: each day's list and full texts are fetched one day after the "
        "other (Hugging Face and arXiv are asked as politely as by papers daily), the generation stages run "
        "for --jobs days at a time as DVC experiments in temporary workspaces, then each day is restored from "
        "DVC's run-cache into the workspace, the database and the site, as papers daily would leave it. A day "
        "picks its papers without knowing the range's earlier days' digests (docs/experiments.md).",
        epilog="""examples:
  papers backfill --from 2025-03-01 --to 2025-03-31 --jobs 4
  papers backfill --date 2025-04-02 --date 2025-04-03""",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--date", dest="dates", action="append", metavar="DATE", help="a day (repeatable)")
    which.add_argument("--from", dest="start", metavar="DATE", help="the first day of a range (with --to)")
    parser.add_argument("--to", dest="end", metavar="DATE", help="the last day of a range (default: yesterday)")
    parser.add_argument("--jobs", type=int, default=2, help="days generated at once (each at llm.concurrency)")
    parser.add_argument("--params", default="params.yaml", help="the pipeline's parameters")
    parser.set_defaults(func=cmd_backfill)


def experiment_name(date: str) -> str:
    return f"backfill-{date}"


def queue_args(date: str) -> list[str]:
    """One day's generation queued as an experiment: list and fulltext restore from the run-cache there."""
    return ["exp", "run", "--queue", "-n", experiment_name(date), "-S", f"date={date}", GENERATED]


def cmd_backfill(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise ConfigError(f"--jobs must be 1 or more, got {args.jobs}")
    params_path = Path(args.params)
    command = "papers backfill"
    with project_lock(command), sigterm_as_interrupt():
        params = load_params(params_path)
        if args.dates:
            dates = sorted({plan_dates(_one(d), params, utc_yesterday())[0] for d in args.dates})
        else:
            dates = plan_dates(_one(None, args.start, args.end), params, utc_yesterday())
        if git_output("rev-parse", "HEAD") is None:
            raise CompareError("no git commit here: DVC experiments start from one (git commit the project first)")
        print(f"{command}: {len(dates)} date(s), {args.jobs} at a time: {', '.join(dates)}", flush=True)
        outcomes: list[Outcome] = []
        with endpoint_for_the_batch(params) as (watch, _engine):
            for date in dates:  # HF and arXiv: one day after the other, in the main workspace
                set_params(params_path, {"date": date})
                print(f"{command}: {date}: list and full texts", flush=True)
                dvc_repro("fulltext", watch=watch)
            for date in dates:  # the generation: --jobs days at a time, each in a temporary workspace
                run_dvc_command("exp", "remove", experiment_name(date), quiet=True)
                run_dvc_command(*queue_args(date))
            print(f"{command}: generating {len(dates)} date(s), {args.jobs} at a time", flush=True)
            run_dvc_command("exp", "run", "--run-all", "-j", str(args.jobs))
            for date in dates:  # each day restored from the run-cache; a day whose experiment failed runs here
                set_params(params_path, {"date": date})
                print(f"{command}: {date}: restore and publish", flush=True)
                outcomes.append(Outcome(date, dvc_repro(watch=watch)))
        run_dvc_command("exp", "remove", *(experiment_name(d) for d in dates), quiet=True)
        return _summary(command, outcomes, params)


def _one(date: str | None, start: str | None = None, end: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(date=date, start=start, end=end, no_catch_up=True)
