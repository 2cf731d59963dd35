"""What each DVC stage does, as async functions over validated params and models (no file paths here)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from tqdm import tqdm

from papers_digest.fulltext import ArxivFetcher
from papers_digest.generation import digest_paper, run_all, translate_paper
from papers_digest.hf import fetch_day, pick_top
from papers_digest.http import RetryPolicy, make_client
from papers_digest.llm import LlmClient
from papers_digest.models import DayList, FulltextDoc, GenerationResult, GenerationStage, Paper
from papers_digest.params import LlmParams, Params, RetryParams, SourceParams
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
    source: SourceParams,
    retry: RetryParams,
    papers: list[Paper],
    on_doc: Callable[[FulltextDoc], None],
    store: Store | None = None,
) -> list[FulltextDoc]:
    """stage fulltext: one request at a time, `arxiv_interval_s` apart, as arXiv asks."""
    docs = []
    async with make_client(timeout_s=source.timeout_s) as client:
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
                doc = await fetcher.fetch(paper)
                on_doc(doc)
                docs.append(doc)
    return docs


def llm_client(llm: LlmParams, retry: RetryParams, store: Store | None = None) -> LlmClient:
    return LlmClient(
        base_url=llm.base_url,
        model=llm.model,
        timeout_s=llm.timeout_s,
        concurrency=llm.concurrency,
        retry=retry_policy(retry),
        settings=llm.generation_settings(),
        store=store if llm.reuse else None,
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
    if stage == "translate_zh":
        items = [r for r in items if r.status == "done"]
    work = digest_paper if stage == "digest_en" else translate_paper
    async with llm_client(params.llm, params.retry, store) as client:
        return await run_all(
            items,
            lambda item: work(client, item, system_prompt, version, date),
            on_result,
            description=stage,
        )
