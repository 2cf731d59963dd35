"""What a paper page says about how its digest was made: the engine, tokens, answers asked for and the checker's
verdict per stage, from the day's `llm_calls` rows; and the optional "report a problem" link (pure)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

STAGES = {"digest_en": "English digest", "translate_zh": "Chinese translation"}
ENGINES = {"llama-cpp": "llama.cpp server", "vllm": "vLLM", "sglang": "SGLang"}


@dataclass(frozen=True)
class StageTrust:
    """One generation stage of a paper: its calls to the model and how the checker judged the answers."""

    stage: str  # digest_en | translate_zh
    label: str
    answers: int  # answers asked for: the first, the checker's retries and repairs (transport retries not counted)
    prompt_tokens: int
    completion_tokens: int
    from_store: bool  # every answer came from the store of finished calls (asked on an earlier run)
    verdict: str  # passed | rejected | error | none
    broken: tuple[str, ...]  # the checker's rules that rejected answers broke, in order, without repeats

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def words(self) -> str:
        """The verdict in a sentence: `passed the checker on answer 2 of 2 (answer 1 broke: echo)`."""
        broke = f" (earlier answers broke: {', '.join(self.broken)})" if self.broken else ""
        if self.verdict == "passed":
            return f"passed the checker on answer {self.answers} of {self.answers}{broke}"
        if self.verdict == "rejected":
            return f"rejected by the checker after {self.answers} answer(s){broke}"
        if self.verdict == "error":
            return f"no usable answer after {self.answers} answer(s){broke}"
        return "not asked"


@dataclass(frozen=True)
class Trust:
    """How a paper's digest was made, beyond the model and prompt versions of its `papers` row."""

    engine: str  # who served the model, in words
    stages: tuple[StageTrust, ...]

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.stages)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.stages)

    @property
    def answers(self) -> int:
        return sum(s.answers for s in self.stages)


def engine_words(kind: str | None) -> str:
    """`runs.engine_kind` -> who served the model: a managed engine, or the endpoint of llm.base_url."""
    if kind and kind != "none":
        return f"{ENGINES.get(kind, kind)}, started by papers-digest for the run"
    return "an OpenAI-compatible endpoint (llm.base_url)"


def trust_view(calls: Iterable[Mapping[str, Any]], engine_kind: str | None = None) -> Trust:
    """A paper's `llm_calls` rows (one date) -> its Trust; stages without a call are left out."""
    by_stage: dict[str, list[Mapping[str, Any]]] = {}
    for call in sorted(calls, key=lambda c: (c.get("started_at") or 0, c.get("attempt") or 0, c.get("retry") or 0)):
        by_stage.setdefault(call.get("stage") or "", []).append(call)
    stages = tuple(_stage(stage, by_stage[stage]) for stage in STAGES if stage in by_stage)
    return Trust(engine=engine_words(engine_kind), stages=stages)


def _stage(stage: str, calls: list[Mapping[str, Any]]) -> StageTrust:
    answers = [c for c in calls if not c.get("retry")]  # a transport retry re-sends the same request
    broken: list[str] = []
    for call in calls:
        if call.get("status") == "rejected":
            broken += [r for r in _rules(call.get("checker_rules")) if r not in broken]
    last = calls[-1].get("status")
    verdict = {"ok": "passed", "rejected": "rejected", "error": "error"}.get(last or "", "none")
    return StageTrust(
        stage=stage,
        label=STAGES[stage],
        answers=len(answers) or len(calls),
        prompt_tokens=sum(c.get("prompt_tokens") or 0 for c in calls),
        completion_tokens=sum(c.get("completion_tokens") or 0 for c in calls),
        from_store=all(bool(c.get("from_store")) for c in calls),
        verdict=verdict,
        broken=tuple(broken),
    )


def _rules(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    try:
        parsed = json.loads(value) if value else []
    except (TypeError, json.JSONDecodeError):
        return []
    return [str(v) for v in parsed] if isinstance(parsed, list) else []


def report_link(template: str, *, arxiv_id: str, date: str, field: str, title: str = "", page: str = "") -> str:
    """params `site.report_url` filled for one paper and field, each value URL-encoded; "" when unset."""
    if not template:
        return ""
    values = {"arxiv_id": arxiv_id, "date": date, "field": field, "title": title, "page": page}
    return template.format(**{k: quote(v, safe="") for k, v in values.items()})
