"""What stages `digest_en` and `translate_zh` share: the client, generation across papers with results written as
they come, the stage's body and arguments (each stage's own work: pipeline/digesting.py, pipeline/translating.py)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpx

from papers_digest.core.artefacts import reset_folder, write_json
from papers_digest.core.http import retry_policy
from papers_digest.core.models import FulltextDoc, GenerationResult, GenerationStage
from papers_digest.core.params import Params, load_params
from papers_digest.core.store import Store, stage_store
from papers_digest.llm.client import LlmClient
from papers_digest.llm.endpoint import check_llm_endpoint, prefix_cache_delta, scrape_prefix_cache, tokenizer_client
from papers_digest.llm.generation import run_all
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.spending import TokenBudget, tokens_spent
from papers_digest.pipeline.runner import Interrupted, StageClock, run_stage, stage_parser


def llm_client(params: Params, store: Store | None = None, spent_before: int = 0) -> LlmClient:
    """The stage's client; `spent_before`: the day's tokens spent by an earlier stage, against the budget."""
    llm = params.llm
    return LlmClient(
        base_url=llm.base_url,
        model=llm.model,
        timeout_s=llm.timeout_s,
        concurrency=llm.concurrency,
        retry=retry_policy(params.retry),
        settings=llm.generation_settings(),
        store=store if llm.reuse else None,
        structured=llm.structured_output,
        budget=TokenBudget(limit=llm.budget_tokens_per_day, used=spent_before),
    )


# A stage's own work, given the client and the endpoint's side-route client: its inputs in the order their calls
# should start, and the work of one input.
Planner = Callable[[LlmClient, httpx.AsyncClient, list], tuple[list, Callable[[Any], Awaitable[GenerationResult]]]]


async def generate(
    stage: GenerationStage,
    params: Params,
    inputs: Iterable[FulltextDoc] | Iterable[GenerationResult],
    planner: Planner,
    on_result: Callable[[GenerationResult], None],
    store: Store | None = None,
) -> list[GenerationResult]:
    """Every input's result, `llm.concurrency` calls in flight across papers, each handed to `on_result` as it
    is ready."""
    items: list = list(inputs)
    # the day's spending so far: for the translations, what the English digests cost
    spent = 0 if stage == "digest_en" else tokens_spent(c for r in items for c in r.calls)
    async with llm_client(params, store, spent) as client, tokenizer_client() as llm_http:
        ordered, work = planner(client, llm_http, items)
        return await run_all(ordered, work, on_result, description=stage, on_down=client.halt)


NO_ENDPOINT = "no LLM endpoint configured (llm.base_url and llm.model in params.yaml): nothing generated"


def run_generation_stage(
    stage: GenerationStage,
    *,
    date: str,
    params_path: str,
    prompt_path: str,
    out: str,
    store_path: str,
    load_inputs: Callable[[], Iterable[FulltextDoc] | Iterable[GenerationResult]],
    plan: Callable[[Params, str, tuple[str, str]], Planner],
    check_prompt: Callable[[Params, str, str], None] | None = None,
) -> None:
    """The body of digest_en and translate_zh: each paper's result is written as soon as it is ready. `plan`
    gives the stage's work from the params, the date and the prompt; `check_prompt` checks the prompt file
    against the params (its path and text) before anything runs."""
    clock = StageClock(stage, date)
    params = load_params(params_path)
    prompt = load_prompt(prompt_path)
    if check_prompt is not None:
        check_prompt(params, prompt_path, prompt[0])
    inputs = list(load_inputs())
    folder = reset_folder(out)
    if not params.llm.configured:
        print(f"{stage}: {NO_ENDPOINT}")
        clock.write(folder, note=NO_ENDPOINT, model=params.llm.model, prompt_version=prompt[1])
        return

    kept: list[str] = []

    def save(result: GenerationResult) -> None:
        write_json(folder / f"{result.arxiv_id}.json", result)
        kept.append(result.arxiv_id)

    store = stage_store(store_path)

    async def batch() -> tuple[list[GenerationResult], dict[str, float]]:
        await check_llm_endpoint(params.llm)  # one clear line before any paper, not one error per paper
        before = await scrape_prefix_cache(params.llm.base_url)
        results = await generate(stage, params, inputs, plan(params, date, prompt), save, store)
        return results, prefix_cache_delta(before, await scrape_prefix_cache(params.llm.base_url))

    try:
        results, prefix_cache = asyncio.run(batch())
    except KeyboardInterrupt:  # the papers finished are written, their answers in the store: a rerun asks the rest
        asked = [i for i in inputs if not isinstance(i, GenerationResult) or i.status == "done"]  # translated: done
        raise Interrupted(f"{len(kept)} of {len(asked)} papers kept") from None
    failed = [r for r in results if r.status == "failed"]
    clock.write(
        folder, papers=len(results), model=params.llm.model, prompt_version=prompt[1], prefix_cache=prefix_cache
    )
    reused = f"; {store.hits} answers reused from the store" if store.hits else ""
    print(f"{stage}: {len(results) - len(failed)} done, {len(failed)} failed{reused}")
    for result in failed:
        print(f"{stage}:   {result.arxiv_id}: {result.error}")


def generation_parser(stage: GenerationStage, doc: str | None, prompt_help: str) -> argparse.ArgumentParser:
    """The arguments both generation stages take (params, date, prompt, store, output folder); each script adds
    its own inputs folder."""
    parser = stage_parser(stage, doc)
    parser.add_argument("--prompt", required=True, help=prompt_help)
    parser.add_argument("--out", required=True, help="folder for one <arxiv_id>.json per paper")
    parser.add_argument("--store", required=True, help="store of finished LLM calls (reused across runs)")
    return parser


def run_generation_command(
    stage: GenerationStage,
    args: argparse.Namespace,
    load_inputs: Callable[[], Iterable[FulltextDoc] | Iterable[GenerationResult]],
    plan: Callable[[Params, str, tuple[str, str]], Planner],
    check_prompt: Callable[[Params, str, str], None] | None = None,
) -> None:
    """A generation stage script's body under the one runner, from its parsed arguments (generation_parser)."""
    run_stage(
        stage,
        lambda: run_generation_stage(
            stage,
            date=args.date,
            params_path=args.params,
            prompt_path=args.prompt,
            out=args.out,
            store_path=args.store,
            load_inputs=load_inputs,
            plan=plan,
            check_prompt=check_prompt,
        ),
    )
