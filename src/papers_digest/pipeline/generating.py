"""Stages `digest_en` and `translate_zh`: checked generation for every paper, results written as they come."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable, Iterable

from papers_digest.core.artefacts import reset_folder, write_json
from papers_digest.core.errors import ConfigError
from papers_digest.core.http import retry_policy
from papers_digest.core.models import FulltextDoc, GenerationResult, GenerationStage
from papers_digest.core.params import Params, load_params
from papers_digest.core.store import Store, stage_store
from papers_digest.llm.budget import fit_to_budget
from papers_digest.llm.client import LlmClient
from papers_digest.llm.endpoint import (
    check_llm_endpoint,
    prefix_cache_delta,
    scrape_prefix_cache,
    token_counter,
    tokenizer_client,
)
from papers_digest.llm.generation import (
    digest_paper,
    digest_tokens,
    longest_first,
    paper_tokens,
    run_all,
    translate_paper,
)
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.spending import TokenBudget, tokens_spent
from papers_digest.llm.steps import read_step_prompts
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


async def generate(
    stage: GenerationStage,
    params: Params,
    date: str,
    inputs: Iterable[FulltextDoc] | Iterable[GenerationResult],
    prompt: tuple[str, str],
    on_result: Callable[[GenerationResult], None],
    store: Store | None = None,
) -> list[GenerationResult]:
    """stage digest_en (full texts -> English digests) or translate_zh (done English digests -> Chinese),
    `llm.concurrency` calls in flight across papers."""
    system_prompt, version = prompt
    items: list = list(inputs)
    # the day's spending so far: for the translations, what the English digests cost
    spent = 0 if stage == "digest_en" else tokens_spent(c for r in items for c in r.calls)
    async with llm_client(params, store, spent) as client, tokenizer_client() as llm_http:
        if stage == "digest_en":
            tokenizer = token_counter(params.llm, llm_http)

            async def refit(doc: FulltextDoc, budget: int) -> FulltextDoc:
                return await fit_to_budget(doc, budget, tokenizer.count)

            def work(doc: FulltextDoc) -> Awaitable[GenerationResult]:
                return digest_paper(client, doc, system_prompt, version, date, refit, way=params.llm.asking)

            items = longest_first(items, paper_tokens)
        else:
            # a translation's prompt and answer both grow with the English digest
            items = longest_first((r for r in items if r.status == "done"), digest_tokens)

            def work(english: GenerationResult) -> Awaitable[GenerationResult]:
                return translate_paper(client, english, system_prompt, version, date)

        return await run_all(items, work, on_result, description=stage, on_down=client.halt)


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
    draft_prompt_path: str | None = None,
    steps_prompt_path: str | None = None,
) -> None:
    """The body of digest_en and translate_zh: each paper's result is written as soon as it is ready. The
    English digest asked as a draft or in steps (llm.asking) takes that way's prompt file."""
    clock = StageClock(stage, date)
    params = load_params(params_path)
    prompt_path = _prompt_for(stage, params.llm.asking, prompt_path, draft_prompt_path, steps_prompt_path)
    prompt = load_prompt(prompt_path)
    if stage == "digest_en" and params.llm.asking == "steps":
        try:
            read_step_prompts(prompt[0], where=prompt_path)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
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
        results = await generate(stage, params, date, inputs, prompt, save, store)
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


def _prompt_for(
    stage: GenerationStage, asking: str, prompt: str, draft_prompt: str | None, steps_prompt: str | None
) -> str:
    """The prompt file a stage asks with: the English digest's draft or steps file when llm.asking says so."""
    if stage != "digest_en" or asking == "json":
        return prompt
    chosen = draft_prompt if asking == "draft" else steps_prompt
    if not chosen:
        raise ConfigError(f"llm.asking: {asking} needs --{asking}-prompt (dvc.yaml, stage digest_en)")
    return chosen


def generation_parser(stage: GenerationStage, doc: str | None) -> argparse.ArgumentParser:
    """The arguments both generation stages take (params, date, prompt, store, output folder); each script adds
    its own inputs folder."""
    parser = stage_parser(stage, doc)
    parser.add_argument("--prompt", required=True, help="system prompt file")
    if stage == "digest_en":
        parser.add_argument("--draft-prompt", help="system prompt file of the evidence-first draft (llm.asking: draft)")
        parser.add_argument("--steps-prompt", help="questions of the draft asked in steps (llm.asking: steps)")
    parser.add_argument("--out", required=True, help="folder for one <arxiv_id>.json per paper")
    parser.add_argument("--store", required=True, help="store of finished LLM calls (reused across runs)")
    return parser


def run_generation_command(
    stage: GenerationStage,
    args: argparse.Namespace,
    load_inputs: Callable[[], Iterable[FulltextDoc] | Iterable[GenerationResult]],
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
            draft_prompt_path=getattr(args, "draft_prompt", None),
            steps_prompt_path=getattr(args, "steps_prompt", None),
        ),
    )
