"""The capacity planner: from a run's measured per-call lengths, the KV cache and tok/s a model and GPU allow."""

from __future__ import annotations

from typing import Any

import pandas as pd

from papers_digest.day.metrics import QUANTILES
from papers_digest.report import perfmodel
from papers_digest.report.perfmodel import GIB, Gpu, ModelShape


def context_quantiles(calls: pd.DataFrame) -> pd.Series:
    """Measured context per request (prompt + completion tokens) at p50, p90 and max; empty if none known."""
    known = calls["context_tokens"].dropna().astype(float)
    if known.empty:
        return pd.Series(dtype=int, name="context_tokens")
    values = {name: round(known.quantile(q)) for name, q in QUANTILES.items()}
    values["max"] = int(known.max())
    return pd.Series(values, name="context_tokens")


def request_kv(calls: pd.DataFrame, model: ModelShape, gpu: Gpu, memory_fraction: float = 0.9) -> pd.DataFrame:
    """Per measured context (p50, p90, max): KV cache one request needs, how many such requests fit on the
    GPU next to the weights, and the bandwidth-bound decode ceiling alone and at that concurrency."""
    rows = []
    for name, context in context_quantiles(calls).items():
        fits = perfmodel.max_concurrency(model, gpu, int(context), memory_fraction)
        rows.append(
            {
                "context": name,
                "context_tokens": int(context),
                "kv_mib_per_request": model.kv_bytes(int(context)) / 2**20,
                "max_concurrency": fits,
                "ceiling_tok_s_at_1": perfmodel.decode_ceiling_tok_s(model, gpu, 1, int(context)),
                "ceiling_tok_s_at_max": perfmodel.decode_ceiling_tok_s(model, gpu, fits, int(context)),
            }
        )
    return pd.DataFrame(rows).set_index("context") if rows else pd.DataFrame()


def capacity_plan(
    calls: pd.DataFrame, model: ModelShape, gpu: Gpu, max_concurrency: int = 16, memory_fraction: float = 0.9
) -> pd.DataFrame:
    """For concurrency 1…max_concurrency, with every request at the measured p50/p90/max context: total KV
    (GiB), whether it fits beside the weights, decode step time and the tok/s ceiling (empty if no tokens)."""
    contexts = {name: int(v) for name, v in context_quantiles(calls).items()}
    if not contexts:
        return pd.DataFrame()
    fits_at_max = perfmodel.max_concurrency(model, gpu, contexts["max"], memory_fraction)
    rows = []
    for batch in range(1, max_concurrency + 1):
        row: dict[str, Any] = {"concurrency": batch}
        for name, context in contexts.items():
            row[f"kv_gib_{name}"] = batch * model.kv_bytes(context) / GIB
        row["fits_at_max"] = batch <= fits_at_max
        row["step_ms_p90"] = 1000 * perfmodel.decode_step_s(model, gpu, [contexts["p90"]] * batch)
        for name, context in contexts.items():
            row[f"ceiling_tok_s_{name}"] = perfmodel.decode_ceiling_tok_s(model, gpu, batch, context)
        rows.append(row)
    return pd.DataFrame(rows).set_index("concurrency")


def usable_kv_gib(model: ModelShape, gpu: Gpu, memory_fraction: float = 0.9) -> float:
    """GiB of KV cache the GPU holds after the weights (for the planner's plot)."""
    return perfmodel.kv_capacity_tokens(model, gpu, memory_fraction) * model.kv_bytes_per_token / GIB
