"""Chat messages for the two generation stages, built from prompt files and stage inputs (pure)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from papers_digest.core.models import FulltextDoc

Message = dict[str, str]

TITLE_PREFIX = "Title: "
TAGS_PREFIX = "Section tags: "


def load_prompt(path: str | Path) -> tuple[str, str]:
    """Read a prompt file -> (text, version); the version is the first 12 hex digits of its sha256."""
    text = Path(path).read_text(encoding="utf-8").strip()
    return text, prompt_version(text)


def prompt_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def paper_message(doc: FulltextDoc) -> str:
    """The user message of a digest request: title, the valid section tags, then the marked-up text."""
    return f"{TITLE_PREFIX}{doc.title}\n{TAGS_PREFIX}{', '.join(doc.tags)}\n\n{doc.text}"


def digest_messages(system_prompt: str, doc: FulltextDoc) -> list[Message]:
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": paper_message(doc)}]


def translation_message(english: dict) -> str:
    """The user message of a translation request: the English digest as indented JSON, key order kept."""
    return json.dumps(english, ensure_ascii=False, indent=2)


def translate_messages(system_prompt: str, english: dict) -> list[Message]:
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": translation_message(english)}]
