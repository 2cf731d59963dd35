"""Full text for each picked paper: arXiv's HTML, fetched serially and politely, or the abstract."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from papers_digest.core.http import RetryPolicy, describe_transport_error, send_with_retry
from papers_digest.core.models import FulltextDoc, Paper, Section
from papers_digest.core.pacing import Pacer
from papers_digest.core.store import Store, disabled_store, request_key
from papers_digest.sources.latexml import ParsedPage, parse_latexml

_PAGE_ID_RE = re.compile(r"/html/(\d{4}\.\d{4,5})(?:v(\d+))?")
_BASE_HREF_RE = re.compile(rb"<base\s+href=\"[^\"]*?/html/(\d{4}\.\d{4,5})v\d+", re.IGNORECASE)


MAX_REDIRECTS = 5  # hops followed from /html/<id>, each paced (arXiv redirects once, to the latest version)


class PageTooLarge(Exception):
    """The page is larger than the configured limit."""


def abstract_doc(paper: Paper, reason: str, url: str | None = None, version: int | None = None) -> FulltextDoc:
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
        return abstract_doc(paper, "arXiv's HTML page holds no sections (a stub, e.g. a PDF-only source)", url)
    return FulltextDoc(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        version=page.version,
        source="html",
        url=url,
        text=page.text,
        sections=page.sections,
        unsectioned=page.unsectioned,
    )


def page_arxiv_id(html: bytes, final_url: str) -> str | None:
    """The arXiv id a page says it is (its <base href>, else its final URL)."""
    match = _BASE_HREF_RE.search(html[:20000])
    if match:
        return match.group(1).decode()
    url_match = _PAGE_ID_RE.search(final_url)
    return url_match.group(1) if url_match else None


def doc_from_answer(paper: Paper, status: int, final_url: str, content: bytes) -> FulltextDoc:
    """What arXiv answered for `/html/<id>` -> the paper's document (pure)."""
    if status == 404:
        return abstract_doc(paper, "arXiv has no HTML version of this paper (HTTP 404)", final_url)
    if status != 200:
        return abstract_doc(paper, f"arXiv HTML unavailable (HTTP {status}); used the abstract", final_url)
    page_id = page_arxiv_id(content, final_url)
    if page_id is not None and page_id != paper.arxiv_id:
        # Never show one paper's text under another paper's title.
        return abstract_doc(paper, f"arXiv answered with the page of {page_id}; used the abstract", final_url)
    return doc_from_page(paper, parse_latexml(content, url=final_url), final_url)


class ArxivFetcher:
    """Fetches `{arxiv_url}/html/{id}` one request at a time, at most one request per `interval_s`.

    Definitive answers (200, 404) are kept in the store, so a rerun asks arXiv nothing it already asked.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        arxiv_url: str,
        interval_s: float,
        retry: RetryPolicy,
        store: Store | None = None,
        *,
        max_bytes: int = 15_000_000,
        pace_file: Path | None = None,
    ) -> None:
        self.client = client
        self.max_bytes = max_bytes
        self.arxiv_url = arxiv_url.rstrip("/")
        self.retry = retry
        self.store = store or disabled_store()
        # one request at a time, interval_s apart; across processes too when they share pace_file
        self._pacer = Pacer(interval_s, pace_file)
        self.requests = 0

    def has(self, paper: Paper) -> bool:
        """Whether arXiv's answer for the paper's page is in the store (nothing to ask)."""
        return self.store.has("arxiv", _page_key(paper))

    async def fetch(self, paper: Paper) -> FulltextDoc:
        answer = await self.page(paper)
        if isinstance(answer, str):
            return abstract_doc(paper, answer, self._url(paper))
        return doc_from_answer(paper, *answer)

    async def page(self, paper: Paper) -> tuple[int, str, bytes] | str:
        """arXiv's answer for the paper's page, (status, final URL, body): from the store, else asked at the pace
        and kept in the store when definitive (200, 404). A string says why no answer came."""
        key = _page_key(paper)
        stored = self.store.get("arxiv", key)
        if stored is not None:
            return stored["status"], stored["final_url"], stored["body"].encode("utf-8")
        url = self._url(paper)

        async def send(_try: int) -> httpx.Response:
            # Each hop of a redirect (arXiv sends /html/<id> on to /html/<id>v<n>) is a request of its own to
            # arXiv, so each takes its own turn at the pace; followed inside one turn, they would come at once.
            target = url
            for _hop in range(MAX_REDIRECTS + 1):
                async with self._pacer.turn():
                    self.requests += 1
                    response = await self._get_capped(target)
                location = response.headers.get("location")
                if not (response.is_redirect and location):
                    return response
                target = str(response.request.url.join(location))
            return response  # still a redirect after MAX_REDIRECTS: doc_from_answer falls back to the abstract

        try:
            response = await send_with_retry(self.retry, send)
        except httpx.TransportError as exc:
            return f"arXiv HTML unavailable: {describe_transport_error(exc, url)}"
        except PageTooLarge as exc:
            return str(exc)
        final_url = str(response.url)
        if response.status_code in (200, 404):
            self.store.put(
                "arxiv",
                key,
                {
                    "status": response.status_code,
                    "final_url": final_url,
                    "version": parse_version(final_url),
                    "body": response.content.decode("utf-8", errors="replace"),
                },
            )
        return response.status_code, final_url, response.content

    def _url(self, paper: Paper) -> str:
        return f"{self.arxiv_url}/html/{paper.arxiv_id}"

    async def _get_capped(self, url: str) -> httpx.Response:
        """One GET, no redirect followed, reading at most `max_bytes` of the body (a runaway page is not
        downloaded whole)."""
        response = await self.client.send(self.client.build_request("GET", url), stream=True, follow_redirects=False)
        try:
            declared = int(response.headers.get("content-length") or 0)
            body = bytearray()
            if declared <= self.max_bytes:
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > self.max_bytes:
                        break
            size = max(declared, len(body))
            if size > self.max_bytes:
                raise PageTooLarge(
                    f"arXiv's HTML page is over {self.max_bytes / 1e6:g} MB (source.max_page_mb); used the abstract"
                )
        finally:
            await response.aclose()
        return httpx.Response(
            response.status_code, headers=response.headers, content=bytes(body), request=response.request
        )


def _page_key(paper: Paper) -> str:
    # Keyed by the path asked for, not the host: a replay or mirror serves the same pages.
    return request_key("arxiv", f"/html/{paper.arxiv_id}")


def parse_version(url: str) -> int | None:
    match = _PAGE_ID_RE.search(url)
    return int(match.group(2)) if match and match.group(2) else None
