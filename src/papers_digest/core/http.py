"""The one HTTP client setup and the one retry policy for transient failures (HF, arXiv and the LLM)."""

from __future__ import annotations

import email.utils
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    wait_exponential_jitter,
)

from papers_digest import __version__
from papers_digest.core.params import RetryParams

T = TypeVar("T")
USER_AGENT = f"papers-digest/{__version__} (daily paper digests; polite: serial arXiv fetches)"
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
# A 429 with these words means the account is out of quota: waiting does not help.
_QUOTA_PHRASES = ("insufficient_quota", "exceeded your current quota", "billing")


@dataclass(frozen=True)
class RetryPolicy:
    """How often a transient failure is tried again, and the longest single wait (also caps Retry-After)."""

    attempts: int = 4
    max_wait_s: float = 60.0


def retry_policy(retry: RetryParams) -> RetryPolicy:
    """The policy params.yaml's `retry` section describes."""
    return RetryPolicy(attempts=retry.attempts, max_wait_s=retry.max_wait_s)


def make_client(*, timeout_s: float, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    """An AsyncClient with our user agent, redirects followed and one timeout for the whole call."""
    return httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=True,
        timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 15.0)),
        limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
    )


def make_sync_client(*, timeout_s: float, headers: dict[str, str] | None = None) -> httpx.Client:
    """The same setup for the few blocking calls, an engine's readiness checks: proxies ignored, they talk to a
    local engine (alerts and pushes go through apprise: core/notify.py)."""
    return httpx.Client(
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=True,
        timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 15.0)),
        trust_env=False,
    )


def describe_transport_error(exc: httpx.TransportError, url: str) -> str:
    """A transport failure in words a person understands (httpx's own text is often empty)."""
    if isinstance(exc, httpx.TimeoutException):
        timeout = exc.request.extensions.get("timeout", {}) if _has_request(exc) else {}
        limit = timeout.get("read") or timeout.get("connect")
        return f"timed out{f' after {limit:g} s' if limit else ''} ({type(exc).__name__}) calling {url}"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to {url} ({exc or 'connection refused'})"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the connection to {url} broke off mid-answer ({exc or 'closed early'})"
    return f"{type(exc).__name__} calling {url}: {exc or 'connection failed'}"


def _has_request(exc: httpx.TransportError) -> bool:
    try:
        exc.request  # noqa: B018 - raises RuntimeError when the error has no request attached
    except RuntimeError:
        return False
    return True


def is_retryable_response(response: httpx.Response) -> bool:
    """A status that says 'try again later', except a 429 for an exhausted quota (waiting does not help)."""
    return response.status_code in RETRYABLE_STATUS and not is_quota_exhausted(response)


def is_quota_exhausted(response: httpx.Response) -> bool:
    """A 429 whose body says the account's quota or billing limit is spent (`insufficient_quota`)."""
    if response.status_code != 429:
        return False
    body = response.text.lower()
    return any(phrase in body for phrase in _QUOTA_PHRASES)


def retry_after_s(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds (delta or HTTP date), or None."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


async def send_with_retry(
    policy: RetryPolicy,
    send: Callable[[int], Awaitable[T]],
    response_of: Callable[[T], httpx.Response] | None = None,
) -> T:
    """Call send(try_number) until it gives a non-transient answer or the tries run out.

    Returns the last try's result (whatever its status); raises the last transport error
    (httpx.TransportError: connection refused or reset, timeouts) when no response came. `send` returns the
    response, or a record holding it that `response_of` reads (the chat client's try with its call record).
    """
    answer: Callable[[T], httpx.Response] = response_of or (lambda result: result)  # type: ignore[assignment,return-value]
    backoff = wait_exponential_jitter(multiplier=min(1.0, policy.max_wait_s), max=policy.max_wait_s, jitter=0.5)

    def wait(state: RetryCallState) -> float:
        outcome = state.outcome
        if outcome is not None and not outcome.failed:
            hinted = retry_after_s(answer(outcome.result()))
            if hinted is not None:
                return min(hinted, policy.max_wait_s)
        return min(backoff(state), policy.max_wait_s)

    tries = itertools.count()

    async def one_try() -> T:
        return await send(next(tries))

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait,
        retry=retry_if_exception_type(httpx.TransportError)
        | retry_if_result(lambda result: is_retryable_response(answer(result))),
        # out of tries: the last response as it is, or the last transport error raised
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        reraise=True,
    )
    return await retrying(one_try)
