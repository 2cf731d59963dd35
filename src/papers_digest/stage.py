"""Shared plumbing of the stage scripts: arguments, logging, timing, one-line errors instead of tracebacks."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import httpx

from papers_digest.engine_metrics import prefix_cache_delta, scrape_prefix_cache
from papers_digest.hf import HfError
from papers_digest.io import STAGE_INFO, ArtefactError, reset_folder, write_json
from papers_digest.models import FulltextDoc, GenerationResult, GenerationStage, StageInfo
from papers_digest.params import ParamsError, load_params
from papers_digest.pipeline import generate
from papers_digest.preflight import PreflightError, check_llm_endpoint
from papers_digest.prompting import load_prompt
from papers_digest.store import Store

EXPECTED_ERRORS = (ParamsError, ArtefactError, HfError, PreflightError, httpx.HTTPError)


def stage_parser(name: str, doc: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"stages/{name}.py", description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    parser.add_argument("--date", required=True, help="the day to process, YYYY-MM-DD")
    return parser


def run_stage(name: str, body: Callable[[], None]) -> None:
    """Run a stage body; expected failures print one line naming the problem and exit non-zero."""
    logging.basicConfig(level=logging.INFO, format=f"{name}: %(message)s", stream=sys.stderr)
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        body()
    except (ParamsError, PreflightError) as exc:  # configuration that cannot work: say what, stop
        print(f"{name}: {exc}", file=sys.stderr)
        sys.exit(2)
    except EXPECTED_ERRORS as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        sys.exit(1)


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
) -> None:
    """The body of digest_en and translate_zh: each paper's result is written as soon as it is ready."""
    clock = StageClock(stage, date)
    params = load_params(params_path)
    prompt = load_prompt(prompt_path)
    inputs = load_inputs()
    folder = reset_folder(out)
    if not params.llm.configured:
        print(f"{stage}: {NO_ENDPOINT}")
        clock.write(folder, note=NO_ENDPOINT, model=params.llm.model, prompt_version=prompt[1])
        return

    def save(result: GenerationResult) -> None:
        write_json(folder / f"{result.arxiv_id}.json", result)

    store = Store(store_path)

    async def batch() -> tuple[list[GenerationResult], dict[str, float]]:
        await check_llm_endpoint(params.llm)  # one clear line before any paper, not one error per paper
        before = await scrape_prefix_cache(params.llm.base_url)
        results = await generate(stage, params, date, inputs, prompt, save, store)
        return results, prefix_cache_delta(before, await scrape_prefix_cache(params.llm.base_url))

    results, prefix_cache = asyncio.run(batch())
    failed = [r for r in results if r.status == "failed"]
    clock.write(
        folder, papers=len(results), model=params.llm.model, prompt_version=prompt[1], prefix_cache=prefix_cache
    )
    reused = f"; {store.hits} answers reused from the store" if store.hits else ""
    print(f"{stage}: {len(results) - len(failed)} done, {len(failed)} failed{reused}")
    for result in failed:
        print(f"{stage}:   {result.arxiv_id}: {result.error}")


class StageClock:
    """Times a stage and writes its `_stage.json` into the stage's output folder."""

    def __init__(self, stage: str, date: str) -> None:
        self.stage, self.date = stage, date
        self.started_at = time.time()
        self._started = time.monotonic()

    def info(self, **fields: object) -> StageInfo:
        elapsed = time.monotonic() - self._started
        return StageInfo(
            stage=self.stage,
            date=self.date,
            started_at=round(self.started_at, 3),
            ended_at=round(self.started_at + elapsed, 3),
            elapsed_s=round(elapsed, 3),
            **fields,  # type: ignore[arg-type]
        )

    def write(self, folder: str | Path, **fields: object) -> StageInfo:
        info = self.info(**fields)
        write_json(Path(folder) / STAGE_INFO, info)
        return info
