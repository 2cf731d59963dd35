"""Stage `fulltext`: each picked paper's arXiv HTML, fetched serially and politely, fitted to the budget."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import httpx
from tqdm import tqdm

from papers_digest.core.http import make_client, retry_policy
from papers_digest.core.models import FulltextDoc, Paper
from papers_digest.core.pacing import held
from papers_digest.core.params import Params
from papers_digest.core.store import Store
from papers_digest.llm.budget import fit_to_budget
from papers_digest.llm.endpoint import check_llm_endpoint, token_counter, tokenizer_client
from papers_digest.sources.arxiv import ArxivFetcher

# beside the store: every process that fetches for this project (each date, each worker of a parallel backfill,
# which share the store: core/store.py STORE_ENV) keeps one pace
ARXIV_PACE_FILE = "arxiv.pace"
# Beside the pace file: the turn of one date's full texts. Dates fetch one after the other, each at arXiv's
# pace, so a date's texts are all there soon and it generates while the next one fetches; interleaved
# request by request, every date of a parallel backfill waited for them all (docs/experiments.md). A date
# whose pages are all in the store asks nothing and takes no turn.
DATE_TURN_SUFFIX = ".date"


async def fetch_fulltexts(
    params: Params,
    papers: list[Paper],
    on_doc: Callable[[FulltextDoc], None],
    store: Store | None = None,
) -> list[FulltextDoc]:
    """stage fulltext: one request at a time, `arxiv_interval_s` apart, as arXiv asks; each text fitted
    to `llm.max_input_tokens`, counted with the engine's tokenizer when it has one.

    The endpoint is checked first: down, the texts would be fitted by the estimate instead of its tokenizer and
    cached as such, so this stage stops with one line before any arXiv request (as the generation stages do)."""
    await check_llm_endpoint(params.llm)
    docs = []
    async with make_client(timeout_s=params.source.timeout_s) as client, tokenizer_client() as llm_http:
        tokenizer = token_counter(params.llm, llm_http)
        fetcher = arxiv_fetcher(params, client, store)
        with (
            held(date_turn(store) if not all(map(fetcher.has, papers)) else None, _say_waiting),
            tqdm(papers, desc="fulltext", unit="paper", dynamic_ncols=True) as bar,
        ):
            for paper in bar:
                bar.set_postfix_str(paper.arxiv_id, refresh=False)
                doc = await fit_to_budget(await fetcher.fetch(paper), params.llm.max_input_tokens, tokenizer.count)
                doc.counted_by = tokenizer.method
                on_doc(doc)
                docs.append(doc)
    return docs


async def prefetch_pages(params: Params, papers: list[Paper], store: Store, stop: threading.Event | None = None) -> int:
    """The papers' arXiv pages put in the store, in the date's turn and at arXiv's pace, without parsing or
    fitting them (a parallel backfill fetches each date's ahead of its experiment: cli/backfill.py). Stops
    between two papers once `stop` is set. Returns the requests made; a page that could not be had is left
    to the date's own fulltext stage."""
    async with make_client(timeout_s=params.source.timeout_s) as client:
        fetcher = arxiv_fetcher(params, client, store)
        missing = [paper for paper in papers if not fetcher.has(paper)]
        if not missing:
            return 0
        with held(date_turn(store)):
            for paper in missing:
                if stop is not None and stop.is_set():
                    break
                await fetcher.page(paper)
    return fetcher.requests


def arxiv_fetcher(params: Params, client: httpx.AsyncClient, store: Store | None) -> ArxivFetcher:
    """The one way this project asks arXiv: source.* params, the retry policy, the pace kept beside the store."""
    source = params.source
    return ArxivFetcher(
        client,
        source.arxiv_url,
        source.arxiv_interval_s,
        retry_policy(params.retry),
        store,
        max_bytes=int(source.max_page_mb * 1e6),
        pace_file=pace_file(store),
    )


def _say_waiting() -> None:
    print("fulltext: another date is fetching its full texts from arXiv: waiting for its turn", flush=True)


def pace_file(store: Store | None) -> Path | None:
    """The file arXiv's pace is kept in: beside the store (none without one)."""
    return store.root / ARXIV_PACE_FILE if store is not None and store.enabled else None


def date_turn(store: Store | None) -> Path | None:
    """The file whose lock is the turn of one date's fetching, beside the pace file (none without a store)."""
    paced = pace_file(store)
    return paced.with_name(paced.name + DATE_TURN_SUFFIX) if paced else None
