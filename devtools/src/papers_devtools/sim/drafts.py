"""What the simulator answers to an evidence-first request (llm/drafting.py): a plain-text draft whose
findings name the candidate sentences that state figures, its other parts in words of the simulator's own."""

from __future__ import annotations

import re

from papers_devtools.sim.answers import RequestKind, answer, build_digest
from papers_devtools.sim.faults import BAD_NUMBER, FaultKind
from papers_devtools.sim.wording import keywords, listed
from papers_digest.checker.draft import PARTS, draft_parts
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.results import is_packaging, is_sentence
from papers_digest.llm.prompting import TAGS_PREFIX, TITLE_PREFIX
from papers_digest.llm.steps import rewritten_text, step_of_request

_CANDIDATE_RE = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)
_FINDING_LINE_RE = re.compile(r"^\s*\[(\d+)\]\s*(.+)$")
FINDINGS = 3  # candidates a draft reports, at most


def reply(messages: list[dict[str, str]], kind: RequestKind, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) for any request: a draft for an evidence-first one, or the part of it a step
    asks (llm/steps.py); a rewrite's text as it was (the simulator's words are its own already); else the JSON
    answer."""
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    rewritten = rewritten_text(user)
    if kind == "other" and rewritten is not None:
        return rewritten, "stop"
    if kind != "draft":
        return answer(messages, kind, fault)
    step = step_of_request(user)
    if step is None:
        return draft_answer(user, fault)
    content, finish = draft_answer(user.split("\n\nQuestion (", 1)[0], fault)
    return step_answer(content, step), finish


def step_answer(draft: str, step: str) -> str:
    """What a step asks, taken from the draft the simulator would write: a part, the numbers its findings
    report (PICK), or one finding's sentence."""
    parts = draft_parts(draft)
    findings = [found for line in parts.get("FINDINGS", "").splitlines() if (found := _FINDING_LINE_RE.match(line))]
    if step == "PICK":
        return ", ".join(found.group(1) for found in findings)
    if step.startswith("FINDING ["):
        number = step.removeprefix("FINDING [").rstrip("]")
        return next((found.group(2) for found in findings if found.group(1) == number), "")
    return parts.get(step, "")


def draft_answer(user: str, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) of a draft for the request, with a content fault applied (a fault of the JSON
    answer's shape becomes a missing part; a wrong number a finding naming no candidate)."""
    title = " ".join(user.split("\n\n", 1)[0].removeprefix(TITLE_PREFIX).split())
    candidates = [(int(n), text) for n, text in _CANDIDATE_RE.findall(user)]
    opening = " ".join(text for _, text in candidates[:4])
    english = build_digest(f"{TITLE_PREFIX}{title}\n{TAGS_PREFIX}Abstract\n\n[§Abstract]\n{opening}")
    findings = _findings(candidates, title)
    if fault in ("wrong_numbers", "bad_section"):
        findings.append(f"[{len(candidates) + 7}] The study reports a gain of {BAD_NUMBER} points overall.")
    if fault == "prose_number":
        findings.append(f"[{candidates[0][0]}] Its authors report a gain of {BAD_NUMBER} points overall.")
    if fault == "repeating" and findings:
        findings += findings
    parts = {
        "PROBLEM": english["problem"],
        "METHOD": english["method"],
        "FINDINGS": "\n" + "\n".join(findings),
        "SUMMARY": english["one_sentence"],
        "LIMITATIONS": "\n" + "\n".join(f"- {text}" for text in english["limitations"]),
        "TAKEAWAYS": "\n" + "\n".join(f"- {text}" for text in english["takeaways"]),
        "TOPIC": english["mind_map"]["label"],
        "IDEAS": "\n" + "\n".join(f"- {child['label']}" for child in english["mind_map"]["children"][:4]),
    }
    if fault == "wrong_schema":
        del parts["SUMMARY"]
    content = "\n".join(f"{name}: {parts[name]}" for name in PARTS if name in parts)
    if fault == "wrong_language":
        content = "问题：本文研究了一个问题。\n方法：作者提出了一种方法。"
    if fault == "empty":
        return "", "stop"
    if fault == "length":
        return content[: max(1, len(content) // 2)], "length"
    if fault == "fence":
        return f"```\n{content}\n```", "stop"
    if fault == "invalid_json":
        return f"Here is the draft you asked for.\n{content}", "stop"
    return content, "stop"


def _findings(candidates: list[tuple[int, str]], title: str) -> list[str]:
    """A line per reported candidate, figures first, packaging never: its figures and key words set in a
    sentence of the simulator's, so it copies no run of the sentence it reports."""
    usable = [(n, text) for n, text in candidates if is_sentence(text) and not is_packaging(text)]
    usable.sort(key=lambda item: not prose_numbers(item[1]))  # stable: ties keep the paper's order
    skip = {w.casefold() for w in title.split()}
    lines = []
    for n, text in usable[:FINDINGS]:
        figures = list(dict.fromkeys(f.text for f in prose_numbers(text)))[:2]
        about = listed(keywords(text, skip, 3))
        said = f"reports {' and '.join(figures)} for {about}" if figures else f"shows how {about} fit together"
        lines.append(f"[{n}] This sentence of the paper {said}.")
    return lines
