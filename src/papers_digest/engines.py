"""Managed engines: the llama-cpp / vLLM / SGLang command line from params, and a process started for one batch."""

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

import httpx

from papers_digest.params import EngineParams

LOG_DIR = Path("logs")
LOG_TAIL_LINES = 30


class EngineError(RuntimeError):
    """The engine could not be started (bad model path, busy port, died at start, not ready in time)."""


def engine_command(engine: EngineParams, served_name: str) -> list[str]:
    """The command line that serves `engine.model` as `served_name` on engine.host:engine.port, OpenAI-style."""
    if engine.kind == "llama-cpp":
        command = llama_cpp_command(engine, served_name)
    elif engine.kind == "vllm":
        command = vllm_command(engine, served_name)
    elif engine.kind == "sglang":
        command = sglang_command(engine, served_name)
    else:
        raise EngineError(f"engine.kind is {engine.kind!r}: there is no engine to start")
    return [*command, *engine.extra_args]


def llama_cpp_command(engine: EngineParams, served_name: str) -> list[str]:
    # llama-cpp-python's server (this environment's Python: `pip install -e '.[llama]'`). Its settings are
    # pydantic fields, so the flags keep the underscores (`python -m llama_cpp.server --help`, 0.3.36).
    # --logits_all defaults to true there: logits for every prompt token, n_ctx x vocabulary floats
    # (about 10 GB at 16k tokens for Qwen2.5) and a much slower prefill; only prompt logprobs need it.
    # It reuses the longest common prefix with the previous request on its own; `--cache` adds a RAM
    # cache of earlier prompts' states, so a checker retry after another paper's call finds its prefix.
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        engine.model,
        "--model_alias",
        served_name,
        "--host",
        engine.host,
        "--port",
        str(engine.port),
        "--n_ctx",
        str(engine.context_tokens),
        "--logits_all",
        "false",
    ]
    if engine.prefix_caching:
        command += ["--cache", "true"]
    return command


def vllm_command(engine: EngineParams, served_name: str) -> list[str]:
    # `vllm serve`: prefix caching is a boolean flag (`--no-enable-prefix-caching` turns it off); cached
    # prompt tokens reach `usage.prompt_tokens_details` only with --enable-prompt-tokens-details; the
    # prefix-cache counters are on /metrics without any flag (DESIGN.md §3).
    return [
        "vllm",
        "serve",
        engine.model,
        "--served-model-name",
        served_name,
        "--host",
        engine.host,
        "--port",
        str(engine.port),
        "--max-model-len",
        str(engine.context_tokens),
        "--gpu-memory-utilization",
        str(engine.gpu_memory_fraction),
        "--enable-prefix-caching" if engine.prefix_caching else "--no-enable-prefix-caching",
        "--enable-prompt-tokens-details",
    ]


def sglang_command(engine: EngineParams, served_name: str) -> list[str]:
    # SGLang's radix cache (its prefix cache) is on unless --disable-radix-cache; cached tokens are reported
    # with --enable-cache-report, and sglang:cache_hit_rate on /metrics needs --enable-metrics.
    command = [
        sys.executable,
        "-m",
        "sglang.launch_server",
        "--model-path",
        engine.model,
        "--served-model-name",
        served_name,
        "--host",
        engine.host,
        "--port",
        str(engine.port),
        "--context-length",
        str(engine.context_tokens),
        "--mem-fraction-static",
        str(engine.gpu_memory_fraction),
        "--enable-cache-report",
        "--enable-metrics",
    ]
    if not engine.prefix_caching:
        command.append("--disable-radix-cache")
    return command


def check_engine_model(engine: EngineParams) -> None:
    """A llama-cpp engine needs an existing GGUF file: say so before starting anything."""
    if engine.kind != "llama-cpp":
        return  # vLLM / SGLang take a model id as well as a folder
    path = Path(engine.model)
    if not path.is_file():
        raise EngineError(
            f"engine.model {engine.model!r}: no such GGUF file (`papers model fetch` gets the offline one)"
        )
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise EngineError(f"engine.model {engine.model!r} is not a GGUF file")


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
    ) -> None:
        self.command = list(command)
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
    def from_params(cls, engine: EngineParams, served_name: str, log_dir: str | Path = LOG_DIR) -> ManagedEngine:
        """The engine params.yaml describes, logging to `<log_dir>/engine-<kind>.log`."""
        check_engine_model(engine)
        return cls(
            engine_command(engine, served_name),
            host=engine.host,
            port=engine.port,
            log_path=Path(log_dir) / f"engine-{engine.kind}.log",
            startup_timeout_s=engine.startup_timeout_s,
            kind=engine.kind,
            model=engine.model,
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
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while True:
                code = self.process.poll()
                if code is not None:
                    raise EngineError(self._failure(f"exited with code {code} before it was ready"))
                if _answers(client, self.url):
                    return
                if time.monotonic() > deadline:
                    raise EngineError(self._failure(f"was not ready after {self.startup_timeout_s:g} s"))
                time.sleep(self.poll_interval_s)

    def _failure(self, what: str) -> str:
        tail = self.log_tail()
        shown = f"; last lines of {self.log_path}:\n{tail}" if tail else f"; {self.log_path} is empty"
        return f"the {self.kind} engine ({' '.join(self.command[:4])} …) {what}{shown}"


def _answers(client: httpx.Client, url: str) -> bool:
    """Ready: /health says 200; where an engine has no /health (llama-cpp-python), /v1/models says 200."""
    try:
        health = client.get(f"{url}/health")
        if health.status_code == 200:
            return True
        if health.status_code != 404:
            return False  # vLLM / SGLang answer 503 while loading
        return client.get(f"{url}/v1/models").status_code == 200
    except httpx.HTTPError:
        return False  # not listening yet


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
