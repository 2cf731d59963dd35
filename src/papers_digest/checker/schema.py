"""The digest's JSON schema for structured output: the checker's rules that an engine's grammar can enforce
(what llama-server's grammar takes, and what it costs: docs/design.md §3)."""

from __future__ import annotations

import copy
from typing import Any

from papers_digest.checker.chinese import must_be_chinese
from papers_digest.checker.fields import STRING_CAPS
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.paths import steps_of, top_level
from papers_digest.checker.problems import Problem
from papers_digest.checker.results import FINDING_MIN_WORDS
from papers_digest.checker.substance import results_wanted
from papers_digest.checker.zh_figures import carried_numbers
from papers_digest.core.models import Digest, MindMapNode, Result


def digest_json_schema() -> dict[str, Any]:
    """The JSON schema of a digest, as the checker reads it."""
    return Digest.model_json_schema()


def digest_schema(facts: PaperFacts, bound: frozenset[str] = frozenset(), *, sentences: bool = False) -> dict[str, Any]:
    """The English digest's schema for structured output: the checker's rules an engine's grammar can enforce.

    Each result is one of the paper's sections with the figures that section holds: `sections` is that
    section's tag and `numbers` draws from its figures (at least one when it has any, unless the model saw
    only the abstract), then the finding. Lists, strings and the mind map are capped (see
    `_base_schema`). `one_sentence` comes after the results: asked first, a small model restates the
    title; asked once it has written the findings, it sums them up.

    `bound` names the fields (top-level keys; "results" for the findings) whose prose may write only the
    paper's figures (`_prose`), and with `sentences` every finding is a sentence of words (`_sentence`): the
    retry's schema after the first answer broke those rules (`retry_digest_schema`). An answer in this
    shape can still be wrong: the checker still judges it.
    """
    schema = _base_schema(bound=bound, figures=_paper_figures(facts))
    alternatives = [
        _section_result(facts, tag, bound="results" in bound, sentence=sentences) for tag in _citable(facts)
    ]
    props = schema["properties"]
    fewest, most = results_wanted(facts)
    props["results"].update(minItems=fewest, maxItems=most)
    props["results"]["items"] = {"anyOf": alternatives} if len(alternatives) > 1 else alternatives[0]
    schema["properties"] = {key: props[key] for key in DIGEST_ORDER}
    schema["required"] = [key for key in DIGEST_ORDER if key in schema["required"]]
    return schema


# The order an English digest is written in (the grammar's order; the stored digest keeps the model's).
DIGEST_ORDER = ("problem", "method", "results", "one_sentence", "limitations", "takeaways", "mind_map")
# The checker rules about a figure written in prose, and the fields their problems name.
_FIGURE_RULES = frozenset({"prose_number", "finding_number"})


def retry_digest_schema(facts: PaperFacts, problems: list[Problem]) -> dict[str, Any]:
    """The retry's schema: the first one, with the prose of every field where a figure broke a number rule
    bound to the paper's figures (a finding: to its section's), and after a finding that was no sentence,
    findings of words. A small model repeats its first answer on the retry whatever the problems say;
    bound, it cannot write that figure or that heading again."""
    fields = {top_level(p.field) for p in problems if p.rule in _FIGURE_RULES}
    sentences = any(p.rule == "finding_sentence" for p in problems)
    schema = digest_schema(facts, bound=frozenset(fields), sentences=sentences)
    return _shortened(schema) if any(p.rule == "length" for p in problems) else schema


def _shortened(schema: dict[str, Any]) -> dict[str, Any]:
    """The digest's schema with fewer results, list items and mind-map children: the retry after an answer
    that ran into llm.max_tokens. A small model's cut answer repeats list items and mind-map nodes up to the
    caps (six identical limitations, a child "Gradients" five times), and a retry held to the same caps
    repeats them again."""
    props = schema["properties"]
    props["results"]["maxItems"] = min(SHORT_RESULTS, props["results"]["maxItems"])
    for key in ("limitations", "takeaways"):
        props[key]["maxItems"] = SHORT_ITEMS
    nodes = [props["mind_map"]]
    while nodes:
        children = nodes.pop()["properties"]["children"]
        if isinstance(children.get("items"), dict) and children["items"].get("type") == "object":
            children["maxItems"] = min(children.get("maxItems", SHORT_ITEMS), SHORT_ITEMS)
            nodes.append(children["items"])
    return schema


SHORT_RESULTS, SHORT_ITEMS = 4, 3  # the caps of the retry after a cut-off answer


def digest_fields_schema(facts: PaperFacts, paths: list[str], problems: list[Problem]) -> dict[str, Any]:
    """The schema of an English digest's repair (llm/repair.py): one object whose keys are field paths
    (`results[1]`, `one_sentence`) and whose values are held as that field is in the retry's schema
    (`retry_digest_schema`); raises KeyError or TypeError for a path that schema has no field for."""
    whole = retry_digest_schema(facts, problems)
    properties = {path: _field_schema(whole, path) for path in paths}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _field_schema(schema: dict[str, Any], path: str) -> dict[str, Any]:
    node = schema
    for step in steps_of(path):
        node = node["items"] if isinstance(step, int) else node["properties"][step]
    return node


def translation_schema(english: Digest, title: str | None = None) -> dict[str, Any]:
    """The translation's schema: the English digest's shape exactly, each result's numbers and sections pinned
    to the English ones, and prose that starts in Chinese and carries its English field's figures, in their
    order, and no other (`_chinese`); with the paper's `title`, a `title` first (names in it may stay Latin)."""
    schema = _base_schema(like=english)
    if title:
        schema["properties"] = {"title": {"type": "string", "maxLength": TITLE_CAP}, **schema["properties"]}
        schema["required"] = ["title", *schema.get("required", [])]
    props = schema["properties"]
    for key in ("results", "limitations", "takeaways"):
        props[key].update(minItems=len(getattr(english, key)), maxItems=len(getattr(english, key)))
    props["results"]["prefixItems"] = [_pinned_result(r) for r in english.results]
    for key in ("one_sentence", "problem", "method"):
        props[key] = _chinese(key, getattr(english, key))
    for key in ("limitations", "takeaways"):  # one schema per item, each with its own figures
        props[key]["prefixItems"] = [_chinese("item", text) for text in getattr(english, key)]
        props[key]["items"] = _chinese("item", "")  # never used (maxItems), but llama.cpp's converter wants it
    return schema


TITLE_CAP = 300  # characters of a translated title (arXiv titles run to about 250)


def _base_schema(
    like: Digest | None = None, bound: frozenset[str] = frozenset(), figures: list[str] | None = None
) -> dict[str, Any]:
    """The digest's schema with every string and list capped and the mind map three levels deep (or, for a
    translation, exactly the English one's shape). A grammar with a cap must close the string or the list,
    so a small model that starts repeating itself runs into the cap instead of into llm.max_tokens with the
    JSON unfinished (measured on llama-server, whose grammar compiler takes caps of a thousand). A key in
    `bound` (an English digest's retry) may write no figure but `figures` (`_prose`)."""

    def prose(kind: str, key: str) -> dict[str, Any]:
        return _prose(kind, figures if key in bound else None)

    schema = copy.deepcopy(digest_json_schema())
    props = schema["properties"]
    for key in ("limitations", "takeaways"):
        props[key].update(minItems=1, maxItems=6, items=prose("item", key))
    for key in ("one_sentence", "problem", "method"):
        props[key] = prose(key, key)
    map_figures = figures if "mind_map" in bound else None
    props["mind_map"] = _mind_map_schema(like.mind_map if like else None, depth=3, figures=map_figures)
    del schema["$defs"]
    props["results"] = {"type": "array", "minItems": 3, "maxItems": 6}
    return schema


def _citable(facts: PaperFacts) -> list[str]:
    """The sections a result may cite in the schema: the abstract and the top-level sections (a section's
    text includes its subsections'), or every section of a short paper."""
    if len(facts.tags) <= MAX_ALTERNATIVES:
        return list(facts.tags)
    levels = facts.levels
    top = [tag for tag in facts.tags if levels.get(tag, 1) <= 1]
    return top[:MAX_ALTERNATIVES] or list(facts.tags[:MAX_ALTERNATIVES])


def _section_result(facts: PaperFacts, tag: str, *, bound: bool = False, sentence: bool = False) -> dict[str, Any]:
    figures = list(dict.fromkeys(n.text for n in [*facts.figures_in([tag]), *facts.unsectioned] if n.counts_in_prose))
    figures = figures[:MAX_FIGURES]
    if figures:
        choices = {"type": "string", "enum": figures}
        numbers: dict[str, Any] = {"type": "array", "items": choices, "maxItems": MAX_NUMBERS}
        if not facts.abstract_only:
            numbers["minItems"] = 1
    else:
        numbers = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    # sections first, then its numbers, then the finding: the model picks the evidence before it writes; a
    # bound finding can state no figure of another section (the checker's finding_number rule)
    finding = _sentence(figures if bound else None) if bound or sentence else _capped("finding")
    properties = {"sections": {"const": [tag]}, "numbers": numbers, "finding": finding}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


MAX_NUMBERS = 6  # a result quotes at most this many numbers
MAX_ALTERNATIVES = 24  # sections a result may cite in the schema; beyond, only the top-level ones
MAX_FIGURES = 60  # figures offered per section (the first ones); the grammar grows with every choice


def _pinned_result(english: Result) -> dict[str, Any]:
    """A result of a translation: its finding in Chinese, its numbers and sections exactly the English ones."""
    properties = {
        "finding": _chinese("finding", english.finding),
        "numbers": {"const": list(english.numbers)},
        "sections": {"const": list(english.sections)},
    }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _capped(kind: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": STRING_CAPS[kind]}


def _paper_figures(facts: PaperFacts) -> list[str]:
    """The figures the paper prints (those prose must not invent), the first MAX_PROSE_FIGURES of them."""
    figures = (n.text for n in facts.everywhere if n.counts_in_prose)
    return list(dict.fromkeys(figures))[:MAX_PROSE_FIGURES]


MAX_PROSE_FIGURES = 160  # figures offered to the prose fields; beyond, the prose cannot write a figure


def _json_char(excluded: str = "") -> str:
    """One character of JSON string content, none of `excluded` (regex class syntax): any character but a
    quote, a backslash or a newline, or a valid escape (llama.cpp applies a pattern to the raw string)."""
    return rf'[^"\\\n{excluded}]|\\["\\/bfnrt]'


_NO_DIGIT = _json_char("0-9")
# Digits the checker does not read as a figure: glued to a word ("GPT-4", "W16A16", "Qwen2.5", "RTX4090"), or
# a lone digit before a word ("3 stages"). Bounded: the model's tokenizer writes one token per digit, so an
# unbounded run of digits is the one way left to run a capped string on until llm.max_tokens (a finding cut
# off unterminated there, on the first answer and the retry alike).
_NAME_DIGITS = r"[A-Za-z]-?[0-9]{1,4}(\.[0-9]{1,2})?"
# A year, which the checker does not read as a figure either ("Hendrycks et al., 2021"): without it a bound
# model writes a listed figure in the year's place ("Hendrycks et al., 20.0").
_YEAR = r"(19[0-9][0-9]|20[0-3][0-9])"
# A lone digit that is a word of its own ("3 stages", "level 3."), never the start of a longer number.
_LONE_DIGIT = r"[0-9][ .,;:)]"


def _prose(kind: str, figures: list[str] | None) -> dict[str, Any]:
    """A capped string; with `figures`, one whose digits are only those figures (or digits that are no figure),
    so the grammar keeps a small model from writing a figure the paper does not print there (an invented "12",
    a "100%" of another section)."""
    if figures is None:
        return _capped(kind)
    figure = f"({_figures_or_names(figures)}|{_LONE_DIGIT})"
    # a figure is followed by a character that is not a digit, so "43.3" cannot grow into "43.35"
    token = f"({_NO_DIGIT}|{figure}({_NO_DIGIT}))"
    cap = STRING_CAPS[kind] // 2  # a token is one or more characters: about half the characters' cap
    return {"type": "string", "pattern": f"^{token}{{0,{cap}}}{figure}?$"}


def _sentence(figures: list[str] | None) -> dict[str, Any]:
    """A retry's finding: a capital letter, then at least FINDING_MIN_WORDS words (a small model writes a
    heading as its finding: "Domain-Specific Pretraining Improves RL Ceiling"); with `figures`, digits only as those
    figures, as names' digits or as a lone digit that is a word of its own ("3 stages")."""
    piece = _json_char(" ") if figures is None else f"{_json_char('0-9 ')}|{_figures_or_names(figures)}"
    lone = "" if figures is None else "|[0-9][.,;:)]?"  # bound: a digit alone is a word of its own

    def word(least: int) -> str:
        return f"({piece}){{{least},{WORD_CHARS}}}{lone}"

    rest = f"( ({word(1)})){{{FINDING_MIN_WORDS - 1},{FINDING_MAX_WORDS}}}"
    return {"type": "string", "pattern": f"^[A-Z]({word(0)}){rest}$"}  # word(0): the first, after its capital


WORD_CHARS = 30  # pieces (characters or figures) per word of a retry's finding
FINDING_MAX_WORDS = 60


def _figures_or_names(figures: list[str]) -> str:
    """Alternatives for the digits prose may write: the figures (longest first), digits glued to a name
    ("GPT-4", "W16A16", "Qwen2.5") or a year, which the checker does not read as a figure."""
    literals = [_literal(f) for f in sorted(figures, key=len, reverse=True)]
    return "|".join([*literals, _NAME_DIGITS, _YEAR])


def _literal(text: str) -> str:
    return "".join("\\" + ch if ch in "\\^$.|?*+()[]{}" else ch for ch in text)


def _chinese(kind: str, english: str) -> dict[str, Any]:
    """A translated field: it starts with a Chinese character (a small model held to that writes Chinese
    instead of copying the English) and writes the English field's figures, each once and in order, its lone
    digits and years at most once each, in order, and no other number; digits glued to a name (`Qwen2.5`)
    stay writable. Without it a small model drops a figure ("7B" from a method), adds one to fields that had
    none and, allowed any lone digit, runs on into "1, 2, 3, …" until llm.max_tokens. The text is capped
    at CHINESE_SHARE of the English cap (a translation that ran to the English caps ran into llm.max_tokens);
    llama.cpp applies the pattern to the raw JSON string, so an escape must be a valid one (a TeX backslash
    comes out as \\)."""
    carried = carried_numbers(english)
    cap = CHINESE_SHARE * STRING_CAPS[kind] // 100 // (2 if carried else 1)
    between = rf"({_NO_DIGIT}|{_NAME_DIGITS}({_NO_DIGIT})){{0,{cap}}}"
    # a number stands between characters that are no Latin letter, digit or dot, as the checker reads a
    # number: "perform12.1%" (a small model writes it) and "120GPU" hold none, "2760%" is not 27;
    # the Chinese character that opens the field or the one after the previous number may be the one before
    before = f"({between}{_BEFORE_FIGURE})?"
    numbers = "".join(
        f"{before}{_literal(text)}{_AFTER_FIGURE}" if required else f"({before}{_literal(text)}{_AFTER_FIGURE})?"
        for text, required in carried
    )
    return {"type": "string", "pattern": rf"^[\u4e00-\u9fff]{numbers}{between}$"}


CHINESE_SHARE = 60  # percent of the English field's cap a translated field may take (Chinese is denser)
_BEFORE_FIGURE = "(" + _json_char(r"A-Za-z0-9._\-") + ")"
_AFTER_FIGURE = "(" + _json_char("A-Za-z0-9.") + ")"


def _mind_map_schema(shape: MindMapNode | None, depth: int, figures: list[str] | None = None) -> dict[str, Any]:
    """A node: a capped label and children, either exactly like `shape` or up to `depth` levels."""
    # An empty list is written with items and maxItems 0: prefixItems must not be empty (JSON Schema),
    # and llama.cpp's grammar converter needs items or prefixItems to build an array rule.
    no_children: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    if shape is not None:
        children: dict[str, Any] = (
            {
                "type": "array",
                "prefixItems": [_mind_map_schema(c, depth) for c in shape.children],
                "minItems": len(shape.children),
                "maxItems": len(shape.children),
            }
            if shape.children
            else no_children
        )
    elif depth > 1:
        children = {
            "type": "array",
            "items": _mind_map_schema(None, depth - 1, figures),
            "maxItems": MIND_MAP_CHILDREN,
        }
    else:
        children = no_children
    # A translated label starts in Chinese when its English is a phrase (the checker's rule); a name stays.
    if shape is not None:
        label = _chinese("label", shape.label) if must_be_chinese(shape.label, label=True) else _capped("label")
    else:
        label = _prose("label", figures)
    return {
        "type": "object",
        "properties": {"label": label, "children": children},
        "required": ["label", "children"] if shape is not None else ["label"],
        "additionalProperties": False,
    }


MIND_MAP_CHILDREN = 6
