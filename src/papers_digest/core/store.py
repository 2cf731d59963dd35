"""A content-addressed store of finished work (LLM answers, arXiv pages), so no rerun pays twice.

Entries are files named by the sha256 of what was asked; each is written to a temporary file and
renamed into place, so a crash never leaves a half-written entry that a later run could read back.
Only finished work is kept: an LLM answer that passed the checker, an arXiv page or its definitive
404; never an error, and never an answer the checker rejected (a paper retried on a later day gets a
fresh answer).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# A parallel backfill runs each date's stages in a temporary workspace of DVC's, whose own store would start
# empty and be thrown away: its workers get the main workspace's store in the environment instead, so they
# read the pages fetched ahead for them, keep their answers for later reruns and share arXiv's pace
# (cli/backfill.py; docs/experiments.md, "A parallel backfill").
STORE_ENV = "PAPERS_STORE"


def request_key(kind: str, request: Any) -> str:
    """sha256 of a canonical JSON rendering of the request (sorted keys, no whitespace)."""
    canonical = json.dumps(
        {"kind": kind, "request": request}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Store:
    """A folder of gzip'd JSON entries: `<root>/<kind>/<key[:2]>/<key>.json.gz`."""

    def __init__(self, root: str | Path, *, enabled: bool = True) -> None:
        self.root = Path(root)
        self.enabled = enabled
        self.hits = 0
        self.misses = 0

    def path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json.gz"

    def has(self, kind: str, key: str) -> bool:
        return self.enabled and self.path(kind, key).is_file()

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        if not self.enabled:
            return None
        path = self.path(kind, key)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                entry = json.load(handle)
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, EOFError, ValueError) as exc:  # damaged on disk: drop it, do the work again
            log.warning("store: unreadable entry %s dropped (%s)", path, exc)
            path.unlink(missing_ok=True)
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, kind: str, key: str, entry: dict[str, Any]) -> None:
        if not self.enabled:
            return
        path = self.path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
                handle.write(json.dumps(entry, ensure_ascii=False).encode("utf-8"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def stage_store(given: str | Path) -> Store:
    """The store a stage uses: the environment's STORE_ENV where set, else the one its command line gives."""
    return Store(os.environ.get(STORE_ENV) or given)


def disabled_store() -> Store:
    return Store(os.devnull, enabled=False)
