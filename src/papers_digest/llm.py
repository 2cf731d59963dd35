"""Async client for an OpenAI-compatible /chat/completions endpoint that records every HTTP call."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

import httpx

from papers_digest.http import RetryPolicy, make_client, send_with_retry
from papers_digest.models import CallRecord, Usage

API_KEY_ENV = "OPENAI_LLM_API_KEY"
ERROR_BODY_CHARS = 500


class LlmError(Exception):
    """No usable answer: an HTTP error status, a transport failure, or a body that is not a completion."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


@dataclass(frozen=True)
class CallContext:
    """What a call is for; copied into its CallRecord."""

    date: str
    arxiv_id: str
    stage: str
    attempt: int


@dataclass
class ChatReply:
    content: str
    finish_reason: str | None
    usage: Usage
    record: CallRecord  # the record of the try that produced this reply


class LlmClient:
    """One endpoint, one model; at most `concurrency` HTTP calls in flight across all papers."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        timeout_s: float,
        concurrency: int,
        retry: RetryPolicy,
        settings: dict[str, Any] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        self.model = model
        self.settings = dict(settings or {})
        self.retry = retry
        self.timeout_s = timeout_s
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = make_client(timeout_s=timeout_s, headers=headers)
        self._slots = asyncio.Semaphore(concurrency)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> LlmClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def chat(
        self, messages: list[dict[str, str]], context: CallContext, records: list[CallRecord]
    ) -> ChatReply:
        """One completion; every HTTP try (retries included) is appended to `records`."""
        payload = {"model": self.model, "messages": messages, **self.settings}
        outcome: dict[str, Any] = {}

        async def send(try_number: int) -> httpx.Response:
            async with self._slots:
                started_wall, started = time.time(), time.monotonic()
                try:
                    response = await self._http.post(self.url, json=payload)
                    await response.aread()
                except httpx.TransportError as exc:
                    records.append(
                        self._record(context, try_number, started_wall, started, error=_describe(exc, self))
                    )
                    raise
            record = self._record(context, try_number, started_wall, started, response=response)
            records.append(record)
            outcome["record"] = record
            return response

        try:
            response = await send_with_retry(self.retry, send)
        except httpx.TransportError as exc:
            raise LlmError(f"LLM call failed: {_describe(exc, self)}") from exc
        record: CallRecord = outcome["record"]
        if not response.is_success:
            body = response.text[:ERROR_BODY_CHARS]
            raise LlmError(
                f"LLM call failed: HTTP {response.status_code}: {body}",
                status=response.status_code,
                body=body,
            )
        content, finish_reason, usage = _parse_completion(response)
        return ChatReply(content=content, finish_reason=finish_reason, usage=usage, record=record)

    def _record(
        self,
        context: CallContext,
        try_number: int,
        started_wall: float,
        started: float,
        *,
        response: httpx.Response | None = None,
        error: str | None = None,
    ) -> CallRecord:
        latency = time.monotonic() - started
        fields: dict[str, Any] = {}
        status = "error"
        if response is not None:
            fields["http_status"] = response.status_code
            if response.is_success:
                status = "ok"
                try:
                    _, fields["finish_reason"], usage = _parse_completion(response)
                    fields.update(usage.model_dump())
                except LlmError as exc:
                    status, error = "error", str(exc)
            else:
                error = f"HTTP {response.status_code}: {response.text[:ERROR_BODY_CHARS]}"
        return CallRecord(
            date=context.date,
            arxiv_id=context.arxiv_id,
            stage=context.stage,  # type: ignore[arg-type]
            attempt=context.attempt,
            retry=try_number,
            status=status,  # type: ignore[arg-type]
            error=error,
            started_at=round(started_wall, 3),
            ended_at=round(started_wall + latency, 3),
            latency_s=round(latency, 4),
            **fields,
        )


def _parse_completion(response: httpx.Response) -> tuple[str, str | None, Usage]:
    try:
        body = response.json()
        choice = body["choices"][0]
        content = choice.get("message", {}).get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise LlmError(
            f"LLM answer is not a chat completion: {response.text[:ERROR_BODY_CHARS]}",
            status=response.status_code,
        ) from None
    return content, choice.get("finish_reason"), parse_usage(body.get("usage"))


def parse_usage(raw: Any) -> Usage:
    """usage -> Usage, reading cached and reasoning tokens wherever an engine puts them (DESIGN.md §3)."""
    if not isinstance(raw, dict):
        return Usage()
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    cached = prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None
    reasoning = completion_details.get("reasoning_tokens") if isinstance(completion_details, dict) else None
    if reasoning is None:
        reasoning = raw.get("reasoning_tokens")  # SGLang puts it at the top level
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
        cached_tokens=int(cached) if cached is not None else None,
        reasoning_tokens=int(reasoning) if reasoning is not None else None,
    )


def _describe(exc: httpx.TransportError, client: LlmClient) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {client.timeout_s:g} s ({type(exc).__name__}) calling {client.url}"
    return f"{type(exc).__name__} calling {client.url}: {exc or 'connection closed'}"
