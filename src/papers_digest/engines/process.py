"""The engine process for one batch: started in its own group, ready when it answers, always stopped after."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from papers_digest.core.http import make_sync_client
from papers_digest.core.params import Params
from papers_digest.engines.commands import EngineError, check_engine_model, engine_command
from papers_digest.engines.llama_server import library_path, llama_server_program
from papers_digest.llm.endpoint import answers_health, tiny_completion

LOG_DIR = Path("logs")
LOG_TAIL_LINES = 30


class ManagedEngine:
    """An engine process for one batch: started in its own process group, its output in a log file,
    ready once `/health` (or `/v1/models` where there is no `/health`) answers 200, and always
    stopped, group and all, on the way out (normal end, exception or Ctrl-C)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        host: str,
        port: int,
        log_path: str | Path,
        startup_timeout_s: float,
        kind: str = "engine",
        model: str = "",
        stop_grace_s: float = 15.0,
        poll_interval_s: float = 0.5,
        env: Mapping[str, str] | None = None,
        served_name: str | None = None,
    ) -> None:
        self.command = list(command)
        self.served_name = served_name  # set: readiness includes one real completion for this model
        self.host = host
        self.port = port
        self.log_path = Path(log_path)
        self.startup_timeout_s = startup_timeout_s
        self.kind = kind
        self.model = model
        self.stop_grace_s = stop_grace_s
        self.poll_interval_s = poll_interval_s
        self.env = dict(env) if env is not None else None
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_s: float | None = None
        self.started_at: str | None = None
        self.stopped_at: str | None = None

    @classmethod
    def from_params(cls, params: Params, log_dir: str | Path = LOG_DIR) -> ManagedEngine:
        """The engine params.yaml describes, serving `llm.model` with `llm.concurrency` slots, logging to
        `<log_dir>/engine-<kind>.log`."""
        engine = params.engine
        check_engine_model(engine)
        program = llama_server_program(engine.binary) if engine.kind == "llama-cpp" else []
        env = None
        if engine.kind == "llama-cpp" and engine.binary:  # an executable: its shared libraries beside it
            env = {**os.environ, "LD_LIBRARY_PATH": library_path(Path(program[0]), os.environ.get("LD_LIBRARY_PATH"))}
        return cls(
            engine_command(
                engine, params.llm.model, slots=params.llm.concurrency, threads=machine_cores(), program=program
            ),
            host=engine.host,
            port=engine.port,
            log_path=Path(log_dir) / f"engine-{engine.kind}.log",
            startup_timeout_s=engine.startup_timeout_s,
            kind=engine.kind,
            model=engine.model,
            env=env,
            served_name=params.llm.model,
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self) -> ManagedEngine:
        """Start the process and wait until it answers; raise EngineError (with the log's tail) if it cannot."""
        if self.process is not None:
            raise EngineError(f"the {self.kind} engine was started already")
        self._check_port_free()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        self.started_at = _now()
        with self.log_path.open("wb") as log:
            try:
                # Its own session: Ctrl-C in the terminal reaches us, not the engine, so we stop it in order;
                # and the whole group (an engine's worker processes too) can be signalled at once.
                self.process = subprocess.Popen(
                    self.command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env=self._child_env(),
                )
            except OSError as exc:
                raise EngineError(f"cannot start the {self.kind} engine ({self.command[0]}): {exc}") from None
        try:
            self._wait_ready(started)
        except BaseException:
            self.stop()
            raise
        self.startup_s = round(time.monotonic() - started, 3)
        return self

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL to what is left after the grace period. Safe to call twice."""
        process = self.process
        if process is None or self.stopped_at is not None:
            return
        pgid = process.pid  # the leader of its own session: its pid is the group id
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + self.stop_grace_s
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=self.stop_grace_s)
        while group_processes(pgid) and time.monotonic() < deadline:
            time.sleep(0.1)  # workers may outlive the leader by a moment while they shut down
        if group_processes(pgid):
            _signal_group(pgid, signal.SIGKILL)
        if process.poll() is None:
            process.wait()
        deadline = time.monotonic() + 5
        while group_processes(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)  # SIGKILL is not instant: leave only once the group is really gone
        self.stopped_at = _now()

    def record(self) -> dict[str, Any]:
        """What the run record keeps of this engine: kind, model, start-up seconds and when it ran."""
        return {
            "kind": self.kind,
            "model": self.model,
            "startup_s": self.startup_s,
            "started_at": self.started_at,
            "stopped_at": self.stopped_at,
        }

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        try:
            with self.log_path.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 64 * 1024))
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ManagedEngine:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _child_env(self) -> dict[str, str]:
        env = dict(os.environ if self.env is None else self.env)
        # This environment's bin folder first, so `vllm` / `python` resolve to the venv's when installed there.
        bin_dir = str(Path(sys.executable).parent)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("PYTHONUNBUFFERED", "1")  # the log file shows progress as it happens
        return env

    def _check_port_free(self) -> None:
        # Something already answering on the port would pass the readiness check in the engine's place.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            # As servers bind: SO_REUSEADDR, so a previous run's TIME_WAIT connections do not count as busy.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, self.port))
            except OSError as exc:
                raise EngineError(
                    f"engine port {self.host}:{self.port} is not free ({exc.strerror}): "
                    "stop what listens there or set engine.port"
                ) from None

    def _wait_ready(self, started: float) -> None:
        assert self.process is not None
        deadline = started + self.startup_timeout_s
        last_problem = ""
        with make_sync_client(timeout_s=60.0) as client:
            while True:
                died = self.exit_description()
                if died is not None:
                    raise EngineError(self._failure(f"{died} before it was ready"))
                if answers_health(client, self.url):
                    if self.served_name is None:
                        return
                    last_problem = tiny_completion(client, self.url, self.served_name) or ""
                    if not last_problem:
                        return
                    with contextlib.suppress(subprocess.TimeoutExpired):  # a crash takes a moment to reap
                        self.process.wait(timeout=1.0)
                    died = self.exit_description()
                    if died is not None:
                        raise EngineError(self._failure(f"{died} on its first completion"))
                if time.monotonic() > deadline:
                    why = f" (its first completion: {last_problem})" if last_problem else ""
                    raise EngineError(self._failure(f"was not ready after {self.startup_timeout_s:g} s{why}"))
                time.sleep(self.poll_interval_s)

    def exit_description(self) -> str | None:
        """None while the process runs (or was never started); once it has exited, how, in words."""
        if self.process is None:
            return None
        code = self.process.poll()
        return None if code is None else describe_exit(code)

    def death_report(self) -> str | None:
        """For a process that exited on its own while it should be serving: one line saying how and what
        that usually means, then the last lines of its log. None while it runs or after `stop()`."""
        if self.stopped_at is not None:
            return None
        died = self.exit_description()
        return None if died is None else self._failure(f"{died} while the pipeline was using it")

    def _failure(self, what: str) -> str:
        tail = self.log_tail()
        shown = f"; last lines of {self.log_path}:\n{tail}" if tail else f"; {self.log_path} is empty"
        return f"the {self.kind} engine ({' '.join(self.command[:4])} …) {what}{shown}"


# What an engine's death by signal usually means, for the one line the operator reads.
SIGNAL_MEANINGS = {
    signal.SIGILL: "an illegal instruction: a build for another CPU (e.g. -march=native with AMX or AVX-512 "
    "the kernel does not allow); use the portable server `make engine` installs (engine.binary empty), or "
    "rebuild engine.binary with -DGGML_NATIVE=OFF",
    signal.SIGKILL: "killed, often by the kernel's out-of-memory killer (see `dmesg`); lower "
    "engine.context_tokens or llm.concurrency, or use a smaller model",
    signal.SIGSEGV: "a segmentation fault: a bug in the engine or a damaged model file",
    signal.SIGABRT: "it aborted on a fatal error; its log says which",
    signal.SIGBUS: "a bus error: often a model file that changed or vanished while it was mapped",
}


def describe_exit(code: int) -> str:
    """A process's exit status in words: `killed by SIGILL (an illegal instruction: …)`, `exited with code 1`.

    A status of 128 + N is how a shell reports its child's death by signal N, so it reads the same.
    """
    number = -code if code < 0 else code - 128 if 128 < code < 160 else None
    if number is None:
        return f"exited with code {code}"
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"exited with code {code}"
    how = f"killed by {sig.name}" if code < 0 else f"exited with code {code} (128 + {number}: {sig.name})"
    meaning = SIGNAL_MEANINGS.get(sig)
    return f"{how} ({meaning})" if meaning else how


def free_port(host: str = "127.0.0.1") -> int:
    """A port on `host` that nothing listens on now (for an engine or a local server started next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def machine_cores() -> int:
    """The CPU cores this process may use (its affinity mask, which containers narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(pgid, sig)


def group_processes(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc; elsewhere, [pgid] while the group exists."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return []
        return [pgid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited while we looked
        # "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ")"
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
