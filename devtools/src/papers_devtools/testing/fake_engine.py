"""A stand-in engine process for tests: takes an engine's flags, serves the simulator, and can die on cue.

A test puts a `sglang/launch_server.py` that calls `main()` first on PYTHONPATH, so the generated SGLang
command line (unchanged) starts this instead; or a script as `engine.binary` that runs this module with the
llama-server command line (`llama_server_script`). The environment says how it behaves:
- FAKE_ENGINE_PID_FILE: where it writes its pid;
- FAKE_ENGINE_HANG=1: never becomes ready;
- FAKE_ENGINE_DIE_AFTER=N and FAKE_ENGINE_DIE_HOW=kill|sigill|sigill-exit: after N chat completions
  (the readiness check's one included) it dies on the next one, by SIGKILL, by SIGILL, or by exiting 132
  as a shell reports a child killed by SIGILL.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import serve_forever


def install_as_sglang(folder: Path) -> Path:
    """Write a `sglang` package into `folder` whose `launch_server` runs this stand-in; returns the folder
    to put first on PYTHONPATH."""
    package = folder / "sglang"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "launch_server.py").write_text("from papers_devtools.testing.fake_engine import main\n\nmain()\n")
    return folder


def llama_server_script(folder: Path) -> Path:
    """Write an executable `llama-server` into `folder` that runs this stand-in with llama-server's flags."""
    script = folder / "llama-server"
    folder.mkdir(parents=True, exist_ok=True)
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m papers_devtools.testing.fake_engine "$@"\n')
    script.chmod(0o755)
    return script


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    for flags in (("--model-path", "--model"), ("--served-model-name", "--alias"), ("--host",), ("--port",)):
        parser.add_argument(*flags)  # SGLang's flags, or llama-server's (a script as engine.binary runs this module)
    args, _ = parser.parse_known_args(argv)
    if pid_file := os.environ.get("FAKE_ENGINE_PID_FILE"):
        Path(pid_file).write_text(str(os.getpid()))
    if os.environ.get("FAKE_ENGINE_HANG"):
        time.sleep(600)
    print("sglang (fake): serving", args.model_path, "as", args.served_model_name, flush=True)
    app: Any = EngineSim(model=args.served_model_name).app
    if "FAKE_ENGINE_DIE_AFTER" in os.environ:
        app = DiesAfter(app, int(os.environ["FAKE_ENGINE_DIE_AFTER"]), os.environ.get("FAKE_ENGINE_DIE_HOW", "kill"))
    serve_forever(app, int(args.port))


class DiesAfter:
    """ASGI middleware: the process dies on chat completion number `completions + 1`."""

    def __init__(self, app: Any, completions: int, how: str) -> None:
        self.app, self.left, self.how = app, completions, how

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("path") == "/v1/chat/completions":
            if self.left <= 0:
                print(f"sglang (fake): dying ({self.how}) on a chat completion", flush=True)
                die(self.how)
            self.left -= 1
        await self.app(scope, receive, send)


def die(how: str) -> None:
    if how == "sigill-exit":
        os._exit(128 + signal.SIGILL)
    os.kill(os.getpid(), signal.SIGILL if how == "sigill" else signal.SIGKILL)
    time.sleep(10)  # the signal ends the process before this returns


if __name__ == "__main__":
    main()
