"""Run an ASGI app (engine simulator, replay) on 127.0.0.1 in a background thread, or in the foreground."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from papers_digest.engines.process import free_port

__all__ = ["LOOPBACK", "BackgroundServer", "DroppedResponse", "free_port", "serve_forever"]

LOOPBACK = "127.0.0.1"


class BackgroundServer:
    """uvicorn on a loopback port (0 = any free one) in a daemon thread; use as a context manager."""

    def __init__(self, app: Any, port: int = 0, *, startup_timeout_s: float = 10.0) -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((LOOPBACK, port))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self._startup_timeout_s = startup_timeout_s

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + self._startup_timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_forever(app: Any, port: int) -> None:
    """Serve an app on 127.0.0.1:<port> in the foreground until Ctrl-C."""
    uvicorn.run(app, host=LOOPBACK, port=port, log_level="warning", lifespan="off")


class DroppedResponse(Response):
    """Sends the headers (with the full Content-Length) and half the body, then stops: uvicorn then
    closes the connection ("ASGI callable returned without completing response"), so the client fails
    mid-body like a real dropped connection."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.body[: len(self.body) // 2], "more_body": True})
