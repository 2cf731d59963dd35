"""A digest as translation units, each judged against its English, and the Chinese digest they make.

A unit is what a small model translates whole: a sentence of a prose field, a finding's sentence, a limitation,
a mind-map label, the title (docs/translation.md, "Sentence by sentence"). Its names are placeholders
(checker/placeholders.py); the glossary's terms it holds are given with its request. The program assembles
the Chinese digest: the same keys and array lengths, each result's `numbers` and `sections` copied.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from papers_digest.checker.chinese import cjk_share, zh_ratio
from papers_digest.checker.direction import (
    beaten_made_winners,
    benchmarks_made_owners,
    comparisons_added,
    cost_raised,
    decreases_lost,
    gain_said,
    negation_lost,
    superiority_said,
)
from papers_digest.checker.fields import prose_fields
from papers_digest.checker.paths import set_field
from papers_digest.checker.phrases import phrase_parts
from papers_digest.checker.placeholders import Protected, mark_pattern, marks_in, protect
from papers_digest.checker.problems import Problem
from papers_digest.checker.scope import parity_only, states_change
from papers_digest.checker.zh_claims import (
    level_dropped,
    level_turned,
    means_added,
    mended,
    question_added,
    said_of_itself,
)
from papers_digest.checker.zh_figures import number_difference, word_figures_lost
from papers_digest.checker.zh_words import (
    EnglishFacts,
    ends_on_quality,
    ends_without_object,
    said_in_chinese,
    with_left_terms_rendered,
    word_problems,
)
from papers_digest.core.models import Digest
from papers_digest.reading.glossary import whole_term
from papers_digest.reading.names import title_names

UnitKind = Literal["title", "sentence", "label"]
# A sentence ends at . ! or ? before a capital, a digit, a quote or a bracket, except after an abbreviation.
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(\[])")
_ABBREVIATION_RE = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Dr|Mr|Ms|No|approx|resp)\.|\b[A-Z]\.)$"
)
_LATIN_RE = re.compile(r"[A-Za-z]")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# An answer's label before the translation ("中文：", "Translation:"), taken off.
_LABEL_RE = re.compile(r"^\s*(?:\*\*)?(?:中文|译文|翻译|Chinese|Translation|Answer)(?:\*\*)?\s*[:：]\s*", re.I)
_QUOTES = "\"'“”‘’「」『』"
# A unit is about as long as its English: (CJK characters + Latin words) per English word at most UNIT_RATIO[1]
# (a clause added) and at least UNIT_RATIO[0] (one dropped); a placeholder counts as one word either side.
# Measured on the faithful sentences of tests/data/zh/units.json: 1.5-2.1; the review's sentence with a clause
# added ("这个过程在图 一中 illustrated …"): 3.9.
UNIT_RATIO = (0.6, 3.4)
# A run of this many Chinese characters written twice in a unit is a phrase said twice (about four English words):
# none of the 284 Chinese texts of tests/data and the sample run at d9e4f29 has one but that run's MergeVQ summary.
REPEATED_CJK = 8
_CJK_RUN_RE = re.compile(f"{_CJK_RE.pattern}+")
MOSTLY_CHINESE = 0.5  # the least share of Chinese (`cjk_share`) of a unit's answer that is a translation at all
MIN_MEASURED_WORDS = 5  # shorter units (labels, short titles) vary too much to be measured
CLAUSE_WORDS = 4  # a clause asked apart has at least this many words


@dataclass(frozen=True)
class Unit:
    """One unit: the field it is part of, its place there, its English, and what the checker reads in it."""

    path: str  # "title", "problem", "results[1].finding", "mind_map.children[0].label"
    index: int  # the sentence of the field
    english: str
    kind: UnitKind
    protected: Protected
    facts: EnglishFacts
    lead: str = ""  # what stands before its translation in the field: "：" after a title's or label's head
    clause: int | None = None  # a clause of a sentence asked apart (`clause_units`)

    @property
    def key(self) -> str:
        return f"{self.path}#{self.index}" + (f".{self.clause}" if self.clause is not None else "")

    @property
    def needs_model(self) -> bool:
        """Whether anything is left to translate once the names are placeholders ("MergeVQ" alone is not)."""
        return _LATIN_RE.search(_without_marks(self.protected.text)) is not None

    @property
    def known_chinese(self) -> str | None:
        """Its Chinese where the program knows it without asking: names alone stay as written, and a label that is
        one glossary term whole takes the glossary's rendering ("Token merging" -> "Token 合并": the 1.5B model
        wrote 词合并 in all 8 rounds of a sample run), and so does a title's part ("R1-Zero-Like Training" of
        "… via R1-Zero-Like Training"); None when the model is asked."""
        if not self.needs_model:
            return self.english
        if self.kind == "sentence":
            return None
        term = whole_term(self.english)
        if term is not None and not term.senses:
            rendering = term.rendering
            return rendering[0].upper() + rendering[1:] if self.english[0].isupper() else rendering
        return self._named_term()

    def _named_term(self) -> str | None:
        """A label that is a name, its suffix written after it, then one glossary term whole: the name and the
        term's rendering ("R1-Zero-like training" -> "R1-Zero式训练": asked as "X1式 training", the 1.5B model
        wrote 训练 alone in all 8 rounds of a sample run at fa4ad3f)."""
        match = re.fullmatch(rf"({mark_pattern(self.protected.form).pattern})(\S*)\s+(.+)", self.protected.text)
        if match is None or match.group(2) not in ("", *(t.zh[0] for t in self.facts.terms if t.after)):
            return None
        term = whole_term(match.group(3))
        if term is None or term.senses or term.keep:
            return None
        name, suffix = self.protected.names[match.group(1)], match.group(2)
        # a suffix joins its name as the model's sentences write it (R1-Zero式训练); a name alone stands apart
        return f"{name}{suffix}{term.rendering}" if suffix else f"{name} {term.rendering}"


def translation_units(english: Digest, title: str | None = None) -> list[Unit]:
    """The units of an English digest, in the digest's order, the title's first when it is known."""
    names = tuple(title_names(title or ""))
    fields: list[tuple[str, str]] = [("title", title)] if title else []
    fields += prose_fields(english)
    units = []
    for path, text in fields:
        kind: UnitKind = "title" if path == "title" else "label" if path.endswith(".label") else "sentence"
        parts = [(s, "") for s in sentences(text)] if kind == "sentence" else phrase_parts(" ".join(text.split()))
        units += [replace(unit_of(part, kind, names, path, i), lead=lead) for i, (part, lead) in enumerate(parts)]
    return units


def unit_of(
    english: str, kind: UnitKind = "sentence", names: tuple[str, ...] = (), path: str = "", index: int = 0
) -> Unit:
    """One unit of `english`: its names (and the paper's title `names` it writes), web addresses and kept terms
    as placeholders, and its glossary terms."""
    facts = EnglishFacts.of(english, names)
    # a name inside a glossary term ("GPU" of "GPU hours", "KV" of "KV cache") stays as written, the term's
    # rendering given: as a placeholder, the 1.5B model read "120 X1 hours" as "120 小时的 X1 模型" in 8 rounds
    in_terms = {word for term in facts.terms for word in term.en.split()}
    kept = [name for name in facts.names if name not in in_terms]
    protected = protect(english, [*kept, *_kept_spellings(english, facts)])
    return Unit(path or kind, index, english, kind, _suffixes_rendered(protected, facts), facts)


def _suffixes_rendered(protected: Protected, facts: EnglishFacts) -> Protected:
    """A name's compound suffix whose rendering follows it, written by the program ("X1-like" -> "X1式", as the
    glossary renders it): asked with "X1-Like", the 1.5B model kept "-Like" in English in every round."""
    text = protected.text
    for term in (t for t in facts.terms if t.after):
        mark = mark_pattern(protected.form).pattern
        text = re.sub(rf"({mark})-{re.escape(term.en)}\b", lambda m, zh=term.zh[0]: m.group(1) + zh, text, flags=re.I)
    return replace(protected, text=text)


def clause_units(unit: Unit) -> list[Unit]:
    """A long sentence's clauses as units of their own, to be asked apart and joined with a Chinese comma
    (`joined_clauses`); [] when it has no two clauses of CLAUSE_WORDS words or more."""
    parts = clauses(unit.english)
    if len(parts) < 2:
        return []
    made = [unit_of(part, unit.kind, unit.facts.names, unit.path, unit.index) for part in parts]
    return [replace(u, clause=k) for k, u in enumerate(made)]


def clauses(text: str) -> list[str]:
    """A sentence cut after its commas and semicolons outside brackets, where both sides hold CLAUSE_WORDS words
    or more ("… 120 GPU hours, our model, fine-tuned from …" stays whole where a side is shorter)."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if ch in ",;" and depth == 0 and text[i + 1 : i + 2] == " ":
            pieces.append(text[start : i + 1].strip())
            start = i + 1
    pieces.append(text[start:].strip())
    merged: list[str] = []
    for piece in pieces:  # a short piece joins the one before it, or the next when it is the first
        if merged and (len(merged[-1].split()) < CLAUSE_WORDS or len(piece.split()) < CLAUSE_WORDS):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged if len(merged) > 1 else [text]


def joined_clauses(parts: list[str]) -> str:
    """The clauses' Chinese as one sentence: each but the last ends with a Chinese comma."""
    inner = [re.sub(r"[，,。.;；\s]+$", "", part) + "，" for part in parts[:-1]]
    return "".join([*inner, parts[-1]]) if parts else ""


def sentences(text: str) -> list[str]:
    """A prose field's sentences (an abbreviation's full stop ends none: "e.g.", "et al.", "Fig.")."""
    parts: list[str] = []
    for piece in _SENTENCE_END_RE.split(" ".join(text.split())):
        if parts and _ABBREVIATION_RE.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece:
            parts.append(piece)
    return parts or [text]


def clean_answer(answer: str) -> str:
    """A unit's answer as its translation: its first paragraph, without a label or quotes around it."""
    first = next((p for p in re.split(r"\n\s*\n", answer.strip()) if p.strip()), "")
    text = _LABEL_RE.sub("", " ".join(first.split()))
    if len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def judge_unit(unit: Unit, answer: str) -> tuple[str, list[Problem]]:
    """A unit's answer, its names put back, what the program mends mended (`zh_claims.mended`: a size and the
    authors' "we" taken out, a "compared to" said in Chinese, 在 before a place, the paper's opening, an acronym
    after its words; a glossary term left in English rendered, `zh_words.with_left_terms_rendered`), and what is
    wrong with it: placeholders lost or altered, then whatever `judge_chinese` finds."""
    text = clean_answer(answer)
    lost = unit.protected.problems(text, [n for n in unit.protected.names.values() if said_in_chinese(n, text)])
    chinese = mended(unit.protected.restore(text), unit.english)
    if cjk_share(chinese) >= MOSTLY_CHINESE:  # an answer in English is rejected as such, never mended into Chinese
        chinese = with_left_terms_rendered(chinese, unit.facts)
    problems = [Problem("zh_placeholder", "", f"copy the placeholders as they are: {'; '.join(lost)}")] if lost else []
    return chinese, problems + judge_chinese(unit, chinese)


def judge_chinese(unit: Unit, chinese: str) -> list[Problem]:
    """What is wrong with a unit's Chinese (its names written out): not Chinese, figures, a decrease said
    otherwise, a beaten name made the winner or a comparison added, names, English words, glossary terms,
    punctuation, a clause added or dropped."""
    if _CJK_RE.search(chinese) is None or cjk_share(chinese) < MOSTLY_CHINESE:
        return [Problem("zh_chinese", "", "not translated, it is mostly English: write the whole sentence in Chinese")]
    problems = []
    missing, extra = number_difference(unit.english, chinese)
    if missing or extra:
        said = _said(missing, extra)
        problems.append(Problem("zh_numbers", "", f"the figures must be the English's, as printed: {said}"))
    for figure in word_figures_lost(unit.english, chinese):
        said = f"the English says {figure!r}: say the same figure (两百万 or 200万 for two million)"
        problems.append(Problem("zh_numbers", "", said))
    lost = decreases_lost(unit.english, chinese)
    if lost:
        said = f"the English says {', '.join(lost)} went down: say the decrease (降低, 减少)"
        problems.append(Problem("zh_direction", "", said))
    for name in beaten_made_winners(unit.english, chinese):
        said = f"the English says {name} is surpassed, not that it surpasses: write 超过{name} (after the verb)"
        problems.append(Problem("zh_direction", "", said))
    if unit.kind == "sentence" and (verb := ends_without_object(chinese)):
        said = f"ends on {verb!r}, a verb with no object: say what, as the English does"
        problems.append(Problem("zh_unfinished", "", said))
    if unit.kind == "sentence" and (quality := ends_on_quality(chinese)):
        said = f"ends on {quality!r}, a quality after the words it describes: say it before them (有利的…)"
        problems.append(Problem("zh_unfinished", "", said))
    if negation := negation_lost(unit.english, chinese):
        said = f"the English says {negation!r}: keep the negation (不, 没有, 无)"
        problems.append(Problem("zh_direction", "", said))
    if raised := cost_raised(unit.english, chinese):
        said = f"says {raised!r}, raised, where the English says it gets better: say 降低 (lower) or 改善"
        problems.append(Problem("zh_direction", "", said))
    if turned := level_turned(chinese, unit.english):
        said = f"says {turned!r}, the opposite level of the English's: say the level the English says (高, 低)"
        problems.append(Problem("zh_direction", "", said))
    if dropped := level_dropped(chinese, unit.english):
        said = f"says {dropped!r} with no level, where the English says it high or low: keep the level (高, 低)"
        problems.append(Problem("zh_direction", "", said))
    if not states_change(unit.english) and (gain := gain_said(chinese)):
        said = f"the English states a level, no gain: do not say {gain} (improved); say what the English says"
        problems.append(Problem("zh_direction", "", said))
    if (parity := parity_only(unit.english)) and (claimed := superiority_said(chinese)):
        said = f"the English says {parity!r}, on a par: say it so (相当, 有竞争力), not {claimed}"
        problems.append(Problem("zh_direction", "", said))
    if means := means_added(chinese, unit.english):
        said = f"says {means} (by means of) where the English names no means: say what the English says"
        problems.append(Problem("zh_added", "", said))
    if asked := question_added(chinese, unit.english):
        said = f"asks a question ({asked}) where the English states: say it as a statement"
        problems.append(Problem("zh_added", "", said))
    if doubled := said_of_itself(chinese):
        problems.append(Problem("zh_added", "", f"says {doubled!r}, a word of itself: say what the English says"))
    for name in benchmarks_made_owners(unit.english, chinese):
        said = f"the English says on {name}, where it was measured: write 在 {name} 上, not {name} 的"
        problems.append(Problem("zh_direction", "", said))
    for name in comparisons_added(unit.english, chinese):
        said = f"the English compares nothing with {name}: say what it says of {name} (a benchmark: 在 {name} 上)"
        problems.append(Problem("zh_direction", "", said))
    return problems + word_problems(chinese, unit.facts) + _length_problems(unit, chinese) + _said_twice(unit, chinese)


def assemble(english: Digest, units: list[Unit], chinese: dict[str, str]) -> dict[str, Any]:
    """The Chinese digest: the English one with each prose field the translations of its units, joined; each
    result's numbers and sections as they are. A `title` unit gives the digest's `title`."""
    digest = copy.deepcopy(english.model_dump(mode="json"))
    by_path: dict[str, list[str]] = {}
    for unit in units:
        said = chinese[unit.key]
        # a label or a title's part is no sentence: PaCoRe's idea "Synthesizes these messages to guide the next
        # round" came back as 将这些消息整合起来，指导下一轮。 on the 2026-01-13 listing at 50db840
        said = said if unit.kind == "sentence" else said.rstrip("。．.")
        by_path.setdefault(unit.path, []).append(unit.lead + said)
    title = by_path.pop("title", None)
    for path, parts in by_path.items():
        set_field(digest, path, _joined(parts))
    return {"title": _joined(title), **digest} if title else digest


def said_twice(chinese: str) -> str | None:
    """A run of REPEATED_CJK Chinese characters the text writes twice, if any."""
    for run in _CJK_RUN_RE.findall(chinese):
        for start in range(len(run) - REPEATED_CJK + 1):
            if chinese.count(run[start : start + REPEATED_CJK]) > 1:
                return run[start : start + REPEATED_CJK]
    return None


def _said_twice(unit: Unit, chinese: str) -> list[Problem]:
    """A sentence that says a phrase twice where its English says it once: the sample's MergeVQ summary at
    d9e4f29 came back as "…在视觉表示学习和图像生成任务中与视觉表示学习和图像生成任务相比…" and passed."""
    english = re.findall(r"[a-z0-9]+", unit.protected.text.casefold())
    trigrams = [tuple(english[i : i + 3]) for i in range(len(english) - 2)]
    if len(set(trigrams)) < len(trigrams) or (run := said_twice(chinese)) is None:
        return []
    return [Problem("zh_added", "", f"says {run!r} twice: translate each clause of the English once")]


def _length_problems(unit: Unit, chinese: str) -> list[Problem]:
    """A sentence far longer than its English says more than it (a clause added); far shorter, less."""
    words = len(re.findall(r"[A-Za-z][A-Za-z'’\-]*", unit.protected.text))  # a placeholder is one word
    if unit.kind != "sentence" or words < MIN_MEASURED_WORDS:
        return []
    ratio = unit_ratio(unit, chinese)
    low, high = UNIT_RATIO
    if ratio > high:
        return [Problem("zh_added", "", "far longer than the English: translate what it says, adding no clause")]
    if ratio < low:
        return [Problem("zh_length", "", "far shorter than the English: translate every clause of it")]
    return []


def unit_ratio(unit: Unit, chinese: str) -> float:
    """A unit's length per English word (UNIT_RATIO), each name counted as one word on both sides."""
    protected_chinese = chinese
    for name in sorted(unit.protected.names.values(), key=len, reverse=True):
        protected_chinese = protected_chinese.replace(name, " N ")
    english = _without_marks(unit.protected.text, " N ")
    return zh_ratio(protected_chinese, english)


def _without_marks(text: str, instead: str = " ") -> str:
    """`text` with its placeholders replaced by `instead`."""
    for mark in reversed(marks_in(text)):
        text = text[: mark.start()] + instead + text[mark.end() :]
    return text


def _kept_spellings(text: str, facts: EnglishFacts) -> list[str]:
    """How the glossary's kept terms are written in `text` ("tokens", "Token"): protected like names."""
    found = []
    for term in facts.terms:
        if term.keep:
            for words in term.spellings():
                pattern = r"[\s\-]+".join(re.escape(w) for w in words)
                found += re.findall(rf"(?<![A-Za-z0-9_]){pattern}(?![A-Za-z0-9_])", text, flags=re.I)
    return found


def _said(missing: list[str], extra: list[str]) -> str:
    said = [f"missing {', '.join(missing)}"] * bool(missing) + [f"{', '.join(extra)} not in the English"] * bool(extra)
    return "; ".join(said)


def _joined(parts: list[str] | None) -> str:
    """Chinese sentences run on without spaces; a space stays between two Latin ends ("… GPT-4o Qwen2")."""
    text = ""
    for part in parts or []:
        gap = " " if text and _LATIN_RE.match(text[-1]) and _LATIN_RE.match(part[:1]) else ""
        text += gap + part
    return text
