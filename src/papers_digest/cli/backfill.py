"""A parallel backfill's dates as DVC experiments: what each is queued with, the wait for its end; and the
arXiv pages of each date fetched ahead of its experiment.

`papers daily --jobs N` (cli/runs.py) makes each date one experiment, queued with the date set and run to the
report in its own temporary workspace by the queue's workers (pipeline/experiments.py, every use of DVC's queue).
The workers are started with the main workspace's store in their environment (core/store.py, STORE_ENV), so
every worker's stages read and write that store and keep its one arXiv pace. Meanwhile `PagesAhead` fetches
each listed date's pages into it, one date after the other, so arXiv is asked from the first list on and a
date's experiment mostly finds its pages there. An experiment has ended well when DVC has committed it under
its ref; it has failed when it is neither queued, running nor committed, or when it stays queued or running
while no worker of this project's queue answers (a worker killed mid-experiment leaves its task "running" for
good in DVC's queue; the date then runs in the main workspace instead).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from papers_digest.cli.project import EngineDied, Watch, dvc_repro, set_params
from papers_digest.core.artefacts import read_model
from papers_digest.core.models import DayList
from papers_digest.core.params import Params
from papers_digest.core.store import STORE_ENV, Store
from papers_digest.pipeline import experiments
from papers_digest.pipeline.fulltexts import prefetch_pages

State = Literal["pending", "done", "failed"]
TARGET = "report"  # an experiment runs the whole date; the main workspace then restores every stage but publish
POLL_S = 1.0
# A date queued or running this long with no worker of the queue alive has lost its worker: it failed. Longer
# than the moments between a date queued and `dvc queue start` (workers start once each has a date).
WORKERS_GONE_S = 60.0


def experiment_name(date: str) -> str:
    return f"daily-{date}"


def queue_settings(date: str, share: int) -> list[str]:
    """What `dvc exp run --queue` sets for one date (`-S`): the date, its share of llm.concurrency."""
    return [f"date={date}", f"llm.concurrency={share}"]


def queue_date(date: str, share: int) -> bool:
    """The date queued as its experiment, run to the report; False, with DVC's reason printed, when DVC refused
    it (the date then runs here)."""
    refused = experiments.queue(experiment_name(date), [TARGET], queue_settings(date, share))
    if refused is not None:
        print(f"dvc exp run --queue: {date}: {refused}", flush=True)
    return refused is None


@dataclass(frozen=True)
class ParallelRun:
    """One `papers daily --jobs N` run in the main workspace: each date's list made here and the date queued, then,
    as each experiment ends, the date restored and published here (or run here)."""

    command: str
    params_path: Path
    watch: Watch | None
    started: float  # time.monotonic() at the start, for the progress lines

    def list_and_queue(
        self, dates: list[str], workers: int, share: int, pages: PagesAhead, starts: experiments.WorkerStarts
    ) -> tuple[dict[str, int], set[str]]:
        """Each date's list made here, one date after the other (Hugging Face, against this database), its pages
        handed to `pages`, and the date queued, a worker started for each of the first `workers`: (each date's
        list exit code, the dates queued)."""
        names = [experiment_name(date) for date in dates]
        listed: dict[str, int] = {}
        queued: set[str] = set()
        parallel = True
        for date in dates:
            set_params(self.params_path, {"date": date})
            print(f"{self.command}: {date}: list, then queued", flush=True)
            listed[date] = dvc_repro("list", watch=self.watch)
            if listed[date] == 0:
                pages.add(date)
            if listed[date] != 0 or not parallel or not queue_date(date, share):
                continue
            queued.add(date)
            if len(queued) <= workers:  # one more worker, for this date: one that found none would stop after 10 s
                parallel = workers_started(self.command, starts.start(len(queued)), names, queued)
        if parallel and queued:  # again, for a worker that ended early; then every start must have worked
            workers_started(self.command, starts.start(workers) and starts.wait(), names, queued)
        return listed, queued

    def restore_or_run(self, date: str, listed: int, queued: bool, baseline: str, alive: Callable[[], bool]) -> int:
        """One date once its experiment ended: restored from the run-cache and published here, or run here when
        its experiment failed or it was never queued (`dvc repro`'s exit code); a failed list's code as it is."""
        if listed != 0:
            return listed
        state = wait_for(baseline, experiment_name(date), raise_on(self.watch), alive=alive) if queued else "failed"
        set_params(self.params_path, {"date": date})
        doing = {"done": "restore and publish", "failed": "its experiment failed: run here"}[state]
        doing = doing if queued else "run here"
        print(f"{self.command}: {date}: {doing} ({time.monotonic() - self.started:.0f} s in)", flush=True)
        return dvc_repro(watch=self.watch)


def workers_started(command: str, started: bool, names: list[str], queued: set[str]) -> bool:
    """When `dvc queue start` failed, the queued dates are taken off the queue (they then run here)."""
    if started:
        return True
    print(f"{command}: dvc queue start failed: the dates run here, one after the other", flush=True)
    experiments.stop(names)
    queued.clear()
    return False


def raise_on(watch: Watch | None) -> Callable[[], None] | None:
    """A poll that raises EngineDied when `watch` reports the engine's death."""
    if watch is None:
        return None

    def check() -> None:
        reason = watch()
        if reason is not None:
            raise EngineDied(reason)

    return check


def store_env(store: Path = Path("data/store")) -> dict[str, str]:
    """What the workers are started with: the main workspace's store, which they and their stages inherit. A
    temporary workspace's own store would be empty, thrown away, and keep an arXiv pace of its own."""
    return {STORE_ENV: str(store.resolve())}


def wait_for(
    baseline: str,
    name: str,
    watch: Callable[[], None] | None = None,
    pending: Callable[[], set[str]] = experiments.pending_names,
    alive: Callable[[], bool] | None = None,
    gone_s: float = WORKERS_GONE_S,
) -> State:
    """Wait until the experiment is committed ("done") or gone from the queue without a commit ("failed",
    seen twice, POLL_S apart: a task moving from queued to running is briefly in neither list), or until it
    has waited gone_s with `alive` saying no worker runs ("failed"). `watch` is called at each poll (it
    raises when the run must stop)."""
    missing = 0
    orphaned_since: float | None = None
    while True:
        if experiments.committed(baseline, name):
            return "done"
        if name in pending():
            missing = 0
            if alive is None or alive():
                orphaned_since = None
            elif orphaned_since is None:
                orphaned_since = time.monotonic()
            elif time.monotonic() - orphaned_since >= gone_s:
                return "failed"
        elif experiments.committed(baseline, name):
            return "done"
        else:
            missing += 1
            if missing >= 2:
                return "failed"
        if watch is not None:
            watch()
        time.sleep(POLL_S)


class PagesAhead:
    """A thread that puts each date's arXiv pages in the store as soon as the date is listed, one date after the
    other, each in its date's turn and at arXiv's pace (pipeline/fulltexts.py): the system this re-implements
    fetches the full texts first, then generates in parallel. A date's experiment then finds its pages there
    and takes no turn; what this could not fetch, the date's own fulltext stage asks for. A daemon thread, so
    an interrupted run does not wait for its request to end."""

    def __init__(self, params: Params, store: Path = Path("data/store"), data: Path = Path("data")) -> None:
        self.params, self.store, self.data = params, store, data
        self.requests = 0
        self.failures: list[str] = []
        self._dates: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arxiv-ahead", daemon=True)
        self._thread.start()

    def add(self, date: str) -> None:
        """Fetch the date's pages, unless it already has its full texts here (a rerun restores them)."""
        if not (self.data / date / "fulltext").is_dir():
            self._dates.put(date)

    def close(self, wait: bool = True) -> None:
        """Stop after the dates added (wait) or after the page being fetched (not)."""
        if not wait:
            self._stop.set()
        self._dates.put(None)
        if wait:
            self._thread.join()

    def _run(self) -> None:
        while (date := self._dates.get()) is not None and not self._stop.is_set():
            try:
                papers = read_model(self.data / date / "list.json", DayList).picked_papers()
                store = Store(self.store)
                self.requests += asyncio.run(prefetch_pages(self.params, papers, store, self._stop))
            except Exception as exc:  # the date's own fulltext stage fetches what this could not
                self.failures.append(f"{date}: {exc}")
