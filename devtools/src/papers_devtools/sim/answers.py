"""What the simulator answers: a digest built from the paper's own sentences, and its Chinese translation."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from papers_devtools.sim.chinese import translate, unit_answer, unit_request
from papers_devtools.sim.faults import FaultKind, damage, repeating
from papers_devtools.sim.wording import keywords, listed
from papers_digest.checker.fields import STRING_CAPS, words
from papers_digest.checker.numbers import Number, prose_numbers
from papers_digest.checker.paper import PaperFacts, read_paper
from papers_digest.checker.paths import get_field, is_path
from papers_digest.checker.problems import REPAIR_KEYS
from papers_digest.checker.results import is_packaging, is_sentence
from papers_digest.checker.schema import MIND_MAP_CHILDREN
from papers_digest.checker.substance import REPEAT_SHARE, ends_as_sentence, overlap
from papers_digest.core.models import DIGEST_KEYS, FulltextDoc, Section
from papers_digest.llm.prompting import TAGS_PREFIX, TITLE_PREFIX
from papers_digest.ways.steps.questions import PAPER_PREFIX

RequestKind = Literal["digest", "steps", "translate", "other"]


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
_METHOD_RE = re.compile(r"\b(we|our)\b.*\b(propose|introduce|present|design|develop|build|implement)", re.I)
_CAPTION_RE = re.compile(r"(Figure|Fig\.|Table|Algorithm)\s*\d")
_LIMIT_RE = re.compile(r"\b(however|limitation|limited|fails?|challeng\w*|cannot|only)\b", re.I)


def classify(messages: list[dict[str, str]]) -> RequestKind:
    """What the conversation asks for, judged by its first user message (a retry's last one is feedback)."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if first_user.startswith(TITLE_PREFIX) and f"\n{TAGS_PREFIX}" in first_user:
        return "digest"
    if first_user.startswith(PAPER_PREFIX) and "\n\nQuestion (" in first_user:
        return "steps"
    if _digest_json(first_user) is not None or unit_request(messages) is not None:
        return "translate"
    return "other"


def build_digest(user: str) -> dict[str, Any]:
    """A digest of the paper in a digest_messages() user message that check_digest_en accepts: each result one
    sentence of one section (a finding may quote the sentence it reports), with the figures it writes, and
    the other fields in words of its own: the paper's key words set in sentences of the simulator's, so
    they copy no passage, repeat no other field and restate no title (checker/substance.py)."""
    title, tags, sections = _parse_paper(user)
    facts = read_paper(_as_doc(title, tags, sections))
    citable = [s for s in sections if s.known and _sentences(s.text)]
    if not citable:  # no usable marked text: cite the first listed tag with whatever text there is
        fallback = _Section(tags[0] if tags else "Abstract", "", True, [s.text for s in sections])
        citable = [fallback]
    if len(citable) > 6:  # keep the six richest in numbers, in paper order
        ranked = {id(s) for s in sorted(citable, key=lambda s: -len(_figures(s.text)))[:6]}
        citable = [s for s in citable if id(s) in ranked]
    results = _results(citable, facts, title)
    all_sentences = [sent for s in citable for sent in _sentences(s.text)]
    title_words = set(words(title))
    opening = " ".join(all_sentences[:2]) or title
    doing = " ".join([s for s in all_sentences if _METHOD_RE.search(s)][:2] or all_sentences[2:4]) or opening
    problem_words = keywords(opening, title_words, 5)
    method_words = keywords(doing, title_words | {w.casefold() for w in problem_words}, 5)
    found_words = keywords(" ".join(r["finding"] for r in results), title_words, 4)
    limits = [
        f"A stated limit concerns {listed(keywords(s, title_words, 4))}."
        for s in all_sentences
        if _LIMIT_RE.search(s) and keywords(s, title_words, 4)
    ][:2]
    if [s.tag for s in sections] == ["Abstract"]:
        limits.append("Only the abstract was available, so details beyond it are not covered.")
    takeaways = [
        f"Remember from {_where(section)}: {listed(keywords(r['finding'], title_words, 4))}."
        for r, section in zip(results[:3], [citable[i % len(citable)] for i in range(3)], strict=False)
    ]
    one = f"{_name(title)} is summed up by {len(results)} findings, chiefly on {listed(found_words)}."
    problem = f"The opening frames a gap around {listed(problem_words)}, which earlier work left open."
    method = f"To close it, the authors build on {listed(method_words)} and evaluate the result."
    # each string within the schema's caps, as an engine holding the answer to the schema writes it
    return {
        "one_sentence": _clip_chars(one, STRING_CAPS["one_sentence"]),
        "problem": _clip_chars(problem, STRING_CAPS["problem"]),
        "method": _clip_chars(method, STRING_CAPS["method"]),
        "results": results,
        "limitations": [_clip_chars(text, STRING_CAPS["item"]) for text in limits[:3]]
        or ["The given text states no explicit limitation."],
        "takeaways": [_clip_chars(text, STRING_CAPS["item"]) for text in takeaways],
        "mind_map": _mind_map(title or "Paper", sections),
    }


def _results(citable: list[_Section], facts: PaperFacts, title: str) -> list[dict[str, Any]]:
    """3 to 6 results, each one sentence of its section that the checker takes as a finding: whole, within the
    cap, no passage, not about packaging, unlike the others; its numbers the figures it writes."""
    n_results = min(max(len(citable), 3), 6)
    queues = {id(s): [q for q in _ranked_sentences(s.text) if _usable(q, facts)] for s in citable}
    results: list[dict[str, Any]] = []
    for i in range(n_results * 3):  # a section may run out of sentences: take the next one's
        section = citable[i % len(citable)]
        queue = queues[id(section)]
        finding = next((q for q in queue if all(overlap(q, r["finding"]) < REPEAT_SHARE for r in results)), None)
        if finding is not None and len(results) < n_results:
            queue.remove(finding)
            results.append(_result(finding, section.tag, facts))
    while len(results) < 3:  # too little text: say where the paper says it
        section = citable[len(results) % len(citable)]
        finding = f"Part {len(results) + 1} of the text, {_where(section)}, describes {title or 'its work'}."
        results.append(_result(finding, section.tag, facts))
    return results


def _result(finding: str, tag: str, facts: PaperFacts) -> dict[str, Any]:
    """A result of `finding`: its own figures as the numbers; when it writes none but its section holds
    figures (and the model saw more than the abstract), it names the section's first one."""
    numbers = _numbers(finding, tag, facts)
    if not numbers and not facts.abstract_only and facts.figures_in([tag]):
        figure = facts.figures_in([tag])[0].text
        finding = f"{finding} Its section also reports {figure}."
        numbers = [figure]
    return {"finding": finding, "numbers": numbers, "sections": [tag]}


def _usable(sentence: str, facts: PaperFacts) -> bool:
    """A sentence the checker takes as a finding: whole, short of the cap (room for a clause), no passage
    by the checker's reading of the paper's sentence ends, and about what was found."""
    return (
        len(sentence) <= STRING_CAPS["finding"] - 60
        and ends_as_sentence(sentence)
        and is_sentence(sentence)
        and not is_packaging(sentence)
        and not any(run.crosses for run in facts.passages.runs(sentence))
    )


def _where(section: _Section) -> str:
    """A section by its tag (its title is the paper's words: a long one would be a copied run)."""
    return "the abstract" if section.tag == "Abstract" else f"Section {section.tag}"


def _name(title: str) -> str:
    """What one_sentence calls the paper: the title's part before a colon, or its first words."""
    head = title.split(":", 1)[0].strip() if ":" in title else " ".join(title.split()[:4])
    return head or "The paper"


def answer(messages: list[dict[str, str]], kind: RequestKind, fault: FaultKind | None) -> tuple[str, str]:
    """(content, finish_reason) for a request, with a content fault applied."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if kind == "translate" and unit_request(messages) is not None:
        return unit_answer(messages, fault), "stop"
    if kind == "digest":
        english = build_digest(first_user)
        obj: dict[str, Any] | None = translate(english) if fault == "wrong_language" else english
    elif kind == "translate":
        english = _digest_json(first_user) or {}
        obj = english if fault == "wrong_language" else translate(english)
    else:
        obj = None
    if obj is not None and fault in ("wrong_schema", "wrong_numbers", "bad_section", "prose_number"):
        obj = damage(obj, fault)
    if kind == "digest" and obj is not None and fault == "repeating":
        title, _, sections = _parse_paper(first_user)
        obj = repeating(obj, title, " ".join(s.text for s in sections))
    asked = _repair_paths(messages) if kind == "digest" else None
    if obj is not None and asked is not None:  # an English digest's repair: only the fields asked for
        obj = {path: value for path in asked if (value := _field_or_none(obj, path)) is not None}
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
    """The user message as a digest object, if it is one (a translate request), or as a translation's repair:
    some of a digest's fields by path (`{"limitations[2]": "..."}`, llm/repair.py)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return data if any(k in data for k in DIGEST_KEYS) or _is_repair(data) else None


def _is_repair(data: dict[str, Any]) -> bool:
    """Fields of a digest by path, not the whole digest."""
    return bool(data) and not set(DIGEST_KEYS) <= set(data) and all(is_path(k) for k in data)


def _repair_paths(messages: list[dict[str, str]]) -> list[str] | None:
    """The fields an English digest's repair asks for (its last message names them after REPAIR_KEYS), or
    None when the request is no repair."""
    if len(messages) <= 2 or messages[-1]["role"] != "user":
        return None
    _, marker, listed = messages[-1]["content"].partition(REPAIR_KEYS)
    if not marker:
        return None
    try:
        paths = json.loads(listed)
    except ValueError:
        return None
    return [p for p in paths if isinstance(p, str) and is_path(p)] if isinstance(paths, list) else None


def _field_or_none(digest: dict[str, Any], path: str) -> Any:
    try:
        return get_field(digest, path)
    except (KeyError, IndexError, TypeError):  # the simulator's digest has no such field (fewer results)
        return None


def conversation_stage(messages: list[dict[str, str]]) -> Literal["first", "retry"]:
    """A request's place in its paper's conversation: a first request, or a checker retry (the conversation
    resent with the answer and the problems, or a translation's repair: only the fields that failed)."""
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    data = _digest_json(first_user)
    return "retry" if len(messages) > 2 or (data is not None and _is_repair(data)) else "first"


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
    return [s for s in _SENTENCE_SPLIT_RE.split(text) if len(s.split()) >= 6 and len(s) >= 30]


def _ranked_sentences(text: str) -> list[str]:
    """Sentences a model would report as findings first: rich in figures, not captions or LaTeX debris."""
    sentences = _sentences(text)
    # avoid table dumps posing as sentences; a long one is cut at a space, within the schema's cap
    short = [s for s in sentences if len(s) <= 400] or [_clip_chars(s, 400) for s in sentences]

    def score(sentence: str) -> int:
        figures = _figures(sentence)
        rich = sum("." in n.value or bool(n.unit) for n in figures)
        noise = bool(_CAPTION_RE.match(sentence)) + sum(map(sentence.count, ("\\", "{", "|")))
        return 3 * rich + len(figures) - 4 * noise

    return sorted(short, key=score, reverse=True)  # stable: ties keep text order


def _figures(text: str) -> list[Number]:
    """The figures of a text as the checker counts them in prose (no labels, years or lone digits)."""
    return prose_numbers(text)


def _numbers(finding: str, tag: str, facts: PaperFacts) -> list[str]:
    """Up to 2 of the finding's figures, decimals and units first, that its section holds (`_result` adds one
    when it has none)."""
    own = [n for n in _figures(finding) if facts.in_sections(n, [tag]) is not None]
    return sorted(dict.fromkeys(n.text for n in own), key=lambda t: t.isdigit())[:2]


def _as_doc(title: str, tags: list[str], sections: list[_Section]) -> FulltextDoc:
    """The user message back as the document the checker reads (section levels from the tags' shape)."""
    marked = "\n".join(f"[§{s.tag}]\n" + "\n".join(s.lines) for s in sections)
    return FulltextDoc(
        arxiv_id="0000.00000",
        title=title,
        source="abstract" if tags == ["Abstract"] else "html",
        text=marked,
        sections=[Section(tag=s.tag, title=s.title, level=_level(s.tag)) for s in sections],
    )


def _level(tag: str) -> int:
    return 0 if tag == "Abstract" else 1 + tag.count(".")


def _clip_chars(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most].rsplit(" ", 1)[0]


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
        siblings = parent["children"] if parent else root["children"]
        if len(siblings) >= MIND_MAP_CHILDREN:
            continue  # the schema's cap on children (a map, not a table of contents)
        siblings.append(node)
        if parent is None:
            nodes.setdefault(section.tag, node)
    return root
