"""What the simulator answers to a digest asked in steps (papers_digest.ways.steps): each part in words of its
own built from the sentences the question quotes (their key words, and a finding's figures with their hedge,
direction, model size, benchmark and baseline), so it copies no run of the paper and keeps each sentence's
scope; a rewrite's text as it was (the simulator's words are its own already); any other request the JSON
answer."""

from __future__ import annotations

import re

from papers_devtools.sim.answers import RequestKind, answer
from papers_devtools.sim.faults import BAD_NUMBER, FaultKind
from papers_devtools.sim.wording import keywords, listed
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.qualifiers import HEDGES, baseline_of, benchmarks_in, hedge_before, negation_dropped
from papers_digest.checker.scope import comparison_in, decreased
from papers_digest.ways.steps.questions import PAPER_PREFIX, rewritten_text, step_of_request

_QUOTED_RE = re.compile(r'"([^"]+)"')
# A word that states a model size: the size alone ("7B") or a name that holds it ("vsGRPO-2B").
_SIZED_RE = re.compile(r"(?<![\w.-])[\w.-]*\d+(?:\.\d+)?[BM]\b")


def reply(messages: list[dict[str, str]], kind: RequestKind, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) for any request, with a content fault applied to a step's answer."""
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    rewritten = rewritten_text(user)
    if kind == "other" and rewritten is not None:
        return rewritten, "stop"
    if kind != "steps":
        return answer(messages, kind, fault)
    step = step_of_request(user) or ""
    title = user.split("\n\n", 1)[0].removeprefix(PAPER_PREFIX)
    content = step_answer(step, _quoted(user), title)
    return _faulty(content, fault)


def step_answer(step: str, sentences: list[str], title: str) -> str:
    """A part's answer from the sentences its question quotes."""
    skip = {w.casefold() for w in title.split()}
    words = keywords(" ".join(sentences), skip, 4)
    name = step.split(" ")[0]
    if name in ("FINDING", "SUMMARY"):
        return _result_sentence(sentences[0] if sentences else "", skip, "The main result" if name == "SUMMARY" else "")
    if name == "IDEAS":
        return "\n".join(f"- {word}" for word in words[:3]) or "- its subject"
    answers = {
        "PROBLEM": f"The opening frames a gap around {listed(words)}, which earlier work left open.",
        "METHOD": f"To close it, the authors build on {listed(words)} and evaluate the result.",
        "AIM": f"The authors set out to study {listed(words)}.",
        "LIMITATION": f"A stated limit concerns {listed(words)}.",
        "TAKEAWAYS": f"Remember the figures on {listed(words[:3])}.",
        "TOPIC": listed(words[:2]).title(),
    }
    return answers.get(name, "")


def _result_sentence(sentence: str, skip: set[str], opening: str) -> str:
    """A result in the simulator's words: its first two figures with their hedges, for the sentence's key
    words, with its model sizes, its benchmark and what its figures are compared with."""
    figures = []
    down = decreased(sentence)  # as rule scope reads them ("4K" is no decrease)
    for number in prose_numbers(sentence)[:2]:
        hedge = hedge_before(sentence, number)
        said = f"{HEDGES[hedge][0]} {number.text}" if hedge is not None else number.text
        figures.append(f"{said} lower" if any(number.matches(d) for d in down) else said)  # a decrease kept
    about = listed(keywords(sentence, skip, 3))
    sizes = list(dict.fromkeys(_SIZED_RE.findall(sentence)))
    benchmarks = benchmarks_in(sentence)[:1]
    said = f"reports {' and '.join(figures)} for {about}" if figures else f"shows how {about} fit together"
    if (compared := comparison_in(sentence)) is not None:  # the comparison's word, as the KEEP line asks
        said += f", {compared} as stated"
    if negation_dropped(said, sentence):  # the sentence's "not" kept, its meaning not turned over
        said += ", where the paper says not"
    scope = (f" at {', '.join(sizes)}" if sizes else "") + (f" on {benchmarks[0]}" if benchmarks else "")
    if (baseline := baseline_of(sentence)) is not None:  # what its figures are compared with, as KEEP asks
        scope += f" against {baseline}"
    return f"{opening or 'The work'} {said}{scope}."


def _quoted(user: str) -> list[str]:
    """The sentences a step's question quotes."""
    question = user.split("\n\nQuestion (", 1)[-1]
    return [s for s in _QUOTED_RE.findall(question) if len(s.split()) >= 3]


def _faulty(content: str, fault: FaultKind | None) -> tuple[str, str]:
    """A step's answer with a content fault applied (a fault of the JSON answer's shape becomes its nearest
    kin in prose)."""
    if fault in ("wrong_numbers", "bad_section", "prose_number"):
        return f"{content.rstrip('.')}, a gain of {BAD_NUMBER} points overall.", "stop"
    if fault == "repeating":
        return f"{content} {content}", "stop"
    if fault == "wrong_language":
        return "本文研究了一个问题，作者提出了一种方法。", "stop"
    if fault == "empty":
        return "", "stop"
    if fault == "length":
        return content[: max(1, len(content) // 2)], "length"
    if fault in ("fence", "invalid_json", "wrong_schema"):
        return f"Answer: {content}", "stop"
    return content, "stop"
