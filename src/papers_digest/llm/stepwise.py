"""The conversation of a digest asked in steps (llm/steps.py says how and why): one short request per part,
the draft they make judged whole by the checker, the failed parts asked again alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from papers_digest.checker.candidates import Candidate, evidence_candidates
from papers_digest.checker.draft import draft_path, judge_draft
from papers_digest.checker.echo import echoed
from papers_digest.checker.english import Verdict
from papers_digest.checker.paper import PaperFacts, read_paper
from papers_digest.checker.passages import PaperWords
from papers_digest.checker.problems import Problem, problem_texts
from papers_digest.checker.substance import results_wanted
from papers_digest.core.models import CallRecord, FulltextDoc, GenerationResult
from papers_digest.llm.client import CallContext, ChatReply, LlmClient, LlmError
from papers_digest.llm.conversation import Task, failed_call, mark_rejected
from papers_digest.llm.drafting import draft_message
from papers_digest.llm.prompting import Message
from papers_digest.llm.steps import (
    LATER,
    MAX_ROUNDS,
    MOST_FINDINGS,
    REWRITTEN,
    StepPrompts,
    again_message,
    draft_text,
    finding_key,
    finding_repeated,
    max_tokens,
    one_line,
    picked,
    question,
    rewritable,
    rewrite_messages,
    sampling,
    step_message,
    steps_to_mend,
)


@dataclass
class _Paper:
    """One paper's steps so far: each step's latest request and reply, and the findings picked."""

    task: Task
    client: LlmClient
    prompts: StepPrompts
    paper: str
    facts: PaperFacts
    candidates: list[Candidate]
    fewest: int
    most: int
    first_attempt: int = 1
    calls: list[CallRecord] = field(default_factory=list)
    asked: dict[str, list[Message]] = field(default_factory=dict)
    replies: dict[str, ChatReply] = field(default_factory=dict)
    findings: list[Candidate] = field(default_factory=list)
    judged: list[Candidate] = field(default_factory=list)  # the findings of the draft the checker last judged

    @property
    def answers(self) -> dict[str, str]:
        return {key: reply.content for key, reply in self.replies.items()}

    def in_use(self) -> list[ChatReply]:
        keys = ["PROBLEM", "METHOD", "PICK", *(finding_key(c) for c in self.findings), *LATER]
        return [self.replies[key] for key in keys if key in self.replies]

    async def ask(self, key: str, messages: list[Message], attempt: int) -> str:
        repair = attempt > self.first_attempt
        context = CallContext(self.task.date, self.task.arxiv_id, self.task.stage, attempt, repair=repair)
        round_ = attempt - self.first_attempt + 1
        reply = await self.client.chat(
            messages, context, self.calls, max_tokens=max_tokens(key), sampling=sampling(round_)
        )
        self.asked[key], self.replies[key] = messages, reply
        return reply.content

    async def first(self, key: str, attempt: int, finding: Candidate | None = None) -> str:
        found = " ".join(
            one_line(self.replies[finding_key(c)].content) for c in self.findings if finding_key(c) in self.replies
        )
        asked = question(self.prompts, key, self.fewest, self.most, finding, found)
        messages: list[Message] = [
            {"role": "system", "content": self.prompts.system},
            {"role": "user", "content": step_message(self.paper, key, asked)},
        ]
        return await self.ask(key, messages, attempt)

    async def again(self, key: str, problems: list[Problem], attempt: int) -> str:
        follow_up: list[Message] = [
            {"role": "assistant", "content": self.replies[key].content},
            {"role": "user", "content": again_message(self.prompts, problems)},
        ]
        return await self.ask(key, [*self.asked[key], *follow_up], attempt)

    async def ask_findings(self, attempt: int) -> None:
        for candidate in self.findings:
            if finding_key(candidate) not in self.replies:
                await self.first(finding_key(candidate), attempt, candidate)

    async def mend(self, key: str, problems: list[Problem], attempt: int) -> None:
        """Ask a failed step again: PICK with its problems (then the findings newly picked); a finding that
        repeats another, or that the summary repeats, dropped where enough remain; a part that copied the paper
        or another part, or was cut off, rewritten without the paper in view (the words it copied named); any
        other with its problems."""
        rules = {p.rule for p in problems}
        if key == "PICK":
            chosen = picked(await self.again(key, problems, attempt), self.candidates, self.most)
            self.findings = chosen or self.findings
            await self.ask_findings(attempt)
        elif key.startswith("FINDING") and rules == {"repeated"} and len(self.findings) > self.fewest:
            self.findings = [c for c in self.findings if finding_key(c) != key]
        elif (
            key == "SUMMARY"
            and rules == {"repeated"}
            and len(self.findings) > self.fewest
            and ((index := finding_repeated(problems)) is not None and index < len(self.judged))
        ):  # the summary says what that finding said
            self.findings = [c for c in self.findings if c is not self.judged[index]]
        elif rules & REWRITTEN and rewritable(key):
            text = one_line(self.replies[key].content)
            # what it may not copy: the paper, a finding's sentence, and the other parts (rule `repeated`)
            sentence = next((c.sentence for c in self.findings if finding_key(c) == key), "")
            others = " . ".join(reply.content for other, reply in self.replies.items() if other != key)
            sources = (self.facts.passages, PaperWords.of(sentence), PaperWords.of(others))
            await self.ask(key, rewrite_messages(self.prompts, key, text, sources), attempt)
        else:
            await self.again(key, problems, attempt)


async def digest_in_steps(
    client: LlmClient, doc: FulltextDoc, prompts: StepPrompts, task: Task, first_attempt: int = 1
) -> GenerationResult:
    """The English digest of `doc` asked part by part (llm/steps.py); never raises for a paper's failure,
    only for the endpoint's (EndpointDown). A round's calls carry its number as their attempt."""
    facts = read_paper(doc)
    candidates = evidence_candidates(doc)
    fewest, most = results_wanted(facts)
    most = max(fewest, min(most, MOST_FINDINGS))
    paper = draft_message(doc, candidates)
    state = _Paper(task, client, prompts, paper, facts, candidates, fewest, most, first_attempt)
    rejected: list[str] = []
    problems: list[Problem] = []

    def result(**fields: object) -> GenerationResult:
        return task.result(client.model, state.calls, rejected, **fields)

    try:
        attempt = first_attempt
        for key in ("PROBLEM", "METHOD"):
            await state.first(key, attempt)
        state.findings = picked(await state.first("PICK", attempt), candidates, state.most)
        await state.ask_findings(attempt)
        for key in LATER:
            await state.first(key, attempt)
        for round_ in range(MAX_ROUNDS):
            text = draft_text(state.answers, state.findings)
            verdict = judge_draft(text, candidates, facts)
            if verdict.digest is not None and (echoes := echoed(verdict.digest, prompts.texts())):
                verdict = Verdict(None, echoes)
            if verdict.digest is not None:
                for reply in state.in_use():
                    client.keep(reply)
                return result(status="done", digest=verdict.digest.model_dump(mode="json"), evidence=verdict.evidence)
            rejected.append(text)
            problems = verdict.problems
            to_mend = steps_to_mend(problems, state.findings, draft_path)
            for key, theirs in to_mend.items():
                if key in state.replies:
                    mark_rejected(state.replies[key].record, theirs)
            if round_ == MAX_ROUNDS - 1:
                break
            attempt += 1
            state.judged = list(state.findings)  # a problem's results[i] is of this draft, whatever is dropped
            for key, theirs in to_mend.items():
                if key in state.replies:
                    await state.mend(key, theirs, attempt)
    except LlmError as exc:
        error = await failed_call(client, exc)
        return result(status="failed", error=error, error_kind=exc.kind, problems=problem_texts(problems))
    return result(
        status="failed",
        error_kind="checker",
        error=f"the parts failed the checks {MAX_ROUNDS} times: {'; '.join(problem_texts(problems))}"[:2000],
        problems=problem_texts(problems),
    )
