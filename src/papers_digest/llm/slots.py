"""The client's call slots: at most `size` calls in flight; a waiting checker retry goes first.

A retry finishes a paper that has already paid for one answer, and the engine still holds its prompt
(the paper and the first answer) in its prefix cache; behind every first attempt still waiting it would
start last, after that cache was reused for other papers, and run alone at the end of the stage
(docs/design.md §4). asyncio.Semaphore wakes its waiters in arrival order only, hence this class.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

RETRY, FIRST = 0, 1  # priorities: lower goes first


class PrioritySlots:
    """A semaphore whose waiters are woken by priority, then in arrival order."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"slots: size must be at least 1, got {size}")
        self._free = size
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    @asynccontextmanager
    async def hold(self, priority: int) -> AsyncIterator[None]:
        """Hold one slot for the body; wait for one first if none is free."""
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, priority: int) -> None:
        # A free slot means no live waiter: a release hands its slot to the first live waiter instead.
        if self._free:
            self._free -= 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._arrivals), granted))
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():  # granted, then cancelled: pass the slot on
                self._release()
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, granted = heapq.heappop(self._waiting)
            if not granted.done():  # a cancelled waiter's future is done: skip it
                granted.set_result(None)
                return
        self._free += 1
