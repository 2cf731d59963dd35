"""The project a command runs in: one run at a time (a lock), params.yaml edits, `dvc repro`, signals."""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from papers_digest.core.errors import ConfigError, PipelineError
from papers_digest.core.params import load_params, validate_params
from papers_digest.pipeline.experiments import dvc_env, dvc_executable

DB_PATH = Path("data/papers.db")  # as dvc.yaml passes it to the list and publish stages


class EngineDied(PipelineError):
    """The managed engine exited while the pipeline was using it; the message says how, with its log's tail."""

    label = ""


Watch = Callable[[], str | None]  # None while all is well, else why the run must stop


def dvc_repro(
    *extra: str, force: bool = False, cwd: Path | None = None, watch: Watch | None = None, grace_s: float = 10.0
) -> int:
    """`dvc repro` with this environment's bin folder first on PATH, so stages run our Python.

    DVC runs in its own process group, so the stage it runs can always be stopped with it: on Ctrl-C or
    SIGTERM (as KeyboardInterrupt) the group gets SIGINT, as a terminal would send it, then SIGKILL after
    `grace_s`. `watch` is asked twice a second; when it returns a reason (the engine died), the run is
    stopped the same way and EngineDied raised with that reason. Its standard output (and its stages', which
    write theirs unbuffered) is passed on without the hints DVC ends with (`without_hints`).
    """
    env = {**dvc_env(), "PYTHONUNBUFFERED": "1"}  # each line as it is written, though through a pipe
    command = [dvc_executable(), "repro", *(["--force"] if force else []), *extra]
    started = time.monotonic()
    process = start_group(command, cwd=cwd, env=env, stdout=subprocess.PIPE)
    forwarding = threading.Thread(target=_forward, args=(process,), name="dvc-output", daemon=True)
    forwarding.start()
    try:
        while True:
            try:
                code = process.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            reason = watch() if watch is not None else None
            if reason is not None:
                raise EngineDied(reason)
    except BaseException:
        stop_group(process, grace_s)
        raise
    finally:
        forwarding.join(timeout=5)  # the rest of the output, up to the end of the pipe
    print(f"dvc repro finished in {time.monotonic() - started:.1f} s with exit code {code}")
    return code


# What `dvc repro` ends with when it changed dvc.lock and ran a stage: how to `git add` the changed files, how to
# turn on auto staging, and `dvc push`. A papers run does not follow them: dvc.lock changes with each date it
# runs, and a day is shared with `dvc push --run-cache` (docs/operations.md, "Several machines").
HINT_HEADINGS = ("To track the changes with git, run:", "To enable auto staging, run:")
PUSH_HINT = "Use `dvc push` to send your updates to remote storage."


def without_hints(lines: Iterable[str]) -> Iterator[str]:
    """DVC's output less its closing hints: each heading with the blank lines around it and the command line
    (tab-indented) that follows it, and the `dvc push` line. tests/test_dvc.py checks DVC still words them so."""
    blanks: list[str] = []
    in_hint = False
    for line in lines:
        text = line.rstrip("\r\n")
        if in_hint:
            in_hint = not text.startswith("\t")  # the command ends the hint
        elif not text:
            blanks.append(line)  # kept back until it is known not to open a hint
        elif text in HINT_HEADINGS or text == PUSH_HINT:
            blanks.clear()
            in_hint = text != PUSH_HINT
        else:
            yield from blanks
            blanks.clear()
            yield line
    yield from blanks


def _forward(process: subprocess.Popen[bytes]) -> None:
    """DVC's standard output to ours, line by line, less the hints; the bytes as DVC wrote them."""
    assert process.stdout is not None
    sys.stdout.flush()  # what papers printed before goes first
    lines = (raw.decode("utf-8", "surrogateescape") for raw in iter(process.stdout.readline, b""))
    for line in without_hints(lines):
        sys.stdout.buffer.write(line.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()


def start_group(command: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """Start `command` in its own process group (session), able to take the SIGINT that `stop_group` sends.

    A process started with SIGINT ignored (by a script's `cmd &`, or nohup) hands that on: an ignored
    signal stays ignored across exec, and DVC would then run on until SIGKILL, skipping its cleanup. A
    caught signal is reset to its default on exec, so for the start, SIGINT is caught with a no-op here.
    """
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    caught = ignored and threading.current_thread() is threading.main_thread()  # only it may set handlers
    if caught:
        signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    try:
        return subprocess.Popen(command, start_new_session=True, **popen)
    finally:
        if caught:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_group(process: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGINT to the process's group (DVC stops its stage and cleans up), SIGKILL to what is left after
    `grace_s`."""
    for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait_s)
            return


class ProjectBusy(ConfigError, RuntimeError):
    """Another papers run holds this project."""


LOCK_PATH = Path(".dvc/tmp/papers.lock")


@contextlib.contextmanager
def project_lock(what: str) -> Iterator[None]:
    """One run per project: a second `papers daily`/`sample` stops at once, changing nothing."""
    LOCK_PATH.parent.mkdir(parents=True, exist_ok=True)
    with LOCK_PATH.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise ProjectBusy(f"another run is in progress in this project ({holder}); nothing was changed") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{what}, pid {os.getpid()}, since {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M:%S} UTC")
        handle.flush()
        try:
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


def set_params(path: Path, values: Mapping[str, Any]) -> None:
    """Set dotted keys in params.yaml, keeping its comments and layout; validate before writing."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    data = yaml.load(path.read_text(encoding="utf-8"))
    set_dotted(data, {dotted: _quoted(value) for dotted, value in values.items()})
    validate_params(_plain(data), path)
    with path.open("w", encoding="utf-8") as handle:
        yaml.dump(data, handle)


def set_dotted(data: Any, values: Mapping[str, Any]) -> None:
    """Set dotted keys (`llm.model`) in a loaded params mapping, in place."""
    for dotted, value in values.items():
        node = data
        *parents, last = dotted.split(".")
        for key in parents:
            node = node[key]
        node[last] = value


@contextlib.contextmanager
def temporary_params(path: Path, values: Mapping[str, Any]) -> Iterator[None]:
    """Apply params for the duration of a run, then put the file back exactly as it was."""
    original = path.read_bytes()
    load_params(path)  # a broken params.yaml fails here, before anything runs
    try:
        set_params(path, values)
        yield
    finally:
        path.write_bytes(original)


def _quoted(value: Any) -> Any:
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    # A bare 2026-11-29 would be read back as a YAML date; DVC and our params model want a string.
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        return DoubleQuotedScalarString(value)
    return value


def _plain(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM (a service manager, `kill`) into KeyboardInterrupt, so cleanup code runs as on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
