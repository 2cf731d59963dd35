"""Checked generation: one conversation per paper with exactly one checker retry, papers run concurrently."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from tqdm import tqdm

from papers_digest.checker.echo import echoed
from papers_digest.checker.english import Verdict
from papers_digest.checker.problems import Problem, problem_texts, retry_message
from papers_digest.core.models import CallRecord, FulltextDoc, GenerationResult
from papers_digest.llm.budget import estimate_tokens
from papers_digest.llm.client import CallContext, LlmClient, LlmError
from papers_digest.llm.conversation import (
    CUT_OFF,
    EndpointDown,
    Task,
    failed_call,
    failed_checks,
    instructions,
    mark_rejected,
)
from papers_digest.llm.prompting import Message, paper_message, translation_message
from papers_digest.llm.repair import Repair
from papers_digest.llm.translating import translate_in_units

Check = Callable[[str], Verdict]
T = TypeVar("T")

MAX_ATTEMPTS = 2  # the first answer and one retry: the conversation and the problems, or a repair of the fields


@dataclass(frozen=True)
class Asking:
    """How a conversation asks and judges: the checker, the schemas, the repair and the answers' cap.

    The retry is held to `retry_schema(problems)` when given, else to `schema`; when `repair(answer,
    problems)` gives a Repair, the retry asks only for its fields, and the checker reads them merged into the
    answer. `max_tokens` caps every answer of the conversation instead of llm.max_tokens."""

    check: Check
    schema: dict | None = None
    retry_schema: Callable[[list[Problem]], dict] | None = None
    repair: Callable[[str, list[Problem]], Repair | None] | None = None
    max_tokens: int | None = None


@dataclass(frozen=True)
class Request:
    """One request of a conversation: its messages, its schema, and for a repair how its reply is merged."""

    messages: list[Message]
    schema: dict | None = None
    merge: Callable[[str], str] | None = None  # a repair's reply -> the whole answer

    def answer(self, reply: str) -> str:
        return reply if self.merge is None else self.merge(reply)


def next_request(asking: Asking, current: Request, reply: str, problems: list[Problem]) -> Request:
    """The checker's retry after `reply` broke `problems` (pure): a repair of the failed fields when every
    problem is one field's, else the whole conversation with the problems (docs/design.md §1)."""
    fix = asking.repair(current.answer(reply), problems) if asking.repair is not None else None
    if fix is not None:
        return Request(fix.messages, fix.schema, fix.merged)
    message = retry_message(problems)
    messages = [*current.messages, {"role": "assistant", "content": reply}, {"role": "user", "content": message}]
    return Request(messages, asking.retry_schema(problems) if asking.retry_schema is not None else current.schema)


async def converse(
    client: LlmClient, task: Task, messages: list[Message], asking: Asking, *, first_attempt: int = 1
) -> GenerationResult:
    """Ask, check, and on failure ask once more (next_request); never raises for a paper's failure, only for
    the endpoint's (EndpointDown). Attempts are numbered from `first_attempt` (a conversation started over
    continues the count)."""
    calls: list[CallRecord] = []
    problems: list[Problem] = []
    rejected: list[str] = []
    request = Request(messages, asking.schema)

    def result(**fields: object) -> GenerationResult:
        return task.result(client.model, calls, rejected, **fields)

    last = first_attempt + MAX_ATTEMPTS - 1
    for attempt in range(first_attempt, last + 1):
        context = CallContext(task.date, task.arxiv_id, task.stage, attempt, repair=request.merge is not None)
        try:
            reply = await client.chat(request.messages, context, calls, request.schema, max_tokens=asking.max_tokens)
        except LlmError as exc:
            return result(**await failed_call(client, exc), problems=problem_texts(problems))
        answer = request.answer(reply.content)
        verdict = asking.check(answer)
        if verdict.digest is not None and (echoes := echoed(verdict.digest, instructions(request.messages))):
            verdict = Verdict(None, echoes)
        if verdict.digest is not None:
            client.keep(reply)
            return result(status="done", digest=verdict.digest.model_dump(mode="json"), evidence=verdict.evidence)
        problems = verdict.problems
        if reply.finish_reason == "length":
            problems = [CUT_OFF, *problems]
        rejected.append(answer)
        mark_rejected(reply.record, problems)
        if attempt < last:
            request = next_request(asking, request, reply.content, problems)
    said = problem_texts(problems)
    return result(**failed_checks("answer", MAX_ATTEMPTS, said), problems=said)


Refit = Callable[[FulltextDoc, int], Awaitable[FulltextDoc]]
# One paper asked once: the paper (perhaps trimmed tighter) and the number of its first attempt -> its result.
AskOnce = Callable[[FulltextDoc, int], Awaitable[GenerationResult]]
TIGHTER = 0.75  # after a context error, the paper gets this share of what did not fit (room for the answer)


async def digest_paper(ask: AskOnce, doc: FulltextDoc, refit: Refit | None = None) -> GenerationResult:
    """English digest of one paper, asked by `ask` (a way of asking: papers_digest.ways). When the engine says
    the request does not fit its context, the paper is trimmed to a tighter budget and asked once more."""
    result = (await ask(doc, 1)).model_copy(update={"title": doc.title})
    if result.status == "done" or result.error_kind != "context_length" or refit is None:
        return result
    stated = next((c.context_tokens for c in reversed(result.calls) if c.context_tokens), None)
    current = paper_tokens(doc)
    tighter = await refit(doc, int(TIGHTER * min(current, stated or current)))
    if tighter.text == doc.text:  # nothing left to drop: the abstract alone does not fit
        return result
    retried = await ask(tighter, result.calls[-1].attempt + 1)
    return retried.model_copy(
        update={
            "calls": [*result.calls, *retried.calls],
            "rejected_answers": [*result.rejected_answers, *retried.rejected_answers],
            "refit_dropped": tighter.dropped[len(doc.dropped) :],
            "refit_tokens": tighter.tokens,
            "title": doc.title,
        }
    )


async def translate_paper(
    client: LlmClient, english: GenerationResult, system_prompt: str, prompt_version: str, date: str
) -> GenerationResult:
    """Chinese translation of a done English digest, asked unit by unit and checked against it
    (llm/translating.py)."""
    task = Task(date, english.arxiv_id, "translate_zh", prompt_version)
    return await translate_in_units(client, english, system_prompt, task)


def paper_tokens(doc: FulltextDoc) -> int:
    """The tokens of a digest request's paper message: as counted when it was fitted, else estimated."""
    return doc.tokens or estimate_tokens(paper_message(doc))


def translation_source(english: GenerationResult) -> dict:
    """What a translation request sends: the English digest, the paper's title first when it is known."""
    digest = english.digest or {}
    return {"title": english.title, **digest} if english.title else digest


def digest_tokens(english: GenerationResult) -> int:
    """The estimated tokens of a done English digest as its translation request sends it."""
    return estimate_tokens(translation_message(translation_source(english)))


def longest_first(items: Iterable[T], size: Callable[[T], int]) -> list[T]:
    """The papers in the order their calls should start: the largest `size` (prompt tokens) first, ties in
    list order. With more papers than slots, the longest call then starts at once instead of last, and the
    short ones fill the other slots around it, so a stage does not end with one long call running alone
    (longest-processing-time-first; docs/design.md §4)."""
    return sorted(items, key=size, reverse=True)  # sorted() keeps ties in order, reverse or not


async def run_all(
    items: Iterable[T],
    work: Callable[[T], Awaitable[GenerationResult]],
    on_result: Callable[[GenerationResult], None],
    *,
    description: str,
    on_down: Callable[[str], None] | None = None,
) -> list[GenerationResult]:
    """Start every paper at once (the client's semaphore bounds calls in flight); hand each result over
    as soon as it is ready, so a crash loses only the papers still in progress.

    When the endpoint stops answering (EndpointDown from any paper), `on_down` is told (the client then
    asks nothing more), the papers already answered still finish and are handed over, and EndpointDown is
    raised with how many papers had finished: their answers are in the store.
    """
    items = list(items)
    results: list[GenerationResult] = []
    down: EndpointDown | None = None
    tasks = [asyncio.ensure_future(work(item)) for item in items]
    try:
        with tqdm(total=len(items), desc=description, unit="paper", dynamic_ncols=True) as bar:
            for next_done in asyncio.as_completed(tasks):
                try:
                    outcome = await next_done
                except EndpointDown as exc:
                    if down is None:
                        down = exc
                        if on_down is not None:
                            on_down(exc.reason)
                    continue
                on_result(outcome)
                results.append(outcome)
                bar.set_postfix_str(f"{sum(r.status == 'failed' for r in results)} failed", refresh=False)
                bar.update()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if down is not None:
        raise type(down)(down.reason, stage=description, done=len(results), total=len(items)) from down
    return results
