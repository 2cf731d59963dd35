"""The DVC queue a parallel backfill runs its dates through: queue a date, start the workers, watch each one;
and the arXiv pages of each date fetched ahead of its experiment.

`papers daily --jobs N` (cli/runs.py) makes each date one experiment, `dvc exp run --queue` with the date
set, run to the report in its own temporary workspace by `dvc queue start -j N`'s workers. The workers are
started by a `dvc queue start` that carries the main workspace's store in its environment (core/store.py,
STORE_ENV), so every worker's stages read and write that store and keep its one arXiv pace. Meanwhile
`PagesAhead` fetches each listed date's pages into it, one date after the other, so arXiv is asked from the
first list on and a date's experiment mostly finds its pages there. An experiment has ended well when DVC has
committed it under its ref; it has failed when it is neither queued, running nor committed, or when it stays
queued or running while no worker of this project's queue is alive (a worker killed mid-experiment leaves
its task "running" for good in DVC's queue; the date then runs in the main workspace instead).
"""

from __future__ import annotations

import asyncio
import hashlib
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from papers_digest.cli.project import dvc_env, dvc_executable, git_output, run_dvc_command
from papers_digest.core.artefacts import read_model
from papers_digest.core.models import DayList
from papers_digest.core.params import Params
from papers_digest.core.store import STORE_ENV, Store
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
    """`dvc exp run --queue -n daily-<date> -S <queue_settings> report`, through DVC's API in this process: a
    `dvc` command per date spent about 1.3 s of CPU importing DVC's queue (celery, hydra, networkx) again,
    in the serial pass that every worker's first date waits on. False, with DVC's reason printed, when DVC
    refused it (the date then runs here)."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    try:
        with Repo(".") as repo:  # a new one each time: params.yaml has changed since the last
            repo.experiments.run(
                targets=[TARGET], params=queue_settings(date, share), queue=True, name=experiment_name(date)
            )
    except DvcException as exc:
        print(f"dvc exp run --queue: {date}: {exc}", flush=True)
        return False
    return True  # DVC said "Queued experiment 'daily-<date>' for future execution."


class WorkerStarts:
    """`dvc queue start -j N` in the background, one start at a time: its 2-3 s of waking DVC's queue are not
    spent in the serial pass of lists and queueing. Each start carries the main workspace's store in the
    environment the workers and their stages inherit: a temporary workspace's own store would be empty, thrown
    away, and keep an arXiv pace of its own. The workers outlive this run by 10 s or more: they get no standard
    output or error of ours, or a caller reading `papers daily`'s output to its end would wait for them (DVC
    keeps their logs, `dvc queue logs`)."""

    def __init__(self, store: Path = Path("data/store")) -> None:
        self.env = {**dvc_env(), STORE_ENV: str(store.resolve())}
        self.failed = False
        self._running: subprocess.Popen[bytes] | None = None

    def start(self, workers: int) -> bool:
        """Start the workers numbered 1..workers that are not running (DVC skips the live ones), once the last
        start has ended; False, starting nothing, once a start has failed."""
        if not self.wait():
            return False
        command = [dvc_executable(), "queue", "start", "-j", str(workers)]
        quiet = subprocess.DEVNULL
        self._running = subprocess.Popen(command, env=self.env, stdin=quiet, stdout=quiet, stderr=quiet)
        return True

    def wait(self) -> bool:
        """Wait for the start under way; whether every start so far succeeded."""
        if self._running is not None:
            self.failed |= self._running.wait() != 0
            self._running = None
        return not self.failed


def pending_names() -> set[str]:
    """The names of the experiments queued or running in this project's DVC queue."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        queue = repo.experiments.celery_queue
        return {e.name for e in (*queue.iter_queued(), *queue.iter_active()) if e.name}


def experiment_ref(baseline: str, name: str) -> str:
    """The git ref DVC keeps an experiment under: refs/exps/<baseline[:2]>/<baseline[2:]>/<name>."""
    return f"refs/exps/{baseline[:2]}/{baseline[2:]}/{name}"


def committed(baseline: str, name: str) -> bool:
    return git_output("rev-parse", "--verify", "--quiet", experiment_ref(baseline, name)) is not None


def worker_prefix() -> str:
    """The start of this project's queue workers' node names (`dvc-exp-<hash of the queue's folder>-<n>`, as
    DVC's celery queue names them), which their command lines carry."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        folder = repo.experiments.celery_queue.wdir
    return f"dvc-exp-{hashlib.sha256(folder.encode('utf-8')).hexdigest()[:6]}-"


def workers_alive(prefix: str, proc: Path = Path("/proc")) -> bool:
    """Whether a queue worker whose node name starts with `prefix` runs; True where /proc cannot tell."""
    if not proc.is_dir():
        return True
    wanted = prefix.encode("utf-8")
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:  # the process ended while we looked
            continue
        if b"queue-worker" in command and wanted in command:
            return True
    return False


def wait_for(
    baseline: str,
    name: str,
    watch: Callable[[], None] | None = None,
    pending: Callable[[], set[str]] = pending_names,
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
        if committed(baseline, name):
            return "done"
        if name in pending():
            missing = 0
            if alive is None or alive():
                orphaned_since = None
            elif orphaned_since is None:
                orphaned_since = time.monotonic()
            elif time.monotonic() - orphaned_since >= gone_s:
                return "failed"
        elif committed(baseline, name):
            return "done"
        else:
            missing += 1
            if missing >= 2:
                return "failed"
        if watch is not None:
            watch()
        time.sleep(POLL_S)


def stop(names: list[str]) -> None:
    """On an interrupt: the run's experiments still queued are removed and those running are killed."""
    run_dvc_command("queue", "remove", *names, quiet=True)
    run_dvc_command("queue", "kill", *names, quiet=True)


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
