"""What a failed LLM call was: its kind (context too long, quota, budget, …) read from the engine's answer."""

from __future__ import annotations

import re
from typing import Literal

from papers_digest.core.http import RETRYABLE_STATUS

# quota: the account's quota is spent (an account-wide stop); budget: llm.budget_tokens_per_day reached, not sent
ErrorKind = Literal["http", "transport", "context_length", "bad_response", "quota", "budget"]

# How engines say "the prompt is too long" in a 400 (docs/design.md §3): vLLM, SGLang, llama.cpp, hosted APIs.
_CONTEXT_PHRASES = (
    "maximum context length",
    "context length is",
    "longer than the model's context length",
    "exceeds the model's maximum context length",
    "exceed_context_size_error",
    "exceeds the available context size",
    "context_length_exceeded",
    "is too large",  # vLLM: 'max_tokens' or 'max_completion_tokens' is too large
    "prompt is too long",
    "context window",
)
_CONTEXT_NUMBER_PATTERNS = (
    (re.compile(r'"n_prompt_tokens"\s*:\s*(\d+)'), "prompt"),
    (re.compile(r'"n_ctx"\s*:\s*(\d+)'), "context"),
    (re.compile(r"maximum context length is (\d+)"), "context"),
    (re.compile(r"context length \((\d+) tokens\)"), "context"),
    (re.compile(r"maximum context length \((\d+)\)"), "context"),
    (re.compile(r"you requested (\d+) tokens"), "prompt"),
    (re.compile(r"messages resulted in (\d+) tokens"), "prompt"),
    (re.compile(r"input \((\d+) tokens\)", re.IGNORECASE), "prompt"),
    (re.compile(r"Input length \((\d+)\)"), "prompt"),
)


def is_context_error(status: int, body: str) -> bool:
    """Whether an error answer means 'the request does not fit the model's context', on any engine."""
    lowered = body.lower()
    return status in (400, 413, 422) and any(phrase.lower() in lowered for phrase in _CONTEXT_PHRASES)


def context_numbers(body: str) -> dict[str, int]:
    """The prompt and context sizes an engine's context error states, when it states them."""
    found: dict[str, int] = {}
    for pattern, name in _CONTEXT_NUMBER_PATTERNS:
        match = pattern.search(body)
        if match and name not in found:
            found[name] = int(match.group(1))
    return found


class LlmError(Exception):
    """No usable answer: an HTTP error status, a transport failure, or a body that is not a completion."""

    def __init__(self, message: str, *, kind: ErrorKind = "http", status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.body = body

    @property
    def outage(self) -> bool:
        """Maybe the endpoint, not the paper: no connection, time-outs or a "try later" status (408/409/429/5xx)
        that outlasted the transient retries. Whether other papers would fail the same way is for the probe
        to tell (LlmClient.probe; docs/architecture.md, "Outages")."""
        return self.kind == "transport" or (self.kind == "http" and self.status in RETRYABLE_STATUS)
