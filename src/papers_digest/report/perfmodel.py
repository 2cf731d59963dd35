"""The seed's serving model (docs/design.md §4): decode is memory-bound, one step reads all weights plus every KV cache.

Used by the engine simulator (its timing), the capacity planner in the run report, and the benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

GIB = 1024**3


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer as far as serving cost goes; the default is Llama-3.1-8B in bf16."""

    name: str = "Llama-3.1-8B (bf16)"
    weight_bytes: float = 16.06e9
    layers: int = 32
    kv_heads: int = 8
    head_dim: int = 128
    kv_dtype_bytes: int = 2
    prefill_flops_per_token: float = 15.01e9  # ≈ 2 × the linear layers' parameters

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V, every layer: 2 × 32 × 8 × 128 × 2 bytes = 128 KiB for the default."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.kv_dtype_bytes

    def kv_bytes(self, tokens: int) -> float:
        return tokens * self.kv_bytes_per_token


@dataclass(frozen=True)
class Gpu:
    """What bounds a step: memory bandwidth for decode, compute for prefill, memory for the KV cache."""

    name: str = "hypothetical 1 TB/s, 24 GiB"
    bandwidth_bytes_s: float = 1e12
    memory_bytes: float = 24 * GIB
    flops: float = 100e12  # effective, for prefill


def decode_step_s(model: ModelShape, gpu: Gpu, contexts: Sequence[int]) -> float:
    """One decode step for a batch whose requests hold `contexts` tokens each: (weights + Σ KV) / bandwidth."""
    return (model.weight_bytes + sum(model.kv_bytes(c) for c in contexts)) / gpu.bandwidth_bytes_s


def decode_ceiling_tok_s(model: ModelShape, gpu: Gpu, batch: int, context: int) -> float:
    """Upper bound on generated tokens per second for `batch` requests of `context` tokens."""
    if batch <= 0:
        return 0.0
    return batch / decode_step_s(model, gpu, [context] * batch)


def prefill_s(model: ModelShape, gpu: Gpu, tokens: int) -> float:
    return tokens * model.prefill_flops_per_token / gpu.flops


def max_concurrency(model: ModelShape, gpu: Gpu, context: int, memory_fraction: float = 0.9) -> int:
    """How many requests of `context` tokens fit in the KV cache left after the weights (0 if none)."""
    free = gpu.memory_bytes * memory_fraction - model.weight_bytes
    if free <= 0 or context <= 0:
        return 0
    return math.floor(free / model.kv_bytes(context))


def kv_capacity_tokens(model: ModelShape, gpu: Gpu, memory_fraction: float = 0.9) -> int:
    """Tokens of KV cache the GPU holds after the weights."""
    free = gpu.memory_bytes * memory_fraction - model.weight_bytes
    return max(0, math.floor(free / model.kv_bytes_per_token))
