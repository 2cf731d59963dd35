"""The engine simulator over real HTTP: checked answers, usage and prefix cache, timing, faults, control."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import check_en, check_zh

from papers_devtools.sim.cache import CACHE_BLOCK, MESSAGE_OVERHEAD, REPLY_PRIMING, approx_tokens
from papers_devtools.sim.faults import BAD_NUMBER, BAD_SECTION, Fault
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.checker.chinese import cjk_share
from papers_digest.checker.problems import Problem, retry_message
from papers_digest.core.models import Digest, FulltextDoc, Section
from papers_digest.llm.prompting import digest_messages, load_prompt, translate_messages

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_EN, _ = load_prompt(ROOT / "prompts" / "digest_en_json.md")
SYSTEM_ZH, _ = load_prompt(ROOT / "prompts" / "translate_zh.md")

# Real text. GLIMPROUTER: the abstract of arXiv 2601.05110 as the HF Daily Papers API served it
# (../shared/fixtures/hf/2026-01-13.json). EVICPRESS: sentences of arXiv 2512.14946v1 as printed in
# its arXiv HTML page (../shared/fixtures/arxiv/2512.14946v1.html), under that page's section headings.
GLIMPROUTER = FulltextDoc(
    arxiv_id="2601.05110",
    title="GlimpRouter: Efficient Collaborative Inference by Glimpsing One Token of Thoughts",
    source="abstract",
    reason="test: abstract only",
    text=(
        "[§Abstract]\n"
        "Large Reasoning Models (LRMs) achieve remarkable performance by explicitly generating multi-step "
        "chains of thought, but this capability incurs substantial inference latency and computational cost. "
        "In this work, we propose a novel perspective on step-wise collaboration: the difficulty of a "
        "reasoning step can be inferred from its very first token. Building on this insight, we introduce "
        "GlimpRouter, a training-free step-wise collaboration framework. Experiments on multiple benchmarks "
        "demonstrate that our approach significantly reduces inference latency while preserving accuracy. "
        "For instance, GlimpRouter attains a substantial 10.7% improvement in accuracy while reducing "
        "inference latency by 25.9% compared to a standalone large model on AIME25."
    ),
    sections=[Section(tag="Abstract", title="Abstract", level=0)],
)

EVICPRESS = FulltextDoc(
    arxiv_id="2512.14946",
    title="EvicPress: Joint KV-Cache Compression and Eviction for Efficient LLM Serving",
    version=1,
    source="html",
    text="\n".join(
        [
            "[§Abstract]",
            "Reusing KV cache is essential for high efficiency of Large Language Model (LLM) inference "
            "systems. We propose EvicPress, a KV-cache management system that applies lossy compression and "
            "adaptive eviction to KV cache across multiple storage tiers. Evaluation on 12 datasets and 5 "
            "models demonstrates that EvicPress achieves up to 2.19×\\times faster time-to-first-token "
            "(TTFT) at equivalent generation quality.",
            "[§1 Introduction]",
            "However, both eviction and compression approaches are limited when used separately. As shown in "
            "Figure 2, if we consider KV cache for two contexts (context 1 is 4 GB in size and context 2 is "
            "8 GB), context 1 can keep a quality score of 100% even it is aggressively compressed, while "
            "context 2’s quality collapses to 50% even with minimal compression.",
            "[§3 Motivation]",
            "In this section, we present an empirical study with six datasets from LongBench dataset "
            "[longbench], which is a widely-used dataset for verifying LLM’s ability to answer long-context "
            "questions. Specifically, we randomly draw 50 contexts from 12 datasets in the LongBench "
            "[longbench] dataset, covering various types of tasks.",
            "[§5 Implementation]",
            "We implement EvicPress on top of vLLM v0.11.2 and LMCache v0.3.9post2, with about 3K lines of "
            "code in Python based on PyTorch v2.9.",
        ]
    ),
    sections=[
        Section(tag="Abstract", title="Abstract", level=0),
        Section(tag="1", title="Introduction"),
        Section(tag="3", title="Motivation"),
        Section(tag="5", title="Implementation"),
    ],
)


# --- helpers ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def _server() -> Iterator[tuple[EngineSim, str]]:
    sim = EngineSim()
    with BackgroundServer(sim.app) as server:
        yield sim, f"{server.url}/v1"


@pytest.fixture
def served(_server: tuple[EngineSim, str]) -> tuple[EngineSim, str]:
    """One server for the module (starting uvicorn per test costs time), reset to a fresh sim's state."""
    sim, base = _server
    sim.clear_faults()
    sim.clear_cache()
    sim.reset_stats()
    sim.latency_s, sim.decode_tok_s, sim.api_key = 0.0, None, None
    sim.context_tokens, sim.context_engine = None, "vllm"
    return sim, base


def chat(base: str, messages: list[dict[str, str]], **extra: Any) -> httpx.Response:
    headers = extra.pop("headers", None)
    payload = {"model": "test-model", "messages": messages, **extra}
    return httpx.post(f"{base}/chat/completions", json=payload, headers=headers, timeout=10)


def content_of(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]["content"]


def english_digest(base: str, doc: FulltextDoc) -> Digest:
    digest, problems = check_en(content_of(chat(base, digest_messages(SYSTEM_EN, doc))), doc)
    assert digest is not None, problems
    return digest


def retry_conversation(first: list[dict[str, str]], reply: str) -> list[dict[str, str]]:
    feedback = retry_message([Problem("number_unknown", "results[1].numbers", "'1' appears nowhere in the paper")])
    return [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]


# --- answers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("doc", "n_results"), [(GLIMPROUTER, 3), (EVICPRESS, 4)])
def test_digest_answer_passes_the_checker(served: tuple[EngineSim, str], doc: FulltextDoc, n_results: int) -> None:
    _, base = served
    messages = digest_messages(SYSTEM_EN, doc)
    response = chat(base, messages, temperature=0, max_tokens=4096, response_format={"type": "json_object"})
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == "test-model"
    assert body["choices"][0]["finish_reason"] == "stop"
    digest, problems = check_en(content_of(response), doc)
    assert digest is not None, problems
    assert len(digest.results) == n_results
    assert {tag for r in digest.results for tag in r.sections} == set(doc.tags)
    assert any(r.numbers for r in digest.results)
    for result in digest.results:  # each finding is a sentence of the section it cites
        assert " ".join(result.finding.split()) in " ".join(doc.text.split())
    assert 1 <= len(digest.limitations) <= 3 and 1 <= len(digest.takeaways) <= 3
    assert digest.mind_map.label == doc.title
    assert [c.label for c in digest.mind_map.children][-1] == doc.sections[-1].tag + (
        "" if doc.sections[-1].tag == "Abstract" else f" {doc.sections[-1].title}"
    )
    assert content_of(chat(base, messages)) == content_of(response)  # deterministic


def test_translate_answer_passes_the_checker(served: tuple[EngineSim, str]) -> None:
    _, base = served
    english = english_digest(base, EVICPRESS)
    reply = content_of(chat(base, translate_messages(SYSTEM_ZH, english.model_dump())))
    chinese, problems = check_zh(reply, english)
    assert chinese is not None, problems
    assert chinese.results[0].numbers == english.results[0].numbers
    assert cjk_share(chinese.method) > 0.9  # honest Chinese, not English behind a label


def test_retry_is_answered_correctly(served: tuple[EngineSim, str]) -> None:
    _, base = served
    first = digest_messages(SYSTEM_EN, GLIMPROUTER)
    reply = content_of(chat(base, first))
    again = content_of(chat(base, retry_conversation(first, reply)))
    assert check_en(again, GLIMPROUTER)[0] is not None


def test_other_requests_get_a_plain_answer(served: tuple[EngineSim, str]) -> None:
    _, base = served
    assert content_of(chat(base, [{"role": "user", "content": "Say OK."}])) == "OK"


FULL_PAGES = {
    **{p.stem: p for p in (ROOT / "tests" / "data" / "arxiv").glob("*v[0-9].html")},
    "2503.20783v2": ROOT / "sample" / "arxiv" / "2503.20783v2.html",
}


@pytest.mark.parametrize("page", sorted(FULL_PAGES))
def test_full_paper(served: tuple[EngineSim, str], page: str) -> None:
    """A whole real arXiv paper: the digest passes, and the retry is mostly served from the cache."""
    path = FULL_PAGES[page]
    from papers_digest.core.models import Paper
    from papers_digest.sources.arxiv import doc_from_page
    from papers_digest.sources.latexml import parse_latexml

    parsed = parse_latexml(path.read_bytes(), url=f"https://arxiv.org/html/{page}")
    doc = doc_from_page(Paper(arxiv_id=page[:10], title=f"arXiv {page}"), parsed, f"https://arxiv.org/html/{page}")
    _, base = served
    first = digest_messages(SYSTEM_EN, doc)
    reply = content_of(chat(base, first))
    digest, problems = check_en(reply, doc)
    assert digest is not None and len(digest.results) == 6, problems
    retry = chat(base, retry_conversation(first, reply)).json()["usage"]
    assert retry["prompt_tokens_details"]["cached_tokens"] > 0.8 * retry["prompt_tokens"]


# --- usage and prefix cache ------------------------------------------------------------------------


def test_approx_tokens_rule() -> None:
    assert approx_tokens("") == 0
    assert approx_tokens("abcd") == 1 and approx_tokens("abcde") == 2  # 4 ASCII characters a token
    assert approx_tokens("中文摘要") == 4  # one per CJK character
    assert approx_tokens("ab中cd") == 3


def test_usage_and_prefix_cache(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    first = digest_messages(SYSTEM_EN, GLIMPROUTER)
    response = chat(base, first)
    usage = response.json()["usage"]
    reply = content_of(response)
    want = sum(approx_tokens(m["content"]) + MESSAGE_OVERHEAD for m in first) + REPLY_PRIMING
    assert usage["prompt_tokens"] == want
    assert usage["completion_tokens"] == approx_tokens(reply)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["prompt_tokens_details"]["cached_tokens"] == 0  # nothing seen yet

    # The checker's retry resends the first conversation: all of it is served from the cache.
    retry = chat(base, retry_conversation(first, reply)).json()["usage"]
    cached = retry["prompt_tokens_details"]["cached_tokens"]
    assert cached % CACHE_BLOCK == 0
    assert usage["prompt_tokens"] - CACHE_BLOCK < cached <= usage["prompt_tokens"]
    # (Here the reply outweighs the short abstract; test_full_paper shows the share on a real paper.)

    # Another paper's first call shares only the system prompt (and the start of the user turn).
    other = chat(base, digest_messages(SYSTEM_EN, EVICPRESS)).json()["usage"]
    system = approx_tokens(SYSTEM_EN) + MESSAGE_OVERHEAD
    assert system - CACHE_BLOCK < other["prompt_tokens_details"]["cached_tokens"] <= system + 8
    assert [r.cached_tokens for r in sim.stats.records] == [
        0,
        cached,
        other["prompt_tokens_details"]["cached_tokens"],
    ]


# --- faults ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("invalid_json", "not valid JSON"),
        ("wrong_schema", "method: missing"),
        ("wrong_numbers", BAD_NUMBER),
        ("bad_section", BAD_SECTION),
        ("empty", "the reply is empty"),
        ("length", "not valid JSON"),
    ],
)
def test_content_faults_are_rejected_by_the_checker(served: tuple[EngineSim, str], kind: str, problem: str) -> None:
    sim, base = served
    sim.add_fault(Fault(kind=kind))  # type: ignore[arg-type]
    response = chat(base, digest_messages(SYSTEM_EN, EVICPRESS))
    digest, problems = check_en(content_of(response), EVICPRESS)
    assert digest is None and any(problem in p for p in problems), problems
    assert response.json()["choices"][0]["finish_reason"] == ("length" if kind == "length" else "stop")
    assert sim.stats.records[-1].fault == kind


def test_wrong_schema_has_an_extra_key(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="wrong_schema"))
    problems = check_en(content_of(chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER))), GLIMPROUTER)[1]
    assert any("unexpected key" in p for p in problems)


def test_fence_fault_wraps_a_valid_answer(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="fence"))
    reply = content_of(chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER)))
    assert reply.startswith("```json\n") and reply.endswith("\n```")
    assert check_en(reply, GLIMPROUTER)[0] is not None


@pytest.mark.parametrize(
    ("kind", "problem"), [("wrong_language", "not translated, it is mostly English"), ("wrong_numbers", BAD_NUMBER)]
)
def test_translate_faults_are_rejected_by_the_checker(served: tuple[EngineSim, str], kind: str, problem: str) -> None:
    sim, base = served
    english = english_digest(base, GLIMPROUTER)
    sim.add_fault(Fault(kind=kind))  # type: ignore[arg-type]
    reply = content_of(chat(base, translate_messages(SYSTEM_ZH, english.model_dump())))
    chinese, problems = check_zh(reply, english)
    assert chinese is None and any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("body", "media"),
    [(None, "application/json"), ('{"detail": "boom"}', "application/json"), ("Bad Gateway", "text")],
)
def test_http_error_fault(served: tuple[EngineSim, str], body: str | None, media: str) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="http_error", status=502, body=body))
    response = chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER))
    assert response.status_code == 502 and response.headers["content-type"].startswith(media)
    if body is None:
        assert response.json()["error"]["type"] == "server_error"
    else:
        assert response.text == body
    assert sim.stats.records[-1].status == 502


def test_rate_limit_fault(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="rate_limit", retry_after_s=2))
    response = chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER))
    assert response.status_code == 429 and response.headers["retry-after"] == "2"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_slow_fault_delays_the_answer(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="slow", delay_s=0.3))
    started = time.monotonic()
    reply = content_of(chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER)))
    assert time.monotonic() - started >= 0.3
    assert check_en(reply, GLIMPROUTER)[0] is not None


def test_reset_fault_drops_the_connection_mid_body(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="reset"))
    with httpx.stream("POST", f"{base}/chat/completions", json={"model": "m", "messages": []}) as response:
        assert response.status_code == 400  # faults only touch valid requests
    messages = digest_messages(SYSTEM_EN, GLIMPROUTER)
    with pytest.raises(httpx.TransportError):
        chat(base, messages)
    assert sim.stats.records[-1].fault == "reset"
    assert content_of(chat(base, messages))  # the next call is served normally


@pytest.mark.parametrize(
    ("engine", "phrase"),
    [
        (
            "vllm",
            "This model's maximum context length is {ctx} tokens. However, you requested {prompt} tokens",
        ),
        ("sglang", "The input ({prompt} tokens) is longer than the model's context length ({ctx} tokens)."),
        ("llama-cpp", "the request exceeds the available context size, try increasing it"),
        (
            "openai",
            "maximum context length is {ctx} tokens. However, your messages resulted in {prompt} tokens.",
        ),
    ],
)
def test_context_length_bodies(served: tuple[EngineSim, str], engine: str, phrase: str) -> None:
    sim, base = served
    messages = digest_messages(SYSTEM_EN, GLIMPROUTER)
    prompt = sum(approx_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages) + REPLY_PRIMING
    # As a fault (no context configured: the sim reports half the prompt as the window), and as the
    # answer to any prompt over a configured context.
    sim.add_fault(Fault(kind="context_length", engine=engine))  # type: ignore[arg-type]
    faulted = chat(base, messages)
    sim.context_tokens, sim.context_engine = 100, engine  # type: ignore[assignment]
    limited = chat(base, messages)
    for response, ctx in ((faulted, prompt // 2), (limited, 100)):
        assert response.status_code == 400
        body = response.json()
        error = body if engine == "sglang" else body["error"]
        assert phrase.format(ctx=ctx, prompt=prompt) in error["message"]
        if engine == "llama-cpp":
            assert (error["type"], error["n_prompt_tokens"], error["n_ctx"]) == (
                "exceed_context_size_error",
                prompt,
                ctx,
            )
        if engine == "openai":
            assert (error["type"], error["code"], error["param"]) == (
                "invalid_request_error",
                "context_length_exceeded",
                "messages",
            )
        if engine in ("vllm", "sglang"):
            assert (error["type"], error["code"]) == ("BadRequestError", 400)
        if engine == "sglang":
            assert body["object"] == "error"


def test_vllm_context_message_counts_max_tokens(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.context_tokens = 50
    response = chat(base, [{"role": "user", "content": "x" * 400}], max_tokens=64)
    assert "(106 in the messages, 64 in the completion)" in response.json()["error"]["message"]


def test_an_answer_longer_than_max_tokens_is_cut_off_there_with_finish_reason_length(
    served: tuple[EngineSim, str],
) -> None:
    _, base = served
    whole = chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER)).json()
    cut = chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER), max_tokens=50).json()
    assert whole["choices"][0]["finish_reason"] == "stop" and whole["usage"]["completion_tokens"] > 50
    assert cut["choices"][0]["finish_reason"] == "length" and cut["usage"]["completion_tokens"] == 50
    assert whole["choices"][0]["message"]["content"].startswith(cut["choices"][0]["message"]["content"])


def test_fault_times_match_and_on(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="empty", match="EvicPress", times=2))
    sim.add_fault(Fault(kind="invalid_json", on="retry", times=-1))
    glimp, evic = digest_messages(SYSTEM_EN, GLIMPROUTER), digest_messages(SYSTEM_EN, EVICPRESS)
    assert content_of(chat(base, glimp)).startswith("{")  # no match, and not a retry
    assert content_of(chat(base, evic)) == "" and content_of(chat(base, evic)) == ""
    assert content_of(chat(base, evic)).startswith("{")  # times used up
    reply = content_of(chat(base, glimp))
    for _ in range(2):  # -1 = forever
        assert content_of(chat(base, retry_conversation(glimp, reply))).startswith("Here is")
    assert [f.times for f in sim.faults] == [0, -1]
    assert [r.fault for r in sim.stats.records] == [
        None,
        "empty",
        "empty",
        None,
        None,
        "invalid_json",
        "invalid_json",
    ]
    sim.clear_faults()
    assert content_of(chat(base, retry_conversation(glimp, reply))).startswith("{")


def test_first_matching_fault_wins(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.add_fault(Fault(kind="http_error", status=503, on="first"))
    sim.add_fault(Fault(kind="empty"))
    assert chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER)).status_code == 503
    assert content_of(chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER))) == ""


# --- timing, protocol, control ---------------------------------------------------------------------


def test_concurrent_requests_overlap(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    n, latency = 6, 0.25
    sim.latency_s = latency

    async def burst(base: str) -> float:
        async with httpx.AsyncClient(timeout=10) as client:
            started = time.monotonic()
            payload = {"model": "m", "messages": digest_messages(SYSTEM_EN, GLIMPROUTER)}
            responses = await asyncio.gather(*(client.post(f"{base}/chat/completions", json=payload) for _ in range(n)))
            assert all(r.status_code == 200 for r in responses)
            return time.monotonic() - started

    wall = asyncio.run(burst(base))
    stats = sim.stats
    assert wall >= latency
    assert stats.max_in_flight == n and stats.in_flight == 0  # all n at once: they overlapped
    assert stats.requests == n and stats.by_path == {"/v1/chat/completions": n}
    assert all(r.ended - r.started >= latency for r in stats.records)


def test_decode_speed_adds_time_per_completion_token(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    sim.decode_tok_s = 5000
    started = time.monotonic()
    response = chat(base, digest_messages(SYSTEM_EN, EVICPRESS))
    wall = time.monotonic() - started
    completion = response.json()["usage"]["completion_tokens"]
    [record] = sim.stats.records
    assert record.completion_tokens == completion > 0
    # the answer waited for its tokens at 5000/s (how little else it took is for bench/, not a test)
    assert record.ended - record.started >= completion / 5000 and wall >= completion / 5000


def test_api_key_is_enforced() -> None:
    sim = EngineSim(api_key="sk-sim", model="served-name")  # its own server: the constructor's settings
    messages = digest_messages(SYSTEM_EN, GLIMPROUTER)
    with BackgroundServer(sim.app) as server:
        base = f"{server.url}/v1"
        for headers in (None, {"Authorization": "Bearer wrong"}):
            response = chat(base, messages, headers=headers)
            assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_api_key"
        assert httpx.get(f"{base}/models").status_code == 401
        models = httpx.get(f"{base}/models", headers={"Authorization": "Bearer sk-sim"}).json()
        assert models["data"][0]["id"] == "served-name"
        assert content_of(chat(base, messages, headers={"Authorization": "Bearer sk-sim"}))
        assert httpx.get(f"{server.url}/health").status_code == 200  # like vLLM: health needs no key


def test_models_health_and_bad_requests(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    assert httpx.get(f"{base}/models").json() == {
        "object": "list",
        "data": [{"id": "sim-digest", "object": "model", "created": 0, "owned_by": "papers-digest-sim"}],
    }
    assert httpx.get(base.removesuffix("/v1") + "/health").status_code == 200
    streamed = chat(base, digest_messages(SYSTEM_EN, GLIMPROUTER), stream=True)
    assert streamed.status_code == 400 and streamed.json()["error"]["param"] == "stream"
    broken = httpx.post(f"{base}/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and "error" in broken.json()
    assert sim.stats.by_path == {"/v1/models": 1, "/health": 1, "/v1/chat/completions": 2}


def test_admin_endpoints(served: tuple[EngineSim, str]) -> None:
    sim, base = served
    admin = base.removesuffix("/v1") + "/__sim"
    faults = [
        {"kind": "rate_limit", "times": 1, "retry_after_s": 0.5},
        {"kind": "fence", "match": "GlimpRouter"},
    ]
    installed = httpx.post(f"{admin}/faults", json=faults).json()
    assert [f["kind"] for f in installed] == ["rate_limit", "fence"]
    messages = digest_messages(SYSTEM_EN, GLIMPROUTER)
    limited = chat(base, messages)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "0.5"
    assert content_of(chat(base, messages)).startswith("```json")
    stats = httpx.get(f"{admin}/stats").json()
    assert stats["requests"] == 2 and [r["fault"] for r in stats["records"]] == ["rate_limit", "fence"]
    assert httpx.post(f"{admin}/faults", json=[{"kind": "nonsense"}]).status_code == 422
    assert httpx.delete(f"{admin}/faults").json() == [] and sim.faults == []
    assert httpx.post(f"{admin}/reset").json()["requests"] == 0
    assert httpx.delete(f"{admin}/cache").status_code == 204
    assert chat(base, messages).json()["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    assert sim.stats.requests == 1  # admin calls are not counted
