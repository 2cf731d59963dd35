"""Replay of recorded Hugging Face and arXiv answers on 127.0.0.1, for tests and the offline sample day."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

_VERSIONED_RE = re.compile(r"^(\d{4}\.\d{4,5})v(\d+)$")
_BARE_RE = re.compile(r"^\d{4}\.\d{4,5}$")
_TEMPLATE_ID = "2601.17668"  # the id inside the recorded "No HTML" page


def no_html_page(arxiv_id: str) -> str:
    """arXiv's recorded 'No HTML for <id>' page, for another id (arXiv renders it from one template)."""
    template = resources.files("papers_digest.sim").joinpath("data/no_html.html").read_text(encoding="utf-8")
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

    def _count(self, kind: str) -> None:
        with self._lock:
            self.requests[kind] += 1

    async def _daily_papers(self, request: Request) -> Response:
        self._count("hf")
        date = request.query_params.get("date", "")
        try:
            page = int(request.query_params.get("p", "0"))
            limit = int(request.query_params.get("limit", "50"))
        except ValueError:
            return JSONResponse({"error": "p and limit must be integers"}, status_code=400)
        path = self.hf_dir / f"{date}.json" if self.hf_dir else None
        items = json.loads(path.read_text(encoding="utf-8")) if path and path.is_file() else []
        return JSONResponse(items[page * limit : (page + 1) * limit])

    async def _html(self, request: Request) -> Response:
        self._count("arxiv")
        paper = request.path_params["paper"]
        versioned = _VERSIONED_RE.match(paper)
        bare_id = versioned.group(1) if versioned else paper
        if not (versioned or _BARE_RE.match(paper)):
            return HTMLResponse(no_html_page(paper), status_code=404)
        recorded = self._versions(bare_id)
        if versioned is None and recorded:
            return RedirectResponse(f"/html/{bare_id}v{max(recorded)}", status_code=302)
        if versioned is not None and int(versioned.group(2)) in recorded:
            return HTMLResponse(recorded[int(versioned.group(2))].read_bytes())
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
