"""An endpoint's side routes: `/models` (preflight), `/metrics` (prefix-cache counters) and `/tokenize`.

One rule for the API key (only from the environment) and one for the server root (the base URL without
its `/v1`), shared with the chat client (docs/architecture.md, "Talking to the endpoint").
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable

import httpx

from papers_digest.core.errors import ConfigError
from papers_digest.core.http import describe_transport_error, make_client
from papers_digest.core.params import LlmParams
from papers_digest.llm.budget import estimate_tokens

API_KEY_ENV = "OPENAI_LLM_API_KEY"
PREFLIGHT_TIMEOUT_S = 15.0
SIDE_ROUTE_TIMEOUT_S = 60.0


def api_key(explicit: str | None = None) -> str:
    """The API key: the one given, else the environment's; never from a file."""
    return explicit if explicit is not None else os.environ.get(API_KEY_ENV, "")


def auth_headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def server_root(base_url: str) -> str:
    """`http://host:port/v1` -> `http://host:port`: where an engine's non-OpenAI routes live."""
    return base_url.rstrip("/").removesuffix("/v1")


# --- /models: checks before any paper is touched ------------------------------------------------------


class PreflightError(ConfigError):
    """The configuration cannot work; the message is one line naming the problem."""


async def check_llm_endpoint(llm: LlmParams, key: str | None = None) -> None:
    """`GET {base_url}/models`; raise PreflightError for what no retry can fix (unreachable, key, model).

    A 5xx or a missing /models route is not fatal here: the calls' own retries and errors handle those.
    """
    if not llm.configured:
        return
    key = api_key(key)
    url = f"{llm.base_url}/models"
    async with make_client(timeout_s=PREFLIGHT_TIMEOUT_S, headers=auth_headers(key)) as client:
        try:
            response = await client.get(url)
        except httpx.TransportError as exc:
            raise PreflightError(f"llm.base_url is unreachable: {describe_transport_error(exc, url)}") from None
    if response.status_code in (401, 403):
        if not key:
            raise PreflightError(
                f"{llm.base_url} wants an API key (HTTP {response.status_code}): set the environment variable "
                f"{API_KEY_ENV}"
            )
        raise PreflightError(f"{llm.base_url} refused the API key in {API_KEY_ENV} (HTTP {response.status_code})")
    if response.status_code != 200:
        return
    try:
        served = [m["id"] for m in response.json().get("data", []) if isinstance(m, dict) and "id" in m]
    except (ValueError, AttributeError):
        return
    if served and llm.model not in served:
        listed = ", ".join(served[:10]) + (" …" if len(served) > 10 else "")
        raise PreflightError(f"llm.model {llm.model!r} is not served by {llm.base_url} (it serves: {listed})")


# --- /health and one tiny completion: is a (managed) engine ready? ----------------------------------


def answers_health(client: httpx.Client, root: str) -> bool:
    """Loaded: `/health` says 200 (llama-server and vLLM/SGLang answer 503 while loading); an engine
    without /health counts as loaded once `/v1/models` says 200."""
    try:
        health = client.get(f"{root}/health")
        if health.status_code == 200:
            return True
        if health.status_code != 404:
            return False
        return client.get(f"{root}/v1/models").status_code == 200
    except httpx.HTTPError:
        return False  # not listening yet


def probe_request(model: str) -> dict:
    """The cheapest real question: a one-token completion. The readiness check sends it, and so does the chat
    client after a call failed past its retries, to tell a request's own failure from an outage."""
    return {"model": model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 1}


def tiny_completion(client: httpx.Client, root: str, model: str) -> str | None:
    """One real completion of one token: None when the engine computed it, else what went wrong.

    An engine that loads but cannot compute (a build for another CPU dies on its first matrix multiply)
    fails here, before any paper is touched.
    """
    try:
        response = client.post(f"{root}/v1/chat/completions", json=probe_request(model))
    except httpx.TransportError as exc:
        return describe_transport_error(exc, f"{root}/v1/chat/completions")
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:300]}"
    return None


# --- /metrics: prefix-cache evidence ------------------------------------------------------------------

# vLLM counts prefix-cache queries and hits in tokens (older releases prefix the names with gpu_);
# SGLang exports a hit-rate gauge when started with --enable-metrics; llama-server (--metrics) counts the
# prompt tokens it computed and, apart, those it reused from the cache.
COUNTERS = {
    "llamacpp:prompt_tokens_total": "llamacpp_prompt_tokens",
    "llamacpp:prompt_tokens_cached_total": "llamacpp_prompt_tokens_cached",
    "vllm:prefix_cache_queries_total": "vllm_prefix_cache_queries",
    "vllm:prefix_cache_hits_total": "vllm_prefix_cache_hits",
    "vllm:gpu_prefix_cache_queries_total": "vllm_prefix_cache_queries",
    "vllm:gpu_prefix_cache_hits_total": "vllm_prefix_cache_hits",
    "sglang:cache_hit_rate": "sglang_cache_hit_rate",
}
_SAMPLE_RE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([-+0-9.eEinfNa]+)")


def parse_prefix_cache(text: str) -> dict[str, float]:
    """The prefix-cache figures in a Prometheus text page, summed over label sets."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        match = _SAMPLE_RE.match(line)
        if match and match.group(1) in COUNTERS:
            name = COUNTERS[match.group(1)]
            try:
                found[name] = found.get(name, 0.0) + float(match.group(3))
            except ValueError:
                continue
    return found


async def scrape_prefix_cache(base_url: str, timeout_s: float = 10.0) -> dict[str, float] | None:
    """GET {server}/metrics; None when the engine has no metrics page (hosted APIs)."""
    try:
        async with make_client(timeout_s=timeout_s, headers=auth_headers(api_key())) as client:
            response = await client.get(f"{server_root(base_url)}/metrics")
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return parse_prefix_cache(response.text) or None


def prefix_cache_delta(before: dict[str, float] | None, after: dict[str, float] | None) -> dict[str, float]:
    """What the batch added: prompt tokens looked up in the prefix cache and those it served, and their rate
    (vLLM, llama-server), or the hit-rate gauge at the end (SGLang)."""
    if not after:
        return {}
    delta: dict[str, float] = {}
    counted_after = _queries_and_hits(after)
    if counted_after is not None:
        counted_before = _queries_and_hits(before or {}) or (0.0, 0.0)
        queries, hits = (a - b for a, b in zip(counted_after, counted_before, strict=True))
        delta.update(prefix_cache_queries=queries, prefix_cache_hits=hits)
        if queries > 0:
            delta["prefix_cache_hit_rate"] = round(hits / queries, 4)
    if "sglang_cache_hit_rate" in after:
        delta["prefix_cache_hit_rate"] = round(after["sglang_cache_hit_rate"], 4)
    return delta


def _queries_and_hits(figures: dict[str, float]) -> tuple[float, float] | None:
    """(prompt tokens looked up, tokens served from the cache) from one scrape, if the engine counts them."""
    if "vllm_prefix_cache_queries" in figures:
        return figures["vllm_prefix_cache_queries"], figures.get("vllm_prefix_cache_hits", 0.0)
    if "llamacpp_prompt_tokens_cached" in figures:
        cached = figures["llamacpp_prompt_tokens_cached"]
        return figures.get("llamacpp_prompt_tokens", 0.0) + cached, cached
    return None


# --- /tokenize: counting with the engine's own tokenizer ----------------------------------------------


class EngineTokenizer:
    """Counts tokens with the engine's own tokenizer, through whichever tokenize route it has;
    falls back to the estimate (llm/budget.py) when it has none (hosted APIs)."""

    def __init__(self, client: httpx.AsyncClient, base_url: str | None, model: str) -> None:
        self.client = client
        self.root = server_root(base_url) if base_url else None
        self.model = model
        self.method = "estimate"
        self._route: Callable[[str], Awaitable[int | None]] | None = None
        self._probed = base_url is None  # without an endpoint there is nothing to ask

    async def count(self, text: str) -> int:
        if not self._probed:
            await self._probe()
        if self._route is not None:
            counted = await self._route(text)
            if counted is not None:
                return counted
        return estimate_tokens(text)

    async def _probe(self) -> None:
        self._probed = True
        for name, route in (
            ("/tokenize", self._vllm_or_sglang),
            ("/extras/tokenize/count", self._llama_cpp_python),
            ("/tokenize (llama.cpp)", self._llama_cpp),
        ):
            if await route("probe") is not None:
                self._route, self.method = route, f"engine {name}"
                return

    async def _post(self, path: str, body: dict) -> dict | None:
        try:
            response = await self.client.post(f"{self.root}{path}", json=body)
        except httpx.HTTPError:
            return None
        if response.status_code != 200:
            return None
        try:
            data = response.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def _vllm_or_sglang(self, text: str) -> int | None:
        data = await self._post("/tokenize", {"model": self.model, "prompt": text, "add_special_tokens": False})
        if data is None:
            return None
        if isinstance(data.get("count"), int):
            return data["count"]
        return len(data["tokens"]) if isinstance(data.get("tokens"), list) and "count" in data else None

    async def _llama_cpp_python(self, text: str) -> int | None:
        data = await self._post("/extras/tokenize/count", {"input": text})
        return data["count"] if data and isinstance(data.get("count"), int) else None

    async def _llama_cpp(self, text: str) -> int | None:
        data = await self._post("/tokenize", {"content": text})
        return len(data["tokens"]) if data and isinstance(data.get("tokens"), list) else None


def tokenizer_client() -> httpx.AsyncClient:
    """The client the token counter talks through: the shared setup, with the key when there is one."""
    return make_client(timeout_s=SIDE_ROUTE_TIMEOUT_S, headers=auth_headers(api_key()))


def token_counter(llm: LlmParams, client: httpx.AsyncClient) -> EngineTokenizer:
    """The engine's tokenizer when an endpoint is configured (else the estimate)."""
    return EngineTokenizer(client, llm.base_url if llm.configured else None, llm.model)
