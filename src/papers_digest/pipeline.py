"""What each DVC stage does, as async functions over validated params and models (no file paths here)."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

import httpx
from tqdm import tqdm

from papers_digest.budget import EngineTokenizer, fit_to_budget
from papers_digest.fulltext import ArxivFetcher
from papers_digest.generation import digest_paper, run_all, translate_paper
from papers_digest.hf import fetch_day, pick_top
from papers_digest.http import RetryPolicy, make_client
from papers_digest.llm import LlmClient, StructuredForm
from papers_digest.models import DayList, FulltextDoc, GenerationResult, GenerationStage, Paper
from papers_digest.params import LlmParams, Params, RetryParams
from papers_digest.store import Store

log = logging.getLogger(__name__)


def retry_policy(retry: RetryParams) -> RetryPolicy:
    return RetryPolicy(attempts=retry.attempts, max_wait_s=retry.max_wait_s)


async def list_day(
    params: Params, date: str, exclude: Mapping[str, str], retry_queue: Sequence[tuple[Paper, str]] = ()
) -> DayList:
    """stage list: every paper of the day from the HF API, the top `limit` not digested before, and
    the papers of the retry queue (failed on an earlier date) that are not among today's anyway."""
    started = time.monotonic()
    async with make_client(timeout_s=params.source.timeout_s) as client:
        papers, invalid, pages = await fetch_day(client, params.source.hf_url, date, retry_policy(params.retry))
    picked = pick_top(papers, params.limit, exclude)
    today = {p.arxiv_id for p in papers}
    backfill = [(paper, failed_on) for paper, failed_on in retry_queue if paper.arxiv_id not in today]
    return DayList(
        date=date,
        limit=params.limit,
        papers=papers,
        picked=[p.arxiv_id for p in picked] + [paper.arxiv_id for paper, _ in backfill],
        backfill=[paper for paper, _ in backfill],
        backfill_from={paper.arxiv_id: failed_on for paper, failed_on in backfill},
        excluded={i: d for i, d in sorted(exclude.items()) if any(p.arxiv_id == i for p in papers)},
        invalid_items=invalid,
        pages=pages,
        elapsed_s=round(time.monotonic() - started, 3),
    )


async def fetch_fulltexts(
    params: Params,
    papers: list[Paper],
    on_doc: Callable[[FulltextDoc], None],
    store: Store | None = None,
) -> list[FulltextDoc]:
    """stage fulltext: one request at a time, `arxiv_interval_s` apart, as arXiv asks; each text fitted
    to `llm.max_input_tokens`, counted with the engine's tokenizer when it has one."""
    source, retry = params.source, params.retry
    docs = []
    async with make_client(timeout_s=source.timeout_s) as client, make_client(timeout_s=60) as llm_http:
        tokenizer = token_counter(params.llm, llm_http)
        fetcher = ArxivFetcher(
            client,
            source.arxiv_url,
            source.arxiv_interval_s,
            retry_policy(retry),
            store,
            max_bytes=int(source.max_page_mb * 1e6),
        )
        with tqdm(papers, desc="fulltext", unit="paper", dynamic_ncols=True) as bar:
            for paper in bar:
                bar.set_postfix_str(paper.arxiv_id, refresh=False)
                doc = await fit_to_budget(await fetcher.fetch(paper), params.llm.max_input_tokens, tokenizer.count)
                doc.counted_by = tokenizer.method
                on_doc(doc)
                docs.append(doc)
    return docs


def token_counter(llm: LlmParams, client: httpx.AsyncClient) -> EngineTokenizer:
    """The engine's tokenizer when an endpoint is configured (else the estimate)."""
    return EngineTokenizer(client, llm.base_url if llm.configured else None, llm.model)


def llm_client(params: Params, store: Store | None = None) -> LlmClient:
    llm = params.llm
    return LlmClient(
        base_url=llm.base_url,
        model=llm.model,
        timeout_s=llm.timeout_s,
        concurrency=llm.concurrency,
        retry=retry_policy(params.retry),
        settings=llm.generation_settings(),
        store=store if llm.reuse else None,
        structured=structured_form(params) if llm.structured_output else None,
    )


def structured_form(params: Params) -> StructuredForm:
    """llama-cpp-python's server takes only json_object with a schema; the others json_schema."""
    return "json_object" if params.engine.kind == "llama-cpp" else "json_schema"


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
    async with llm_client(params, store) as client, make_client(timeout_s=60) as llm_http:
        if stage == "digest_en":
            tokenizer = token_counter(params.llm, llm_http)

            async def refit(doc: FulltextDoc, budget: int) -> FulltextDoc:
                return await fit_to_budget(doc, budget, tokenizer.count)

            def work(doc: FulltextDoc) -> Awaitable[GenerationResult]:
                return digest_paper(client, doc, system_prompt, version, date, refit)
        else:
            items = [r for r in items if r.status == "done"]

            def work(english: GenerationResult) -> Awaitable[GenerationResult]:
                return translate_paper(client, english, system_prompt, version, date)

        return await run_all(items, work, on_result, description=stage)
