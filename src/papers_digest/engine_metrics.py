"""Prefix-cache evidence from an engine's Prometheus `/metrics` (vLLM counters, SGLang's hit rate)."""

from __future__ import annotations

import re

import httpx

# vLLM counts prefix-cache queries and hits in tokens (older releases prefix the names with gpu_);
# SGLang exports a hit-rate gauge when started with --enable-metrics.
COUNTERS = {
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
    """GET {server}/metrics; None when the engine has no metrics page (hosted APIs, llama.cpp)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.get(f"{root}/metrics")
    except httpx.HTTPError:
        return None
    if response.status_code != 200:
        return None
    return parse_prefix_cache(response.text) or None


def prefix_cache_delta(before: dict[str, float] | None, after: dict[str, float] | None) -> dict[str, float]:
    """What the batch added: token queries and hits, their rate (vLLM), or the gauge at the end (SGLang)."""
    if not after:
        return {}
    before = before or {}
    delta: dict[str, float] = {}
    if "vllm_prefix_cache_queries" in after:
        queries = after["vllm_prefix_cache_queries"] - before.get("vllm_prefix_cache_queries", 0.0)
        hits = after.get("vllm_prefix_cache_hits", 0.0) - before.get("vllm_prefix_cache_hits", 0.0)
        delta.update(prefix_cache_queries=queries, prefix_cache_hits=hits)
        if queries > 0:
            delta["prefix_cache_hit_rate"] = round(hits / queries, 4)
    if "sglang_cache_hit_rate" in after:
        delta["prefix_cache_hit_rate"] = round(after["sglang_cache_hit_rate"], 4)
    return delta
