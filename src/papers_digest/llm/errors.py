"""What a failed LLM call was: its kind (context too long, quota, budget, …) read from the engine's answer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import httpx

from papers_digest.core.http import RETRYABLE_STATUS, is_quota_exhausted

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
# Words of an error that blames the structured-output request: response_format, the schema, the grammar built from it.
_SCHEMA_WORDS = ("response_format", "json_schema", "guided", "grammar", "schema")
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


@dataclass(frozen=True)
class HttpFailure:
    """An error answer of the endpoint, classified once: what its call record keeps and what the caller raises."""

    kind: ErrorKind  # quota | context_length | http
    status: int
    body: str  # the first characters of the body, the API key masked
    context: dict[str, int] = field(default_factory=dict)  # the prompt and context sizes a context error states
    blames_response_format: bool = False  # the engine refused the structured-output request, not the paper

    @property
    def record_error(self) -> str:
        return f"HTTP {self.status}: {self.body}"

    def error(self) -> LlmError:
        """The error the call raises."""
        if self.kind == "quota":
            message = f"the account's quota is exhausted (HTTP {self.status}: {self.body})"
        elif self.kind == "context_length":
            sizes = (
                f" ({self.context.get('prompt', '?')} > {self.context['context']} tokens)"
                if "context" in self.context
                else ""
            )
            message = f"LLM call failed: the request does not fit the model's context{sizes}: {self.record_error}"
        else:
            message = f"LLM call failed: {self.record_error}"
        return LlmError(message, kind=self.kind, status=self.status, body=self.body)


def classify_failure(response: httpx.Response, body: str) -> HttpFailure:
    """What an error answer means, on any engine (docs/design.md §3): the account's quota spent (a 429 saying so),
    a request too long for the context (with the sizes it states), or another HTTP error; and whether it blames
    the structured-output request (some servers answer 500 or 501 for a schema they cannot compile).
    `body`: the excerpt to keep, already masked."""
    status, text = response.status_code, response.text
    lowered = text.lower()
    blames_schema = status in (400, 422, 500, 501) and any(word in lowered for word in _SCHEMA_WORDS)
    if is_quota_exhausted(response):
        return HttpFailure("quota", status, body, blames_response_format=blames_schema)
    if is_context_error(status, text):
        return HttpFailure("context_length", status, body, context_numbers(text), blames_schema)
    return HttpFailure("http", status, body, blames_response_format=blames_schema)


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
