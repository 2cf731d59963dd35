"""The local servers tests and benchmarks start: the engine simulator and the HF/arXiv replay, on 127.0.0.1."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from papers_devtools.sim.replay import Replay
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_devtools.testing.harness import repo_root

SIM_MODEL = "sim-digest"


def recorded_dirs(which: str = "tests") -> tuple[Path, Path]:
    """(HF folder, arXiv folder) of the recorded data: `tests` (tests/data) or `sample` (the sample day)."""
    root = repo_root()
    base = root / "tests" / "data" if which == "tests" else root / "sample"
    return base / "hf", base / "arxiv"


@contextlib.contextmanager
def engine_server(**options: Any) -> Iterator[tuple[EngineSim, str]]:
    """The engine simulator (options as EngineSim takes them) on a free port: (sim, base URL with /v1)."""
    sim = EngineSim(**{"model": SIM_MODEL, **options})
    with BackgroundServer(sim.app) as server:
        yield sim, f"{server.url}/v1"


@contextlib.contextmanager
def replay_server(hf_dir: Path | None = None, arxiv_dir: Path | None = None) -> Iterator[tuple[Replay, str]]:
    """Recorded HF days and arXiv pages (default: tests/data) on a free port: (replay, URL)."""
    default_hf, default_arxiv = recorded_dirs("tests")
    replay = Replay(hf_dir or default_hf, arxiv_dir or default_arxiv)
    with BackgroundServer(replay.app) as server:
        yield replay, server.url


def sample_replay_server() -> contextlib.AbstractContextManager[tuple[Replay, str]]:
    """The bundled sample day, served as `papers sample` serves it."""
    return replay_server(*recorded_dirs("sample"))


@dataclass
class WebhookReceiver:
    """What a local chat webhook received: each POST's JSON body; it answers `status`."""

    status: int = 200
    received: list[Any] = field(default_factory=list)

    async def receive(self, request: Request) -> Response:
        self.received.append(await request.json())
        return JSONResponse({"ok": self.status < 400}, status_code=self.status)


@contextlib.contextmanager
def webhook_server(status: int = 200) -> Iterator[tuple[WebhookReceiver, str]]:
    """A chat webhook on a free port that records every message: (receiver, URL)."""
    receiver = WebhookReceiver(status)
    app = Starlette(routes=[Route("/hook/{token}", receiver.receive, methods=["POST"])])
    with BackgroundServer(app) as server:
        yield receiver, f"{server.url}/hook/secret-token"


@dataclass
class Inbox:
    """What a local SMTP server received: each message's recipients and raw bytes."""

    messages: list[tuple[list[str], bytes]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook name
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 OK"


@contextlib.contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """An SMTP server (aiosmtpd, a dev dependency) on a free port of 127.0.0.1 keeping every message: (inbox, port)."""
    from aiosmtpd.controller import Controller

    from papers_devtools.sim.serve import free_port

    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()
