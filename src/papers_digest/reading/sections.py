"""What a full text's section holds, read from its title (docs/reading.md, "Full texts"): results, method,
background, limitations...; the run-in headings inside a section ("Results.", "Limitations and Future Work."),
captions, and a contributions paragraph in an introduction."""

from __future__ import annotations

import re
from typing import Literal

SectionKind = Literal[
    "abstract",
    "introduction",
    "contributions",
    "background",
    "method",
    "setup",
    "results",
    "conclusion",
    "limitations",
    "matter",
    "other",
]

# A title's kind: the first pattern that matches wins, so "Experimental setup" is a set-up, not results, and
# "Conclusion and future work" a conclusion (its limitation sentences are still found one by one).
_TITLE_KINDS: list[tuple[SectionKind, re.Pattern[str]]] = [
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in [
        ("matter", r"\backnowledge?ments?\b|\breferences\b|\bbibliography\b|\bethic|\bimpact statement|"
         r"\bauthor contributions\b|\breproducibility\b|\bfunding\b|\bcompeting interests\b"),
        ("conclusion", r"\bconclu\w*|\bclosing remarks\b|\bsummary\b|\bdiscussions?\b|\bfinal remarks\b|\boutlook\b"),
        ("limitations", r"\blimitations?\b|\bfuture (?:work|directions?|research)\b|\bopen (?:problems|questions)\b|"
         r"\bthreats to validity\b"),
        ("setup", r"\bset-?ups?\b|\bsettings?\b|\bimplementation details\b|\btraining details\b|\bdatasets?\b|"
         r"\bbaselines?\b|\bmetrics?\b|\bhyper-?parameters?\b|\bprotocol\b"),
        ("results", r"\bresults?\b|\bexperiments?\b|\bexperimental\b|\bevaluations?\b|\bempirical\b|\bablations?\b|"
         r"\banaly[sz]\w*|\bperformance\b|\bbenchmark(?:s|ing)?\b|\bfindings\b|\bcomparisons?\b|\bcase stud"),
        ("introduction", r"\bintroduction\b|\boverview\b"),
        ("background", r"\brelated work\b|\bbackground\b|\bpreliminar\w*|\bprior work\b|\bliterature\b|\bmotivation\b|"
         r"\bnotation\b|\bproblem (?:formulation|statement|setting|definition)\b"),
        ("method", r"\bmethods?\b|\bmethodology\b|\bapproach\b|\bmodel\b|\bframework\b|\barchitecture\b|"
         r"\balgorithms?\b|"
         r"\bdesign\b|\bsystem\b|\bimplementation\b|\bproposed\b|\btraining\b|\bpipeline\b|\bconstruction\b|"
         r"\bformulation\b|\bobjective\b|\bloss\b|\bdata collection\b"),
    ]
]  # fmt: skip
# A caption or a float's label opens its paragraph; its sentences describe a figure, not what the paper found.
_CAPTION_RE = re.compile(r"^(?:Figure|Fig\.|Table|Tab\.|Algorithm|Listing|Template|Prompt|Box)\s*[A-Z]?[\d.]+\b")
# "Our contributions are ...", "we summarize the takeaways below": what follows reports what the paper found.
_CONTRIBUTIONS_RE = re.compile(
    r"\b(?:our|the|main|key)\s+(?:main\s+|key\s+|primary\s+)?(?:contributions?|findings|takeaways|results)\s+"
    r"(?:are|include|is|can be summari[sz]ed|as follows)\b|\bwe\s+summari[sz]e\s+(?:our|the)\s+(?:main\s+|key\s+)?"
    r"(?:contributions|findings|takeaways|results)\b|\b(?:in\s+summary|to\s+summari[sz]e|overview of takeaways)\b|"
    r"\bour contributions\b",
    re.IGNORECASE,
)
_SENTENCE_WORDS_RE = re.compile(
    r"\b(?:we|our|it|its|this|these|they|is|are|was|were|be|has|have|had|can|will|does|do|shows?|uses?)\b",
    re.IGNORECASE,
)
# a run-in heading ("Experimental settings.") is a few words without a verb's full sentence
_HEADING_WORDS = 7
# a formula's LaTeX commands, and the plain words around them (not a command's name nor a sub- or superscript)
_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
_PLAIN_WORD_RE = re.compile(r"(?<![{_^\\])\b[A-Za-z]{3,}\b")


def title_kind(title: str) -> SectionKind | None:
    """The kind a section's title names, or None when it names none ("3.1 GRPO Leads to Biased Optimization")."""
    for kind, pattern in _TITLE_KINDS:
        if pattern.search(title):
            return kind
    return None


def is_caption(paragraph: str) -> bool:
    """A figure's, table's or listing's caption ("Figure 3: ...", "Table 2. ...")."""
    return _CAPTION_RE.match(paragraph) is not None


def is_table_row(paragraph: str) -> bool:
    """A table's row as the marked-up text keeps it: cells joined by " | "."""
    return paragraph.count(" | ") >= 2


def is_formula(sentence: str) -> bool:
    """Mostly LaTeX: at least three commands ("\\frac", "\\mathbf"), and more of them than plain words."""
    commands = len(_COMMAND_RE.findall(sentence))
    return commands >= 3 and commands > len(_PLAIN_WORD_RE.findall(_COMMAND_RE.sub(" ", sentence)))


def opens_contributions(sentence: str) -> bool:
    """A sentence announcing the paper's contributions or findings, whose following sentences state them."""
    return _CONTRIBUTIONS_RE.search(sentence) is not None


def run_in_heading(sentence: str) -> str | None:
    """The heading a paragraph opens with, as its first sentence ("Results.", "Limitations and Future Work.") or a
    line of its own ("Overview of takeaways"), or before a colon ("Deployment scope and assumptions: ..."); else
    None. A short sentence with a pronoun or a verb of being ("We use Adam.") is a sentence, not a heading."""
    words = sentence.rstrip(".").split()
    if not words or not words[0][:1].isupper() or sentence.endswith(("!", "?", ":")):
        return None
    head, colon, _ = sentence.partition(": ")
    if colon:
        words = head.split()
        return head if len(words) <= _HEADING_WORDS - 2 and not _SENTENCE_WORDS_RE.search(head) else None
    if len(words) <= _HEADING_WORDS and not _SENTENCE_WORDS_RE.search(sentence):
        return sentence.rstrip(".")
    return None
