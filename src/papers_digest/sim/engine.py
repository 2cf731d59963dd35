"""OpenAI-compatible engine simulator: checked digests, realistic usage, prefix cache, timing, faults."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import json
import re
import threading
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from papers_digest.budget import estimate_token_list, estimate_tokens
from papers_digest.checker import DIGEST_KEYS, normalise_for_match
from papers_digest.prompting import TAGS_PREFIX, TITLE_PREFIX
from papers_digest.sim.batching import BatchingConfig, ContinuousBatcher
from papers_digest.sim.serve import DroppedResponse

FaultKind = Literal[
    "http_error",
    "slow",
    "invalid_json",
    "fence",
    "wrong_schema",
    "wrong_numbers",
    "bad_section",
    "empty",
    "length",
    "wrong_language",
    "reset",
    "rate_limit",
    "context_length",
]
EngineKind = Literal["vllm", "sglang", "llamacpp", "openai"]
RequestKind = Literal["digest", "translate", "other"]

BAD_NUMBER = "987654.321"  # what `wrong_numbers` puts in: no paper text here contains it
BAD_SECTION = "99.9"  # what `bad_section` cites
CACHE_BLOCK = 16  # prefix-cache granularity in tokens (vLLM's default block size)
MESSAGE_OVERHEAD = 4  # <|im_start|> role \n … <|im_end|>, as chat templates add around each message
REPLY_PRIMING = 2  # <|im_start|> assistant, appended after the last message
_DEFAULT_CONTEXT = {"vllm": 8192, "sglang": 8192, "llamacpp": 8192, "openai": 128000}


class Fault(BaseModel):
    """One injected misbehaviour; applies while `times` is not 0 (-1 = forever)."""

    model_config = ConfigDict(extra="forbid")

    kind: FaultKind
    match: str | None = None  # substring of any message content; None = every request
    on: Literal["first", "retry", "any"] = "any"  # first = exactly 2 messages, retry = more
    request: Literal["digest", "translate", "any"] = "any"  # which kind of request it applies to
    times: int = 1
    status: int = 500  # http_error
    body: str | None = None  # http_error: sent as is (JSON if it parses, else text)
    delay_s: float = 0.0  # extra delay before answering, for every kind (`slow` does only this)
    retry_after_s: float = 1.0  # rate_limit
    engine: EngineKind = "vllm"  # context_length: whose error body to imitate


class RequestRecord(BaseModel):
    """One request the sim served (admin endpoints excluded); times are time.monotonic()."""

    path: str
    method: str
    started: float
    ended: float
    status: int
    kind: RequestKind | None = None
    messages: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str | None = None
    fault: FaultKind | None = None
    response_format: str | None = None  # the type asked for (json_schema, json_object), if any


class SimStats(BaseModel):
    requests: int = 0
    by_path: dict[str, int] = Field(default_factory=dict)
    in_flight: int = 0
    max_in_flight: int = 0
    records: list[RequestRecord] = Field(default_factory=list)
    # with a batching model: simulated seconds elapsed, tokens decoded, the largest batch seen
    sim_seconds: float = 0.0
    generated_tokens: int = 0
    peak_batch: int = 0
    preemptions: int = 0


_FAULTS = TypeAdapter(list[Fault])


# --- tokens --------------------------------------------------------------------------------------


def _modelled_length(mean: int | None, tokens: list[str]) -> int | None:
    """A completion length around `mean` (0.6x to 1.4x), the same for the same prompt in any process."""
    if not mean:
        return None
    spread = (zlib.crc32("".join(tokens).encode("utf-8")) % 1000) / 1000
    return max(1, round(mean * (0.6 + 0.8 * spread)))


def tokenize(text: str) -> list[str]:
    """The sim's tokenizer is the pipeline's documented estimate (budget.py), so counts agree exactly."""
    return estimate_token_list(text)


def approx_tokens(text: str) -> int:
    return estimate_tokens(text)


def prompt_tokens(messages: list[dict[str, str]]) -> list[str]:
    """The token sequence of a chat prompt: each message wrapped in 4 template tokens, then 2 to prime."""
    tokens: list[str] = []
    for message in messages:
        tokens += ["<|im_start|>", message["role"], "\n", *tokenize(message["content"]), "<|im_end|>"]
    return [*tokens, "<|im_start|>", "assistant"]


class _PrefixCache:
    """Block-hash prefix cache like vLLM's: a prompt hits as many leading full blocks as were seen before."""

    def __init__(self, block: int = CACHE_BLOCK, max_blocks: int = 2_000_000) -> None:
        self.block = block
        self.max_blocks = max_blocks
        self._seen: set[int] = set()

    def hashes(self, tokens: list[str]) -> list[int]:
        chain, out = 0, []
        for start in range(0, len(tokens) - self.block + 1, self.block):
            chain = hash((chain, tuple(tokens[start : start + self.block])))
            out.append(chain)
        return out

    def cached(self, tokens: list[str], hashes: list[int]) -> int:
        # At least the last prompt token is always computed (as in vLLM), so a repeat is not 100 % hit.
        usable = (len(tokens) - 1) // self.block
        hits = 0
        for h in hashes[:usable]:
            if h not in self._seen:
                break
            hits += 1
        return hits * self.block

    def insert(self, hashes: list[int]) -> None:
        if len(self._seen) + len(hashes) > self.max_blocks:
            self._seen.clear()  # crude eviction; tests never get near it
        self._seen.update(hashes)

    def clear(self) -> None:
        self._seen.clear()


# --- answers -------------------------------------------------------------------------------------


@dataclass
class _Section:
    tag: str
    title: str
    known: bool  # the tag is listed after "Section tags:", so results may cite it
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.lines).split())


_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“\[])")
_NUMBER_RE = re.compile(r"(?<![\w.\-])\d+(?:[.,]\d+)*(?:%|×|x\b)?")
_METHOD_RE = re.compile(r"\b(we|our)\b.*\b(propose|introduce|present|design|develop|build|implement)", re.I)
_CAPTION_RE = re.compile(r"(Figure|Fig\.|Table|Algorithm)\s*\d")
_LABEL_RE = re.compile(r"\b(Figure|Fig\.|Table|Tab\.|Section|Sec\.|Eq\.|Equation|Algorithm|Appendix|§)\s*\(?$")
_YEAR_RE = re.compile(r"(19|20)\d\d")
_LIMIT_RE = re.compile(r"\b(however|limitation|limited|fails?|challeng\w*|cannot|only)\b", re.I)
_ZH_PREFIX = {
    "one_sentence": "一句话总结：",
    "problem": "问题：",
    "method": "方法：",
    "finding": "发现：",
    "limitations": "局限：",
    "takeaways": "要点：",
    "label": "主题：",
}


def classify(messages: list[dict[str, str]]) -> RequestKind:
    """What the conversation asks for, judged by its first user message (a retry's last one is feedback)."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if first_user.startswith(TITLE_PREFIX) and f"\n{TAGS_PREFIX}" in first_user:
        return "digest"
    if _digest_json(first_user) is not None:
        return "translate"
    return "other"


def build_digest(user: str) -> dict[str, Any]:
    """A digest of the paper in a digest_messages() user message that check_digest_en accepts."""
    title, tags, sections = _parse_paper(user)
    haystack = normalise_for_match("\n".join(line for s in sections for line in s.lines))
    citable = [s for s in sections if s.known and _sentences(s.text)]
    if not citable:  # no usable marked text: cite the first listed tag with whatever text there is
        fallback = _Section(tags[0] if tags else "Abstract", "", True, [s.text for s in sections])
        citable = [fallback]
    if len(citable) > 6:  # keep the six richest in numbers, in paper order
        ranked = {id(s) for s in sorted(citable, key=lambda s: -len(_NUMBER_RE.findall(s.text)))[:6]}
        citable = [s for s in citable if id(s) in ranked]
    n_results = min(max(len(citable), 3), 6)
    queues = {id(s): _ranked_sentences(s.text) for s in citable}
    used: dict[int, int] = {}
    results = []
    for i in range(n_results):
        section = citable[i % len(citable)]
        queue = queues[id(section)] or [section.title or title or "The paper states a result."]
        finding = queue[used.get(id(section), 0) % len(queue)]
        used[id(section)] = used.get(id(section), 0) + 1
        numbers = _numbers(finding, haystack)
        results.append({"finding": finding, "numbers": numbers, "sections": [section.tag]})

    all_sentences = [sent for s in citable for sent in _sentences(s.text)]
    opening = all_sentences[:2] or [title]
    method = [s for s in all_sentences if _METHOD_RE.search(s)][:2] or all_sentences[2:4] or opening
    limits = [s for s in all_sentences if _LIMIT_RE.search(s)][:2]
    if [s.tag for s in sections] == ["Abstract"]:
        limits.append("Only the abstract was available, so details beyond it are not covered.")
    if not limits:
        limits = ["The given text states no explicit limitation."]
    takeaways = [
        f"{_section_label(citable[i % len(citable)])}: {_clip(r['finding'], 14)}" for i, r in enumerate(results[:3])
    ]
    return {
        "one_sentence": f"{title}: {opening[0]}" if title else opening[0],
        "problem": " ".join(opening),
        "method": " ".join(method),
        "results": results,
        "limitations": limits[:3],
        "takeaways": takeaways,
        "mind_map": _mind_map(title or "Paper", sections),
    }


def pseudo_translate(value: Any, key: str | None = None) -> Any:
    """A pseudo-Chinese digest: each text value starts with 译文 and a Chinese word; numbers/sections kept."""
    if isinstance(value, dict):
        return {k: (v if k in ("numbers", "sections") else pseudo_translate(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [pseudo_translate(v, key) for v in value]
    if isinstance(value, str):
        return f"译文·{_ZH_PREFIX.get(key or '', '内容：')}{value}"
    return value


def context_error_body(engine: EngineKind, prompt: int, context: int, max_tokens: int | None = None) -> dict:
    """The HTTP 400 body each engine sends when a prompt exceeds its context (DESIGN.md §3)."""
    if engine == "vllm":
        if max_tokens:  # vLLM's two wordings (v0.9 serving_engine): with and without max_tokens
            detail = (
                f"However, you requested {prompt + max_tokens} tokens ({prompt} in the messages, "
                f"{max_tokens} in the completion). Please reduce the length of the messages or completion."
            )
        else:
            detail = (
                f"However, you requested {prompt} tokens in the messages, Please reduce the length of the messages."
            )
        message = f"This model's maximum context length is {context} tokens. {detail}"
        return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}
    if engine == "sglang":
        message = f"The input ({prompt} tokens) is longer than the model's context length ({context} tokens)."
        return {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
    if engine == "llamacpp":
        return {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": context,
            }
        }
    message = (
        f"This model's maximum context length is {context} tokens. However, your messages resulted in "
        f"{prompt} tokens. Please reduce the length of the messages."
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def openai_error(message: str, type_: str, code: str | int | None = None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


# --- the simulator -------------------------------------------------------------------------------


@dataclass
class _Info:
    """What a handler learned about its request, for the stats record."""

    kind: RequestKind | None = None
    messages: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str | None = None
    fault: FaultKind | None = None
    response_format: str | None = None


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
        context_engine: EngineKind = "vllm",
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
        self.context_engine: EngineKind = context_engine
        # With a batching model, time comes from decode steps of the whole batch (DESIGN.md §4)
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
        self._cache = _PrefixCache()
        self._cache_queries = self._cache_hits = 0  # the /metrics counters
        self._ids = itertools.count(1)
        tracked = functools.partial
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", tracked(self._tracked, self._chat), methods=["POST"]),
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

    async def _tracked(self, handler: Callable[[Request, _Info], Awaitable[Response]], request: Request) -> Response:
        path = request.url.path
        started = time.monotonic()
        with self._lock:
            stats = self._stats
            stats.requests += 1
            stats.by_path[path] = stats.by_path.get(path, 0) + 1
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        info, status = _Info(), 500
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
                **dataclasses.asdict(info),
            )
            with self._lock:
                self._stats.in_flight -= 1
                self._stats.records.append(record)

    def _take_fault(self, contents: list[str], n_messages: int, kind: RequestKind | None) -> Fault | None:
        stage = "first" if n_messages <= 2 else "retry"
        with self._lock:
            for fault in self._faults:
                if fault.times == 0 or fault.on not in ("any", stage) or fault.request not in ("any", kind):
                    continue
                if fault.match is not None and not any(fault.match in c for c in contents):
                    continue
                if fault.times > 0:
                    fault.times -= 1
                return fault.model_copy()
        return None

    def _authorised(self, request: Request) -> bool:
        return self.api_key is None or request.headers.get("authorization") == f"Bearer {self.api_key}"

    # engine endpoints

    async def _health(self, request: Request, info: _Info) -> Response:
        return Response(status_code=200)

    async def _tokenize(self, request: Request, info: _Info) -> Response:
        """vLLM's shape: {"prompt": …} or {"messages": […]} -> {"count", "max_model_len"}."""
        try:
            body = await request.json()
            if "messages" in body:
                count = len(prompt_tokens(_messages(body)))
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

    async def _models(self, request: Request, info: _Info) -> Response:
        if not self._authorised(request):
            return _unauthorised()
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "papers-digest-sim"}],
            }
        )

    async def _chat(self, request: Request, info: _Info) -> Response:
        if not self._authorised(request):
            return _unauthorised()
        try:
            body = await request.json()
            messages = _messages(body)
        except (ValueError, TypeError) as exc:
            return JSONResponse(openai_error(f"invalid request: {exc}", "invalid_request_error"), status_code=400)
        if body.get("stream"):
            return JSONResponse(
                openai_error("stream=true is not supported by this simulator", "invalid_request_error", param="stream"),
                status_code=400,
            )
        info.messages = len(messages)
        info.kind = classify(messages)
        info.response_format = (body.get("response_format") or {}).get("type")
        if info.response_format and self.refuse_response_format:
            error = openai_error("response_format is not supported by this server", "invalid_request_error")
            return JSONResponse(error, status_code=400)
        await asyncio.sleep(self.latency_s)

        tokens = prompt_tokens(messages)
        info.prompt_tokens = len(tokens)
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        max_tokens = max_tokens if isinstance(max_tokens, int) else None
        if self.context_tokens is not None and len(tokens) > self.context_tokens:
            error = context_error_body(self.context_engine, len(tokens), self.context_tokens, max_tokens)
            return JSONResponse(error, status_code=400)

        fault = self._take_fault([m["content"] for m in messages], len(messages), info.kind)
        info.fault = fault.kind if fault else None
        if fault is not None:
            await asyncio.sleep(fault.delay_s)
            refusal = self._refusal(fault, len(tokens), max_tokens)
            if refusal is not None:
                return refusal

        hashes = self._cache.hashes(tokens)
        with self._lock:
            info.cached_tokens = self._cache.cached(tokens, hashes)
            self._cache.insert(hashes)
            self._cache_queries += len(tokens)
            self._cache_hits += info.cached_tokens

        modelled = _modelled_length(self.completion_tokens.get(info.kind or ""), tokens)
        decoding = None
        if self.batcher is not None and modelled:
            # Queue the decode first, then build the answer while the simulated engine works on it.
            decoding = self.batcher.submit(info.prompt_tokens, modelled, info.cached_tokens)
        content, finish = _answer(messages, info.kind, fault.kind if fault else None)
        info.completion_tokens = modelled or approx_tokens(content)
        info.finish_reason = finish
        if decoding is not None:
            await decoding
        elif self.batcher is not None:
            await self.batcher.generate(info.prompt_tokens, info.completion_tokens, info.cached_tokens)
        elif self.decode_tok_s:
            await asyncio.sleep(info.completion_tokens / self.decode_tok_s)
        payload = {
            "id": f"chatcmpl-sim-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "logprobs": None,
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": info.prompt_tokens,
                "completion_tokens": info.completion_tokens,
                "total_tokens": info.prompt_tokens + info.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": info.cached_tokens},
            },
        }
        if fault is not None and fault.kind == "reset":
            return DroppedResponse(json.dumps(payload, ensure_ascii=False), media_type="application/json")
        return JSONResponse(payload)

    def _refusal(self, fault: Fault, prompt: int, max_tokens: int | None) -> Response | None:
        """The error response a fault answers with instead of a completion, if it is that kind."""
        if fault.kind == "http_error":
            if fault.body is None:
                return JSONResponse(
                    openai_error(f"simulated HTTP {fault.status}", "server_error"), status_code=fault.status
                )
            try:
                json.loads(fault.body)
                media = "application/json"
            except ValueError:
                media = "text/plain; charset=utf-8"
            return Response(fault.body, status_code=fault.status, media_type=media)
        if fault.kind == "rate_limit":
            wait = f"{fault.retry_after_s:g}"
            error = openai_error(
                f"Rate limit reached for {self.model}. Please try again in {wait}s.",
                "requests",
                code="rate_limit_exceeded",
            )
            headers = {"Retry-After": wait, "retry-after-ms": str(round(fault.retry_after_s * 1000))}
            return JSONResponse(error, status_code=429, headers=headers)
        if fault.kind == "context_length":
            # Without a configured context, pretend the window is half the prompt so the numbers still fit.
            context = self.context_tokens if self.context_tokens is not None else max(1, prompt // 2)
            return JSONResponse(context_error_body(fault.engine, prompt, context, max_tokens), status_code=400)
        return None

    # admin endpoints (not counted in stats)

    async def _admin_faults(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                self.set_faults(_FAULTS.validate_python(await request.json()))
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


# --- helpers -------------------------------------------------------------------------------------


def _unauthorised() -> Response:
    error = openai_error("Incorrect API key provided.", "invalid_request_error", code="invalid_api_key")
    return JSONResponse(error, status_code=401)


def _messages(body: Any) -> list[dict[str, str]]:
    """Validate the request's messages; content parts ([{"type":"text","text":…}]) are joined."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        raise ValueError("'messages' must be a non-empty list")
    out = []
    for i, message in enumerate(body["messages"]):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"messages[{i}] needs a 'role'")
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise ValueError(f"messages[{i}].content must be a string or a list of parts")
        out.append({"role": message["role"], "content": content})
    return out


def _answer(messages: list[dict[str, str]], kind: RequestKind, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) for a request, with a content fault applied."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if kind == "digest":
        english = build_digest(first_user)
        obj: dict[str, Any] | None = pseudo_translate(english) if fault == "wrong_language" else english
    elif kind == "translate":
        english = _digest_json(first_user) or {}
        obj = english if fault == "wrong_language" else pseudo_translate(english)
    else:
        obj = None
    if obj is not None and fault in ("wrong_schema", "wrong_numbers", "bad_section"):
        obj = _damage(obj, fault)
    content = "OK" if obj is None else json.dumps(obj, ensure_ascii=False, indent=2)
    if fault == "invalid_json":
        return f"Here is the digest you asked for:\n{content}", "stop"  # chatter around the JSON
    if fault == "fence":
        return f"```json\n{content}\n```", "stop"
    if fault == "empty":
        return "", "stop"
    if fault == "length":
        return content[: max(1, len(content) // 2)], "length"
    return content, "stop"


def _damage(obj: dict[str, Any], fault: FaultKind) -> dict[str, Any]:
    obj = json.loads(json.dumps(obj))  # deep copy
    if fault == "wrong_schema":
        obj.pop("method", None)
        obj["notes"] = "an extra key the schema does not allow"
        return obj
    results = obj.get("results")
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        obj["results"] = results = [{"finding": "", "numbers": [], "sections": []}]
    first = results[0]
    key, bad = ("numbers", BAD_NUMBER) if fault == "wrong_numbers" else ("sections", BAD_SECTION)
    values = first.get(key) if isinstance(first.get(key), list) else []
    first[key] = [bad, *values[1:]]
    return obj


def _digest_json(text: str) -> dict[str, Any] | None:
    """The user message as a digest object, if it is one (a translate request)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and any(k in data for k in DIGEST_KEYS) else None


def _parse_paper(user: str) -> tuple[str, list[str], list[_Section]]:
    """Title, listed tags and marked sections of a digest user message."""
    # The title may span lines (raw HF titles hold "\n  "), so find the tags line rather than line 2.
    tags_at = user.find(f"\n{TAGS_PREFIX}")
    head = user[:tags_at] if tags_at >= 0 else ""
    title = " ".join(head.removeprefix(TITLE_PREFIX).split())
    rest = user[tags_at + 1 :] if tags_at >= 0 else user
    tags_line, _, body = rest.partition("\n")
    tags = [t.strip() for t in tags_line.removeprefix(TAGS_PREFIX).split(",") if t.strip()]
    known = sorted(tags, key=len, reverse=True)  # longest first, so "3.1" wins over "3"
    sections: list[_Section] = []
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("[§") and stripped.endswith("]"):
            inner = stripped[2:-1].strip()
            tag = next((t for t in known if inner == t or inner.startswith(t + " ")), None)
            name = inner.split(" ", 1)[0] if tag is None else tag
            sections.append(_Section(name, inner[len(name) :].strip(), tag is not None))
        elif sections:
            sections[-1].lines.append(line)
        elif stripped:  # text before any marker: only used when there is no marker at all
            sections.append(_Section(tags[0] if tags else "Abstract", "", bool(tags), [line]))
    return title, tags, sections


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_SPLIT_RE.split(text) if len(s.split()) >= 4]


def _ranked_sentences(text: str) -> list[str]:
    """Sentences a model would report as findings first: rich in figures, not captions or LaTeX debris."""
    sentences = _sentences(text)
    short = [s for s in sentences if len(s) <= 400] or sentences  # avoid table dumps posing as sentences

    def score(sentence: str) -> int:
        figures = _figures(sentence)
        rich = sum(not n.isdigit() for n in figures)
        noise = bool(_CAPTION_RE.match(sentence)) + sum(map(sentence.count, ("\\", "{", "|")))
        return 3 * rich + len(figures) - 4 * noise

    return sorted(short, key=score, reverse=True)  # stable: ties keep text order


def _figures(sentence: str) -> list[str]:
    """Numbers in a sentence, minus labels ("Figure 3", "Eq. 2") and citation years ("Liu et al., 2025")."""
    return [
        m.group(0)
        for m in _NUMBER_RE.finditer(sentence)
        if not _LABEL_RE.search(sentence[: m.start()]) and not _YEAR_RE.fullmatch(m.group(0))
    ]


def _numbers(sentence: str, haystack: str) -> list[str]:
    """Up to 2 figures from the sentence that occur verbatim in the paper; decimals, % and x first."""
    found = [n for n in dict.fromkeys(_figures(sentence)) if normalise_for_match(n) in haystack]
    return sorted(found, key=lambda n: n.isdigit())[:2]


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _section_label(section: _Section) -> str:
    return f"{section.tag} {section.title}".strip() if section.title and section.title != section.tag else section.tag


def _mind_map(title: str, sections: list[_Section]) -> dict[str, Any]:
    """Root = title; children = top-level sections, each with its subsections (3.2 under 3, A.1 under A)."""
    root: dict[str, Any] = {"label": title, "children": []}
    nodes: dict[str, dict[str, Any]] = {}
    for section in sections:
        if section.tag.count(".") > 1:
            continue  # subsubsections would make the map deeper than the prompt's 2-3 levels
        node = {"label": _section_label(section), "children": []}
        parent = nodes.get(section.tag.rsplit(".", 1)[0]) if "." in section.tag else None
        (parent["children"] if parent else root["children"]).append(node)
        if parent is None:
            nodes.setdefault(section.tag, node)
    return root
