"""The English digest asked in steps (llm.asking: steps; docs/checker.md, "Asked in steps"): the program reads
the paper's sentences and their roles and chooses what each part is written from (outline.py); the model words
each part in one short request (questions.py); the program builds the digest (parts.py) and the checker judges
it whole; the parts a problem names are mended alone (conversation.py), for at most MAX_ROUNDS rounds."""

from __future__ import annotations

from papers_digest.checker.paper import read_paper
from papers_digest.checker.problems import Problem, problem_texts
from papers_digest.core.models import Evidence, FulltextDoc, GenerationResult
from papers_digest.llm.client import LlmClient, LlmError
from papers_digest.llm.conversation import Task, failed_call, failed_checks, mark_rejected
from papers_digest.ways.steps.conversation import MAX_ROUNDS, StepsConversation, rejected_text, to_mend
from papers_digest.ways.steps.outline import outline
from papers_digest.ways.steps.parts import plan_parts, sources_read
from papers_digest.ways.steps.questions import check_steps_prompt, read_step_prompts
from papers_digest.ways.way import Way


async def ask_in_steps(
    client: LlmClient, doc: FulltextDoc, prompt: str, task: Task, first_attempt: int
) -> GenerationResult:
    """The digest of `doc` asked part by part; never raises for a paper's failure, only for the endpoint's
    (EndpointDown). A round's calls carry its number as their attempt."""
    parts = plan_parts(outline(doc))
    state = StepsConversation(task, client, read_step_prompts(prompt), doc.title, read_paper(doc), parts, first_attempt)
    rejected: list[str] = []
    problems: list[Problem] = []

    def result(**fields: object) -> GenerationResult:
        return task.result(client.model, state.calls, rejected, **fields)

    try:
        attempt = first_attempt
        for part in state.parts:
            await state.first(part, attempt)
        for round_ in range(MAX_ROUNDS):
            data, verdict = state.judged()
            if verdict.digest is not None:
                for reply in state.in_use():
                    client.keep(reply)
                digest = verdict.digest.model_dump(mode="json")
                return result(
                    status="done", digest=digest, evidence=_evidence(state, digest), sources=sources_read(state.parts)
                )
            rejected.append(rejected_text(data))
            problems = verdict.problems
            mending = to_mend(problems, state.parts)
            for key, theirs in mending.items():
                mark_rejected(state.replies[key].record, theirs)
            if round_ == MAX_ROUNDS - 1 or not mending:
                break
            attempt += 1
            by_key = {part.key: part for part in state.parts}
            for key, theirs in mending.items():
                await state.mend(by_key[key], theirs, attempt, frozenset(mending))
    except LlmError as exc:
        return result(**await failed_call(client, exc), problems=problem_texts(problems))
    said = problem_texts(problems)
    return result(**failed_checks("parts", MAX_ROUNDS, said), problems=said)


def _evidence(state: StepsConversation, digest: dict) -> list[list[Evidence]]:
    """Each result's evidence: the sentence it was written from, once per figure it lists."""
    findings = [part.sources[0] for part in state.parts if part.question == "FINDING"]
    return [
        [Evidence(number=n, section=s.section, sentence=s.text, role=s.role) for n in result["numbers"]]
        or [Evidence(number="", section=s.section, sentence=s.text, role=s.role)]
        for s, result in zip(findings, digest["results"], strict=True)
    ]


STEPS_WAY = Way(
    name="steps",
    asks=(
        "the program reads each sentence's role and chooses what each part is written from (findings from result "
        "sentences only); the model words each part in one short request"
    ),
    mends=(
        "a part the checker rejects is asked again alone: rewritten without the paper in view when it copied, "
        "repeated or was cut off, else with its problems; a finding repeating another is dropped"
    ),
    ask=ask_in_steps,
    check_prompt=check_steps_prompt,
)
