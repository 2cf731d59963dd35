"""The client's call slots (llm/slots.py): bounded, retries first, nothing leaked by a cancelled waiter."""

import asyncio

import pytest

from papers_digest.llm.slots import FIRST, RETRY, PrioritySlots


def test_waiters_get_a_free_slot_by_priority_then_in_arrival_order():
    async def scenario() -> list[str]:
        slots, order = PrioritySlots(1), []
        gate = asyncio.Event()

        async def call(name: str, priority: int) -> None:
            async with slots.hold(priority):
                order.append(name)
                await gate.wait()

        holder = asyncio.create_task(call("holder", FIRST))
        await asyncio.sleep(0)
        waiters = [asyncio.create_task(call(n, p)) for n, p in [("a", FIRST), ("b", FIRST), ("retry", RETRY)]]
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(holder, *waiters)
        return order

    assert asyncio.run(scenario()) == ["holder", "retry", "a", "b"]


def test_never_more_than_size_in_flight():
    async def scenario() -> int:
        slots, busy, most = PrioritySlots(3), 0, 0

        async def call(i: int) -> None:
            nonlocal busy, most
            async with slots.hold(RETRY if i % 4 == 0 else FIRST):
                busy += 1
                most = max(most, busy)
                await asyncio.sleep(0.001)
                busy -= 1

        await asyncio.gather(*(call(i) for i in range(40)))
        return most

    assert asyncio.run(scenario()) == 3


def test_a_cancelled_waiter_neither_takes_nor_loses_a_slot():
    async def scenario() -> list[str]:
        slots, order = PrioritySlots(1), []
        release = asyncio.Event()

        async def call(name: str, priority: int) -> None:
            async with slots.hold(priority):
                order.append(name)
                await release.wait()

        holder = asyncio.create_task(call("holder", FIRST))
        await asyncio.sleep(0)
        cancelled = asyncio.create_task(call("cancelled", RETRY))
        later = asyncio.create_task(call("later", FIRST))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(holder, later)
        assert cancelled.cancelled()
        async with slots.hold(FIRST):  # the slot came back: this does not wait forever
            order.append("after")
        return order

    assert asyncio.run(asyncio.wait_for(scenario(), 5)) == ["holder", "later", "after"]


def test_a_waiter_cancelled_after_it_was_granted_passes_the_slot_on():
    async def scenario() -> list[str]:
        slots, order = PrioritySlots(1), []

        async def waiter(name: str) -> None:
            async with slots.hold(FIRST):
                order.append(name)

        async with slots.hold(FIRST):
            granted_then_cancelled = asyncio.create_task(waiter("never"))
            nxt = asyncio.create_task(waiter("next"))
            await asyncio.sleep(0)
        granted_then_cancelled.cancel()  # its slot was handed over on release, but it has not run yet
        await asyncio.gather(granted_then_cancelled, nxt, return_exceptions=True)
        return order

    assert asyncio.run(asyncio.wait_for(scenario(), 5)) == ["next"]


def test_a_size_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        PrioritySlots(0)
