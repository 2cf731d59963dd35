"""DVC's experiments, their queue and their workspaces: every use papers makes of them, in one module.

`papers daily --jobs N` (cli/backfill.py, cli/runs.py) queues each date as an experiment, starts the queue's
workers, watches the queue's status and workers, and removes or kills what an interrupted run leaves;
`papers compare` (cli/compare.py) records a day's frozen outputs in dvc.lock, runs each candidate as a temporary
experiment and reads what it committed; the publish stage asks whether it runs in a temporary workspace. DVC is
imported inside the functions: a stage's start, `papers --help` and the commands that use no experiment do not
pay for importing it.

Through DVC's documented interfaces where they have the use: its commands (`dvc exp run --temp`, `dvc queue
start`, `dvc commit`), `dvc.api.DVCFileSystem` at an experiment's ref, and the environment DVC sets in a stage
(`DVC_ROOT`, `DVC_EXP_NAME`: dvc.org/doc/user-guide/env). Each reach past them says why where it is made:
`ExpRefInfo`, `repo.experiments.run(queue=True)` and `.remove`, the celery queue's `status()`, `remove`, `kill`,
`get_ref_and_entry_by_names` and its Celery app (`control.inspect`). DVC is held to the minor version these are
tested with (pyproject.toml), and tests/test_dvc.py runs each function here against the installed DVC, so an
upgrade that changes one fails there first.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from papers_digest.core.errors import PipelineError

LOCK = Path("dvc.lock")


class ExperimentError(PipelineError):
    """DVC could not do what an experiment needs; the message says what, and the command to try by hand."""

    label = ""


def dvc_env() -> dict[str, str]:
    """The environment DVC runs in: this interpreter's bin folder first on PATH, so stages run our Python."""
    bin_dir = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "DVC_NO_ANALYTICS": "1"}


def dvc_executable() -> str:
    return shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc") or "dvc"


def run_dvc_command(*args: str, quiet: bool = False) -> int:
    """`dvc <args>` in the foreground (`quiet`: its output discarded) -> its exit code."""
    output = subprocess.DEVNULL if quiet else None
    return subprocess.run([dvc_executable(), *args], env=dvc_env(), stdout=output, stderr=output).returncode


def git_output(*args: str) -> str | None:
    """`git <args>`'s stripped output, or None when it failed or printed nothing."""
    done = subprocess.run(["git", *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


# What the queue's status calls an experiment waiting for a worker or run by one (`dvc queue status`).
PENDING = ("Queued", "Running")
# How long a worker has to answer. DVC's queue is a file-system broker that each worker reads once a second
# (kombu's polling interval); DVC's own `worker_status()` waits 1 s, so on busy cores it missed a live worker
# every time for a minute (a CI run). Asked with a limit of one answer, a live worker ends the wait at once.
ANSWER_S = 5.0


def baseline() -> str | None:
    """The commit experiments start from (git HEAD), or None outside a git repository with a commit."""
    return git_output("rev-parse", "HEAD")


def experiment_ref(baseline: str, name: str) -> str:
    """The git ref DVC commits an experiment under, for the commit it started from.

    Past DVC's API: `ExpRefInfo` spells the ref (refs/exps/...), which `DVCFileSystem` reads the experiment's files
    at and `committed` looks up with one git command; DVC documents no function for it, and `dvc exp show` takes
    seconds where a git lookup takes milliseconds, for each date a backfill polls."""
    from dvc.repo.experiments.refs import ExpRefInfo

    return str(ExpRefInfo(baseline, name))


def committed(baseline: str, name: str) -> bool:
    """Whether the experiment ended well: DVC committed it under its ref."""
    return git_output("rev-parse", "--verify", "--quiet", experiment_ref(baseline, name)) is not None


def queue(name: str, targets: list[str], settings: list[str]) -> str | None:
    """`dvc exp run --queue -n <name> -S <settings> <targets>`, in this process: None once queued, else DVC's
    reason. Past DVC's API (`Repo.experiments.run`), since a `dvc` command per date spent about 1.3 s of CPU
    importing DVC's queue (celery, hydra, networkx) again, in the serial pass that every worker's first date
    waits on."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    try:
        with Repo(".") as repo:  # a new one each time: params.yaml has changed since the last
            repo.experiments.run(targets=targets, params=settings, queue=True, name=name)
    except DvcException as exc:
        return str(exc)
    return None


def pending_names() -> set[str]:
    """The names of the experiments queued or running in this project's queue. Past DVC's API (the celery queue's
    `status()`): `dvc queue status` prints a table for people and has no machine-readable form."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        return {task["name"] for task in repo.experiments.celery_queue.status() if task["status"] in PENDING}


def workers_alive() -> bool:
    """Whether a worker of this project's queue answers within ANSWER_S. Past DVC's API, to its Celery app
    (`control.inspect`): DVC's own `worker_status()` waits 1 s and missed live workers on busy cores (ANSWER_S)."""
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
    DVC has none of; the names removed. Past DVC's API (`get_ref_and_entry_by_names`, `experiments.remove`):
    `dvc exp remove` refuses every name when one of them is unknown."""
    from dvc.repo import Repo

    with Repo(".") as repo:
        found = repo.experiments.celery_queue.get_ref_and_entry_by_names(list(names))
        known = [name for name, match in found.items() if match.exp_ref_info or match.queue_entry]
        if known:
            repo.experiments.remove(exp_names=known)
    return known


def stop(names: Iterable[str]) -> None:
    """On an interrupt: the named experiments still queued are taken off the queue, those running are killed
    (one that started meanwhile too); one that ended meanwhile is left as it is. Past DVC's API (the celery
    queue's `status`, `remove`, `kill`): one process reads the queue and acts on it, where `dvc queue status`,
    `remove` and `kill` would each spend seconds importing the queue while the user waits on Ctrl-C."""
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


@contextlib.contextmanager
def outputs_in_lock(
    stages: Sequence[str], workspace_params: Callable[[], contextlib.AbstractContextManager[object]]
) -> Iterator[None]:
    """dvc.lock recording `stages`' outputs as the workspace holds them (`dvc commit --force`, while
    `workspace_params()` sets the params they were made with) for the experiments run meanwhile, then put back as
    it was.

    Before an experiment reproduces, DVC checks out the stages it runs and their deps in its workspace, from
    that workspace's dvc.lock, and deletes a dep the lock has no hash for: a day copied in with -C is gone
    before the stage that reads it starts ("fulltext: not found"). The main workspace's lock holds the last date it
    ran, and is often untracked by git (so not in the experiment's workspace at all). So the outputs are recorded
    in the lock, and the lock is copied in too (-C dvc.lock)."""
    before = LOCK.read_bytes() if LOCK.is_file() else None
    try:
        with workspace_params():
            if run_dvc_command("commit", "--force", *stages, quiet=True) != 0:
                listed = " ".join(stages)
                raise ExperimentError(f"dvc commit of {listed} failed (dvc commit --force {listed})")
        yield
    finally:
        if before is None:
            LOCK.unlink(missing_ok=True)
        else:
            LOCK.write_bytes(before)


def in_temporary_workspace(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> bool:
    """Whether a stage runs in the temporary workspace of a DVC experiment (queued, or `dvc exp run --temp`),
    which DVC deletes, untracked files included, once the experiment is committed.

    DVC sets `DVC_EXP_NAME` in every experiment, and `DVC_ROOT` to the main workspace's root (dvc.org/doc/user-
    guide/env); a stage runs in its dvc.yaml's folder, the root here. So an experiment whose DVC_ROOT is not the
    folder the stage runs in is a temporary one; in the workspace (`dvc repro`, `dvc exp run`) they are the same."""
    env = os.environ if environ is None else environ
    root = env.get("DVC_ROOT")
    if "DVC_EXP_NAME" not in env or not root:
        return False
    return Path(root).resolve() != (cwd or Path.cwd()).resolve()


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
