"""The mind map asked in steps: its topic where the title names it, its ideas as labels said of the topic,
and ideas from the glossary's terms where the model named none that is a label (pure)."""

from __future__ import annotations

import re

from lemminflect import getAllLemmas

from papers_digest.checker.substance import LABEL_WORDS
from papers_digest.reading.glossary import terms_in
from papers_digest.reading.names import is_ordinary_word
from papers_digest.ways.steps.answers import items
from papers_digest.ways.steps.outline import Source

MOST_IDEAS = 4
TOPIC_WORDS = 5  # a title's head before its colon this long names the paper's topic
_IS_A_RE = re.compile(r"^(?:is|are)\s+(?:an?\s+|the\s+)?", re.IGNORECASE)  # an idea said of its topic
_ACRONYM_AFTER_RE = re.compile(r"(?<=\w)\s+\([A-Z][\w-]*\)$")  # "… Models (MLLMs)" closing an idea
# How a sentence opens, never a label: a sequence word, the paper or "we" as its subject.
_LABEL_OPENING_RE = re.compile(
    r"^(?:(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|next|finally|also|lastly)\b[,:]?\s*)?"
    r"(?:(?:we|it|they|the (?:paper|authors?|study|work)|this (?:paper|study|work))\s+(?:also\s+)?)?",
    re.IGNORECASE,
)
# A name, its verb and a preposition opening an idea: "VideoDR centers on …".
_NAME_VERB_RE = re.compile(r"(?P<name>\S+)\s+(?P<verb>[a-z]+s)\s+(?:on|upon|to)\s+(?=\S)")


def topic_of(title: str) -> str:
    """The mind map's topic where the title names it: its own name before a colon ("MergeVQ", "Understanding
    R1-Zero-Like Training"), or the whole title when it is a label's length; "" (the model is asked) otherwise.
    Asked for a heading, the 1.5B model gave the prompt's example or the whole title."""
    head, colon, _ = title.partition(":")
    head = " ".join(head.split())
    if head.count('"') % 2 or head.count("“") != head.count("”"):
        return ""  # the colon stands inside a quotation ("TODO: Fix the Mess …")
    if colon and 0 < len(head.split()) <= TOPIC_WORDS:
        return head
    title = " ".join(title.split())
    return title if not colon and 0 < len(title.split()) <= LABEL_WORDS else ""


def ideas_of(answer: str) -> list[str]:
    """The mind map's ideas an IDEAS answer names, as labels; an idea written as a sentence or a title is dropped
    where ideas that are labels remain."""
    ideas = [as_label(idea) for idea in items(answer)]
    labels = [idea for idea in ideas if len(idea.split()) <= LABEL_WORDS]
    return (labels or ideas)[:MOST_IDEAS]


def ideas_from_terms(sources: tuple[Source, ...], topic: str) -> list[str]:
    """The mind map's ideas the program names where the model named none that is a label: the glossary's terms
    of two words or more that the method's sentences use, in order (R1-Zero's "Base model", "Aha moment",
    "Prompt template", where the 1.5B model gave only its title's "A Critical Perspective" in a sample run at
    d9e4f29); each is the paper's words, and its Chinese the glossary's."""
    terms = terms_in(" ".join(s.text for s in sources))
    labels = [_capitalised(t.en) for t in terms if len(t.en.split()) > 1 and not (t.suffix or t.senses)]
    return [label for label in labels if label.casefold() != topic.casefold()][:MOST_IDEAS]


def under_topic(idea: str, topic: str) -> str:
    """An idea said of the topic, without the topic it opens with ("X-Part is a generative model" under X-Part:
    "Generative model"; "PaCoRe launches parallel reasoning trajectories": "Launches parallel …"; "MergeVQ:
    Unified Framework for …" in a sample run at e10fe85: "Unified Framework for …")."""
    if topic and idea.startswith(f"{topic}:"):
        rest = idea[len(topic) + 1 :].strip()
    elif topic and idea.startswith(f"{topic} "):
        rest = idea[len(topic) :].strip()
        if _IS_A_RE.match(rest):
            rest = _IS_A_RE.sub("", rest)
        elif not _says_of_it(rest.split()[0]):
            return idea  # a name with its noun ("MergeVQ tokenizer") is a label as it is
    else:
        return idea
    return _capitalised(rest) if rest else idea


def as_label(idea: str) -> str:
    """An idea as a mind map's label: without a sentence's opening ("First, ", "We ", "The paper ") and its full
    stop; the 1.5B model wrote "We investigate pretraining characteristics", "First, study improves …". An
    acronym after its words is left out ("Multimodal Large Language Models (MLLMs)": its Chinese label lost the
    acronym in all 8 rounds of a sample run at fa4ad3f)."""
    idea = _ACRONYM_AFTER_RE.sub("", idea.strip().rstrip("."))
    label = _LABEL_OPENING_RE.sub("", idea).strip()
    said = _NAME_VERB_RE.match(label)
    if said and not is_ordinary_word(said["name"]) and _says_of_it(said["verb"]):
        # a name, its verb and a preposition opening a sentence: "VideoDR centers on video-conditioned …" (the
        # 2026-01-13 run at 09048e5, whose Chinese label lost the name in all 8 rounds)
        label = label[said.end() :]
    if not label or label == idea:
        return idea
    return _capitalised(label)


def _says_of_it(word: str) -> bool:
    """Whether a word after a name is a verb said of it ("launches", "centers"), not a noun it names ("tokenizer")."""
    folded = word.casefold()
    return folded.endswith("s") and "VERB" in getAllLemmas(folded)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
