"""What the role classifier sees of a sentence: its words, cue phrases, figures, and its place in the abstract
(docs/reading.md, "The model"). Training (bench/roles.py) and reading use these same functions."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence

Features = dict[str, float]

_TOKEN_RE = re.compile(r"[a-z]+(?:['’-][a-z]+)*|\d+(?:[.,]\d+)*%?|%")
# Cue phrases (docs/reading.md, "Roles of an abstract"; the CSAbstruct README): a few words apart, which single
# words and pairs of neighbouring words cannot see.
# Written in lower case and searched in the lower-cased sentence: twice as fast as re.IGNORECASE.
_CUES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern)
    for name, pattern in {
        "evidence_shows": r"\b(?:results?|experiments?|evaluations?|analys[ie]s|studies|study|simulations?|"
        r"findings|comparisons?|tests?|benchmarks?)\b[^.;]{0,80}?\b(?:show|demonstrate|indicate|reveal|suggest|"
        r"confirm|verify|validate|prove|illustrate)\w*",
        "we_show": r"\bwe\s+(?:also\s+|further\s+|empirically\s+|experimentally\s+)?(?:show|demonstrate|find|found|"
        r"observe|observed|report|verify|confirm|prove|establish)\w*\b",
        "that_clause": r"\b(?:show|demonstrate|indicate|reveal|suggest|confirm|verify|find|found|observe)\w*\s+that\b",
        "outperforms": r"\b(?:outperform|surpass|exceed|beat|improv|achiev|attain|obtain|reach|reduc|boost|"
        r"speed(?:s|ed)?\s*up)\w*",
        "comparative": r"\b(?:better|higher|lower|faster|fewer|superior|competitive|comparable|on par|"
        r"state[- ]of[- ]the[- ]art|significantly|substantially|consistently|considerably)\b",
        "than": r"\bthan\b",
        "recently": r"\b(?:recent(?:ly)?|in recent years|nowadays|increasing(?:ly)?|growing|has attracted|"
        r"have attracted|has received|gained|emerg\w*|popular|widely)\b",
        "has_been": r"\b(?:has|have)\s+(?:been|become|shown|achieved|emerged)\b",
        "gap": r"\b(?:however|but|although|despite|while|remain\w*|challeng\w*|difficult|limited|lack\w*|"
        r"suffer\w*|problem\w*|issue\w*)\b",
        "this_paper": r"\b(?:in|with)\s+this\s+(?:paper|work|article|study|letter|thesis)\b|\bthis\s+(?:paper|work|"
        r"article|study)\b|\bhere\b",
        "we_propose": r"\bwe\s+(?:propose|present|introduce|develop|describe|design|investigate|study|explore|"
        r"address|consider|examine|aim|focus|tackle|formulate)\w*\b",
        "we_use": r"\bwe\s+(?:use|adopt|employ|apply|leverage|utili[sz]e|train|model|first|then|also|further|"
        r"exploit|combine|incorporate|extend|build|compute|define|construct|evaluate|compare|test|conduct)\w*\b",
        "method_words": r"\b(?:based on|consists? of|compris\w*|by (?:using|means of)|specifically|via|through|"
        r"which (?:is|are|uses?)|framework|algorithm|architecture|module|network)\b",
        "we": r"\b(?:we|our|us)\b",
        "future": r"\b(?:future work|in the future|will be|we plan|remains? (?:an )?open|leave\w*)\b",
        "available": r"https?://|www\.|github|\bavailable\b",
        "copyright": r"©|\bcopyright\b|all rights reserved|\belsevier\b|\bieee\b|\bspringer\b",
    }.items()
}
# What surrounds an abstract rather than saying anything: a licence line, a venue, a link, an address, a fragment.
_ARTEFACT = (
    r"(?:code|codes|source code|implementation|models?|weights|checkpoints?|data(?:sets?)?|software|toolkit|demo)"
)
_BOILERPLATE_RE = re.compile(
    r"©|\bcopyright\b|all rights reserved|\b(?:elsevier|springer|wiley|ieee|acm)\b.{0,30}\b(?:ltd|inc|b\.v|press)\b"
    r"|^(?:published|to appear|accepted)\b|^(?:index terms|keywords?|contact|video|demo|home ?page|project page|"
    r"availability)\s*[:—–-]|https?://|www\.|[\w.+-]+@[a-z][\w-]*\.[a-z]{2,}|\bdoi\b|\bgithub\b"
    # where the code or the data is, or will be
    rf"|\b{_ARTEFACT}\b[^.]{{0,60}}\b(?:is|are|will be)\s+(?:made\s+)?(?:publicly\s+|freely\s+)?available\s+"
    r"(?:at|from|online|on|via|upon|soon)\b"
    rf"|\b{_ARTEFACT}\b[^.]{{0,60}}\bwill be\s+(?:made\s+)?(?:publicly\s+|freely\s+)?(?:available|released|"
    r"open[- ]sourced)\b"
    rf"|\bwe\s+(?:will\s+)?(?:publicly\s+)?(?:release|open[- ]source)\s+(?:\w+\s+){{0,3}}?{_ARTEFACT}\b"
    r"|\bsupported by\b.{0,40}\b(?:grant|foundation)",
    re.IGNORECASE,
)
# Every match of _BOILERPLATE_RE holds one of these (lower-cased).
_BOILERPLATE_WORDS = (
    "©", "copyright", "rights reserved", "elsevier", "springer", "wiley", "ieee", "acm", "published", "to appear",
    "accepted", "index terms", "keyword", "contact", "video", "demo", "page", "availability", "http", "www.", "@",
    "doi", "github", "available", "release", "open", "supported",
)  # fmt: skip
_LETTER_WORD_RE = re.compile(r"[A-Za-z]{2,}")
_PERCENT_RE = re.compile(r"\d(?:[.,]\d+)?\s*%|\bpercent\b")
_FIGURE_RE = re.compile(r"\d")
_TIMES_RE = re.compile(r"\b\d+(?:\.\d+)?\s*[x×]\b|\b\d+(?:\.\d+)?-?(?:fold|times)\b")


def sentence_features(sentence: str, cues: Sequence[str] | None = None) -> Features:
    """The sentence on its own: its words and pairs of words, its first words, its cue phrases (`cues`, when
    already found) and figures."""
    tokens = _tokens(sentence)
    feats: Features = {f"w={t}": 1.0 for t in tokens}
    feats.update({f"b={a}_{b}": 1.0 for a, b in itertools.pairwise(tokens)})
    feats.update({f"first={t}": 1.0 for t in tokens[:2]})
    if len(tokens) >= 2:
        feats[f"first2={tokens[0]}_{tokens[1]}"] = 1.0
    feats.update({f"cue={name}": 1.0 for name in (cue_names(sentence) if cues is None else cues)})
    if _PERCENT_RE.search(sentence):
        feats["shape=percent"] = 1.0
    if _TIMES_RE.search(sentence):
        feats["shape=times"] = 1.0
    if _FIGURE_RE.search(sentence):
        feats["shape=digit"] = 1.0
    feats[f"len={min(len(tokens) // 8, 6)}"] = 1.0
    return feats


def cue_names(sentence: str) -> list[str]:
    """The cue phrases a sentence holds, by name (what the neighbours of a sentence contribute)."""
    lowered = sentence.lower()
    return [name for name, pattern in _CUES.items() if pattern.search(lowered)]


def is_boilerplate(sentence: str) -> bool:
    """A sentence around an abstract's content, not part of it: a copyright or venue line, a link to code or a
    demo, an address, a fragment of fewer than three words."""
    if len(_LETTER_WORD_RE.findall(sentence)) < 3:
        return True
    lowered = sentence.lower()  # the pattern is slow; most sentences hold none of the words it needs
    return any(word in lowered for word in _BOILERPLATE_WORDS) and _BOILERPLATE_RE.search(sentence) is not None


def abstract_features(sentences: Sequence[str]) -> list[Features]:
    """Each sentence of an abstract's content (boilerplate left out first: `is_boilerplate`) with its place in it
    (first, last, which fifth, how far from the end), its cue phrases at that place, and its neighbours' cue
    phrases."""
    cues = [cue_names(s) for s in sentences]
    rows = []
    for i, sentence in enumerate(sentences):
        feats = sentence_features(sentence, cues[i])
        feats.update(position_features(i, len(sentences)))
        from_end = min(len(sentences) - 1 - i, 3)
        feats.update({f"from_end={from_end}&cue={c}": 1.0 for c in cues[i]})
        for offset, prefix in ((-1, "prev"), (1, "next")):
            j = i + offset
            if 0 <= j < len(sentences):
                feats.update({f"{prefix}_cue={c}": 1.0 for c in cues[j]})
            else:
                feats[f"{prefix}=none"] = 1.0
        rows.append(feats)
    return rows


def position_features(i: int, n: int) -> Features:
    """Where sentence `i` of `n` stands: its fifth, its third, first, last, second or third from the end."""
    relative = i / max(n - 1, 1)
    return {
        f"pos5={min(int(relative * 5), 4)}": 1.0,
        f"pos3={min(int(relative * 3), 2)}": 1.0,
        "pos=relative": relative,
        f"from_end={min(n - 1 - i, 3)}": 1.0,
        f"from_start={min(i, 3)}": 1.0,
        f"count={min(n, 12) // 3}": 1.0,
    }


def context_features(first_pass: Sequence[Sequence[float]], roles: Sequence[str]) -> list[Features]:
    """The second reading of an abstract: each sentence's first-pass role probabilities, its neighbours' (two
    each side), the abstract's (mean per role, its two most result-like sentences) and the sentence's rank among
    them as a result: a sentence is judged next to the others, as a reader does."""
    n = len(first_pass)
    result = roles.index("result")
    scores = [row[result] for row in first_pass]
    ranked = sorted(range(n), key=lambda i: -scores[i])
    rank = {i: r for r, i in enumerate(ranked)}
    shared: Features = {f"mean_{role}": sum(row[k] for row in first_pass) / n for k, role in enumerate(roles)}
    shared["best_result"] = scores[ranked[0]]
    shared["second_result"] = scores[ranked[1]] if n > 1 else 0.0
    rows = []
    for i, row in enumerate(first_pass):
        feats = dict(shared)
        feats.update({f"own_{role}": math.log(max(p, 1e-6)) for role, p in zip(roles, row, strict=True)})
        for offset in (-2, -1, 1, 2):
            j = i + offset
            if 0 <= j < n:
                feats.update({f"at{offset:+d}_{role}": p for role, p in zip(roles, first_pass[j], strict=True)})
            else:
                feats[f"at{offset:+d}=none"] = 1.0
        feats[f"rank={min(rank[i], 3)}"] = 1.0
        feats["gap"] = scores[i] - max((scores[j] for j in range(n) if j != i), default=0.0)
        feats.update(position_features(i, n))
        rows.append(feats)
    return rows


def _tokens(sentence: str) -> list[str]:
    """Lower-cased words; a figure becomes `<pct>` or `<num>`, so the classifier learns figures, not values."""
    return [
        ("<pct>" if t.endswith("%") else "<num>") if t[0].isdigit() or t == "%" else t
        for t in _TOKEN_RE.findall(sentence.lower())
    ]
