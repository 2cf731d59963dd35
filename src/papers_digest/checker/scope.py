"""A field keeps the scope of the sentence it was written from (docs/checker.md, "The rules", rule `scope`):
no superiority where the sentence says parity, no hedge dropped from a figure it keeps ("up to", "on average",
"about"), no negation turned over, and a figure kept with its direction (a decrease), the benchmark, the model
size and the baseline the sentence states it for (what those are: qualifiers.py).

Science summaries over-generalise: LLMs drop a result's scope far more often than people, and these are the
rule checks that catch most of it (docs/design.md §7)."""

from __future__ import annotations

import re

from papers_digest.checker.direction import decreasing_figures
from papers_digest.checker.numbers import Number, prose_numbers
from papers_digest.checker.qualifiers import (
    HEDGES,
    SIZE_RE,
    baseline_of,
    benchmarks_in,
    hedge_before,
    names_baseline,
    negation_dropped,
    word_figure_hedge_dropped,
)

_PARITY_RE = re.compile(
    r"\b(?:comparabl[ey]|on par|competitive|matches|matching|match|similar(?:ly)?|as good as|as well as|close to|"
    r"rivals?|on a par|equivalent)\b",
    re.IGNORECASE,
)
# A claim to be better than something: the comparatives, and in a digest's words a claim to be the best.
_COMPARATIVE_RE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|beats?|beating|better than|superior|exceed\w*|higher than|stronger than)\b",
    re.IGNORECASE,
)
# Praise, a claim to be the best: "optimal" too ("ensuring optimal token efficiency" for MergeVQ's "favorable").
_PRAISE = "optimal|exceptional|excellent|outstanding|superb|unmatched|unprecedented"
_FIELD_TERM_AFTER = "transport|control|stopping|polic(?:y|ies)"  # "optimal transport" is a field's term, no praise
_SUPERIORITY_RE = re.compile(
    rf"{_COMPARATIVE_RE.pattern}|\b(?:state-of-the-art|sota|optimally|"
    rf"(?:{_PRAISE})(?![- ](?:{_FIELD_TERM_AFTER})\b))\b",
    re.IGNORECASE,
)
_COMPARED_RE = re.compile(r"\b(?:compared|in comparison)\s+(?:to|with)\b", re.IGNORECASE)
# A claim to be worse than something ("below" before a figure is a hedge, not a comparison).
_INFERIORITY_RE = re.compile(
    r"\b(?:below(?!\s*[\d~≈])|worse|falls?\s+(?:far\s+|well\s+)?short|falling\s+short|underperform\w*|lags?\s+behind|"
    r"lagging\s+behind|trails?|trailing|inferior)\b",
    re.IGNORECASE,
)
# A sentence that says something is better or worse at all: a superiority a finding words otherwise is its own.
_COMPARES_RE = re.compile(
    rf"{_SUPERIORITY_RE.pattern}|\b(?:than|improv\w*|gains?|versus|vs\.?|better|higher|lower|faster|slower|fewer|less|"
    r"more|reduc\w*|increas\w*|boost\w*|advantage\w*|superiority)\b",
    re.IGNORECASE,
)
# A gain claimed by a verb, and any word of change that lets a field say one: MergeVQ's "while maintaining
# favorable token efficiency and inference speed" came back as "while enhancing efficiency and speed" (the sample
# run at e6798fc), and its Chinese said 提高了效率和速度; "optimizing" too (at 45e7f15, its Chinese 优化了), a
# verb only: "policy optimization" names a method.
_GAIN_RE = re.compile(
    r"\b(?:improv\w*|enhanc\w*|increas\w*|boost\w*|rais(?:e|es|ed|ing)|accelerat\w*|speed(?:s|ing)?\s+up|"
    r"optimiz(?:es|ing))\b",
    re.IGNORECASE,
)
_CHANGE_RE = re.compile(
    rf"{_COMPARES_RE.pattern}|{_GAIN_RE.pattern}|\b(?:faster|quicker|cuts?|cutting|shorter|speedups?)\b",
    re.IGNORECASE,
)
# A claim of size: a digest may say it where the sentence says any of them ("drastically" -> "significantly").
_INTENSIFIER_RE = re.compile(
    r"\b(?:significant(?:ly)?|substantial(?:ly)?|drastic(?:ally)?|dramatic(?:ally)?|greatly|considerabl[ey]|"
    r"marked(?:ly)?|remarkabl[ey]|notabl[ey]|strong(?:ly)?|large(?:ly)?|vast(?:ly)?|huge(?:ly)?|massive(?:ly)?)\b"
    # "large language models" names a kind of model, not a size the paper claims
    r"(?!\s+(?:language|vision|multimodal|multi-modal|reasoning|foundation|audio|video|action)[- ]"
    r"(?:\w+[- ])?models?\b)",
    re.IGNORECASE,
)
# A superiority said by a verb; what may follow it where it has no object ("outperforms in both tasks").
_OUTPERFORM_RE = re.compile(r"\boutperform(s|ed|ing)?\b")
_NO_OBJECT_RE = re.compile(r"\s*(?:[,.;:]|$|(?:in|on|at|across|with|while|and|when|under|over|by|for)\b)")
_INTENSIFIER_ADVERB_RE = re.compile(
    r"\s*\b(?:significantly|substantially|drastically|dramatically|greatly|considerably|markedly|remarkably|"
    r"notably|strongly|vastly|hugely|massively)\b",
    re.IGNORECASE,
)
# The same size said by an adjective before its noun ("significant obstacles"): taken out with it, "a" before
# it then agreeing with the next word; an adjective after a verb ("the gain is significant") is left to the rule.
_INTENSIFIER_ADJECTIVE_RE = re.compile(
    r"\b(?:(an?)\s+)?(?:significant|substantial|considerable|drastic|dramatic|remarkable|tremendous|massive|"
    r"huge|vast)\s+(?!(?:in|for|to|at|and|or|but|as|when|with|because|on|of|enough)\b)(?=(\w))",
    re.IGNORECASE,
)

# Praise said by an adjective before its noun ("optimal token efficiency", "an exceptional gain"): taken out where
# the sentence compares nothing, as sizes are; a field's terms ("optimal transport") stay.
_PRAISE_ADJECTIVE_RE = re.compile(
    rf"\b(?:(an?)\s+)?(?:{_PRAISE})\s+(?!(?:{_FIELD_TERM_AFTER}|in|for|to|at|and|or|but|as|when|with|on|of)\b)(?=(\w))",
    re.IGNORECASE,
)


def scope_dropped(text: str, sentence: str) -> str | None:
    """What `text` changed of the scope of `sentence`, in words, or None when it kept it."""
    claimed = _SUPERIORITY_RE.search(text) and not _PARITY_RE.search(text)
    if claimed and _PARITY_RE.search(sentence) and not _COMPARATIVE_RE.search(sentence):
        said = _SUPERIORITY_RE.search(text).group(0)  # type: ignore[union-attr]
        parity = _PARITY_RE.search(sentence).group(0)  # type: ignore[union-attr]
        return f"says {said!r} where the paper says {parity!r}: keep the comparison as the paper states it"
    negation = negation_dropped(text, sentence)
    if negation:
        return f"drops {negation!r}: the paper's sentence says it is not so; keep the negation"
    worse = _INFERIORITY_RE.search(sentence)
    if worse and not _INFERIORITY_RE.search(text) and not re.search(r"\b(?:lower|less|short)\b", text, re.I):
        return f"drops {worse.group(0)!r}: the paper's sentence says it is worse; keep the comparison's direction"
    better = _COMPARATIVE_RE.search(sentence)
    if better and not _COMPARES_RE.search(text):
        # AnimeGamer's "outperforms existing methods in various aspects of the gaming experience" written as
        # "AnimeGamer excels in multiple gaming areas" (the sample run at b5ee195): a claim of its own, no longer
        # the paper's comparison
        return f"drops {better.group(0)!r}: the paper's sentence says it is better than something; keep the comparison"
    beaten = _BEATS_BENCHMARK_RE.search(text)
    if beaten and not _BEATS_BENCHMARK_RE.search(sentence):
        return f"says it {beaten.group(0)!r}: a benchmark is the test, not a rival; say what the paper compares with"
    added = _added_claim(text, sentence)
    if added:
        return f"claims {added!r}, which the paper's sentence does not: say only what it states"
    if words_hedged := word_figure_hedge_dropped(text, sentence):
        return f"drops {words_hedged[0]!r} before {words_hedged[1]}: keep it, as the paper states it"
    kept = [n for n in prose_numbers(text) if any(n.matches(f) for f in prose_numbers(sentence))]
    if not kept:
        return None
    for figure in kept:
        hedge = hedge_before(sentence, figure)
        if hedge is not None and hedge_before(text, figure) != hedge:
            return f"drops {HEDGES[hedge][0]!r} before {figure.text}: keep it, as the paper states it"
    lost = decrease_dropped(text, sentence)
    if lost:
        return lost
    sizes = set(SIZE_RE.findall(sentence))
    if sizes and not any(size in text for size in sizes):
        return f"drops the model size ({', '.join(sorted(sizes))}) the figure is for: keep it"
    benchmarks = benchmarks_in(sentence)
    if benchmarks and not any(b in text for b in benchmarks):
        return f"drops the benchmark the figure is measured on ({', '.join(benchmarks[:3])}): keep it"
    baseline = baseline_of(sentence)
    if baseline and not names_baseline(text, baseline):
        return f"drops what the figure is compared with ({baseline!r}): keep it"
    return None


def decrease_dropped(text: str, sentence: str) -> str | None:
    """A figure `sentence` says went down that `text` keeps without the decrease, in words: GlimpRouter's
    "reducing inference latency by 25.9%" came back as "improves … latency by 25.9%" (the 2026-01-13 listing at
    30a28be), and its Chinese raised the latency (提高). Only a change by a share, a ratio or a count: "4K" is a
    resolution, whatever verb stands before it."""
    down = decreased(sentence)
    said_down = decreasing_figures(text)
    for figure in prose_numbers(text):
        if any(figure.matches(d) for d in down) and not any(figure.matches(d) for d in said_down):
            return f"says {figure.text} without the decrease the paper states: say it went down (reduced, lower, fewer)"
    return None


def decreased(sentence: str) -> list[Number]:
    """The figures `sentence` says went down that a field must say so of: shares, ratios and counts."""
    return [d for d in decreasing_figures(sentence) if d.unit.lower() in ("", "%", "×", "x")]


def parity_only(text: str) -> str | None:
    """The word by which `text` says something is on a par ("competitive", "comparable"), where it says nothing
    is better, worse, higher or the best; None otherwise. A translation of it claims no superiority."""
    parity = _PARITY_RE.search(text)
    if parity is None or _COMPARES_RE.search(text) or _INFERIORITY_RE.search(text) or _BEST_RE.search(text):
        return None
    return parity.group(0)


def states_change(text: str) -> bool:
    """Whether `text` says anything changed, compares or gains ("improves", "higher", "outperforms", "cuts"): a
    translation of a text that does not claims no gain."""
    return _CHANGE_RE.search(text) is not None


def claims_size(text: str) -> bool:
    """Whether `text` claims a size ("significantly", "drastic", "vastly"): a translation of a text that does not
    adds none."""
    return _INTENSIFIER_RE.search(text) is not None


_BEST_RE = re.compile(r"\b(?:best|leading|top|first)\b", re.IGNORECASE)


def _added_claim(text: str, sentence: str) -> str | None:
    """A comparison `text` makes that `sentence` does not: parity where it states none, a superiority or a gain
    where it compares nothing, "significantly" where it claims no size."""
    for claimed, stated in (
        (_PARITY_RE, _PARITY_RE),
        (_SUPERIORITY_RE, _COMPARES_RE),
        (_GAIN_RE, _CHANGE_RE),
        (_INTENSIFIER_RE, _INTENSIFIER_RE),
    ):
        found = claimed.search(text)
        if found and not stated.search(sentence):
            return found.group(0)
    return None


def without_added_intensifiers(text: str, sentence: str) -> str:
    """`text` with the adverbs of size ("significantly", "dramatically") and the adjectives before a noun
    ("significant obstacles") taken out where `sentence` claims no size: a small model adds them to findings
    (removing one changes no fact, keeping one claims what the paper does not)."""
    if _INTENSIFIER_RE.search(sentence):
        return text
    text = _INTENSIFIER_ADJECTIVE_RE.sub(article_for_next_word, text)
    return " ".join(_INTENSIFIER_ADVERB_RE.sub("", text).split())


def without_added_praise(text: str, sentence: str) -> str:
    """`text` with the adjectives of praise before a noun ("ensuring optimal token efficiency") taken out where
    `sentence` compares nothing: MergeVQ's "favorable token efficiency" came back as "optimal" (rule `scope`)."""
    if _COMPARES_RE.search(sentence):
        return text
    return " ".join(_PRAISE_ADJECTIVE_RE.sub(article_for_next_word, text).split())


def without_added_comparison(text: str, sentence: str) -> str:
    """`text` without its last clause where that clause makes a kind of comparison the sentence never makes (a
    parity, a superiority or a state of the art) and states none of its figures; the rest, of HEAD_WORDS words
    or more, said as a sentence. InfGen's finding on the 2025-09-15 listing at 661478b added ", which is about 4
    times faster than the current state-of-the-art" and ", comparable to state-of-the-art models" to a sentence
    that compares with nothing, in all 6 rounds."""
    head, comma, clause = text.strip().rstrip(".").rpartition(", ")
    if not comma or len(head.split()) < HEAD_WORDS:
        return text
    # a kind of comparison the sentence makes too may stay ("comparably" for its "comparable"); "compared to" is
    # one (InfGen's summary on the 2025-09-15 listing at bd94e11 closed ", compared to traditional 4K generation
    # times", and its Chinese said 比传统的4K生成速度快得多, "much faster")
    claimed = [r for r in (_PARITY_RE, _SUPERIORITY_RE, _COMPARED_RE) if r.search(clause)]
    if not claimed or any(r.search(sentence) for r in claimed):
        return text
    figures = prose_numbers(sentence)
    if any(n.matches(f) for n in prose_numbers(clause) for f in figures):
        return text
    return f"{head}."


HEAD_WORDS = 6  # the fewest words a finding keeps where the program takes a clause off


def with_state_of_the_art_kept(text: str, sentence: str) -> str:
    """`text` with "a new benchmark" said as the new state of the art `sentence` claims, where the sentence names
    no benchmark: asked about R1-Zero's "… achieves 43.3% accuracy on AIME 2024 …, establishing a new
    state-of-the-art", the 1.5B model wrote "setting a new benchmark" in its summary and finding (the sample run
    at d9e4f29), and the Chinese said it broke a benchmark (打破了基准): a benchmark is a test, not a record. So is
    "breaking new ground" or "breaking the record" said as setting a new state of the art, where the sentence
    names a benchmark too. And praise for it ("outstanding performance": X-Part's finding on the 2025-09-15
    listing at fa54def, for "achieves state-of-the-art performance") is said as the state of the art."""
    if not _STATE_OF_THE_ART_RE.search(sentence):
        return text
    if not _STATE_OF_THE_ART_RE.search(text):
        text = _PRAISED_RESULT_RE.sub("state-of-the-art ", text)
    # "breaking new ground" is being first, not best: the Chinese said 打破了新纪录 (the sample run at 3ad5929)
    text = _NEW_GROUND_RE.sub(lambda m: f"{_SET[m.group(1).lower()]} a new state of the art", text)
    if re.search(r"\bbenchmarks?\b", sentence, re.IGNORECASE):
        return text
    return _NEW_BENCHMARK_RE.sub(lambda m: f"{m.group(1)} new state of the art", text)


def with_pair_kept(text: str, sentence: str) -> str:
    """`text` with the first of a pair `sentence` names ("both A and B") said whole where `text` cut it to its
    opening words: MergeVQ's "competitive performance in both visual representation learning and image generation
    tasks" came back as "in both visual and image generation tasks" in the sample runs at 2eeabdd and 291fff1,
    a task lost."""
    stated = _BOTH_RE.search(sentence)
    if stated is None:
        return text
    whole = stated.group(1).split()

    def said_whole(match: re.Match[str]) -> str:
        cut = match.group(1).split()
        if len(cut) < len(whole) and [w.casefold() for w in whole[: len(cut)]] == [w.casefold() for w in cut]:
            return f"{match.group(0)[: match.start(1) - match.start(0)]}{' '.join(whole)} and "
        return match.group(0)

    return _BOTH_RE.sub(said_whole, text, count=1)


# A pair: "both" and its first member, up to five words before "and".
_BOTH_RE = re.compile(r"\bboth\s+((?:[\w-]+\s+){0,4}?[\w-]+)\s+and\s+", re.IGNORECASE)


_STATE_OF_THE_ART_RE = re.compile(r"\bstate[- ]of[- ]the[- ]art\b|\bSOTA\b", re.IGNORECASE)
_PRAISED_RESULT_RE = re.compile(rf"\b(?:an?\s+)?(?:{_PRAISE})\s+(?=(?:performance|results?)\b)", re.IGNORECASE)
_NEW_BENCHMARK_RE = re.compile(r"\b(an?|the)\s+new\s+benchmark\b", re.IGNORECASE)
# "breaking new ground", and "breaking the record" (R1-Zero's finding at 9ea04b0, its Chinese 打破了记录)
_NEW_GROUND_RE = re.compile(
    r"\b(breaks|breaking|broke|break)\s+(?:new\s+ground|(?:the|a)\s+(?:new\s+)?record)\b", re.IGNORECASE
)
_SET = {"breaks": "sets", "breaking": "setting", "broke": "set", "break": "set"}


def article_for_next_word(match: re.Match[str]) -> str:
    """What stands for a word taken out after an article (group 1, or none) and before the next word's first
    letter (group 2): the article agreeing with that word ("an innovative framework" -> "a framework")."""
    article = match.group(1)
    if article is None:
        return ""
    agreeing = "an" if match.group(2).lower() in "aeiou" else "a"
    return (agreeing.capitalize() if article[0].isupper() else agreeing) + " "


def with_comparison_kept(text: str, sentence: str) -> str:
    """`text` with a superiority that names nothing it beats said as the comparison `sentence` states: as parity
    where the sentence states parity and no superiority ("outperforms in both tasks" -> "performs comparably in
    both tasks", "superior image generation" -> "competitive image generation": asked about MergeVQ's "achieves
    competitive performance", the 1.5B model wrote "outperforms" or "superior" in most rounds of most runs), as
    "performs better" where it states a superiority, and so is one over "the benchmark" where the sentence beats
    none. A superiority over something ("outperforms ImageNet", "superior to VQGAN") is left to the rule: what it
    names may be wrong too."""
    if _COMPARATIVE_RE.search(sentence):
        # a benchmark is the test, not a rival: "outperforms the benchmark in both …" for HANRAG's "obtains
        # superior performance in both …" (the 2025-09-15 listing at 9ea04b0; the Chinese read 优于基准)
        if not _BEATS_BENCHMARK_RE.search(sentence):
            text = _BEATS_BENCHMARK_RE.sub(lambda m: m.group(1), text)
        # better than nothing named: "performs better" (HANRAG's summary on the 2025-09-15 listing at 958fba9,
        # "The paper's framework outperforms in both single-hop and multi-hop question answering tasks", where its
        # sentence says "superior performance" and names what it beats in another; the Chinese ended 优于。)
        return _OUTPERFORM_RE.sub(lambda m: _performs(m, "better"), text)
    if not _PARITY_RE.search(sentence):
        return text
    text = _OUTPERFORM_RE.sub(lambda m: _performs(m, "comparably"), text)
    return re.sub(r"\bsuperior\b(?!\s+to\b)", "competitive", text)


# A superiority over "the benchmark": the verb, and what it beats.
_BEATS_BENCHMARK_RE = re.compile(
    r"\b(outperform(?:s|ed|ing)?)\s+(?:the\s+|all\s+|existing\s+|other\s+)?benchmarks?\b", re.IGNORECASE
)


def _performs(match: re.Match[str], how: str) -> str:
    """An "outperforms" with no object as "performs <how>"; one with an object stays as written."""
    if _NO_OBJECT_RE.match(match.string, match.end()) is None:
        return match.group(0)
    return "perform" + (match.group(1) or "") + f" {how}"


def with_hedges_kept(text: str, sentence: str) -> str:
    """`text` with each hedge of `sentence` put back before the figure it bounds, where `text` keeps the figure
    and dropped the hedge ("improves by 60%" -> "improves by about 60%"): the figure is the same token, the
    hedge the paper's own words."""
    for figure in prose_numbers(sentence):
        hedge = hedge_before(sentence, figure)
        if hedge is None:
            continue
        written = next((n for n in prose_numbers(text) if n.matches(figure)), None)
        if written is None or hedge_before(text, written) == hedge:
            continue
        at = text.find(written.text)
        if at >= 0:
            text = f"{text[:at]}{HEDGES[hedge][0]} {text[at:]}"
    return text


def comparison_in(sentence: str) -> str | None:
    """The word by which a sentence says something is on a par with, worse or better than another
    ("comparable", "below", "outperforms"), which a finding must keep; None where it says none."""
    found = _PARITY_RE.search(sentence) or _INFERIORITY_RE.search(sentence) or _COMPARATIVE_RE.search(sentence)
    return found.group(0) if found else None


def scope_words(sentence: str) -> list[str]:
    """What of a sentence a digest must keep as written: its words of comparison (parity, worse, better), each
    hedge with the figure it bounds, its model sizes, its benchmarks and what a figure is compared with (the
    question names them, so a small model keeps them)."""
    found = [m.group(0) for r in (_PARITY_RE, _INFERIORITY_RE, _COMPARATIVE_RE) for m in r.finditer(sentence)][:2]
    for figure in prose_numbers(sentence):
        hedge = hedge_before(sentence, figure)
        if hedge is not None:
            found.append(f"{HEDGES[hedge][0]} {figure.text}")
    found += sorted(set(SIZE_RE.findall(sentence))) + benchmarks_in(sentence)[:2]
    baseline = baseline_of(sentence)
    if baseline:
        found.append(baseline)
    return list(dict.fromkeys(found))
