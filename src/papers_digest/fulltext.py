"""Full text for each picked paper: arXiv's HTML, fetched serially and politely, or the abstract."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator

import httpx
from aiolimiter import AsyncLimiter

from papers_digest.http import RetryPolicy, send_with_retry
from papers_digest.latexml import ParsedPage, parse_latexml
from papers_digest.models import FulltextDoc, Paper, Section

_PAGE_ID_RE = re.compile(r"/html/(\d{4}\.\d{4,5})(?:v(\d+))?")
_BASE_HREF_RE = re.compile(rb"<base\s+href=\"[^\"]*?/html/(\d{4}\.\d{4,5})v\d+", re.IGNORECASE)


def abstract_doc(
    paper: Paper, reason: str, url: str | None = None, version: int | None = None
) -> FulltextDoc:
    """The fallback text: the abstract under an `[§Abstract]` marker, with the reason kept."""
    return FulltextDoc(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        version=version,
        source="abstract",
        reason=reason,
        url=url,
        text=f"[§Abstract]\n{paper.summary}",
        sections=[Section(tag="Abstract", title="Abstract", anchor="abstract", level=0)],
    )


def doc_from_page(paper: Paper, page: ParsedPage, url: str) -> FulltextDoc:
    """A parsed page -> the paper's document, or the abstract when the page holds no usable text."""
    if page.kind == "no_html":
        return abstract_doc(paper, "arXiv has no HTML version of this paper", url, page.version)
    if page.kind == "stub" or not page.sections:
        return abstract_doc(
            paper, "arXiv's HTML page holds no sections (a stub, e.g. a PDF-only source)", url
        )
    return FulltextDoc(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        version=page.version,
        source="html",
        url=url,
        text=page.text,
        sections=page.sections,
    )


def page_arxiv_id(html: bytes, final_url: str) -> str | None:
    """The arXiv id a page says it is (its <base href>, else its final URL)."""
    match = _BASE_HREF_RE.search(html[:20000])
    if match:
        return match.group(1).decode()
    url_match = _PAGE_ID_RE.search(final_url)
    return url_match.group(1) if url_match else None


class ArxivFetcher:
    """Fetches `{arxiv_url}/html/{id}` one request at a time, at most one request per `interval_s`."""

    def __init__(
        self, client: httpx.AsyncClient, arxiv_url: str, interval_s: float, retry: RetryPolicy
    ) -> None:
        self.client = client
        self.arxiv_url = arxiv_url.rstrip("/")
        self.retry = retry
        self._limiter = AsyncLimiter(1, interval_s) if interval_s > 0 else None
        self.requests = 0

    async def fetch(self, paper: Paper) -> FulltextDoc:
        url = f"{self.arxiv_url}/html/{paper.arxiv_id}"

        async def send(_try: int) -> httpx.Response:
            async with self._paced():
                self.requests += 1
                return await self.client.get(url)

        try:
            response = await send_with_retry(self.retry, send)
        except httpx.TransportError as exc:
            return abstract_doc(
                paper, f"arXiv HTML unreachable ({type(exc).__name__}: {exc}); used the abstract", url
            )
        final_url = str(response.url)
        if response.status_code == 404:
            return abstract_doc(paper, "arXiv has no HTML version of this paper (HTTP 404)", final_url)
        if response.status_code != 200:
            return abstract_doc(
                paper, f"arXiv HTML unavailable (HTTP {response.status_code}); used the abstract", final_url
            )
        page_id = page_arxiv_id(response.content, final_url)
        if page_id is not None and page_id != paper.arxiv_id:
            # Never show one paper's text under another paper's title.
            return abstract_doc(
                paper, f"arXiv answered with the page of {page_id}; used the abstract", final_url
            )
        return doc_from_page(paper, parse_latexml(response.content, url=final_url), final_url)

    @contextlib.asynccontextmanager
    async def _paced(self) -> AsyncIterator[None]:
        if self._limiter is None:
            yield
        else:
            async with self._limiter:
                yield
