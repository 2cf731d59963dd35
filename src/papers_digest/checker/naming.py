"""The digest's names are the paper's (docs/checker.md, "The rules", rules `names` and `acronym`): a name it
writes (mixed case or digits: MergeVQ, vsGRPO-2B, Qwen2-VL-7B; an acronym) is written as the paper or its
title writes it, and an acronym's expansion is the paper's own, or absent."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher

from papers_digest.checker.fields import prose_fields
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.problems import Problem
from papers_digest.checker.substance import ends_as_sentence
from papers_digest.core.models import Digest
from papers_digest.reading.glossary import terms_in, words_of
from papers_digest.reading.names import acronym_definitions, acronyms_in, names_in, spelled_out

# Acronyms of the field everybody writes, which a digest may use where the paper spells the words out
# ("LLMs" for "large language models"): not names of the paper's.
COMMON_ACRONYMS = frozenset(
    {"AI", "LLM", "LLMs", "MLLM", "MLLMs", "VLM", "VLMs", "GPU", "GPUs", "CPU", "CPUs", "API", "APIs", "NLP", "ML",
     "RL", "SOTA", "QA", "OCR", "3D", "2D"}
)  # fmt: skip
# The field's common acronyms' expansions, which a digest may write where the paper writes the acronym alone.
COMMON_EXPANSIONS = {
    "ai": "artificial intelligence",
    "llm": "large language model",
    "mllm": "multimodal large language model",
    "vlm": "vision language model",
    "rl": "reinforcement learning",
    "nlp": "natural language processing",
    "ml": "machine learning",
    "gpu": "graphics processing unit",
    "qa": "question answering",
    "ocr": "optical character recognition",
    "sota": "state of the art",
    "api": "application programming interface",
}
# A name the paper never writes is one of its names misspelt where the two are alike (difflib's ratio) at
# NAME_LIKENESS[1], or at NAME_LIKENESS[0] with the same opening (4 letters) and ending (2): "MergingVQ" and
# MergeVQ 0.75, "Qwen2VL" and Qwen2-VL 0.93; not "VideoDR" and VideoRAG (0.80, other endings), "LLaVA" and LLaMA
# (0.80, other openings: two models), "VQ-merge" and MergeVQ (0.67).
NAME_LIKENESS = (0.7, 0.9)
# "NAME (Words of an expansion)" or "Words of an expansion (NAME)": a name given a meaning in parentheses.
_AFTER_RE = re.compile(r"(?<![\w-])([A-Za-z][\w.-]*[A-Z][\w.-]*)\s+\(([A-Za-z][^()]{3,80}?)\)")
_BEFORE_RE = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,8}[A-Za-z][\w-]*)\s+\(([A-Za-z][\w.-]*[A-Z][\w.-]*)\)")


def names(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """Every name a prose field writes is written so in the paper or its title."""
    known = _paper_names(facts)
    problems = []
    for path, text in prose_fields(digest):
        cut = not path.endswith(".label") and not ends_as_sentence(text)  # its last word may be cut: rule cut_off's
        written = names_in(text.rsplit(" ", 1)[0] if cut else text)
        foreign = [n for n in written if n not in known and n not in COMMON_ACRONYMS and not _figure(n)]
        if foreign:
            near = nearest_name(foreign[0], known)
            problems.append(
                Problem(
                    "names",
                    path,
                    f"writes {foreign[0]!r}, a name the paper never writes: write the paper's names exactly as it "
                    "writes them, and invent none",
                    subjects=(foreign[0], near) if near else (foreign[0],),
                )
            )
    return problems


def terms(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """A prose field (labels aside) uses no term of the glossary of two words or more that the paper never writes,
    in words or as its acronym (asked in steps, where each field is worded from the paper's sentences): VideoDR's
    "video deep research agents" came back as "video deep learning research" on the 2026-01-13 listing at
    8cf3c2e, and InfGen's takeaway called it "comparable to state-of-the-art models" on the 2025-09-15 listing,
    a paper that never says state of the art."""
    paper = f" {' '.join(words_of(facts.whole))} "
    problems = []
    for path, text in prose_fields(digest):
        if path.endswith(".label"):
            continue
        # an acronym's expansion in parentheses is rule acronym's ("Language Model Representations (LRMs)")
        for term in terms_in(_AFTER_RE.sub(" ", _BEFORE_RE.sub(" ", text))):
            # a term of one word is everybody's; one of two or more is the paper's in any of its spellings, one
            # word or more ("pretrained" for pre-training: 2504.01956's problem failed all 6 rounds without it)
            spelled = [" ".join(words) for words in term.spellings()]
            initials = "".join(word[0] for word in words_of(term.en))
            if len(words_of(term.en)) < 2 or any(f" {words} " in paper for words in spelled) or f" {initials}" in paper:
                continue
            said = f"writes {term.en!r}, a term the paper never uses: say what the paper says, in its own terms"
            problems.append(Problem("term", path, said))
    return problems


def nearest_name(written: str, known: Iterable[str]) -> str | None:
    """The one paper name `written` misspells, if any: the same figures, alike (NAME_LIKENESS) and likelier than
    every other ("MergingVQ" for MergeVQ, in a summary of the sample run at 291fff1). A name with other figures
    ("vsGRPO-3B" beside vsGRPO-2B and vsGRPO-7B) is another claim, never mended."""
    figures = re.sub(r"\D", "", written)
    scored = sorted(
        ((_likeness(written, name), name) for name in known if re.sub(r"\D", "", name) == figures and name != written),
        reverse=True,
    )
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _likeness(written: str, name: str) -> float:
    """How alike two spellings are, 0 where they are not alike enough to be one name misspelt."""
    a, b = written.casefold(), name.casefold()
    ratio = SequenceMatcher(None, a, b).ratio()
    framed = a[:4] == b[:4] and a[-2:] == b[-2:]
    return ratio if ratio >= NAME_LIKENESS[1] or (framed and ratio >= NAME_LIKENESS[0]) else 0.0


def with_name_as_written(text: str, written: str, name: str) -> str:
    """`text` with a misspelt name written as the paper writes it (`nearest_name`)."""
    return re.sub(rf"(?<![\w-]){re.escape(written)}(?![\w-])", name, text)


def acronym(digest: Digest, facts: PaperFacts) -> list[Problem]:
    """An acronym or name given an expansion in parentheses is given the paper's own (or none)."""
    # the paper's own expansions: those the name reader finds, and any it writes as a digest would
    found = [*acronym_definitions(facts.whole).items(), *_expansions(facts.whole)]
    defined: dict[str, str] = {}
    for name, meaning in found:
        defined.setdefault(name, _plain(meaning))
    problems = []
    for path, text in prose_fields(digest):
        for name, meaning in _expansions(text):
            if _plain(meaning) in (defined.get(name), *_spellings(facts.whole, name)) or _common(name, meaning):
                continue
            own = f" (the paper's: {name} = {defined[name]})" if name in defined else ""
            problems.append(
                Problem(
                    "acronym",
                    path,
                    f"expands {name} as {meaning!r}, which the paper does not{own}: write {name} alone",
                    subjects=(name, meaning),
                )
            )
            break
    return problems


def acronyms_spelled(digest: Digest, facts: PaperFacts, sources: Mapping[str, Sequence[str]]) -> list[Problem]:
    """(asked in steps) A field does not write an acronym of the sentences it was written from (`sources`, by
    the field's path) as words the paper never writes: "augmented reality" for MergeVQ's AR, its autoregressive.
    The paper's own spelling and the field's common ones ("large language models") may stand."""
    paper = " ".join(facts.whole.casefold().split())
    problems = []
    for path, text in prose_fields(digest):
        said = " ".join(sources.get(path, ()))
        written = acronyms_in(text)
        for name in (n for n in acronyms_in(said) if n not in written):
            spelled = [*spelled_out(text, name), *said_in_its_place(text, said, name)]
            wrong = [p for p in spelled if p.casefold() not in paper and not _common(name, p)]
            if wrong:
                problems.append(
                    Problem(
                        "acronym",
                        path,
                        f"writes {wrong[0]!r} for {name}, words the paper never writes: write {name} as the paper does",
                        subjects=(name, wrong[0]),
                    )
                )
                break
    return problems


def said_in_its_place(text: str, sentence: str, name: str) -> list[str]:
    """The words `text` writes where `sentence` writes the acronym `name`, between the same two words: PaCoRe's
    "scaling effective TTC to roughly two million tokens" came back as "scaling effective token throughput to
    approximately two million tokens" (the 2026-01-13 listing at 983be3c and eb60280), words whose initials do
    not spell it. The word before it must be a word of four letters or more ("effective", not "an")."""
    around = re.search(rf"([A-Za-z][\w-]{{3,}})\s+{re.escape(name)}\s+([A-Za-z][\w-]*)", sentence)
    if around is None:
        return []
    before, after = (re.escape(w) for w in around.groups())
    said = re.search(rf"\b{before}\s+((?:[\w-]+\s+){{0,2}}[\w-]+)\s+{after}\b", text, re.IGNORECASE)
    # two words or more for one acronym (one word may be its spelling: "autoregressive" for AR)
    return [said.group(1)] if said and len(said.group(1).split()) >= 2 else []


def with_acronym_alone(text: str, name: str, meaning: str) -> str:
    """`text` with an expansion it gives `name` taken out, the name alone where the two stood ("… phenomenon in
    Long Short-Term Memory (LRMs)" -> "… phenomenon in LRMs"), or where it wrote the words alone ("effective
    time-to-completion" -> "effective TTC"): what rule `acronym` asks, which the program can do itself
    (GlimpRouter's method on the 2026-01-13 listing at 014b950 invented one in most rounds; PaCoRe's summary at
    d43d456 its TTC's words in the one round that had its figures and benchmark)."""
    alone = text.replace(f"{meaning} ({name})", name).replace(f"{name} ({meaning})", name)
    if alone == text and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is None:
        alone = re.sub(rf"(?<![\w-]){re.escape(meaning)}(?![\w-])", name, text, count=1)
    return alone


def _expansions(text: str) -> list[tuple[str, str]]:
    """The (name, expansion) pairs a text writes, either way round; a parenthesis of one word (a name, a
    figure) is no expansion."""
    found = [(m.group(1), m.group(2)) for m in _AFTER_RE.finditer(text) if len(m.group(2).split()) >= 2]
    found += [(m.group(2), _tail(m.group(1), m.group(2))) for m in _BEFORE_RE.finditer(text)]
    return [(name, meaning) for name, meaning in found if meaning and not prose_numbers(meaning)]


def usual_expansion(name: str) -> str | None:
    """The words a common acronym of the field stands for ("LLMs": "large language model"), or None."""
    return COMMON_EXPANSIONS.get(name.casefold().removesuffix("s"))


def _common(name: str, meaning: str) -> bool:
    """A common acronym given its usual expansion ("large language models (LLMs)"), plural or not."""
    usual = usual_expansion(name)
    return usual is not None and _plain(meaning).removesuffix("s").replace("multi modal", "multimodal") == usual


def _spellings(paper: str, name: str) -> list[str]:
    """Every expansion the paper writes for `name` (a paper may spell it out more than once, in other words)."""
    return [_plain(meaning) for found, meaning in _expansions(paper) if found == name]


def _tail(words: str, name: str) -> str:
    """The words before "(NAME)" that could spell it: as many as its capitals (at least two); else the
    capitalised words right before it, two or more, which a reader takes for its expansion whatever their
    initials ("Long Short-Term Memory (LRMs)" and "Language Model Representations (LRMs)", GlimpRouter's
    large reasoning models, on the 2026-01-13 listing at 014b950); else ""."""
    capitals = sum(c.isupper() for c in name.rstrip("s"))
    tail = words.split()[-max(2, capitals) :]
    initials = "".join(w[0] for w in tail).casefold()
    if initials == "".join(c for c in name if c.isupper()).casefold():
        return " ".join(tail)
    titled = _TITLED_TAIL_RE.search(words)
    return titled.group(0) if titled and len(titled.group(0).split()) >= 2 else ""


# Capitalised words closing a text, small words between them ("Group Relative Policy Optimization", "Mixture of
# Experts"): what a reader takes for an expansion before "(NAME)".
_TITLED_TAIL_RE = re.compile(r"(?:[A-Z][\w-]*\s+(?:(?:of|and|for|the|in|on|to)\s+)?)*[A-Z][\w-]*$")


def _paper_names(facts: PaperFacts) -> set[str]:
    """The names the paper or its title writes, each part of them and each of their hyphen-joined openings
    ("Qwen2", "VL" and "Qwen2-VL" of "Qwen2-VL-7B"; "HMMT" of "HMMT 2025")."""
    found = set(names_in(f"{facts.title}\n{facts.whole}"))
    parts = {part for name in found for part in re.split(r"[-/ ]", name) if part}
    openings = {"-".join(name.split("-")[:i]) for name in found for i in range(1, name.count("-") + 1)}
    return found | parts | openings


def _figure(name: str) -> bool:
    """A figure with a unit ("7B", "2x", "1.8×") that the name reader took for a name."""
    numbers = prose_numbers(name)
    return len(numbers) == 1 and numbers[0].text == name


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[-‐–]", " ", text).casefold().split())


# The paper's own work said by the name its title gives it: HANRAG's summary and finding on the 2025-09-15 listing
# said "The paper's framework performs better …" (its sentence's "our framework"), and the Chinese 框架…, a reader
# left to guess whose framework.
_OWN_WORK_RE = re.compile(
    r"\b(?:[Tt]he\s+paper's|[Tt]he\s+proposed|[Oo]ur)\s+(?:framework|method|approach|model|system|benchmark|"
    r"pipeline|technique)\b|^The\s+(?:framework|method|approach)\b"
)


def paper_name(title: str) -> str:
    """The name a title gives the paper's work before its colon ("HANRAG: Heuristic …" -> "HANRAG"), or ""."""
    head, colon, _ = title.partition(":")
    head = head.strip()
    return head if colon and names_in(head) == [head] else ""


def with_paper_named(text: str, name: str) -> str:
    """`text` with "our framework", "the paper's method" or an opening "The framework" said as `name`."""
    return _OWN_WORK_RE.sub(name, text) if name else text
