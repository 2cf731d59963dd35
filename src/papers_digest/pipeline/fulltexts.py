"""Stage `fulltext`: each picked paper's arXiv HTML, fetched serially and politely, fitted to the budget."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

from papers_digest.core.http import make_client, retry_policy
from papers_digest.core.models import FulltextDoc, Paper
from papers_digest.core.pacing import held
from papers_digest.core.params import Params
from papers_digest.core.store import Store
from papers_digest.llm.budget import fit_to_budget
from papers_digest.llm.endpoint import token_counter, tokenizer_client
from papers_digest.sources.arxiv import ArxivFetcher

# beside the store: every process that fetches for this project (each date, each worker) keeps one pace
ARXIV_PACE_FILE = "arxiv.pace"
# A parallel backfill's workers run in temporary workspaces, each with a store of its own: the environment
# names the main workspace's pace file, so that all of them keep one pace (cli/backfill.py)
PACE_FILE_ENV = "PAPERS_ARXIV_PACE_FILE"
# Beside the pace file: the turn of one date's full texts. Dates fetch one after the other, each at arXiv's
# pace, so a date's texts are all there soon and it generates while the next one fetches; interleaved
# request by request, every date of a parallel backfill waited for them all (docs/experiments.md).
DATE_TURN_SUFFIX = ".date"


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
    async with make_client(timeout_s=source.timeout_s) as client, tokenizer_client() as llm_http:
        tokenizer = token_counter(params.llm, llm_http)
        paced = pace_file(store)
        fetcher = ArxivFetcher(
            client,
            source.arxiv_url,
            source.arxiv_interval_s,
            retry_policy(retry),
            store,
            max_bytes=int(source.max_page_mb * 1e6),
            pace_file=paced,
        )
        with (
            held(paced.with_name(paced.name + DATE_TURN_SUFFIX) if paced else None, _say_waiting),
            tqdm(papers, desc="fulltext", unit="paper", dynamic_ncols=True) as bar,
        ):
            for paper in bar:
                bar.set_postfix_str(paper.arxiv_id, refresh=False)
                doc = await fit_to_budget(await fetcher.fetch(paper), params.llm.max_input_tokens, tokenizer.count)
                doc.counted_by = tokenizer.method
                on_doc(doc)
                docs.append(doc)
    return docs


def _say_waiting() -> None:
    print("fulltext: another date is fetching its full texts from arXiv: waiting for its turn", flush=True)


def pace_file(store: Store | None) -> Path | None:
    """The file arXiv's pace is kept in: the environment's PACE_FILE_ENV, else beside the store (none without one)."""
    if os.environ.get(PACE_FILE_ENV):
        return Path(os.environ[PACE_FILE_ENV])
    return store.root / ARXIV_PACE_FILE if store is not None and store.enabled else None
