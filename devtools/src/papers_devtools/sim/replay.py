"""Replay of recorded Hugging Face and arXiv answers on 127.0.0.1, for tests and the offline sample day."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from papers_devtools.sim.serve import DroppedResponse

_VERSIONED_RE = re.compile(r"^(\d{4}\.\d{4,5})v(\d+)$")
_BARE_RE = re.compile(r"^\d{4}\.\d{4,5}$")
_TEMPLATE_ID = "2601.17668"  # the id inside the recorded "No HTML" page


ReplayFaultKind = Literal[
    "http_error",  # status + body
    "slow",  # delay_s, then the normal answer
    "reset",  # the connection drops mid-body
    "malformed",  # HF: a body that is not JSON; arXiv: the page cut off in the middle (broken HTML)
    "empty",  # HF: [] (a day without papers)
    "duplicates",  # HF: every item twice
    "missing_fields",  # HF: every other item loses paper.title and paper.upvotes, one loses paper.id
    "stub",  # arXiv: a 200 LaTeXML page with no sections (a PDF-only source)
    "huge",  # arXiv: the real page padded to `size_mb` with extra paragraphs
]


class ReplayFault(BaseModel):
    """One misbehaviour of the replayed HF or arXiv site; applies while `times` is not 0 (-1 = forever)."""

    model_config = ConfigDict(extra="forbid")

    target: Literal["hf", "arxiv"]
    kind: ReplayFaultKind
    match: str | None = None  # the date (HF) or arXiv id (arXiv) it applies to; None = every request
    times: int = 1
    status: int = 503
    body: str = "Service Unavailable"
    delay_s: float = 0.0
    size_mb: float = 20.0


STUB_PAGE = """<!DOCTYPE html><html lang="en"><head><title>{id}</title></head><body>
<div class="ltx_page_main"><div class="ltx_page_content"><article class="ltx_document">
<h1 class="ltx_title ltx_title_document">{id}</h1>
<div class="ltx_para"><p class="ltx_p">See pages 1-last of paper.pdf</p></div>
</article></div></div></body></html>"""


def no_html_page(arxiv_id: str) -> str:
    """arXiv's recorded 'No HTML for <id>' page, for another id (arXiv renders it from one template)."""
    template = resources.files("papers_devtools.sim").joinpath("data/no_html.html").read_text(encoding="utf-8")
    return template.replace(_TEMPLATE_ID, arxiv_id)


class Replay:
    """`GET /api/daily_papers` from `<hf_dir>/<date>.json`, `GET /html/<id>` from `<arxiv_dir>/<id>vN.html`.

    Like the live sites: HF pages with `p`/`limit` and answers `[]` for a day it has nothing for; arXiv
    redirects an unversioned id to its latest recorded version and answers 404 "No HTML" otherwise.
    """

    def __init__(self, hf_dir: str | Path | None = None, arxiv_dir: str | Path | None = None) -> None:
        self.hf_dir = Path(hf_dir) if hf_dir else None
        self.arxiv_dir = Path(arxiv_dir) if arxiv_dir else None
        self._lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.arxiv_times: list[float] = []  # when each arXiv request came (time.time()), for the pace checks
        self._faults: list[ReplayFault] = []
        self.app = Starlette(
            routes=[
                Route("/api/daily_papers", self._daily_papers),
                Route("/html/{paper}", self._html),
                Route("/html/{paper}/", self._html),
            ]
        )

    @property
    def total_requests(self) -> int:
        with self._lock:
            return sum(self.requests.values())

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._faults.clear()

    def add_fault(self, fault: ReplayFault) -> None:
        with self._lock:
            self._faults.append(fault.model_copy())

    def _take_fault(self, target: str, key: str) -> ReplayFault | None:
        with self._lock:
            for fault in self._faults:
                if fault.target == target and fault.times != 0 and fault.match in (None, key):
                    if fault.times > 0:
                        fault.times -= 1
                    return fault.model_copy()
        return None

    async def _common_fault(self, fault: ReplayFault | None) -> Response | None:
        """The faults both sites share: slowness, HTTP errors, a dropped connection."""
        if fault is None:
            return None
        await asyncio.sleep(fault.delay_s)
        if fault.kind == "http_error":
            return Response(fault.body, status_code=fault.status, media_type="text/plain")
        return None

    def _count(self, kind: str) -> None:
        with self._lock:
            self.requests[kind] += 1
            if kind == "arxiv":
                self.arxiv_times.append(time.time())

    async def _daily_papers(self, request: Request) -> Response:
        self._count("hf")
        date = request.query_params.get("date", "")
        try:
            page = int(request.query_params.get("p", "0"))
            limit = int(request.query_params.get("limit", "50"))
        except ValueError:
            return JSONResponse({"error": "p and limit must be integers"}, status_code=400)
        fault = self._take_fault("hf", date)
        refusal = await self._common_fault(fault)
        if refusal is not None:
            return refusal
        path = self.hf_dir / f"{date}.json" if self.hf_dir else None
        items = json.loads(path.read_text(encoding="utf-8")) if path and path.is_file() else []
        kind = fault.kind if fault else None
        if kind == "malformed":
            return Response('[{"paper": {"id": "2504.00999", "title": "cut off', media_type="application/json")
        if kind == "empty":
            items = []
        elif kind == "duplicates":
            items = [item for item in items for _ in (0, 1)]
        elif kind == "missing_fields":
            items = _without_fields(items)
        answer = JSONResponse(items[page * limit : (page + 1) * limit])
        return DroppedResponse(answer.body, media_type="application/json") if kind == "reset" else answer

    async def _html(self, request: Request) -> Response:
        self._count("arxiv")
        paper = request.path_params["paper"]
        versioned = _VERSIONED_RE.match(paper)
        bare_id = versioned.group(1) if versioned else paper
        if not (versioned or _BARE_RE.match(paper)):
            return HTMLResponse(no_html_page(paper), status_code=404)
        fault = self._take_fault("arxiv", bare_id)
        refusal = await self._common_fault(fault)
        if refusal is not None:
            return refusal
        kind = fault.kind if fault else None
        if kind == "stub":
            return HTMLResponse(STUB_PAGE.format(id=bare_id))
        recorded = self._versions(bare_id)
        if versioned is None and recorded:
            if kind is not None:  # keep the fault for the page the redirect leads to
                self.add_fault(fault.model_copy(update={"times": 1, "delay_s": 0.0}))
            return RedirectResponse(f"/html/{bare_id}v{max(recorded)}", status_code=302)
        if versioned is not None and int(versioned.group(2)) in recorded:
            page = recorded[int(versioned.group(2))].read_bytes()
            if kind == "malformed":
                return HTMLResponse(page[: len(page) // 3])
            if kind == "huge":
                return HTMLResponse(_padded(page, int(fault.size_mb * 1e6)))
            if kind == "reset":
                return DroppedResponse(page, media_type="text/html")
            return HTMLResponse(page)
        return HTMLResponse(no_html_page(bare_id), status_code=404)

    def _versions(self, arxiv_id: str) -> dict[int, Path]:
        if self.arxiv_dir is None:
            return {}
        found = {}
        for path in self.arxiv_dir.glob(f"{arxiv_id}v*.html"):
            match = _VERSIONED_RE.match(path.stem)
            if match:
                found[int(match.group(2))] = path
        return found


def _without_fields(items: list[dict]) -> list[dict]:
    """Every other item loses its title and upvotes; the first loses its id too."""
    damaged = json.loads(json.dumps(items))
    for index, item in enumerate(damaged):
        paper = item.get("paper", {})
        if index % 2 == 0:
            paper.pop("upvotes", None)
            paper.pop("title", None)
            item.pop("title", None)
        if index == 0:
            paper.pop("id", None)
    return damaged


def _padded(page: bytes, size: int) -> bytes:
    """The page with filler paragraphs before </article> until it is `size` bytes long."""
    filler = (
        b'<div class="ltx_para"><p class="ltx_p">' + b"Filler sentence of a very long paper. " * 50 + b"</p></div>\n"
    )
    cut = page.rfind(b"</article>")
    cut = cut if cut >= 0 else len(page)
    count = max(0, (size - len(page)) // len(filler) + 1)
    return page[:cut] + filler * count + page[cut:]
