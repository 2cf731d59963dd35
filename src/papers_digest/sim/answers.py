"""What the simulator answers: a digest built from the paper's own sentences, and its Chinese translation."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from papers_digest.checker.numbers import normalise_for_match
from papers_digest.core.models import DIGEST_KEYS
from papers_digest.llm.prompting import TAGS_PREFIX, TITLE_PREFIX
from papers_digest.sim.faults import FaultKind, damage

RequestKind = Literal["digest", "translate", "other"]


@dataclass
class _Section:
    tag: str
    title: str
    known: bool  # the tag is listed after "Section tags:", so results may cite it
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.lines).split())


_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“\[])")
_NUMBER_RE = re.compile(r"(?<![\w.\-])\d+(?:[.,]\d+)*(?:%|×|x\b)?")
_METHOD_RE = re.compile(r"\b(we|our)\b.*\b(propose|introduce|present|design|develop|build|implement)", re.I)
_CAPTION_RE = re.compile(r"(Figure|Fig\.|Table|Algorithm)\s*\d")
_LABEL_RE = re.compile(r"\b(Figure|Fig\.|Table|Tab\.|Section|Sec\.|Eq\.|Equation|Algorithm|Appendix|§)\s*\(?$")
_YEAR_RE = re.compile(r"(19|20)\d\d")
_LIMIT_RE = re.compile(r"\b(however|limitation|limited|fails?|challeng\w*|cannot|only)\b", re.I)
_ZH_PREFIX = {
    "one_sentence": "一句话总结：",
    "problem": "问题：",
    "method": "方法：",
    "finding": "发现：",
    "limitations": "局限：",
    "takeaways": "要点：",
    "label": "主题：",
}


def classify(messages: list[dict[str, str]]) -> RequestKind:
    """What the conversation asks for, judged by its first user message (a retry's last one is feedback)."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if first_user.startswith(TITLE_PREFIX) and f"\n{TAGS_PREFIX}" in first_user:
        return "digest"
    if _digest_json(first_user) is not None:
        return "translate"
    return "other"


def build_digest(user: str) -> dict[str, Any]:
    """A digest of the paper in a digest_messages() user message that check_digest_en accepts."""
    title, tags, sections = _parse_paper(user)
    haystack = normalise_for_match("\n".join(line for s in sections for line in s.lines))
    citable = [s for s in sections if s.known and _sentences(s.text)]
    if not citable:  # no usable marked text: cite the first listed tag with whatever text there is
        fallback = _Section(tags[0] if tags else "Abstract", "", True, [s.text for s in sections])
        citable = [fallback]
    if len(citable) > 6:  # keep the six richest in numbers, in paper order
        ranked = {id(s) for s in sorted(citable, key=lambda s: -len(_NUMBER_RE.findall(s.text)))[:6]}
        citable = [s for s in citable if id(s) in ranked]
    n_results = min(max(len(citable), 3), 6)
    queues = {id(s): _ranked_sentences(s.text) for s in citable}
    used: dict[int, int] = {}
    results = []
    for i in range(n_results):
        section = citable[i % len(citable)]
        queue = queues[id(section)] or [section.title or title or "The paper states a result."]
        finding = queue[used.get(id(section), 0) % len(queue)]
        used[id(section)] = used.get(id(section), 0) + 1
        numbers = _numbers(finding, haystack)
        results.append({"finding": finding, "numbers": numbers, "sections": [section.tag]})

    all_sentences = [sent for s in citable for sent in _sentences(s.text)]
    opening = all_sentences[:2] or [title]
    method = [s for s in all_sentences if _METHOD_RE.search(s)][:2] or all_sentences[2:4] or opening
    limits = [s for s in all_sentences if _LIMIT_RE.search(s)][:2]
    if [s.tag for s in sections] == ["Abstract"]:
        limits.append("Only the abstract was available, so details beyond it are not covered.")
    if not limits:
        limits = ["The given text states no explicit limitation."]
    takeaways = [
        f"{_section_label(citable[i % len(citable)])}: {_clip(r['finding'], 14)}" for i, r in enumerate(results[:3])
    ]
    return {
        "one_sentence": f"{title}: {opening[0]}" if title else opening[0],
        "problem": " ".join(opening),
        "method": " ".join(method),
        "results": results,
        "limitations": limits[:3],
        "takeaways": takeaways,
        "mind_map": _mind_map(title or "Paper", sections),
    }


def pseudo_translate(value: Any, key: str | None = None) -> Any:
    """A pseudo-Chinese digest: each text value starts with 译文 and a Chinese word; numbers/sections kept."""
    if isinstance(value, dict):
        return {k: (v if k in ("numbers", "sections") else pseudo_translate(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [pseudo_translate(v, key) for v in value]
    if isinstance(value, str):
        return f"译文·{_ZH_PREFIX.get(key or '', '内容：')}{value}"
    return value


def answer(messages: list[dict[str, str]], kind: RequestKind, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) for a request, with a content fault applied."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if kind == "digest":
        english = build_digest(first_user)
        obj: dict[str, Any] | None = pseudo_translate(english) if fault == "wrong_language" else english
    elif kind == "translate":
        english = _digest_json(first_user) or {}
        obj = english if fault == "wrong_language" else pseudo_translate(english)
    else:
        obj = None
    if obj is not None and fault in ("wrong_schema", "wrong_numbers", "bad_section"):
        obj = damage(obj, fault)
    content = "OK" if obj is None else json.dumps(obj, ensure_ascii=False, indent=2)
    if fault == "invalid_json":
        return f"Here is the digest you asked for:\n{content}", "stop"  # chatter around the JSON
    if fault == "fence":
        return f"```json\n{content}\n```", "stop"
    if fault == "empty":
        return "", "stop"
    if fault == "length":
        return content[: max(1, len(content) // 2)], "length"
    return content, "stop"


def _digest_json(text: str) -> dict[str, Any] | None:
    """The user message as a digest object, if it is one (a translate request)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and any(k in data for k in DIGEST_KEYS) else None


def _parse_paper(user: str) -> tuple[str, list[str], list[_Section]]:
    """Title, listed tags and marked sections of a digest user message."""
    # The title may span lines (raw HF titles hold "\n  "), so find the tags line rather than line 2.
    tags_at = user.find(f"\n{TAGS_PREFIX}")
    head = user[:tags_at] if tags_at >= 0 else ""
    title = " ".join(head.removeprefix(TITLE_PREFIX).split())
    rest = user[tags_at + 1 :] if tags_at >= 0 else user
    tags_line, _, body = rest.partition("\n")
    tags = [t.strip() for t in tags_line.removeprefix(TAGS_PREFIX).split(",") if t.strip()]
    known = sorted(tags, key=len, reverse=True)  # longest first, so "3.1" wins over "3"
    sections: list[_Section] = []
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("[§") and stripped.endswith("]"):
            inner = stripped[2:-1].strip()
            tag = next((t for t in known if inner == t or inner.startswith(t + " ")), None)
            name = inner.split(" ", 1)[0] if tag is None else tag
            sections.append(_Section(name, inner[len(name) :].strip(), tag is not None))
        elif sections:
            sections[-1].lines.append(line)
        elif stripped:  # text before any marker: only used when there is no marker at all
            sections.append(_Section(tags[0] if tags else "Abstract", "", bool(tags), [line]))
    return title, tags, sections


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_SPLIT_RE.split(text) if len(s.split()) >= 4]


def _ranked_sentences(text: str) -> list[str]:
    """Sentences a model would report as findings first: rich in figures, not captions or LaTeX debris."""
    sentences = _sentences(text)
    short = [s for s in sentences if len(s) <= 400] or sentences  # avoid table dumps posing as sentences

    def score(sentence: str) -> int:
        figures = _figures(sentence)
        rich = sum(not n.isdigit() for n in figures)
        noise = bool(_CAPTION_RE.match(sentence)) + sum(map(sentence.count, ("\\", "{", "|")))
        return 3 * rich + len(figures) - 4 * noise

    return sorted(short, key=score, reverse=True)  # stable: ties keep text order


def _figures(sentence: str) -> list[str]:
    """Numbers in a sentence, minus labels ("Figure 3", "Eq. 2") and citation years ("Liu et al., 2025")."""
    return [
        m.group(0)
        for m in _NUMBER_RE.finditer(sentence)
        if not _LABEL_RE.search(sentence[: m.start()]) and not _YEAR_RE.fullmatch(m.group(0))
    ]


def _numbers(sentence: str, haystack: str) -> list[str]:
    """Up to 2 figures from the sentence that occur verbatim in the paper; decimals, % and x first."""
    found = [n for n in dict.fromkeys(_figures(sentence)) if normalise_for_match(n) in haystack]
    return sorted(found, key=lambda n: n.isdigit())[:2]


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _section_label(section: _Section) -> str:
    return f"{section.tag} {section.title}".strip() if section.title and section.title != section.tag else section.tag


def _mind_map(title: str, sections: list[_Section]) -> dict[str, Any]:
    """Root = title; children = top-level sections, each with its subsections (3.2 under 3, A.1 under A)."""
    root: dict[str, Any] = {"label": title, "children": []}
    nodes: dict[str, dict[str, Any]] = {}
    for section in sections:
        if section.tag.count(".") > 1:
            continue  # subsubsections would make the map deeper than the prompt's 2-3 levels
        node = {"label": _section_label(section), "children": []}
        parent = nodes.get(section.tag.rsplit(".", 1)[0]) if "." in section.tag else None
        (parent["children"] if parent else root["children"]).append(node)
        if parent is None:
            nodes.setdefault(section.tag, node)
    return root
