"""A minimum interval between the starts of requests to one site, kept across processes through a locked file.

arXiv asks for 3 s between requests from one address. The fulltext stage of every date of a run, and of
every worker of a parallel backfill, share the file beside the store, so the interval holds across all of
them, not only inside one process: each request takes the file's lock, waits until the interval since the
last request ended has passed, and keeps the lock until it has its answer, then records when that was.
Counting from the end, not the start, keeps the interval as the site sees it too: a request that reached
it late cannot bring the next one closer than the interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path


class Pacer:
    """One request at a time, `interval_s` after the last one ended; across processes when given a `path`."""

    def __init__(self, interval_s: float, path: Path | None = None) -> None:
        self.interval_s = interval_s
        self.path = path
        self._last = 0.0  # without a file: when this process's last request ended
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the turn for one request: entered when the interval since the last request ended has passed."""
        async with self._lock:
            if self.path is None:
                await _sleep_until(self._last + self.interval_s)
                try:
                    yield
                finally:
                    self._last = time.time()
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a+", encoding="utf-8") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)  # blocks only while another process holds its turn
                try:
                    handle.seek(0)
                    await _sleep_until(_float(handle.read()) + self.interval_s)
                    yield
                finally:
                    handle.seek(0)
                    handle.truncate()
                    handle.write(f"{time.time():.6f}")
                    handle.flush()
                    fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def held(path: Path | None, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """An exclusive lock on the file `path` for the block, across processes (nothing without a path); released
    by the kernel when its process ends, so a crash never leaves it held. `on_wait` is called once when another
    process holds it (before waiting)."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
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
