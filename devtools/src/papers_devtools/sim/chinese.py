"""The simulator's Chinese: prose standing for an English digest's fields or a translation unit, a character or two
per English word, its figures, placeholders and glossary terms as a real translation must keep them."""

from __future__ import annotations

import re
import zlib
from typing import Any

from papers_devtools.sim.faults import BAD_NUMBER, FaultKind
from papers_digest.checker.direction import decreasing_figures
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.placeholders import marks_in
from papers_digest.checker.qualifiers import NEGATION_RE
from papers_digest.checker.units import sentences, unit_of
from papers_digest.llm.translating import KIND_NOTE, TERMS_PREFIX, unit_messages

# Characters the simulator's Chinese is written in: each English word stands for one or two of them, chosen
# by the word, so two different fields read differently and one field always the same; none says a gain (提升),
# a superiority or a negation, which rule zh_direction reads.
_ZH_CHARS = "本文研究内容与主要结论在此以中文概括说明模型方法数据实验结果表明提出训练推理性能提度任务基准分析"
_ZH_PREFIX = {
    "one_sentence": "一句话总结：",
    "problem": "问题：",
    "method": "方法：",
    "finding": "发现：",
    "limitations": "局限：",
    "takeaways": "要点：",
    "label": "主题：",
}


def translate(value: Any, key: str | None = None) -> Any:
    """The digest in Chinese: every prose value becomes Chinese prose of about its length that carries exactly
    its figures (the checker's rules); `numbers` and `sections` stay as they are. Not a real translation,
    but honest Chinese, so the translation rules are exercised as they are by a real model."""
    if isinstance(value, dict):
        return {k: (v if k in ("numbers", "sections") else translate(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [translate(v, key) for v in value]
    if isinstance(value, str):
        return chinese_prose(value, key or "")
    return value


def chinese_prose(english: str, key: str) -> str:
    """Chinese prose standing for `english`: a heading word, then each sentence as the simulator answers it as
    a translation unit (its names, figures and glossary terms kept)."""
    kind = "label" if key == "label" else "sentence"
    units = [unit_of(part, kind) for part in (sentences(english) if kind == "sentence" else [english])]
    said = "".join(u.protected.restore(unit_answer(unit_messages("", u), None)) for u in units if u.english.strip())
    return f"{_ZH_PREFIX.get(key, '内容：')}{said or _ZH_CHARS[:4]}"


def unit_request(messages: list[dict[str, str]]) -> tuple[str, str, list[str]] | None:
    """(the unit's kind, its English, the terms' renderings) of a translation unit's request
    (llm/translating.py: what the unit is and its terms after the system prompt, its English as the user
    message), or None."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    english = next((m["content"] for m in messages if m["role"] == "user"), "")
    kind = next((k for k, note in KIND_NOTE.items() if f"\n{note}" in system), None)
    if kind is None:
        return None
    line = next((x for x in system.splitlines() if x.startswith(TERMS_PREFIX)), "")
    terms = [t.split(" = ", 1)[1] for t in line[len(TERMS_PREFIX) :].split("; ") if " = " in t]
    return kind, english, terms


def unit_answer(messages: list[dict[str, str]], fault: FaultKind | None) -> str:
    """A unit's Chinese: a character or two per English word, its placeholders and figures as they are, and the
    glossary's renderings the request lists; with `wrong_language` its English, with `wrong_numbers` a figure
    the English lacks."""
    kind, english, terms = unit_request(messages) or ("sentence", "", [])
    if fault == "wrong_language":
        return english
    rest = english
    for found in reversed(marks_in(english)):
        rest = rest[: found.start()] + " " + rest[found.end() :]
    chars = "".join(_zh_word(w) for w in re.findall(r"[A-Za-z][A-Za-z'\-]*", rest)) or _ZH_CHARS[:2]
    # each placeholder as often as the English has it: inside the rendering of a term naming it ("X1 缓存"),
    # the rest after the words
    marks = [m.group() for m in marks_in(english)]
    for mark in (m.group() for t in terms for m in marks_in(t)):
        if mark in marks:
            marks.remove(mark)
    down = decreasing_figures(rest)  # a decrease said as one (降低), as rule zh_direction asks
    said = [f"降低{n.text}" if any(n.matches(d) for d in down) else n.text for n in prose_numbers(rest)]
    figures = said + ([BAD_NUMBER] if fault == "wrong_numbers" else [])
    text = chars + "".join(marks) + (f"（{'、'.join(terms)}）" if terms else "")
    return text + (f"，数据为{'、'.join(figures)}" if figures else "") + ("。" if kind == "sentence" else "")


def _zh_word(word: str) -> str:
    if NEGATION_RE.fullmatch(word):
        return "不"  # a negation kept, as rule zh_direction asks
    code = zlib.crc32(word.casefold().encode())
    first = _ZH_CHARS[code % len(_ZH_CHARS)]
    return first + _ZH_CHARS[(code // len(_ZH_CHARS)) % len(_ZH_CHARS)] if len(word) > 3 else first
