"""The marked-up text of a paper: one `[§tag title]` marker line per section, split back into sections.

The fulltext stage writes it (sources/latexml.py); the context budget cuts it by section (llm/budget.py);
the checker reads which text belongs to which section (checker/paper.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papers_digest.core.models import FulltextDoc, Section

MARKER_RE = re.compile(r"^\[§[^\]\n]*\]$", re.MULTILINE)
ABSTRACT = "Abstract"


@dataclass(frozen=True)
class Block:
    """One section marker and the text under it, up to the next marker."""

    section: Section
    text: str


def blocks_of(doc: FulltextDoc) -> list[Block]:
    """Split a document's text at its marker lines, in order (one block per section)."""
    starts = [m.start() for m in MARKER_RE.finditer(doc.text)]
    if len(starts) != len(doc.sections):  # defensive: a text without its markers cannot be cut safely
        return [Block(doc.sections[0] if doc.sections else Section(tag=ABSTRACT, title=ABSTRACT), doc.text)]
    ends = [*starts[1:], len(doc.text)]
    return [Block(section, doc.text[a:b].strip("\n")) for section, a, b in zip(doc.sections, starts, ends, strict=True)]


def section_texts(doc: FulltextDoc) -> dict[str, str]:
    """Each section's text with its subsections' (and the tables and figures inside them): the blocks
    from its marker up to the next section of the same or a higher level, markers left out."""
    blocks = blocks_of(doc)
    texts: dict[str, str] = {}
    for i, block in enumerate(blocks):
        parts = [_body(block.text)]
        if block.section.level > 0:  # the abstract (level 0) has no subsections
            for later in blocks[i + 1 :]:
                if later.section.level <= block.section.level:
                    break
                parts.append(_body(later.text))
        texts[block.section.tag] = "\n".join(p for p in parts if p)
    return texts


def _body(block_text: str) -> str:
    return MARKER_RE.sub("", block_text).strip("\n")
