"""Numbers as the checker compares them: one normalisation of the paper's text and of the digest's values."""

from __future__ import annotations

import unicodedata


def normalise_for_match(text: str) -> str:
    """NFKC and collapsed whitespace, so a number matches across a no-break space or line wrap."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


