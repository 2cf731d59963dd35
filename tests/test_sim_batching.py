"""The simulator's continuous-batching model reproduces the seed's ceilings and queues what does not fit."""

import asyncio

import httpx
import pytest
from conftest import abstract_docs, sample_papers

from papers_devtools.sim.batching import BatchingConfig, ContinuousBatcher, ideal_makespan, steps_time, steps_within
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.llm.prompting import digest_messages, load_prompt
from papers_digest.report.perfmodel import Gpu, ModelShape, decode_ceiling_tok_s, prefill_s

SEED = BatchingConfig(model=ModelShape(), gpu=Gpu(), time_scale=0.0005)
SEED_CEILINGS = {1: 55, 2: 100, 3: 137}  # the seed's write-up, Llama-3.1-8B shape, 1 TB/s, 15,000 tokens


def _decode_rate(config: BatchingConfig, batch: int, prompt: int, completion: int) -> float:
    """Generated tok/s of `batch` equal requests sent at once, prefill excluded, in simulated time."""

    async def run() -> ContinuousBatcher:
        batcher = ContinuousBatcher(config)
        await asyncio.gather(*(batcher.generate(prompt, completion) for _ in range(batch)))
        return batcher

    batcher = asyncio.run(run())
    decode_s = batcher.sim_now - batch * prefill_s(config.model, config.gpu, prompt)
    return batcher.generated / decode_s


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_ceilings_match_the_seed_and_the_formula_within_5_percent(batch):
    rate = _decode_rate(SEED, batch, prompt=15_000, completion=300)
    formula = decode_ceiling_tok_s(SEED.model, SEED.gpu, batch, 15_000)
    assert rate == pytest.approx(formula, rel=0.05)
    assert rate == pytest.approx(SEED_CEILINGS[batch], rel=0.05)


def test_requests_that_do_not_fit_the_kv_cache_queue():
    small = BatchingConfig(kv_capacity_tokens=20_000, time_scale=0.0005)

    async def run() -> ContinuousBatcher:
        batcher = ContinuousBatcher(small)
        await asyncio.gather(*(batcher.generate(9_000, 200) for _ in range(4)))
        return batcher

    batcher = asyncio.run(run())
    assert batcher.peak_batch == 2  # two 9,200-token requests fit in 20,000 tokens, the others wait
    assert batcher.generated == 800
    # Queued in two waves: about twice the time of one wave of two.
    one_wave = steps_time(small, 18_000, 2, 200) + 2 * prefill_s(small.model, small.gpu, 9_000)
    assert batcher.sim_now == pytest.approx(2 * one_wave, rel=0.05)


def test_step_arithmetic_is_consistent():
    for steps in (1, 2, 17, 500):
        seconds = steps_time(SEED, 45_000, 3, steps)
        assert steps_within(SEED, 45_000, 3, seconds, 10_000) == steps
        assert steps_within(SEED, 45_000, 3, seconds * 0.999, 10_000) == steps - 1


def test_ideal_makespan_rewards_concurrency_until_the_cache_is_full():
    requests = [(15_000, 2_000)] * 12  # three of them fit the 24 GiB card's ~54,000 KV tokens
    prefill = 12 * prefill_s(SEED.model, SEED.gpu, 15_000)
    serial = ideal_makespan([requests], 1, SEED)
    three = ideal_makespan([requests], 3, SEED)
    assert serial == pytest.approx(prefill + 12 * steps_time(SEED, 15_000, 1, 2_000))
    assert three == pytest.approx(prefill + 4 * steps_time(SEED, 45_000, 3, 2_000))
    assert serial / three > 1.8
    assert ideal_makespan([requests], 4, SEED) == pytest.approx(three)  # a fourth does not fit: no gain
    tight = BatchingConfig(kv_capacity_tokens=31_000)
    assert ideal_makespan([requests], 8, tight) == pytest.approx(ideal_makespan([requests], 2, tight), rel=0.01)


def test_over_http_concurrent_calls_share_decode_steps():
    """Three digest calls at once through the HTTP simulator take about as long as the batch model says."""
    prompt = load_prompt("prompts/digest_en_json.md")
    docs = abstract_docs(sample_papers())[:3]
    # Slow enough in wall time (36 simulated s = 0.36 s) that the three requests arrive together.
    sim = EngineSim(batching=BatchingConfig(time_scale=0.01), completion_tokens={"digest": 2_000})
    with BackgroundServer(sim.app) as server:

        async def call_all() -> None:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                await asyncio.gather(
                    *(
                        client.post(
                            "/v1/chat/completions", json={"model": "m", "messages": digest_messages(prompt[0], d)}
                        )
                        for d in docs
                    )
                )

        asyncio.run(call_all())
        stats = sim.stats
    assert stats.peak_batch == 3
    completions = [r.completion_tokens for r in stats.records]
    assert all(800 <= c <= 2_800 for c in completions)  # modelled lengths around the 2,000 mean
    assert stats.generated_tokens == sum(completions)
    prompts = [r.prompt_tokens for r in stats.records]
    # The batch decodes together: no longer than one after the other at the batch-3 ceiling…
    assert stats.sim_seconds < sum(completions) / decode_ceiling_tok_s(SEED.model, SEED.gpu, 1, max(prompts))
    # …and no faster than the 3-request ceiling allows.
    assert stats.sim_seconds >= sum(completions) / decode_ceiling_tok_s(SEED.model, SEED.gpu, 3, min(prompts)) * 0.95
