"""What a way of asking for the English digest declares (docs/checker.md, "Ways of asking")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from papers_digest.core.models import FulltextDoc, GenerationResult
from papers_digest.llm.client import LlmClient
from papers_digest.llm.conversation import Task

# One paper's English digest, asked this way: the client, the paper, the prompt file's text, what it is for, and
# the number of its first attempt (a paper asked again after a context error continues the count).
AskPaper = Callable[[LlmClient, FulltextDoc, str, Task, int], Awaitable[GenerationResult]]


@dataclass(frozen=True)
class Way:
    """One way of asking: its name (the value of llm.asking), how it asks and how it mends a failed answer (in
    words, for the docs and `--help`), the function that asks, and a check of its prompt file."""

    name: str
    asks: str
    mends: str
    ask: AskPaper
    check_prompt: Callable[[str, str], None]  # (the prompt's text, its path) -> None, or ValueError naming both

    @property
    def prompt(self) -> str:
        """Its prompt file, relative to the project: dvc.yaml's dep `prompts/digest_en_${llm.asking}.md`."""
        return f"prompts/digest_en_{self.name}.md"


def any_prompt(text: str, where: str) -> None:
    """A prompt file any text serves (a system prompt)."""
    if not text.strip():
        raise ValueError(f"{where}: empty")
