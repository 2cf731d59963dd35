"""The user message of an evidence-first digest request (docs/checker.md, "Evidence first"): the paper's
opening and its numbered candidate sentences (checker/candidates.py), for a plain-text draft (checker/draft.py)."""

from __future__ import annotations

from papers_digest.checker.candidates import Candidate
from papers_digest.core.markup import ABSTRACT, blocks_of
from papers_digest.core.models import FulltextDoc
from papers_digest.llm.prompting import TITLE_PREFIX, Message

INTRODUCTION_WORDS = 150  # the introduction's opening an evidence-first request carries, in words
# The headings of the candidates' list: a paper seen as its abstract, or a full text's figure sentences.
ABSTRACT_HEADING = "The abstract, sentence by sentence (the candidates):"
CANDIDATES_HEADING = "Candidate sentences:"


def draft_message(doc: FulltextDoc, candidates: list[Candidate]) -> str:
    """The user message of an evidence-first digest request (checker/draft.py): the title, the abstract and
    the introduction's opening, then the numbered candidate sentences with their sections. A paper seen as
    its abstract is given as its candidates alone: they are every sentence of it."""
    listed = "\n".join(f"[{c.index}] {c.sentence}" for c in candidates)
    blocks = {block.section.tag: block for block in blocks_of(doc)}
    if all(c.section == ABSTRACT for c in candidates) and len(blocks) <= 1:
        return f"{TITLE_PREFIX}{doc.title}\n\n{ABSTRACT_HEADING}\n{listed}"
    parts = [f"{TITLE_PREFIX}{doc.title}"]
    if ABSTRACT in blocks:
        parts.append(f"Abstract:\n{_body(blocks[ABSTRACT].text)}")
    introduction = next((b for tag, b in blocks.items() if tag != ABSTRACT and b.section.level == 1), None)
    if introduction is not None:
        opening = " ".join(_body(introduction.text).split()[:INTRODUCTION_WORDS])
        parts.append(f"{introduction.section.title} (its opening):\n{opening} …")
    parts.append(f"{CANDIDATES_HEADING}\n{listed}")
    return "\n\n".join(parts)


def is_draft_request(user: str) -> bool:
    """Whether a first user message is an evidence-first request (its candidates listed)."""
    return user.startswith(TITLE_PREFIX) and (f"\n{CANDIDATES_HEADING}" in user or f"\n{ABSTRACT_HEADING}" in user)


def draft_messages(system_prompt: str, doc: FulltextDoc, candidates: list[Candidate]) -> list[Message]:
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": draft_message(doc, candidates)}]


def _body(block_text: str) -> str:
    return " ".join(line for line in block_text.splitlines() if not line.startswith("[§")).strip()
