"""OpenAI-compatible engine simulator: the HTTP routes, usage with a prefix cache, timing, stats and faults."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from papers_devtools.sim.answers import RequestKind, classify, conversation_stage
from papers_devtools.sim.batching import BatchingConfig, ContinuousBatcher
from papers_devtools.sim.cache import PrefixCache, approx_tokens, cut_off, modelled_length, prompt_tokens
from papers_devtools.sim.completions import (
    chat_messages,
    completion_payload,
    read_chat_request,
    requested_max_tokens,
    response_format_kind,
    schema_fingerprint,
    unauthorised,
)
from papers_devtools.sim.faults import FAULTS, Fault, FaultKind, ServerKind, context_error_body, openai_error, refusal
from papers_devtools.sim.serve import DroppedResponse
from papers_devtools.sim.steps import reply


class RequestFacts(BaseModel):
    """What a handler learned about its request while answering it (filled in as it goes)."""

    kind: RequestKind | None = None
    messages: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str | None = None
    fault: FaultKind | None = None
    response_format: str | None = None  # the structured output asked for (json_schema, json_object), if any
    schema_sha: str | None = None  # the first 12 hex digits of its schema's sha256 (sorted keys), if any


class RequestRecord(RequestFacts):
    """One request the sim served (admin endpoints excluded); times are time.monotonic()."""

    path: str
    method: str
    started: float
    ended: float
    status: int


CHAT_PATH = "/v1/chat/completions"


class SimStats(BaseModel):
    requests: int = 0
    by_path: dict[str, int] = Field(default_factory=dict)
    # generation calls (chat completions) in flight: what llm.concurrency bounds; a stage's endpoint check or a
    # tokenizer request beside them is not one
    in_flight: int = 0
    max_in_flight: int = 0
    records: list[RequestRecord] = Field(default_factory=list)
    # with a batching model: simulated seconds elapsed, tokens decoded, the largest batch seen
    sim_seconds: float = 0.0
    generated_tokens: int = 0
    peak_batch: int = 0
    preemptions: int = 0


# --- the simulator -------------------------------------------------------------------------------


Handler = Callable[[Request, RequestFacts], Awaitable[Response]]


class EngineSim:
    """The simulator: `app` is the ASGI app to serve; faults and stats are safe to use from another thread."""

    def __init__(
        self,
        *,
        model: str = "sim-digest",
        latency_s: float = 0.0,
        decode_tok_s: float | None = None,
        api_key: str | None = None,
        context_tokens: int | None = None,
        context_engine: ServerKind = "vllm",
        faults: list[Fault] | None = None,
        batching: BatchingConfig | None = None,
        completion_tokens: dict[str, int] | None = None,
        refuse_response_format: bool = False,
    ) -> None:
        self.model = model
        self.latency_s = latency_s
        self.decode_tok_s = decode_tok_s
        self.api_key = api_key
        self.context_tokens = context_tokens
        self.context_engine: ServerKind = context_engine
        # With a batching model, time comes from decode steps of the whole batch (docs/design.md §4)
        # instead of latency_s / decode_tok_s.
        self.batcher = ContinuousBatcher(batching) if batching else None
        # Modelled completion lengths by request kind ("digest", "translate"): the answer stays the short
        # checked JSON, but usage and decode time follow these means (±40 %, fixed per prompt).
        self.completion_tokens = dict(completion_tokens or {})
        self.refuse_response_format = refuse_response_format  # like an engine without structured output
        # One lock for faults, stats and cache: the server thread and the test thread both touch them.
        self._lock = threading.Lock()
        self._faults: list[Fault] = [f.model_copy() for f in faults or []]
        self._stats = SimStats()
        self._cache = PrefixCache()
        self._cache_queries = self._cache_hits = 0  # the /metrics counters
        self._ids = itertools.count(1)
        tracked = functools.partial
        self.app = Starlette(
            routes=[
                Route(CHAT_PATH, tracked(self._tracked, self._chat), methods=["POST"]),
                Route("/v1/models", tracked(self._tracked, self._models), methods=["GET"]),
                Route("/health", tracked(self._tracked, self._health), methods=["GET"]),
                # vLLM's tokenizer route and its prefix-cache counters, so those code paths run in tests
                Route("/tokenize", tracked(self._tracked, self._tokenize), methods=["POST"]),
                Route("/metrics", self._metrics, methods=["GET"]),
                Route("/__sim/faults", self._admin_faults, methods=["GET", "POST", "DELETE"]),
                Route("/__sim/stats", self._admin_stats, methods=["GET"]),
                Route("/__sim/reset", self._admin_reset, methods=["POST"]),
                Route("/__sim/cache", self._admin_cache, methods=["DELETE"]),
            ]
        )

    # control

    @property
    def stats(self) -> SimStats:
        """A snapshot (a copy), so the caller can read it while requests are running."""
        with self._lock:
            snapshot = self._stats.model_copy(deep=True)
        if self.batcher is not None:
            snapshot.sim_seconds = self.batcher.sim_now
            snapshot.generated_tokens = self.batcher.generated
            snapshot.peak_batch = self.batcher.peak_batch
            snapshot.preemptions = self.batcher.scheduler.preemptions
        return snapshot

    @property
    def faults(self) -> list[Fault]:
        with self._lock:
            return [f.model_copy() for f in self._faults]

    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault.model_copy())

    def set_faults(self, faults: list[Fault]) -> None:
        with self._lock:
            self._faults = [f.model_copy() for f in faults]

    def clear_faults(self) -> None:
        self.set_faults([])

    def reset_stats(self) -> None:
        with self._lock:
            in_flight = self._stats.in_flight  # requests still running will decrement it
            self._stats = SimStats(in_flight=in_flight, max_in_flight=in_flight)
            if self.batcher is not None:
                self.batcher.reset_counters()

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    # request plumbing

    async def _tracked(self, handler: Handler, request: Request) -> Response:
        path = request.url.path
        started = time.monotonic()
        call = path == CHAT_PATH
        with self._lock:
            stats = self._stats
            stats.requests += 1
            stats.by_path[path] = stats.by_path.get(path, 0) + 1
            stats.in_flight += call
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        info, status = RequestFacts(), 500
        try:
            response = await handler(request, info)
            status = response.status_code
            return response
        finally:
            record = RequestRecord(
                path=path,
                method=request.method,
                started=started,
                ended=time.monotonic(),
                status=status,
                **info.model_dump(),
            )
            with self._lock:
                self._stats.in_flight -= call
                self._stats.records.append(record)

    def _take_fault(self, contents: list[str], stage: str, kind: RequestKind | None) -> Fault | None:
        with self._lock:
            return Fault.take(self._faults, contents, stage, kind)

    def _authorised(self, request: Request) -> bool:
        return self.api_key is None or request.headers.get("authorization") == f"Bearer {self.api_key}"

    # engine endpoints

    async def _health(self, request: Request, info: RequestFacts) -> Response:
        return Response(status_code=200)

    async def _tokenize(self, request: Request, info: RequestFacts) -> Response:
        """vLLM's shape: {"prompt": …} or {"messages": […]} -> {"count", "max_model_len"}."""
        try:
            body = await request.json()
            if "messages" in body:
                count = len(prompt_tokens(chat_messages(body)))
            else:
                count = approx_tokens(str(body["prompt"]))
        except (ValueError, KeyError, TypeError) as exc:
            return JSONResponse(openai_error(f"invalid request: {exc}", "invalid_request_error"), status_code=400)
        return JSONResponse({"count": count, "max_model_len": self.context_tokens or 32768})

    async def _metrics(self, request: Request) -> Response:
        """Prometheus text with vLLM's prefix-cache counters (in tokens, as vLLM counts them)."""
        with self._lock:
            queries, hits = self._cache_queries, self._cache_hits
        label = f'{{model_name="{self.model}"}}'
        lines = [
            "# TYPE vllm:prefix_cache_queries_total counter",
            f"vllm:prefix_cache_queries_total{label} {float(queries)}",
            "# TYPE vllm:prefix_cache_hits_total counter",
            f"vllm:prefix_cache_hits_total{label} {float(hits)}",
        ]
        return Response("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4")

    async def _models(self, request: Request, info: RequestFacts) -> Response:
        if not self._authorised(request):
            return unauthorised()
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "papers-digest-sim"}],
            }
        )

    async def _chat(self, request: Request, info: RequestFacts) -> Response:
        if not self._authorised(request):
            return unauthorised()
        read = await read_chat_request(request)
        if isinstance(read, Response):
            return read
        body, messages = read
        tokens = prompt_tokens(messages)
        max_tokens = requested_max_tokens(body)
        refused, fault = await self._admit(body, messages, tokens, max_tokens, info)
        if refused is not None:
            return refused
        content, finish = await self._answer(messages, tokens, fault, max_tokens, info)
        payload = completion_payload(
            f"chatcmpl-sim-{next(self._ids)}", body.get("model") or self.model, content, finish, info
        )
        if fault is not None and fault.kind == "reset":
            return DroppedResponse(json.dumps(payload, ensure_ascii=False), media_type="application/json")
        return JSONResponse(payload)

    async def _admit(
        self,
        body: dict[str, Any],
        messages: list[dict[str, str]],
        tokens: list[str],
        max_tokens: int | None,
        info: RequestFacts,
    ) -> tuple[Response | None, Fault | None]:
        """What the request is (into `info`), then what an engine would refuse it for: a response_format it does
        not take, a prompt over its context, a fault that refuses (after the latency and the fault's delay):
        (the refusal or None, the fault taken)."""
        info.messages = len(messages)
        info.kind = classify(messages)
        info.response_format = response_format_kind(body.get("response_format"))
        info.schema_sha = schema_fingerprint(body.get("response_format"))
        if info.response_format and self.refuse_response_format:
            error = openai_error("response_format is not supported by this server", "invalid_request_error")
            return JSONResponse(error, status_code=400), None
        await asyncio.sleep(self.latency_s)
        info.prompt_tokens = len(tokens)
        if self.context_tokens is not None and len(tokens) > self.context_tokens:
            error = context_error_body(self.context_engine, len(tokens), self.context_tokens, max_tokens)
            return JSONResponse(error, status_code=400), None
        fault = self._take_fault([m["content"] for m in messages], conversation_stage(messages), info.kind)
        info.fault = fault.kind if fault else None
        if fault is None:
            return None, None
        await asyncio.sleep(fault.delay_s)
        refused = refusal(
            fault, model=self.model, prompt=len(tokens), max_tokens=max_tokens, context_tokens=self.context_tokens
        )
        return refused, fault

    async def _answer(
        self,
        messages: list[dict[str, str]],
        tokens: list[str],
        fault: Fault | None,
        max_tokens: int | None,
        info: RequestFacts,
    ) -> tuple[str, str]:
        """The answer's (content, finish reason), its usage into `info`, after the time the engine would take."""
        hashes = self._cache.hashes(tokens)
        with self._lock:
            info.cached_tokens = self._cache.cached(tokens, hashes)
            self._cache.insert(hashes)
            self._cache_queries += len(tokens)
            self._cache_hits += info.cached_tokens

        kind = "digest" if info.kind == "steps" else info.kind or ""  # a step is the English digest's request
        modelled = modelled_length(self.completion_tokens.get(kind), tokens)
        if modelled and max_tokens:  # an engine stops at the request's cap (a step's answer is short)
            modelled = min(modelled, max_tokens)
        decoding = None
        if self.batcher is not None and modelled:
            # Queue the decode first, then build the answer while the simulated engine works on it.
            decoding = self.batcher.submit(info.prompt_tokens, modelled, info.cached_tokens)
        content, finish = reply(messages, info.kind, fault.kind if fault else None)
        content, finish = (content, finish) if modelled else cut_off(content, finish, max_tokens)
        info.completion_tokens = modelled or approx_tokens(content)
        info.finish_reason = finish
        if decoding is not None:
            await decoding
        elif self.batcher is not None:
            await self.batcher.generate(info.prompt_tokens, info.completion_tokens, info.cached_tokens)
        elif self.decode_tok_s:
            await asyncio.sleep(info.completion_tokens / self.decode_tok_s)
        return content, finish

    # admin endpoints (not counted in stats)

    async def _admin_faults(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                self.set_faults(FAULTS.validate_python(await request.json()))
            except (ValueError, ValidationError) as exc:
                return JSONResponse({"error": str(exc)}, status_code=422)
        elif request.method == "DELETE":
            self.clear_faults()
        return JSONResponse([f.model_dump() for f in self.faults])

    async def _admin_stats(self, request: Request) -> Response:
        return JSONResponse(self.stats.model_dump())

    async def _admin_reset(self, request: Request) -> Response:
        self.reset_stats()
        return JSONResponse(self.stats.model_dump())

    async def _admin_cache(self, request: Request) -> Response:
        self.clear_cache()
        return Response(status_code=204)
