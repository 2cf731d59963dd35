"""What every checked conversation shares, however it asks: what it is for (Task), how a failed call ends a
paper or the stage (failed_call, EndpointDown), and how a rejected answer is recorded."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from papers_digest.checker.problems import Problem, problem_texts, rules_broken
from papers_digest.core.errors import PipelineError
from papers_digest.core.models import CallRecord, GenerationResult, GenerationStage
from papers_digest.llm.client import LlmClient, LlmError
from papers_digest.llm.prompting import Message

CUT_OFF = Problem("length", "", "the answer was cut off at the token limit (finish_reason: length)")
# From this round on, a part asked again is sampled (seeded by the round, so a rerun is the same): greedy
# decoding asked the same question gives the same answer, and the checker picks among the tries.
SAMPLED_FROM_ROUND = 3
RESAMPLING = {"temperature": 0.7}


def sampling(round_: int) -> dict[str, float | int] | None:
    """The sampling settings of a round's requests: the stage's own (None) until SAMPLED_FROM_ROUND."""
    return None if round_ < SAMPLED_FROM_ROUND else {**RESAMPLING, "seed": round_}


class EndpointDown(PipelineError):
    """The endpoint stopped answering (after the transient retries, and a one-token probe failed too): no
    paper's result, the stage stops."""

    label = ""  # the message says it all
    what = "the LLM endpoint stopped answering"
    then = "finished answers are kept; run again when it is back"

    def __init__(self, reason: str, *, stage: str = "", done: int = 0, total: int = 0) -> None:
        self.reason, self.stage, self.done, self.total = reason, stage, done, total
        super().__init__(f"{self.what} after {done} of {total} papers ({reason}); {self.then}" if total else reason)


class QuotaExhausted(EndpointDown):
    """The account's quota or billing limit is spent (HTTP 429 insufficient_quota): an account-wide stop."""

    what = "the LLM account's quota is exhausted"
    then = "nothing more is sent; finished answers are kept; run again once the quota is raised"


def instructions(messages: list[Message]) -> list[str]:
    """What a conversation asked of the model: its system prompt and the retries' problem lists, not the
    first user message (the paper, or the English digest to translate)."""
    first_user = next((i for i, m in enumerate(messages) if m["role"] == "user"), len(messages))
    asked = [i for i, m in enumerate(messages) if m["role"] == "system" or (i > first_user and m["role"] == "user")]
    return [messages[i]["content"] for i in asked]


@dataclass(frozen=True)
class Task:
    """What a conversation is for: copied into its result and into each of its calls."""

    date: str
    arxiv_id: str
    stage: GenerationStage
    prompt_version: str

    def result(self, model: str, calls: list[CallRecord], rejected: list[str], **fields: object) -> GenerationResult:
        """The conversation's outcome: `fields` (status, digest or error, …) with its calls and rejected answers."""
        return GenerationResult(
            arxiv_id=self.arxiv_id,
            stage=self.stage,
            model=model,
            prompt_version=self.prompt_version,
            calls=calls,
            rejected_answers=rejected,
            **fields,
        )  # type: ignore[arg-type]


async def failed_call(client: LlmClient, exc: LlmError) -> dict[str, str]:
    """A paper's result fields after a call failed past its retries (status, error, error_kind), or
    EndpointDown when the failure is the endpoint's (`_call_error`)."""
    return {"status": "failed", "error": await _call_error(client, exc), "error_kind": exc.kind}


def failed_checks(what: str, rounds: int, said: Iterable[str]) -> dict[str, str]:
    """A paper's result fields after its answers (`what`: the answer, its parts, its units) failed the checker
    `rounds` times, `said` the last problems."""
    error = f"the {what} failed the checks {rounds} times: {'; '.join(said)}"
    return {"status": "failed", "error_kind": "checker", "error": error[:2000]}


async def _call_error(client: LlmClient, exc: LlmError) -> str:
    """A call that failed past its retries: the paper's own error, or EndpointDown when it is the endpoint's.

    A "try later" failure (5xx, time-out, no connection) may be this request's alone, as when one input trips
    a bug in the server: a one-token probe tells. If the endpoint answers it, the paper fails alone (the retry
    queue tries it again on a later day) and the stage goes on; if not, it is an outage. An exhausted quota is
    an account-wide stop (docs/operations.md, "When a paper or a day fails")."""
    if exc.kind == "quota":
        raise QuotaExhausted(str(exc)) from exc
    if not exc.outage:
        return str(exc)
    if client.halted:
        raise EndpointDown(str(exc)) from exc
    down = await client.probe()
    if down is not None:
        raise EndpointDown(str(exc)) from exc
    return f"{exc} (the endpoint answers other requests)"


def mark_rejected(record: CallRecord, problems: list[Problem]) -> None:
    record.status = "rejected"
    record.error_kind = "checker"
    record.error = "; ".join(problem_texts(problems))[:1000]
    record.checker_rules = rules_broken(problems)
