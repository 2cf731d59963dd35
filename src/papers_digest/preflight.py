"""Checks before any paper is touched: is the LLM endpoint there, does it take our key, does it serve the model."""

from __future__ import annotations

import os

import httpx

from papers_digest.http import describe_transport_error, make_client
from papers_digest.llm import API_KEY_ENV
from papers_digest.params import LlmParams

PREFLIGHT_TIMEOUT_S = 15.0


class PreflightError(RuntimeError):
    """The configuration cannot work; the message is one line naming the problem."""


async def check_llm_endpoint(llm: LlmParams, api_key: str | None = None) -> None:
    """`GET {base_url}/models`; raise PreflightError for what no retry can fix (unreachable, key, model).

    A 5xx or a missing /models route is not fatal here: the calls' own retries and errors handle those.
    """
    if not llm.configured:
        return
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
    url = f"{llm.base_url}/models"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with make_client(timeout_s=PREFLIGHT_TIMEOUT_S, headers=headers) as client:
        try:
            response = await client.get(url)
        except httpx.TransportError as exc:
            raise PreflightError(f"llm.base_url is unreachable: {describe_transport_error(exc, url)}") from None
    if response.status_code in (401, 403):
        if not key:
            raise PreflightError(
                f"{llm.base_url} wants an API key (HTTP {response.status_code}): set the environment variable "
                f"{API_KEY_ENV}"
            )
        raise PreflightError(f"{llm.base_url} refused the API key in {API_KEY_ENV} (HTTP {response.status_code})")
    if response.status_code != 200:
        return
    try:
        served = [m["id"] for m in response.json().get("data", []) if isinstance(m, dict) and "id" in m]
    except (ValueError, AttributeError):
        return
    if served and llm.model not in served:
        listed = ", ".join(served[:10]) + (" …" if len(served) > 10 else "")
        raise PreflightError(f"llm.model {llm.model!r} is not served by {llm.base_url} (it serves: {listed})")
