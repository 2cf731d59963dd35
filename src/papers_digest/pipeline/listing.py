"""Stage `list`: the day's papers from the HF API, the top `limit` not digested before, and the retry queue."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from papers_digest.core.http import make_client, retry_policy
from papers_digest.core.models import DayList, Paper
from papers_digest.core.params import Params
from papers_digest.sources.hf import fetch_day, pick_top


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
