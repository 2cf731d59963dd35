"""Hugging Face Daily Papers: tolerant models of the API's items, paging, and picking the top papers."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from papers_digest.core.errors import PipelineError
from papers_digest.core.http import RetryPolicy, describe_transport_error, is_retryable_response, send_with_retry
from papers_digest.core.models import Organization, Paper

log = logging.getLogger(__name__)

PAGE_SIZE = 50  # the API's page cap: a full page means there may be another one


class _Tolerant(BaseModel):
    # The API grows new keys over time (SCHEMA.md): ignore what we do not use.
    model_config = ConfigDict(extra="ignore")


class HfAuthor(_Tolerant):
    name: str = ""
    hidden: bool = False


class HfOrganization(_Tolerant):
    name: str
    fullname: str | None = None


class HfPaper(_Tolerant):
    id: str
    title: str
    summary: str = ""
    upvotes: int = 0
    authors: list[HfAuthor] = []
    publishedAt: str | None = None
    githubRepo: str | None = None
    projectPage: str | None = None
    ai_summary: str | None = None
    ai_keywords: list[str] = []
    githubStars: int | None = None
    organization: HfOrganization | None = None

    # Extras for the site, not for digesting: an odd value drops the extra, never the paper.
    @field_validator("ai_keywords", mode="before")
    @classmethod
    def _keywords(cls, value: Any) -> list[str]:
        return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []

    @field_validator("githubStars", mode="before")
    @classmethod
    def _stars(cls, value: Any) -> int | None:
        return _count_or_none(value)

    @field_validator("organization", mode="before")
    @classmethod
    def _org(cls, value: Any) -> Any:
        return _organization_or_none(value)


class HfItem(_Tolerant):
    """One element of `GET /api/daily_papers?date=…`; only `paper.id` and a title are required."""

    paper: HfPaper
    title: str | None = None
    summary: str | None = None
    organization: HfOrganization | None = None  # the same as paper.organization, when both are there
    thumbnail: str | None = None  # 2025+; 2024 items have `mediaUrl` with the same URL instead
    mediaUrl: str | None = None
    numComments: int | None = None

    @field_validator("thumbnail", "mediaUrl", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str | None:
        return value.strip() if isinstance(value, str) and value.strip().startswith(("https://", "http://")) else None

    @field_validator("numComments", mode="before")
    @classmethod
    def _comments(cls, value: Any) -> int | None:
        return _count_or_none(value)

    @field_validator("organization", mode="before")
    @classmethod
    def _org(cls, value: Any) -> Any:
        return _organization_or_none(value)

    def to_paper(self) -> Paper:
        p = self.paper
        return Paper(
            arxiv_id=p.id.strip(),
            # Older items hard-wrap the paper title; the item title is the unwrapped one.
            title=_collapse(self.title or p.title),
            summary=_collapse(p.summary or self.summary or ""),
            upvotes=p.upvotes,
            authors=[_collapse(a.name) for a in p.authors if a.name and not a.hidden],
            published_at=p.publishedAt,
            github_repo=p.githubRepo,
            project_page=p.projectPage,
            ai_summary=p.ai_summary,
            ai_keywords=[k for k in (_collapse(k) for k in p.ai_keywords) if k],
            github_stars=p.githubStars,
            organization=_organization(self.organization or p.organization),
            thumbnail=self.thumbnail or self.mediaUrl,
            comments=self.numComments,
        )


class HfError(PipelineError, RuntimeError):
    """The day's list could not be had: the API is unreachable, keeps failing, or answers nonsense."""


def parse_items(body: Any) -> tuple[list[Paper], int]:
    """One API page (parsed JSON) -> (papers, number of items that could not be read)."""
    if not isinstance(body, list):
        raise HfError(f"expected a JSON array of items, got {type(body).__name__}")
    papers: list[Paper] = []
    invalid = 0
    for index, item in enumerate(body):
        try:
            papers.append(HfItem.model_validate(item).to_paper())
        except ValidationError as exc:
            invalid += 1
            log.warning("HF item %d skipped: %s", index, exc.errors()[0].get("msg"))
    return papers, invalid


def merge_pages(pages: Iterable[list[Paper]]) -> list[Paper]:
    """Concatenate pages, keeping the first occurrence of each arXiv id."""
    seen: set[str] = set()
    merged: list[Paper] = []
    for page in pages:
        for paper in page:
            if paper.arxiv_id not in seen:
                seen.add(paper.arxiv_id)
                merged.append(paper)
    return merged


def pick_top(papers: Iterable[Paper], limit: int, exclude: Mapping[str, str] | set[str]) -> list[Paper]:
    """The top `limit` papers by upvotes, skipping excluded ids; ties go to the lower arXiv id."""
    candidates = [p for p in papers if p.arxiv_id not in exclude]
    candidates.sort(key=lambda p: (-p.upvotes, p.arxiv_id))
    return candidates[:limit]


async def fetch_day(
    client: httpx.AsyncClient, hf_url: str, date: str, policy: RetryPolicy
) -> tuple[list[Paper], int, int]:
    """All items of a day, page by page. Returns (papers, invalid items, pages fetched)."""
    pages: list[list[Paper]] = []
    invalid_total = 0
    page = 0
    while True:
        params = {"date": date, "p": page, "limit": PAGE_SIZE}
        url = f"{hf_url}/api/daily_papers"
        where = f"{url}?date={date}&p={page}"
        try:
            response = await send_with_retry(policy, functools.partial(_get, client, url, params))
        except httpx.TransportError as exc:
            raise HfError(
                f"HF API unavailable after {policy.attempts} tries: {describe_transport_error(exc, where)}"
            ) from None
        if response.status_code != 200:
            tries = f" after {policy.attempts} tries" if is_retryable_response(response) else ""
            raise HfError(f"HF API answered HTTP {response.status_code}{tries} for {where}: {response.text[:300]}")
        try:
            body = response.json()
        except ValueError:
            raise HfError(f"HF API answer for {where} is not JSON: {response.text[:200]!r}") from None
        papers, invalid = parse_items(body)
        known = {p.arxiv_id for earlier in pages for p in earlier}
        pages.append(papers)
        invalid_total += invalid
        # A short page is the last; a page with nothing new means the server ignores `p`: stop too.
        if len(body) < PAGE_SIZE or all(p.arxiv_id in known for p in papers):
            break
        page += 1
    return merge_pages(pages), invalid_total, len(pages)


async def _get(client: httpx.AsyncClient, url: str, params: dict[str, Any], _try: int) -> httpx.Response:
    return await client.get(url, params=params)


def _count_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _organization_or_none(value: Any) -> Any:
    return value if isinstance(value, dict) and isinstance(value.get("name"), str) else None


def _organization(org: HfOrganization | None) -> Organization | None:
    if org is None or not org.name.strip():
        return None
    return Organization(name=org.name.strip(), fullname=_collapse(org.fullname or "") or None)


def _collapse(text: str) -> str:
    return " ".join(text.split())
