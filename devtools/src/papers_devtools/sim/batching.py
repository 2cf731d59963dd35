"""A continuous-batching engine in simulated time (docs/design.md §4), for the engine simulator and the benchmark.

Decode is memory-bound: each step reads the weights once plus every running request's KV cache and
gives every running request one token. The KV cache is paged, as in vLLM: a request is admitted when
its prompt fits in what is free (keeping a small watermark), its cache grows a token per step, and
when the cache is full the most recently admitted request is preempted and later recomputed.
Admitting requests costs a prefill pause for the whole batch. One pure `Scheduler` holds these rules;
`ContinuousBatcher` runs it against the wall clock (`time_scale` wall seconds per simulated second)
inside the HTTP simulator, and `ideal_makespan` runs it for a perfect client in virtual time.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from papers_digest.report.perfmodel import Gpu, ModelShape, kv_capacity_tokens, prefill_s

WATERMARK = 0.01  # share of the KV cache kept free at admission, as vLLM does, against instant preemption


@dataclass(frozen=True)
class BatchingConfig:
    model: ModelShape = field(default_factory=ModelShape)
    gpu: Gpu = field(default_factory=Gpu)
    kv_capacity_tokens: int | None = None  # None: what the GPU holds after the weights (90 % of memory)
    time_scale: float = 1.0  # wall seconds per simulated second

    @property
    def capacity(self) -> int:
        if self.kv_capacity_tokens is not None:
            return self.kv_capacity_tokens
        return kv_capacity_tokens(self.model, self.gpu)

    @property
    def weights_s(self) -> float:
        """Seconds one step spends reading the weights."""
        return self.model.weight_bytes / self.gpu.bandwidth_bytes_s

    @property
    def kv_s_per_token(self) -> float:
        """Seconds one step spends reading one token of KV cache."""
        return self.model.kv_bytes_per_token / self.gpu.bandwidth_bytes_s


def steps_time(config: BatchingConfig, contexts_sum: int, batch: int, steps: int) -> float:
    """Simulated seconds for `steps` decode steps of a batch whose contexts sum to `contexts_sum`;
    every step adds one token to each of the `batch` requests (so the KV read grows)."""
    if steps <= 0:
        return 0.0
    return steps * (config.weights_s + contexts_sum * config.kv_s_per_token) + (
        config.kv_s_per_token * batch * steps * (steps - 1) / 2
    )


def steps_within(config: BatchingConfig, contexts_sum: int, batch: int, seconds: float, most: int) -> int:
    """The number of whole decode steps that fit in `seconds` (at most `most`)."""
    if seconds <= 0:
        return 0
    a = config.kv_s_per_token * batch / 2
    b = config.weights_s + contexts_sum * config.kv_s_per_token - a
    # a n² + b n - seconds = 0, the positive root, floored; then nudged for float error.
    n = int((-b + math.sqrt(b * b + 4 * a * seconds)) / (2 * a)) if a > 0 else int(seconds / b)
    while n > 0 and steps_time(config, contexts_sum, batch, n) > seconds:
        n -= 1
    while n < most and steps_time(config, contexts_sum, batch, n + 1) <= seconds:
        n += 1
    return min(n, most)


@dataclass
class Request:
    prompt: int  # tokens to prefill on (re)admission
    remaining: int  # tokens still to generate
    cached: int = 0  # prompt tokens the prefix cache serves (first admission only)
    context: int = 0  # tokens in its KV cache while running
    started_at: float | None = None  # simulated time of its first admission
    tag: Any = field(default=None, repr=False)  # the caller's handle (a future, an index)


class Scheduler:
    """The engine's rules, in simulated time and with no I/O: admission, decode steps, preemption."""

    def __init__(self, config: BatchingConfig) -> None:
        self.config = config
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []
        self.now = 0.0
        self.generated = 0
        self.peak_batch = 0
        self.preemptions = 0

    def admit(self) -> float:
        """Move waiting requests into the batch while their prompts fit; returns their prefill seconds."""
        capacity = self.config.capacity
        room = capacity * (1 - WATERMARK) - sum(r.context for r in self.running)
        seconds = 0.0
        while self.waiting:
            request = self.waiting[0]
            # A prompt larger than the whole cache still runs alone (a real engine would reject it).
            if request.prompt > room and self.running:
                break
            self.waiting.popleft()
            seconds += prefill_s(
                self.config.model, self.config.gpu, request.prompt - min(request.cached, request.prompt)
            )
            request.cached = 0  # a recompute after preemption prefills everything
            request.context = request.prompt
            if request.started_at is None:
                request.started_at = self.now
            self.running.append(request)
            room -= request.prompt
        self.now += seconds
        self.peak_batch = max(self.peak_batch, len(self.running))
        return seconds

    def steps_to_next_event(self) -> int:
        """Decode steps until a request finishes or the cache is full (at least 1)."""
        batch = len(self.running)
        finish = min(r.remaining for r in self.running)
        free = self.config.capacity - sum(r.context for r in self.running)
        return max(1, min(finish, free // batch))

    def step_seconds(self, steps: int) -> float:
        return steps_time(self.config, sum(r.context for r in self.running), len(self.running), steps)

    def advance(self, steps: int) -> list[Request]:
        """Decode `steps` steps; returns the requests that finished. Preempts if the cache is full."""
        self.now += self.step_seconds(steps)
        self.generated += steps * len(self.running)
        finished = []
        for request in self.running:
            request.context += steps
            request.remaining -= steps
        finished = [r for r in self.running if r.remaining <= 0]
        self.running = [r for r in self.running if r.remaining > 0]
        while self.running and sum(r.context for r in self.running) + len(self.running) > self.config.capacity:
            # Cache full: the newest request gives its blocks back and is recomputed when there is room.
            victim = self.running.pop()
            self.waiting.appendleft(Request(prompt=victim.context, remaining=victim.remaining, tag=victim.tag))
            self.waiting[0].started_at = victim.started_at
            self.preemptions += 1
        return finished


class ContinuousBatcher:
    """Runs a Scheduler on the server's event loop against the wall clock."""

    def __init__(self, config: BatchingConfig) -> None:
        self.config = config
        self.scheduler = Scheduler(config)
        self._wakeup: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._now_at_reset = 0.0

    @property
    def sim_now(self) -> float:
        """Simulated seconds of engine work since the first request (or the last reset_counters)."""
        return self.scheduler.now - self._now_at_reset

    @property
    def generated(self) -> int:
        return self.scheduler.generated

    @property
    def peak_batch(self) -> int:
        return self.scheduler.peak_batch

    def reset_counters(self) -> None:
        """Start the statistics afresh (time, tokens, peak batch, preemptions); the engine keeps running."""
        engine = self.scheduler
        self._now_at_reset = engine.now
        engine.generated = engine.preemptions = 0
        engine.peak_batch = len(engine.running)

    async def generate(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        """Queue a request; resolves when its last token is decoded, with its simulated latency."""
        return await self.submit(prompt_tokens, completion_tokens, cached_tokens)

    def submit(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> asyncio.Future[float]:
        """Queue a request now (the caller may do other work before awaiting the future).
        Tokens served by the prefix cache need no prefill, but still take KV room."""
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done():
            self._wakeup = asyncio.Event()
            self._task = loop.create_task(self._run())
        done: asyncio.Future[float] = loop.create_future()
        request = Request(prompt=prompt_tokens, remaining=max(1, completion_tokens), cached=cached_tokens, tag=done)
        self.scheduler.waiting.append(request)
        assert self._wakeup is not None
        self._wakeup.set()
        return done

    async def _run(self) -> None:
        assert self._wakeup is not None
        loop = asyncio.get_running_loop()
        scale = self.config.time_scale
        engine = self.scheduler
        # The wall time that corresponds to `engine.now`. Advancing it by exactly the simulated work
        # done (not to "now") means a late wake-up (the server was busy answering) costs no simulated time.
        anchor = loop.time()
        while True:
            self._wakeup.clear()  # before admitting: an arrival from now on wakes the wait below
            prefill = engine.admit()
            if prefill > 0:  # the batch stalls while new prompts are prefilled; then admit any newcomers
                anchor += prefill * scale
                await asyncio.sleep(max(0.0, anchor - loop.time()))
                continue
            if not engine.running:
                await self._wakeup.wait()
                anchor = loop.time()  # an idle engine owes nothing
                continue
            steps = engine.steps_to_next_event()
            budget = engine.step_seconds(steps)
            try:
                await asyncio.wait_for(self._wakeup.wait(), timeout=max(0.0, anchor + budget * scale - loop.time()))
                elapsed = min(budget, (loop.time() - anchor) / scale)
                contexts = sum(r.context for r in engine.running)
                steps = steps_within(self.config, contexts, len(engine.running), elapsed, steps)
            except TimeoutError:
                pass
            anchor += engine.step_seconds(steps) * scale
            for request in engine.advance(steps):
                if not request.tag.done():
                    request.tag.set_result(engine.now - (request.started_at or 0.0))


def ideal_makespan(phases: Sequence[Sequence[Sequence[int]]], concurrency: int, config: BatchingConfig) -> float:
    """Simulated seconds a perfect client needs: each phase's requests `(prompt, completion[, cached])`
    in order, `concurrency` in flight, the next sent the instant one finishes, phases one after another."""
    engine = Scheduler(config)
    for phase in phases:
        pending = deque(phase)
        in_flight = 0
        while pending or in_flight:
            while pending and in_flight < concurrency:
                prompt, completion, cached = (*pending.popleft(), 0)[:3]
                engine.waiting.append(Request(prompt=prompt, remaining=max(1, completion), cached=cached))
                in_flight += 1
            engine.admit()
            in_flight -= len(engine.advance(engine.steps_to_next_event()))
    return engine.now
