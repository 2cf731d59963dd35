"""A chat completion request read as an OpenAI-compatible engine reads it, and its answer written as one."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from papers_devtools.sim.faults import openai_error


class Usage(Protocol):
    """What an answer reports of its tokens (the simulator's RequestFacts)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int


async def read_chat_request(request: Request) -> tuple[dict[str, Any], list[dict[str, str]]] | Response:
    """(the request's body, its messages), or the 400 an engine answers a malformed or a streamed request with."""
    try:
        body = await request.json()
        messages = chat_messages(body)
    except (ValueError, TypeError) as exc:
        return JSONResponse(openai_error(f"invalid request: {exc}", "invalid_request_error"), status_code=400)
    if body.get("stream"):
        return JSONResponse(
            openai_error("stream=true is not supported by this simulator", "invalid_request_error", param="stream"),
            status_code=400,
        )
    return body, messages


def requested_max_tokens(body: dict[str, Any]) -> int | None:
    """The answer's cap the request set (`max_tokens`, or the newer `max_completion_tokens`), if any."""
    max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
    return max_tokens if isinstance(max_tokens, int) else None


def completion_payload(completion_id: str, model: str, content: str, finish: str, usage: Usage) -> dict[str, Any]:
    """The body of a `chat.completion` answer with one choice and its usage."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.prompt_tokens + usage.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        },
    }


def schema_fingerprint(response_format: Any) -> str | None:
    """The first 12 hex digits of the sha256 of a request's schema (nested in its response_format)."""
    nested = response_format.get("json_schema") if isinstance(response_format, dict) else None
    schema = nested.get("schema") if isinstance(nested, dict) else None
    if not isinstance(schema, dict):
        return None
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()[:12]


def response_format_kind(value: Any) -> str | None:
    """The structured output a request asked for, as llama-server would read it: a json_schema without its
    schema nested under `json_schema.schema` constrains nothing (llama-server ignores a top-level one)."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind == "json_schema" and not isinstance((value.get("json_schema") or {}).get("schema"), dict):
        return "json_schema without json_schema.schema"
    return kind


def unauthorised() -> Response:
    error = openai_error("Incorrect API key provided.", "invalid_request_error", code="invalid_api_key")
    return JSONResponse(error, status_code=401)


def chat_messages(body: Any) -> list[dict[str, str]]:
    """Validate the request's messages; content parts ([{"type":"text","text":…}]) are joined."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        raise ValueError("'messages' must be a non-empty list")
    out = []
    for i, message in enumerate(body["messages"]):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError(f"messages[{i}] needs a 'role'")
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise ValueError(f"messages[{i}].content must be a string or a list of parts")
        out.append({"role": message["role"], "content": content})
    return out
