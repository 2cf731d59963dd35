"""DVC's experiments and their queue: every use papers makes of them, through DVC's own API and commands.

`papers daily --jobs N` (cli/backfill.py, cli/runs.py) queues each date as an experiment, starts the queue's
workers, watches the queue's status and workers, and removes or kills what an interrupted run leaves;
`papers compare` (cli/compare.py) runs each candidate as a temporary experiment and reads what it committed.
What this relies on (`ExpRefInfo`, `repo.experiments.run(queue=True)` and `.remove`, the celery queue's
`status()`, its Celery app (`control.inspect`), `get_ref_and_entry_by_names`, `remove`, `kill`, `DVCFileSystem`
at a ref) is DVC's, held to the minor version it is tested with (pyproject.toml); tests/test_dvc.py runs each of
these functions against the installed DVC, so an upgrade that changes one fails there first. DVC is imported
inside the functions: `papers --help` and the commands that use no experiment do not pay for it.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterable, Iterator

from papers_digest.cli.project import dvc_env, dvc_executable, git_output, run_dvc_command

# What the queue's status calls an experiment waiting for a worker or run by one (`dvc queue status`).
PENDING = ("Queued", "Running")
# How long a worker has to answer. DVC's queue is a file-system broker that each worker reads once a second
# (kombu's polling interval); DVC's own `worker_status()` waits 1 s, so on busy cores it missed a live worker
# every time for a minute (a CI run). Asked with a limit of one answer, a live worker ends the wait at once.
ANSWER_S = 5.0


def experiment_ref(baseline: str, name: str) -> str:
    """The git ref DVC commits an experiment under, for the commit it started from."""
    from dvc.repo.experiments.refs import ExpRefInfo

    return str(ExpRefInfo(baseline, name))


def committed(baseline: str, name: str) -> bool:
    """Whether the experiment ended well: DVC committed it under its ref."""
    return git_output("rev-parse", "--verify", "--quiet", experiment_ref(baseline, name)) is not None


def queue(name: str, targets: list[str], settings: list[str]) -> str | None:
    """`dvc exp run --queue -n <name> -S <settings> <targets>`, in this process: None once queued, else DVC's
    reason. A `dvc` command per date spent about 1.3 s of CPU importing DVC's queue (celery, hydra, networkx)
    again, in the serial pass that every worker's first date waits on."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    try:
        with Repo(".") as repo:  # a new one each time: params.yaml has changed since the last
            repo.experiments.run(targets=targets, params=settings, queue=True, name=name)
    except DvcException as exc:
        return str(exc)
    return None


def pending_names() -> set[str]:
    """The names of the experiments queued or running in this project's queue."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        return {task["name"] for task in repo.experiments.celery_queue.status() if task["status"] in PENDING}


def workers_alive() -> bool:
    """Whether a worker of this project's queue answers within ANSWER_S."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        inspect = repo.experiments.celery_queue.celery.control.inspect(timeout=ANSWER_S, limit=1)
        return bool(inspect.ping())


class WorkersSeen:
    """`workers_alive`, asked at most every `every_s` (an asking waits up to ANSWER_S); in between, the last answer."""

    def __init__(self, every_s: float = 10.0) -> None:
        self.every_s = every_s
        self._asked_at: float | None = None
        self._alive = True

    def __call__(self) -> bool:
        now = time.monotonic()
        if self._asked_at is None or now - self._asked_at >= self.every_s:
            self._alive, self._asked_at = workers_alive(), now
        return self._alive


class WorkerStarts:
    """`dvc queue start -j N` in the background, one start at a time: its 2-3 s of waking DVC's queue are not
    spent in the serial pass of lists and queueing. Each start carries `env` (the main workspace's store), which
    the workers and their stages inherit. The workers outlive this run by 10 s or more: they get no standard
    output or error of ours, or a caller reading `papers daily`'s output to its end would wait for them (DVC
    keeps their logs, `dvc queue logs`)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {**dvc_env(), **env}
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


def remove(names: Iterable[str]) -> list[str]:
    """Remove the named experiments, committed or still in the queue (as `dvc exp remove`), skipping the names
    DVC has none of (it would refuse them all for one); the names removed."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        found = repo.experiments.celery_queue.get_ref_and_entry_by_names(list(names))
        known = [name for name, match in found.items() if match.exp_ref_info or match.queue_entry]
        if known:
            repo.experiments.remove(exp_names=known)
    return known


def stop(names: Iterable[str]) -> None:
    """On an interrupt: the named experiments still queued are taken off the queue, those running are killed
    (one that started meanwhile too); one that ended meanwhile is left as it is."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    wanted = set(names)
    with Repo(".") as repo:
        tasks = repo.experiments.celery_queue
        for task in tasks.status():
            if task["name"] not in wanted:
                continue
            if task["status"] == "Queued":
                try:
                    tasks.remove([task["name"]])
                    continue
                except DvcException:  # no longer queued: started since
                    pass
            if task["status"] in PENDING:
                with contextlib.suppress(DvcException):
                    tasks.kill([task["name"]])


def run_temporary(name: str, args: list[str]) -> int:
    """`dvc exp run --temp -n <name> <args>` in the foreground, its output shown: DVC's exit code."""
    return run_dvc_command("exp", "run", "--temp", "-n", name, *args)


def read_files(baseline: str, name: str, paths: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """(path, content) of every file at or under each of `paths` in the experiment's commit, from its git
    tree and DVC's cache."""
    from dvc.api import DVCFileSystem

    fs = DVCFileSystem(".", rev=experiment_ref(baseline, name))
    for path in paths:
        for found in [path] if fs.isfile(path) else sorted(fs.find(path)):
            yield found, fs.read_bytes(found)
