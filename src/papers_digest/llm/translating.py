"""The translation asked unit by unit (docs/translation.md): each sentence, finding, label and the title alone,
its names as placeholders and its glossary terms given, checked against its own English; a unit that fails is
asked again alone with its problems, at most MAX_ROUNDS rounds; the program assembles the Chinese digest and
the checker judges it whole.

A small model keeps a sentence it can see whole: asked for the whole digest as one JSON answer, the 1.5B model
translated names ("MergeVQ" -> "VQ-合并"), left ordinary English words, and added clauses the English lacks
(issue #45's review of five translations).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from papers_digest.checker.chinese import check_digest_zh
from papers_digest.checker.echo import echoed
from papers_digest.checker.placeholders import mark_pattern
from papers_digest.checker.problems import Problem, problem_texts
from papers_digest.checker.units import (
    Unit,
    assemble,
    clause_units,
    joined_clauses,
    judge_unit,
    translation_units,
)
from papers_digest.core.models import CallRecord, Digest, GenerationResult
from papers_digest.llm.budget import estimate_tokens
from papers_digest.llm.client import CallContext, ChatReply, LlmClient, LlmError
from papers_digest.llm.conversation import CUT_OFF, Task, failed_call, failed_checks, mark_rejected
from papers_digest.llm.prompting import Message
from papers_digest.reading.dictionary import chinese_for

MAX_ROUNDS = 8  # the units, then up to seven rounds asking again for the ones that failed, each sampled
# A sentence that failed this many rounds is asked clause by clause (checker/units.py clause_units): on the sample
# day the 1.5B model dropped a clause of the longest sentences in every round ("… surpass GPT-4o with just 120
# GPU hours" lost its GPU hours 8 times of 8).
SPLIT_AFTER_ROUND = 3
TERMS_PREFIX = "Terms: "
# A compound suffix is said in its unit's Terms where it stands ("X1-based = 基于 X1 的"): said for every unit in
# the system prompt, the example leaked, "Leading MLLMs perform below human baselines" coming back as
# "MLLMs 式训练的性能低于…" (the 2026-01-13 run at 6f6e3a3).
KEEP_PREFIX = "Keep: "
MIND_PREFIX = "Mind: "
# What a unit is, said after the system prompt (the simulator reads it back). The user message is the unit's
# English alone: given the terms or the marks to keep on lines of its own, the 1.5B model translated those lines
# too ("术语：视觉空间 = 视觉空间 | 保持：X1 | …", measured on the sample day).
KIND_NOTE = {
    "sentence": "The user's text is one sentence of the digest.",
    "title": "The user's text is a paper's title: translate it as a title.",
    "label": "The user's text is a label of the digest's mind map: translate it as a short phrase.",
}
# What a unit asked again is told, by the rule its answer broke: short, in the request's own words. Measured on
# the sample day: asked again in its conversation, after its answer and the checker's problem list, the 1.5B
# model wrote the same answer, or translated the problem list itself ("你的翻译有这些问题：…").
HINTS = {
    "zh_placeholder": "copy every mark of Keep exactly as written",
    "zh_name": "write {subjects} exactly as the English does, and no name it does not have",
    "zh_chinese": "write the whole sentence in Chinese",
    "zh_numbers": "write every figure exactly as the English has it",
    "zh_direction": "say that the figure went down, as the English does (降低, 减少)",
    "zh_english_word": "translate every English word ({subjects})",
    "zh_term": "use the Terms' Chinese ({subjects})",
    "zh_punctuation": "use Chinese punctuation (，。：；)",
    "zh_added": "translate only what the English says, adding nothing",
    "zh_length": "translate every clause of the English",
    "length": "answer with the translation only, one sentence",
}
# Asked again, a unit is sampled (seeded by its round, so a rerun is the same): greedy decoding asked the same
# thing answers the same, and the checker picks among the tries.
RESAMPLING = {"temperature": 0.7}
# A unit's answer cap: a Chinese sentence takes about as many tokens as its English; the cap stops a model that
# goes on into notes.
TOKENS_PER_ENGLISH_TOKEN = 3
MIN_TOKENS = 48


def unit_messages(system_prompt: str, unit: Unit, problems: Sequence[Problem] = ()) -> list[Message]:
    """A unit's request: the system prompt (the prefix every unit shares, in the engine's prefix cache), then what
    the unit is, the glossary's terms it holds, the marks to keep and, asked again after `problems`, what to
    mind (names in all of them as placeholders); the user message is its English alone."""
    placeholders = {name: mark for mark, name in unit.protected.names.items()}
    marks = mark_pattern(unit.protected.form).pattern
    # a suffix before a name is said where it stands ("X1-based = 基于 X1 的"); after an ordinary word, as a term
    # ("outcome-based": "based = 基于", where "outcome-based = 基于 outcome 的" came back with "outcome" left in
    # English); one the program wrote after its name ("X1式", checker/units.py) is given as a term too
    after_marks = {
        term: list(dict.fromkeys(re.findall(rf"({marks})-{re.escape(term.en)}\b", unit.protected.text, re.I)))
        for term in unit.facts.terms
        if term.suffix and not term.after
    }
    terms = [
        f"{_marked(term.en, placeholders)} = {_marked(term.rendering, placeholders)}"
        for term in unit.facts.terms
        if not term.keep and not after_marks.get(term)
    ]
    terms += [f"{mark}-{term.en} = {term.rendering} {mark} 的" for term, found in after_marks.items() for mark in found]
    notes = [KIND_NOTE[unit.kind]]
    notes += [f"{TERMS_PREFIX}{'; '.join(terms)}"] if terms else []
    notes += [f"{KEEP_PREFIX}{', '.join(unit.protected.names)}"] if unit.protected.names else []
    hints = _marked("; ".join(_hints(problems)), placeholders)  # the problems name names: never the model's
    notes += [f"{MIND_PREFIX}{hints}"] if hints else []
    system = f"{system_prompt}\n\n" + "\n".join(notes)
    return [{"role": "system", "content": system}, {"role": "user", "content": unit.protected.text}]


def asked_as(unit: Unit) -> tuple[bool, str]:
    """What a unit is asked as: units of the same English are asked once, a sentence apart from a phrase (a
    title's head and a label alike: the mind map's topic is the title's head, "Understanding R1-Zero-Like
    Training", which asked as a label came back as 训练R1-Zero式, and as the title's head as 理解R1-Zero式训练)."""
    return unit.kind == "sentence", unit.english


def unit_max_tokens(unit: Unit) -> int:
    return max(MIN_TOKENS, TOKENS_PER_ENGLISH_TOKEN * estimate_tokens(unit.protected.text))


@dataclass
class _Asking:
    """One paper's units in flight: each unit's accepted translation and reply, or the problems of its last
    answer."""

    client: LlmClient
    task: Task
    system_prompt: str
    calls: list[CallRecord] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    accepted: dict[str, ChatReply] = field(default_factory=dict)
    chinese: dict[str, str] = field(default_factory=dict)
    problems: dict[str, list[Problem]] = field(default_factory=dict)
    split: dict[str, list[Unit]] = field(default_factory=dict)  # a sentence's key -> its clauses, asked apart

    def pending(self, asked: list[Unit]) -> list[Unit]:
        """The units still to ask: those that failed, a split sentence's failed clauses in its place; a sentence
        whose clauses all passed takes their translations, joined."""
        left = []
        for unit in asked:
            parts = self.split.get(unit.key)
            if parts is None:
                left += [unit] if unit.key in self.problems else []
            elif all(p.key in self.chinese for p in parts):
                self.chinese[unit.key] = joined_clauses([self.chinese[p.key] for p in parts])
                self.problems.pop(unit.key, None)
            else:
                left += [p for p in parts if p.key not in self.chinese]
        return left

    def split_long(self, asked: list[Unit]) -> None:
        """Each failed sentence of two clauses or more is asked clause by clause from now on."""
        for unit in asked:
            if unit.key in self.problems and unit.key not in self.split and (parts := clause_units(unit)):
                self.split[unit.key] = parts
                for part in parts:
                    self.problems[part.key] = self.problems[unit.key]  # what to mind, for the clause too

    async def ask(self, unit: Unit, round_: int) -> None:
        """Ask a unit afresh (after a failed answer: with what to mind, sampled) and judge the answer: accepted,
        or its problems kept."""
        messages = unit_messages(self.system_prompt, unit, self.problems.get(unit.key, []))
        context = CallContext(self.task.date, self.task.arxiv_id, self.task.stage, round_, repair=round_ > 1)
        sampled = {**RESAMPLING, "seed": round_} if round_ > 1 else None
        reply = await self.client.chat(
            messages, context, self.calls, max_tokens=unit_max_tokens(unit), sampling=sampled
        )
        chinese, problems = judge_unit(unit, reply.content)
        if reply.finish_reason == "length":
            problems = [CUT_OFF, *problems]
        if problems:
            self.reject(unit, reply, problems)
        else:
            self.chinese[unit.key], self.accepted[unit.key] = chinese, reply
            self.problems.pop(unit.key, None)

    def reject(self, unit: Unit, reply: ChatReply, problems: list[Problem]) -> None:
        """A unit's answer rejected: recorded, and its problems kept for the next time it is asked."""
        mark_rejected(reply.record, problems)
        self.rejected.append(reply.content)
        self.problems[unit.key] = problems
        self.chinese.pop(unit.key, None)
        self.accepted.pop(unit.key, None)


async def translate_in_units(
    client: LlmClient, english: GenerationResult, system_prompt: str, task: Task
) -> GenerationResult:
    """The Chinese translation of a done English digest, unit by unit; never raises for a paper's failure, only
    for the endpoint's (EndpointDown)."""
    if english.digest is None:
        raise ValueError(f"{english.arxiv_id}: no English digest to translate")
    source = Digest.model_validate(english.digest)
    units = translation_units(source, english.title)
    state = _Asking(client, task, system_prompt)
    leaders: dict[tuple[bool, str], Unit] = {}  # the unit asked for each English text (a finding written twice: once)
    for unit in units:
        known = unit.known_chinese  # names alone ("MergeVQ"), a label that is one glossary term: never asked
        if known is None:
            leaders.setdefault(asked_as(unit), unit)
        else:
            state.chinese[unit.key] = known
    asked = list(leaders.values())
    pending = asked
    problems: list[Problem] = []

    def result(**fields: object) -> GenerationResult:
        return task.result(client.model, state.calls, state.rejected, **fields)

    try:
        for round_ in range(1, MAX_ROUNDS + 1):
            await asyncio.gather(*(state.ask(unit, round_) for unit in pending))
            if round_ == SPLIT_AFTER_ROUND:
                state.split_long(asked)
            pending = state.pending(asked)
            if round_ == MAX_ROUNDS and _only_the_title(pending, units, leaders):
                units, pending = [u for u in units if u.kind != "title"], []
            problems = [p for u in pending for p in state.problems[u.key]]
            if pending:
                continue
            for unit in units:  # a unit written twice takes its first one's translation
                if unit.known_chinese is None:
                    state.chinese[unit.key] = state.chinese[leaders[asked_as(unit)].key]
            digest, problems = _judged(source, units, state, english.title, system_prompt)
            if digest is not None:
                for reply in state.accepted.values():
                    client.keep(reply)
                return result(status="done", digest=digest)
            pending = _units_of(problems, units, state, lambda u: leaders.get(asked_as(u), u))
            if not pending:
                break
    except LlmError as exc:
        return result(**await failed_call(client, exc), problems=problem_texts(problems))
    return result(**failed_checks("units", MAX_ROUNDS, _with_units(problems, state)), problems=problem_texts(problems))


def _only_the_title(pending: list[Unit], units: list[Unit], leaders: dict[tuple[bool, str], Unit]) -> bool:
    """Whether the units still failing are the title's alone, no other unit taking its translation from them (a
    mind map's topic that is the title's head). The digest is then done without a Chinese title and the page
    shows the paper's own: HANRAG's "Noise-resistant" stayed English in all 8 rounds on the 2025-09-15 listing at
    d90ce44, and the paper failed with every field translated (docs/translation.md, step 5)."""
    shared = {leaders[asked_as(u)].key for u in units if u.kind != "title" and u.known_chinese is None}
    return bool(pending) and all(u.kind == "title" and u.key not in shared for u in pending)


def _judged(
    source: Digest, units: list[Unit], state: _Asking, title: str | None, system_prompt: str
) -> tuple[dict | None, list[Problem]]:
    """The assembled translation, judged whole (every rule of the checker, and no prompt echoed): (the digest,
    the paper's Chinese title first, or None; the problems)."""
    whole = assemble(source, units, state.chinese)
    chinese_title = whole.pop("title", None)
    verdict = check_digest_zh(json.dumps(whole, ensure_ascii=False), source, title)
    if verdict.digest is not None and (echoes := echoed(verdict.digest, [system_prompt])):
        return None, echoes
    if verdict.digest is None:
        return None, verdict.problems
    digest = verdict.digest.model_dump(mode="json")
    return ({"title": chinese_title, **digest} if chinese_title else digest), []


def _units_of(problems: list[Problem], units: list[Unit], state: _Asking, leader: Callable[[Unit], Unit]) -> list[Unit]:
    """The units to ask again for the fields the whole translation's problems name (a unit written twice: the
    one asked for it), each rejected with its field's problems; none when a problem names no field."""
    asked: list[Unit] = []
    for unit in units:
        theirs = [p for p in problems if p.field == unit.path]
        first = leader(unit)
        if theirs and first.key in state.accepted and first not in asked:
            state.reject(first, state.accepted[first.key], theirs)
            asked.append(first)
    return asked if all(p.field for p in problems) else []


def _with_units(problems: list[Problem], state: _Asking) -> list[str]:
    """The failed units' problems, each with the unit it is about."""
    said = [f"{key}: {p.message}" for key, theirs in state.problems.items() for p in theirs]
    return said or problem_texts(problems)


def _hints(problems: Sequence[Problem]) -> list[str]:
    """What to mind, once per rule, from a unit's problems: the names lost, the English words left (with the
    dictionary's Chinese), the terms rendered otherwise (each problem's `subjects`)."""
    hints = []
    for rule in dict.fromkeys(p.rule for p in problems):
        said = dict.fromkeys(s for p in problems if p.rule == rule for s in p.subjects)
        if rule == "zh_english_word":  # each word with the dictionary's Chinese for it, where it has some
            said = dict.fromkeys(_with_chinese(word) for word in said)
        subjects = ", ".join(said)
        hints.append(HINTS.get(rule, "").format(subjects=subjects or "every name"))  # a name added: none lost
    return [h for h in dict.fromkeys(hints) if h]


def _with_chinese(word: str) -> str:
    """An English word left in a unit's Chinese, with what the dictionary says it is ("illusion = 幻景 / 幻觉 /
    幻象"): told only to translate it, the 1.5B model left "illusion" in all 8 rounds of 2509.09677's problem on the
    2025-09-15 listing at 481993e."""
    chinese = chinese_for(word)
    return f"{word} = {' / '.join(chinese)}" if chinese else word


def _marked(text: str, placeholders: dict[str, str]) -> str:
    for name, mark in sorted(placeholders.items(), key=lambda item: -len(item[0])):
        text = text.replace(name, mark)
    return text
