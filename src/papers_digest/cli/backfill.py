"""The DVC queue a parallel backfill runs its dates through: queue a date, start the workers, watch each one.

`papers daily --jobs N` (cli/runs.py) makes each date one experiment, `dvc exp run --queue` with the date
set, run to the report in its own temporary workspace by `dvc queue start -j N`'s workers. The workers are
started by a `dvc queue start` that carries the arXiv pace file in its environment (pipeline/fulltexts.py,
PACE_FILE_ENV), so the full texts of every worker share one pace. An experiment has ended well when DVC has
committed it under its ref; it has failed when it is neither queued, running nor committed, or when it stays
queued or running while no worker of this project's queue is alive (a worker killed mid-experiment leaves
its task "running" for good in DVC's queue; the date then runs in the main workspace instead).
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from papers_digest.cli.project import dvc_env, dvc_executable, git_output, run_dvc_command
from papers_digest.pipeline.fulltexts import ARXIV_PACE_FILE, PACE_FILE_ENV

State = Literal["pending", "done", "failed"]
TARGET = "report"  # an experiment runs the whole date; the main workspace then restores every stage but publish
POLL_S = 1.0
# A date queued or running this long with no worker of the queue alive has lost its worker: it failed. Longer
# than the moments between a date queued and `dvc queue start` (workers start once each has a date).
WORKERS_GONE_S = 60.0


def experiment_name(date: str) -> str:
    return f"daily-{date}"


def queue_args(date: str, share: int) -> list[str]:
    """`dvc exp run --queue` for one date: its own name, the date, its share of llm.concurrency, to the report."""
    settings = ["-S", f"date={date}", "-S", f"llm.concurrency={share}"]
    return ["exp", "run", "--queue", "-n", experiment_name(date), *settings, TARGET]


def start_workers(workers: int, store: Path = Path("data/store")) -> int:
    """`dvc queue start -j workers`, with the main workspace's arXiv pace file in the environment the
    workers inherit: a worker's own store is its temporary workspace's, so its pace would be its own. The
    workers outlive this run by 10 s or more: they get no standard output or error of ours, or a caller
    reading `papers daily`'s output to its end would wait for them (DVC keeps their logs, `dvc queue logs`)."""
    env = {**dvc_env(), PACE_FILE_ENV: str((store / ARXIV_PACE_FILE).resolve())}
    command = [dvc_executable(), "queue", "start", "-j", str(workers)]
    quiet = subprocess.DEVNULL
    return subprocess.run(command, env=env, stdin=quiet, stdout=quiet, stderr=quiet).returncode


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
