"""The real-engine benchmark's anchor: the engine's own time for the calls the pipeline made (bench/real_engine.py)."""

from __future__ import annotations

import pytest
from conftest import bench_module

from papers_digest.core.models import CallRecord


@pytest.fixture(scope="module")
def real_engine():
    return bench_module("real_engine")


def _call(prompt: int, cached: int, completion: int, start: float = 0.0, end: float = 1.0) -> CallRecord:
    return CallRecord(
        date="2025-04-03", arxiv_id="2503.20783", stage="digest_en", attempt=1, status="ok",
        prompt_tokens=prompt, cached_tokens=cached, completion_tokens=completion,
        started_at=start, ended_at=end, latency_s=end - start,
    )  # fmt: skip


# batched-bench's rates next to a short and a long prompt, at 1 and 4 sequences
LIMITS = {
    "short": {1: {"s_pp": 100.0, "s_tg": 30.0}, 4: {"s_pp": 110.0, "s_tg": 40.0}},
    "long": {1: {"s_pp": 60.0, "s_tg": 10.0}, 4: {"s_pp": 65.0, "s_tg": 8.0}},
}


def test_the_engine_limit_charges_each_call_at_its_own_lengths(real_engine):
    short, long = _call(800, 200, 300), _call(6000, 0, 100)
    # computed prompt at the median of the rows' prefill rates (one prompt, measured once per row),
    # generated tokens at the concurrency's decode rate
    alone = 600 / 105 + 300 / 30 + 6000 / 62.5 + 100 / 10
    four = 600 / 105 + 300 / 40 + 6000 / 62.5 + 100 / 8
    assert real_engine.engine_limit_s([short, long], LIMITS, 1) == pytest.approx(alone)
    assert real_engine.engine_limit_s([short, long], LIMITS, 4) == pytest.approx(four)


def test_the_anchor_generates_as_long_as_the_days_answers_not_128_tokens(real_engine):
    # Two long first answers and a 20-token repair: the median prompt, and the completion an average
    # generated token belongs to, (900² + 700² + 20²) / 1,620 = 803, not the repair's 20 or a fixed 128.
    calls = [_call(800, 0, 900), _call(1000, 0, 700), _call(900, 800, 20), _call(6000, 0, 100)]
    assert real_engine.anchor_lengths(calls) == {"short": (900, 803), "long": (6000, 128)}
    # a class of short answers only still decodes ANCHOR_TOKENS steps, for a steady rate
    assert real_engine.anchor_lengths([_call(700, 0, 30)]) == {"short": (700, real_engine.ANCHOR_TOKENS)}


def test_the_time_in_flight_is_split_by_how_many_calls_were_open(real_engine):
    calls = [_call(10, 0, 1, 0, 10), _call(10, 0, 1, 5, 20), _call(10, 0, 1, 30, 40)]
    # one open 0-5, 10-20 and 30-40; two 5-10; none 20-30 and 40-50
    assert real_engine.in_flight_shares(calls, 50.0, 2) == pytest.approx([25 / 50, 5 / 50])
    assert real_engine.in_flight_shares(calls, 50.0, 3) == pytest.approx([25 / 50, 5 / 50, 0.0])


def test_a_runs_calls_are_kept_for_the_report_to_read(real_engine, tmp_path):
    from papers_digest.report.tables import load_calls

    run = real_engine.Run(4, calls=[_call(10, 0, 1, 0, 10), _call(10, 5, 1, 5, 20)])
    kept = real_engine.keep_calls(run, tmp_path)
    assert kept == tmp_path / "c4"
    calls = load_calls(kept)
    assert list(calls["end_s"]) == [10.0, 20.0] and list(calls["cached_tokens"]) == [0, 5]
