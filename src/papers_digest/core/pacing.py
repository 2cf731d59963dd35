"""A minimum interval between the starts of requests to one site, kept across processes through a locked file.

arXiv asks for 3 s between requests from one address. The fulltext stage of every date of a run, and of
every worker of a parallel backfill, share the file beside the store, so the interval holds across all of
them, not only inside one process: each request takes the file's lock, waits until the interval since the
last start recorded there has passed, records its own start, and keeps the lock until it has its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import time
from collections.abc import AsyncIterator
from pathlib import Path


class Pacer:
    """At most one request per `interval_s`, one at a time; across processes when given a `path`."""

    def __init__(self, interval_s: float, path: Path | None = None) -> None:
        self.interval_s = interval_s
        self.path = path
        self._last = 0.0  # without a file: the last start in this process
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the turn for one request: entered when the interval since the last start has passed."""
        async with self._lock:
            if self.path is None:
                await _sleep_until(self._last + self.interval_s)
                self._last = time.time()
                yield
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a+", encoding="utf-8") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)  # blocks only while another process holds its turn
                try:
                    handle.seek(0)
                    await _sleep_until(_float(handle.read()) + self.interval_s)
                    handle.seek(0)
                    handle.truncate()
                    handle.write(f"{time.time():.6f}")
                    handle.flush()
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)


async def _sleep_until(moment: float) -> None:
    wait = moment - time.time()
    if wait > 0:
        await asyncio.sleep(wait)


def _float(text: str) -> float:
    try:
        return float(text.strip() or 0)
    except ValueError:
        return 0.0
