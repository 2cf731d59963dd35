"""Async client for an OpenAI-compatible /chat/completions endpoint that records every HTTP call."""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from papers_digest.core.http import RetryPolicy, describe_transport_error, make_client, send_with_retry
from papers_digest.core.models import CallRecord, Usage
from papers_digest.core.store import Store, disabled_store, request_key
from papers_digest.llm.endpoint import api_key as endpoint_api_key
from papers_digest.llm.endpoint import auth_headers, probe_request
from papers_digest.llm.errors import HttpFailure, LlmError, classify_failure
from papers_digest.llm.slots import FIRST, RETRY, PrioritySlots
from papers_digest.llm.spending import TokenBudget, call_estimate

ERROR_BODY_CHARS = 500


PROBE_REUSE_S = 5.0  # a probe's verdict stands this long for the other papers that failed meanwhile


@dataclass(frozen=True)
class CallContext:
    """What a call is for; copied into its CallRecord."""

    date: str
    arxiv_id: str
    stage: str
    attempt: int
    repair: bool = False  # the checker's retry asks for the failed fields alone (llm/repair.py)


@dataclass(frozen=True)
class _Try:
    """One HTTP try of a call: its answer, its record, and the answer's error classified (None: a success)."""

    response: httpx.Response
    record: CallRecord
    failure: HttpFailure | None


@dataclass
class ChatReply:
    content: str
    finish_reason: str | None
    usage: Usage
    record: CallRecord  # the record of the try that produced this reply
    key: str = ""  # the request's key in the store


class LlmClient:
    """One endpoint, one model; at most `concurrency` HTTP calls in flight across all papers, a checker
    retry first among those waiting (llm/slots.py)."""

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
        store: Store | None = None,
        structured: bool = False,
        budget: TokenBudget | None = None,
    ) -> None:
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        self.model = model
        self.settings = dict(settings or {})
        self.retry = retry
        self.timeout_s = timeout_s
        key = endpoint_api_key(api_key)
        self._secret = key
        self._http = make_client(timeout_s=timeout_s, headers=auth_headers(key))
        self._slots = PrioritySlots(concurrency)
        self.store = store or disabled_store()
        # Structured output until the engine refuses it once; then prompt-only for the rest of the run.
        self.structured = structured
        self._halted: str | None = None  # set once the endpoint stopped answering: nothing more is asked
        self.budget = budget or TokenBudget(limit=None)
        self._probe_lock = asyncio.Lock()
        self._last_probe: tuple[float, str | None] | None = None  # (when, verdict)

    def halt(self, reason: str) -> None:
        """Ask nothing more (the endpoint stopped answering): later calls fail at once as transport errors."""
        self._halted = reason

    @property
    def halted(self) -> bool:
        return self._halted is not None

    async def probe(self) -> str | None:
        """After a call failed past its retries: does the endpoint answer the readiness check's one-token
        completion? None when it does (the failure was that request's own), else what went wrong (an outage).

        Papers failing together share one probe: a verdict younger than PROBE_REUSE_S is reused."""
        async with self._probe_lock:
            if self._last_probe is not None and time.monotonic() - self._last_probe[0] < PROBE_REUSE_S:
                return self._last_probe[1]
            verdict = await self._send_probe()
            self._last_probe = (time.monotonic(), verdict)
            return verdict

    async def _send_probe(self) -> str | None:
        try:
            async with self._slots.hold(RETRY):
                response = await self._http.post(self.url, json=probe_request(self.model))
        except httpx.TransportError as exc:
            return describe_transport_error(exc, self.url)
        if response.is_success:
            return None
        return f"HTTP {response.status_code}: {self.redact(response.text[:ERROR_BODY_CHARS])}"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> LlmClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def chat(
        self,
        messages: list[dict[str, str]],
        context: CallContext,
        records: list[CallRecord],
        schema: dict[str, Any] | None = None,
        *,
        max_tokens: int | None = None,
        sampling: dict[str, Any] | None = None,
    ) -> ChatReply:
        """One completion; every HTTP try (retries included) is appended to `records`. `max_tokens`, when
        given, caps this answer instead of llm.max_tokens; `sampling` (temperature, seed) overrides llm's
        settings for this answer.

        An identical earlier request (model, messages, settings) whose answer passed the checker (see
        `keep`) is served from the store without an HTTP call, recorded with `from_store`. An engine that
        refuses the structured-output request is asked once more without it, and plainly from then on.
        """
        structured = self.structured and schema is not None
        payload = self._payload(messages, schema if structured else None, max_tokens) | (sampling or {})
        answer = await self._ask(payload, context, records)
        if isinstance(answer, HttpFailure) and structured and answer.blames_response_format:
            self.structured = False  # this engine cannot do it: ask plainly from now on
            answer = await self._ask(self._payload(messages, None, max_tokens) | (sampling or {}), context, records)
        if isinstance(answer, HttpFailure):
            raise answer.error()
        return answer

    def _payload(
        self, messages: list[dict[str, str]], schema: dict[str, Any] | None, max_tokens: int | None
    ) -> dict[str, Any]:
        payload = {"model": self.model, "messages": messages, **self.settings}
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if schema is not None:
            payload["response_format"] = response_format(schema)
        return payload

    async def _ask(
        self, payload: dict[str, Any], context: CallContext, records: list[CallRecord]
    ) -> ChatReply | HttpFailure:
        """The reply to one request, from the store or over HTTP with the retry policy, or the endpoint's error
        answer classified; raises LlmError when no answer came (transport, halted, over the budget)."""
        key = request_key("chat", payload)
        stored = self.store.get("llm", key)
        if stored is not None:
            return _stored_reply(stored, context, records, key)
        if self._halted is not None:
            raise LlmError(f"not asked: {self._halted}", kind="transport")
        estimate = call_estimate(payload["messages"], payload.get("max_tokens"))

        async def send(try_number: int) -> _Try:
            async with self._slots.hold(RETRY if context.attempt > 1 else FIRST):
                if self._halted is not None:  # halted while this call waited for a slot
                    raise LlmError(f"not asked: {self._halted}", kind="transport")
                if not self.budget.admit(estimate):  # checked in the slot: the calls in flight are reserved
                    raise LlmError(self.budget.refusal(), kind="budget")
                started_wall, started = time.time(), time.monotonic()
                spent = 0
                try:
                    try:
                        response = await self._http.post(self.url, json=payload)
                        await response.aread()
                    except httpx.TransportError as exc:
                        error = describe_transport_error(exc, self.url)
                        records.append(self._record(context, try_number, started_wall, started, error=error))
                        raise
                    failure = None if response.is_success else self._classify(response)
                    record = self._record(
                        context, try_number, started_wall, started, response=response, failure=failure
                    )
                    spent = (record.prompt_tokens or 0) + (record.completion_tokens or 0)
                finally:
                    self.budget.settle(estimate, spent)
            records.append(record)
            return _Try(response, record, failure)

        try:
            last = await send_with_retry(self.retry, send, lambda tried: tried.response)
        except httpx.TransportError as exc:
            raise LlmError(f"LLM call failed: {describe_transport_error(exc, self.url)}", kind="transport") from exc
        if last.failure is not None:
            return last.failure
        content, finish_reason, usage = _parse_completion(last.response)
        return ChatReply(content=content, finish_reason=finish_reason, usage=usage, record=last.record, key=key)

    def _classify(self, response: httpx.Response) -> HttpFailure:
        return classify_failure(response, self.redact(response.text[:ERROR_BODY_CHARS]))

    def keep(self, reply: ChatReply) -> None:
        """Store an answer that passed the checker, so no rerun pays for it again. Rejected answers are
        not kept: a paper retried later (the retry queue) must get a fresh answer, not the same bad one."""
        if reply.record.from_store:
            return
        entry = {
            "content": reply.content,
            "finish_reason": reply.finish_reason,
            "usage": reply.usage.model_dump(),
            "latency_s": reply.record.latency_s,
            "answered_at": reply.record.ended_at,
        }
        self.store.put("llm", reply.key, entry)

    def redact(self, text: str) -> str:
        """The text with the API key masked: some servers echo it in error bodies."""
        return text.replace(self._secret, "***") if self._secret and len(self._secret) >= 4 else text

    def _record(
        self,
        context: CallContext,
        try_number: int,
        started_wall: float,
        started: float,
        *,
        response: httpx.Response | None = None,
        failure: HttpFailure | None = None,
        error: str | None = None,
    ) -> CallRecord:
        """The try's record: a transport `error`, an error answer's `failure`, or the answer's usage."""
        latency = time.monotonic() - started
        fields: dict[str, Any] = {"error_kind": "transport" if error else None}
        status = "error"
        if failure is not None:
            error = failure.record_error
            fields.update(http_status=failure.status, error_kind=failure.kind)
            if failure.kind == "context_length":
                fields.update(
                    context_tokens=failure.context.get("context"), prompt_tokens=failure.context.get("prompt")
                )
        elif response is not None:
            fields["http_status"] = response.status_code
            status = "ok"
            try:
                _, fields["finish_reason"], usage = _parse_completion(response)
                fields.update(usage.model_dump())
            except LlmError as exc:
                status, error, fields["error_kind"] = "error", str(exc), exc.kind
        return CallRecord(
            **asdict(context),
            retry=try_number,
            status=status,  # type: ignore[arg-type]
            error=error,
            started_at=round(started_wall, 3),
            ended_at=round(started_wall + latency, 3),
            latency_s=round(latency, 4),
            **fields,
        )


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as vLLM, SGLang, llama-server and hosted APIs take it (docs/design.md §3): nested under
    `json_schema` (llama-server silently ignores a top-level `schema`)."""
    return {"type": "json_schema", "json_schema": {"name": "digest", "schema": schema}}


def _stored_reply(stored: dict[str, Any], context: CallContext, records: list[CallRecord], key: str) -> ChatReply:
    usage = Usage.model_validate(stored["usage"])
    now = round(time.time(), 3)
    record = CallRecord(
        **asdict(context),
        status="ok",
        finish_reason=stored.get("finish_reason"),
        started_at=now,
        ended_at=now,
        latency_s=0.0,
        from_store=True,
        **usage.model_dump(),
    )
    records.append(record)
    return ChatReply(
        content=stored["content"], finish_reason=stored.get("finish_reason"), usage=usage, record=record, key=key
    )


def _parse_completion(response: httpx.Response) -> tuple[str, str | None, Usage]:
    try:
        body = response.json()
        choice = body["choices"][0]
        content = choice.get("message", {}).get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise LlmError(
            f"LLM answer is not a chat completion: {response.text[:ERROR_BODY_CHARS]}",
            kind="bad_response",
            status=response.status_code,
        ) from None
    return content, choice.get("finish_reason"), parse_usage(body.get("usage"))


def parse_usage(raw: Any) -> Usage:
    """usage -> Usage, reading cached and reasoning tokens wherever an engine puts them (docs/design.md §3)."""
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
