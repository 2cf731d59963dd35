"""Token budgets: fitting a paper into the context (count its tokens, then drop appendices and the longest
sections).

Tokens are counted by the engine when it has a tokenize endpoint (vLLM and SGLang `/tokenize`,
llama.cpp's server `/tokenize`, llama-cpp-python `/extras/tokenize/count`), else estimated: every run of
ASCII characters cut into 4-character tokens, every other character (CJK, symbols) one token. English
text averages about 4 characters per token in BPE tokenizers, so the estimate errs little either way;
keep a margin under the engine's context for the answer.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence

from papers_digest.core.markup import Block, blocks_of
from papers_digest.core.models import FulltextDoc, Section
from papers_digest.llm.prompting import paper_message

TokenCount = Callable[[str], Awaitable[int]]

_TOKEN_RE = re.compile(r"[\x00-\x7f]{1,4}|[^\x00-\x7f]", re.DOTALL)
_APPENDIX_ANCHOR_RE = re.compile(r"^A\d")  # LaTeXML ids of appendices: A1, A2.SS1, …


def estimate_tokens(text: str) -> int:
    """The documented estimate: ceil(len/4) per ASCII run, one token per other character."""
    return len(_TOKEN_RE.findall(text))


def estimate_token_list(text: str) -> list[str]:
    """The estimate's tokens themselves (the engine simulator uses them as its tokenizer)."""
    return _TOKEN_RE.findall(text)


async def count_estimated(text: str) -> int:
    return estimate_tokens(text)


def is_appendix(section: Section) -> bool:
    return bool(section.anchor and _APPENDIX_ANCHOR_RE.match(section.anchor))


def drop_order(blocks: Sequence[Block], sizes: Sequence[int]) -> list[int]:
    """Which blocks to drop first: appendices from the end, then the longest remaining sections (the
    later of two equal ones first); never the abstract."""
    indices = [i for i, b in enumerate(blocks) if b.section.tag != "Abstract"]
    appendices = [i for i in reversed(indices) if is_appendix(blocks[i].section)]
    body = sorted((i for i in indices if i not in appendices), key=lambda i: (-sizes[i], -i))
    return appendices + body


def trimmed(doc: FulltextDoc, blocks: Sequence[Block], drop: set[int]) -> FulltextDoc:
    kept = [b for i, b in enumerate(blocks) if i not in drop]
    dropped = [b.section.tag for i, b in enumerate(blocks) if i in drop]
    return doc.model_copy(
        update={
            "text": "\n\n".join(b.text for b in kept),
            "sections": [b.section for b in kept],
            "source": "trimmed" if dropped or doc.source == "trimmed" else doc.source,
            "dropped": [*doc.dropped, *dropped],
        }
    )


async def fit_to_budget(doc: FulltextDoc, budget: int | None, count: TokenCount) -> FulltextDoc:
    """The document as sent, within `budget` tokens of its message (title, tags, text), with the
    tokens counted; sections are dropped in `drop_order` until it fits (the abstract always stays)."""
    total = await count(paper_message(doc))
    if budget is None or total <= budget:
        return doc.model_copy(update={"tokens": total})
    blocks = blocks_of(doc)
    sizes = [await count(b.text) for b in blocks]
    order = drop_order(blocks, sizes)
    target = budget
    for _ in range(4):  # per-block counts only approximate the whole: re-count and tighten if needed
        drop: set[int] = set()
        estimate = total
        for i in order:
            if estimate <= target:
                break
            drop.add(i)
            estimate -= sizes[i]
        candidate = trimmed(doc, blocks, drop)
        counted = await count(paper_message(candidate))
        if counted <= budget or len(drop) == len(order):
            return candidate.model_copy(update={"tokens": counted})
        target -= counted - budget
    return candidate.model_copy(update={"tokens": counted})
