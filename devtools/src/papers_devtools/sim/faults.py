"""Misbehaviours the engine simulator can be told to show, and the error bodies real engines send."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from starlette.responses import JSONResponse, Response

from papers_digest.checker.fields import STRING_CAPS

FaultKind = Literal[
    "http_error",
    "slow",
    "invalid_json",
    "fence",
    "wrong_schema",
    "wrong_numbers",
    "bad_section",
    "prose_number",
    "empty",
    "length",
    "wrong_language",
    "repeating",
    "reset",
    "rate_limit",
    "context_length",
]
ServerKind = Literal["vllm", "sglang", "llama-cpp", "openai"]  # whose error bodies to imitate

BAD_NUMBER = "987654.321"  # what `wrong_numbers` puts in: no paper text here contains it
BAD_SECTION = "99.9"  # what `bad_section` cites


class Fault(BaseModel):
    """One injected misbehaviour; applies while `times` is not 0 (-1 = forever)."""

    model_config = ConfigDict(extra="forbid")

    kind: FaultKind
    match: str | None = None  # substring of any message content; None = every request
    on: Literal["first", "retry", "any"] = "any"  # first = exactly 2 messages and no repair, retry = the rest
    request: Literal["digest", "translate", "any"] = "any"  # which kind of request it applies to
    times: int = 1
    status: int = 500  # http_error
    body: str | None = None  # http_error: sent as is (JSON if it parses, else text)
    delay_s: float = 0.0  # extra delay before answering, for every kind (`slow` does only this)
    retry_after_s: float = 1.0  # rate_limit
    engine: ServerKind = "vllm"  # context_length: whose error body to imitate
    # The share of papers it applies to, a model's quality: a paper is in it when a stable hash of its
    # conversation's first user message (the paper, or the English digest to translate) falls below it, so
    # the same papers are hit on every run, at any concurrency, on the first answer and on the retry alike.
    share: float = Field(default=1.0, ge=0.0, le=1.0)

    def applies(self, contents: list[str], stage: str, kind: str | None) -> bool:
        """Whether this fault answers a request (messages' contents, first/retry, digest/translate)."""
        english = "digest" if kind == "steps" else kind  # a step is the English digest's request
        if self.times == 0 or self.on not in ("any", stage) or self.request not in ("any", english):
            return False
        if self.match is not None and not any(self.match in c for c in contents):
            return False
        return self.share >= 1.0 or paper_point(contents) < self.share

    @staticmethod
    def take(faults: list[Fault], contents: list[str], stage: str, kind: str | None) -> Fault | None:
        """The first fault that answers this request (a copy), its `times` counted down; call under the sim's
        lock."""
        for fault in faults:
            if fault.applies(contents, stage, kind):
                if fault.times > 0:
                    fault.times -= 1
                return fault.model_copy()
        return None


def paper_point(contents: list[str]) -> float:
    """Where a request's paper falls in [0, 1): the sha256 of its first user message (contents[1] after the
    system prompt), stable across runs, so `Fault.share` picks the same papers every time."""
    first_user = contents[1] if len(contents) > 1 else (contents[0] if contents else "")
    return int(hashlib.sha256(first_user.encode("utf-8")).hexdigest()[:13], 16) / 16**13


FAULTS = TypeAdapter(list[Fault])


def context_error_body(engine: ServerKind, prompt: int, context: int, max_tokens: int | None = None) -> dict:
    """The HTTP 400 body each engine sends when a prompt exceeds its context (docs/design.md §3)."""
    if engine == "vllm":
        if max_tokens:  # vLLM's two wordings (v0.9 serving_engine): with and without max_tokens
            detail = (
                f"However, you requested {prompt + max_tokens} tokens ({prompt} in the messages, "
                f"{max_tokens} in the completion). Please reduce the length of the messages or completion."
            )
        else:
            detail = (
                f"However, you requested {prompt} tokens in the messages, Please reduce the length of the messages."
            )
        message = f"This model's maximum context length is {context} tokens. {detail}"
        return {"error": {"message": message, "type": "BadRequestError", "param": None, "code": 400}}
    if engine == "sglang":
        message = f"The input ({prompt} tokens) is longer than the model's context length ({context} tokens)."
        return {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
    if engine == "llama-cpp":
        return {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": context,
            }
        }
    message = (
        f"This model's maximum context length is {context} tokens. However, your messages resulted in "
        f"{prompt} tokens. Please reduce the length of the messages."
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def openai_error(message: str, type_: str, code: str | int | None = None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def refusal(
    fault: Fault, *, model: str, prompt: int, max_tokens: int | None, context_tokens: int | None
) -> Response | None:
    """The error response a fault answers with instead of a completion, if it is that kind."""
    if fault.kind == "http_error":
        if fault.body is None:
            return JSONResponse(
                openai_error(f"simulated HTTP {fault.status}", "server_error"), status_code=fault.status
            )
        try:
            json.loads(fault.body)
            media = "application/json"
        except ValueError:
            media = "text/plain; charset=utf-8"
        return Response(fault.body, status_code=fault.status, media_type=media)
    if fault.kind == "rate_limit":
        wait = f"{fault.retry_after_s:g}"
        error = openai_error(
            f"Rate limit reached for {model}. Please try again in {wait}s.",
            "requests",
            code="rate_limit_exceeded",
        )
        headers = {"Retry-After": wait, "retry-after-ms": str(round(fault.retry_after_s * 1000))}
        return JSONResponse(error, status_code=429, headers=headers)
    if fault.kind == "context_length":
        # Without a configured context, pretend the window is half the prompt so the numbers still fit.
        context = context_tokens if context_tokens is not None else max(1, prompt // 2)
        return JSONResponse(context_error_body(fault.engine, prompt, context, max_tokens), status_code=400)
    return None


def damage(obj: dict[str, Any], fault: FaultKind) -> dict[str, Any]:
    obj = json.loads(json.dumps(obj))  # deep copy
    if fault == "wrong_schema":
        obj.pop("method", None)
        obj["notes"] = "an extra key the schema does not allow"
        return obj
    results = obj.get("results")
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        obj["results"] = results = [{"finding": "", "numbers": [], "sections": []}]
    first = results[0]
    if fault == "prose_number":  # the lists stay faithful; the finding states a figure the paper lacks
        first["finding"] = f"{first.get('finding') or 'The method'} It reaches {BAD_NUMBER} on every benchmark."
        return obj
    key, bad = ("numbers", BAD_NUMBER) if fault == "wrong_numbers" else ("sections", BAD_SECTION)
    values = first.get(key) if isinstance(first.get(key), list) else []
    first[key] = [bad, *values[1:]]
    return obj


def repeating(obj: dict[str, Any], title: str, text: str) -> dict[str, Any]:
    """The digest of a small model that says nothing: the title as its problem, and one_sentence and every
    finding the paper's opening copied and cut off at the schema's caps, mid-word (the lists stay as they were);
    docs/performance.md, "The sample day on the 0.5B model: what the runs showed" shows the real ones."""
    obj = json.loads(json.dumps(obj))  # deep copy
    obj["problem"] = title
    obj["one_sentence"] = text[: STRING_CAPS["one_sentence"]]
    for result in obj.get("results") or []:
        result["finding"] = text[: STRING_CAPS["finding"]]
    return obj
