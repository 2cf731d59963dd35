"""The parts of a digest asked in steps, as data: which field each writes, from which sentences, in how many
words; the digest the answers make (a dict, the program's own numbers and sections in it); and which part a
checker problem's field belongs to (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lemminflect import getAllLemmas

from papers_digest.checker.echo import without_audience
from papers_digest.checker.evidence import FRAMED_RE
from papers_digest.checker.fields import prose_fields
from papers_digest.checker.hype import without_hype
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.schema import MAX_NUMBERS
from papers_digest.checker.scope import (
    with_comparison_kept,
    with_hedges_kept,
    with_pair_kept,
    with_state_of_the_art_kept,
    without_added_comparison,
    without_added_intensifiers,
    without_added_praise,
)
from papers_digest.checker.substance import LABEL_WORDS
from papers_digest.core.models import Digest, Evidence
from papers_digest.reading.glossary import terms_in
from papers_digest.reading.names import is_ordinary_word
from papers_digest.reading.sentences import split_sentences
from papers_digest.ways.steps.outline import Outline, Source

MOST_TAKEAWAYS, MOST_IDEAS = 2, 4
TOPIC_WORDS = 5  # a title's head before its colon this long names the paper's topic
# An answer's cap in tokens: one sentence is about 40; a cap stops a model that goes on.
SENTENCE_TOKENS = 80
MAX_TOKENS = {"TOPIC": 24, "METHOD": 100, "IDEAS": 80}
_ECHOED_NAME_RE = re.compile(
    r"^\s*(?:\*\*)?(?:PROBLEM|METHOD|FINDING|SUMMARY|AIM|LIMITATION|TAKEAWAYS|TOPIC|IDEAS|ANSWER)(?:\*\*)?\s*:\s*",
    re.IGNORECASE,
)
# A lead-in and a quotation: 'The paper's significant achievement: "The strategy results in …"' (PaCoRe's summary
# on the 2026-01-13 listing at b3b0aff): what is quoted is the answer.
_QUOTED_AFTER_LEAD_RE = re.compile(r'^[^"“:]{1,80}:\s*["“](?P<quoted>[^"”]+)["”]\.?$')
_NAME_COLON_RE = re.compile(r"^([^\s:]+): (An?|The) (?=\w)")  # "MergeVQ: A novel framework …"
_LIST_MARK_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_OUR_RE = re.compile(r"^Our\s+")  # the paper's voice opening an answer
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
# A method said after the problem: "by proposing …", ", through introducing …" to the sentence's end.
_BY_METHOD_RE = re.compile(
    # (not "by using": "Current models cheat by using shortcuts" may be the problem itself)
    r",?\s+(?:by|through|via)\s+(?:proposing|introducing|presenting|developing|designing)\b[^.]*\.?$",
    re.IGNORECASE,
)
MIN_PROBLEM_WORDS = 8  # a problem left shorter than this by the cut says too little: the answer stays whole
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# "The paper shows that …", "Further analysis reveals that …" (VideoDR's summary, 2026-01-13 listing at 5fe895a): a
# frame around what was found, which the reader knows already (taken off).
_FRAME_RE = re.compile(
    r"^(?:the|this|our|these|further|extensive|comprehensive|(?:the|our)\s+further)\s+"
    r"(?:paper|study|work|authors?|results?|experiments?|evaluations?|analys[ie]s)\s+(?:also\s+)?"
    r"(?:shows?|showed|shown|demonstrates?|demonstrated|reports?|reported|finds?|found|reveals?|revealed|"
    r"indicates?|indicated|verif(?:y|ies|ied)|confirms?|confirmed|suggests?|suggested)\s+that,?\s+"
    # the question said back: "Practitioners should remember that …" (every takeaway of the sample run at f439731,
    # and its Chinese with the calque 实践者应该记住), "The paper's main result is that …" (HANRAG's summary, 135cb49)
    r"|^(?:a |the )?(?:practitioners?|engineers?|readers?)\s+should\s+(?:remember|note|know|keep in mind|"
    r"bear in mind)\s+that,?\s+"
    r"|^(?:the\s+paper's|this\s+paper's|the|its)\s+(?:main|key|primary)\s+(?:result|finding)\s+is\s+that,?\s+",
    re.IGNORECASE,
)

# "Experiments on ImageNet show that …": the frame with where it was measured, which stays ("On ImageNet, …")
_MEASURED_FRAME_RE = re.compile(
    r"^(?:(?:extensive|comprehensive|further|our|the|these)\s+)?(?:experiments?|evaluations?|results?|analys[ie]s)"
    r"\s+on\s+(?P<on>[^,]+?)\s+(?:also\s+)?(?:show|demonstrate|verify|indicate|reveal|confirm|suggest)(?:s|ed)?"
    r"\s+that,?\s+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Part:
    """One step: its name in the request (`FINDING [2]`), the prompt's question it asks, the field it writes
    (`results[1]`, `limitations[0]`, `mind_map.children`), the sentences it is written from, and its length."""

    key: str
    question: str
    field: str
    sources: tuple[Source, ...]
    words: int = 25
    given: str = ""  # what the program writes itself, asked of the model only if a rule rejects it

    @property
    def max_tokens(self) -> int:
        return MAX_TOKENS.get(self.question, SENTENCE_TOKENS)

    @property
    def rewritable(self) -> bool:
        """A sentence part that a rewrite in other words can mend (not a label or a list)."""
        return self.question not in ("TOPIC", "IDEAS")

    def owns(self, path: str) -> bool:
        """Whether a problem's field path is this part's field or inside it."""
        return path == self.field or path.startswith((f"{self.field}.", f"{self.field}["))


def plan_parts(outline: Outline) -> list[Part]:
    """The parts, in the order they are asked: problem, method, each finding, the summary (of the main result,
    or of the aim), each limitation, the takeaways, the topic and the ideas."""
    parts = [
        Part("PROBLEM", "PROBLEM", "problem", outline.problem),
        Part("METHOD", "METHOD", "method", outline.method, 40),
    ]
    parts += [
        Part(f"FINDING [{i + 1}]", "FINDING", f"results[{i}]", (source,)) for i, source in enumerate(outline.findings)
    ]
    main = (outline.main,) if outline.main is not None else outline.problem[-1:]
    parts.append(Part("SUMMARY", "SUMMARY" if outline.main_is_result else "AIM", "one_sentence", main))
    parts += [
        Part(f"LIMITATION [{i + 1}]", "LIMITATION", f"limitations[{i}]", (source,), 20)
        for i, source in enumerate(outline.limitations)
    ]
    parts += [
        Part("TAKEAWAYS", "TAKEAWAYS", "takeaways", outline.findings or main, 15),
        Part("TOPIC", "TOPIC", "mind_map.label", outline.method, 5, topic_of(outline.title)),
        Part("IDEAS", "IDEAS", "mind_map.children", outline.method, 16),
    ]
    return parts


def assemble(parts: list[Part], answers: dict[str, str]) -> dict:
    """The digest the answers make: each part's answer in its field, each finding with the figures of its
    sentence that it writes (all of them when it writes none) and its sentence's section."""
    digest: dict = {
        "one_sentence": "",
        "problem": "",
        "method": "",
        "results": [],
        "limitations": [],
        "takeaways": [],
        "mind_map": {"label": "", "children": []},
    }
    for part in parts:
        answer = answers.get(part.key, part.given)
        if part.question == "FINDING":
            finding = kept_scope(one_line(answer), part.sources[0].text)
            digest["results"].append(result_of(finding, part.sources[0]))
        elif part.question == "LIMITATION":
            digest["limitations"].append(one_line(answer))
        elif part.question == "TAKEAWAYS":
            # a comparison none of the findings' sentences makes taken off, as from a finding (InfGen's takeaway
            # "…, comparable to the state-of-the-art" in all 6 rounds on the 2025-09-15 listing at 6277532), and a
            # superiority over nothing named or over "the benchmark" said as theirs (HANRAG's at a9371dd)
            found = " ".join(s.text for s in part.sources)
            digest["takeaways"] = [
                without_added_comparison(with_comparison_kept(t, found), found) for t in items(answer)[:MOST_TAKEAWAYS]
            ]
        elif part.question == "TOPIC":
            digest["mind_map"]["label"] = one_line(answer).rstrip(".")
        elif part.question == "IDEAS":
            topic = digest["mind_map"]["label"]
            ideas = [under_topic(idea, topic) for idea in ideas_of(answer)]
            # an idea that names the topic again says nothing under it (AnimeGamer's "AnimeGamer")
            ideas = [i for i in ideas if i.casefold() != topic.casefold()] or ideas
            digest["mind_map"]["children"] = [{"label": idea, "children": []} for idea in ideas]
        elif part.question == "SUMMARY":
            digest[part.field] = kept_scope(one_sentence(one_line(answer), part.sources[0].text), part.sources[0].text)
        elif part.question == "PROBLEM":
            digest[part.field] = without_method(said_as_sentence(one_line(answer)))
        else:
            digest[part.field] = said_as_sentence(one_line(answer))
    return digest


def said_as_sentence(text: str) -> str:
    """An answer opening as a heading, a name and a colon, said as a sentence ("MergeVQ: A novel framework
    that …" -> "MergeVQ is a novel framework that …": the sample's MergeVQ method at bc5b10e, whose Chinese lost
    the name before its colon in all 8 rounds of its translation)."""
    return _NAME_COLON_RE.sub(lambda m: f"{m.group(1)} is {m.group(2).lower()} ", text, count=1)


def without_method(problem: str) -> str:
    """A problem without the method said after it ("… by proposing a novel training method called
    R1-Zero-Like", 2504.00883's problem in the sample run at d9e4f29, which the paper applies and does not
    propose): the question asks for the problem alone, and the method is its own field."""
    cut = _BY_METHOD_RE.sub("", problem)
    return f"{cut}." if cut != problem and len(cut.split()) >= MIN_PROBLEM_WORDS else problem


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


def one_sentence(answer: str, sentence: str) -> str:
    """A summary answered in more than one sentence as its one sentence that states most of the main result's
    figures; unchanged where none states one. PaCoRe's, in a run at 6f6e3a3, opened with the approach's "strong
    improvements across diverse domains" and gave its 94.5% in a second sentence."""
    said = split_sentences(answer)
    figures = prose_numbers(sentence)

    def stated(text: str) -> int:
        return sum(any(f.matches(w) for w in prose_numbers(text)) for f in figures)

    best = max(said, key=stated, default=answer)
    return best if len(said) > 1 and stated(best) else answer


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


def kept_scope(text: str, sentence: str) -> str:
    """A finding or summary with what the program can mend of its sentence's scope mended: a last clause comparing
    in words the sentence never uses taken off; a word of size the sentence does not claim taken out (an adverb,
    or an adjective before its noun), and so is praise where it compares nothing; a superiority over nothing named
    (or over "the benchmark") said as the comparison the sentence states (parity, or "performs better"), a hedge
    it dropped before a figure it keeps put back, a new state of the art it claims not said as "a new benchmark",
    the first of a pair it names said whole ("both visual and …" -> "both visual representation learning and …")."""
    text = without_added_comparison(with_comparison_kept(text, sentence), sentence)
    text = without_added_praise(without_added_intensifiers(text, sentence), sentence)
    return with_pair_kept(with_state_of_the_art_kept(with_hedges_kept(text, sentence), sentence), sentence)


def result_of(finding: str, source: Source) -> dict:
    """A result from its finding and the sentence it reports."""
    figures = prose_numbers(source.text)
    written = prose_numbers(finding)
    kept = [f.text for f in figures if any(f.matches(w) or w.matches(f) for w in written)] or [f.text for f in figures]
    return {"finding": finding, "numbers": list(dict.fromkeys(kept))[:MAX_NUMBERS], "sections": [source.section]}


def written_from(parts: list[Part]) -> dict[str, list[str]]:
    """Each sentence field's sources, by field (the checker's evidence rules read the findings', the summary's
    and the takeaways'; a summary of the aim owes it no figure)."""
    asked = ("FINDING", "SUMMARY", "TAKEAWAYS")
    return {part.field: [s.text for s in part.sources] for part in parts if part.question in asked}


def field_sentences(digest: Digest, parts: list[Part]) -> dict[str, list[str]]:
    """Each prose field of `digest`, by path, with the sentences its part was written from."""
    found = {}
    for path, _ in prose_fields(digest):
        part = part_of(path, parts)
        if part is not None and part.rewritable:
            found[path] = [s.text for s in part.sources]
    return found


def sources_read(parts: list[Part]) -> dict[str, list[Evidence]]:
    """What each field was written from, with each sentence's section and role (the report and the site show
    it: a reader can check a finding against its sentence)."""
    return {
        part.field: [Evidence(number="", section=s.section, sentence=s.text, role=s.role) for s in part.sources]
        for part in parts
        if part.sources and part.question not in ("TOPIC", "IDEAS", "TAKEAWAYS")
    }


def part_of(path: str, parts: list[Part]) -> Part | None:
    """The part that wrote the field a problem names; None for a problem of the whole digest."""
    return next((part for part in parts if path and part.owns(path)), None)


def one_line(answer: str) -> str:
    """A prose answer as one line: whitespace collapsed; an echoed part name, wrapping quotes, the sentence said
    back ("The sentence shows that …"), the prompt's reader and words of praise taken off; an opening "Our …" as
    "The paper's …"."""
    text = " ".join(_ECHOED_NAME_RE.sub("", answer.strip()).split())
    if quoted := _QUOTED_AFTER_LEAD_RE.match(text):
        text = quoted.group("quoted")
    if len(text) > 1 and text[0] in '"“' and text[-1] in '"”':
        text = text[1:-1].strip()
    for frame in (FRAMED_RE, _FRAME_RE):
        framed = frame.match(text)
        if framed and len(text) > framed.end():
            text = text[framed.end() :].strip()
            first = text.split()[0]
            if first.isalpha() and first.islower():  # "the KL penalty", not "vsGRPO-2B"
                text = text[0].upper() + text[1:]
    measured = _MEASURED_FRAME_RE.match(text)
    if measured and len(text) > measured.end():
        text = f"On {measured.group('on')}, {text[measured.end() :].strip()}"
    text = without_hype(without_audience(without_figure_reference(text)))
    # the paper's voice said as a reader's: "Our framework outperforms …" (HANRAG's summary, 2025-09-15 listing)
    return _OUR_RE.sub("The paper's ", text)


def without_figure_reference(text: str) -> str:
    """`text` without a pointer to a figure or table a digest's reader cannot see ("as shown in Figure 1", "As
    shown in Table 1, …"), with what it says of the figure ("…, which compares …"): 2509.09677's summary on the
    2025-09-15 listing at eb60280 added "as shown in Figure 1, which compares the accuracy of models trained for
    different numbers of steps" to a sentence that cites no figure."""
    text = _FIGURE_REFERENCE_RE.sub("", text)
    opened = _OPENING_REFERENCE_RE.match(text)
    if opened and len(text) > opened.end():
        rest = text[opened.end() :]
        text = rest[0].upper() + rest[1:]
    return text


_REFERENCE = r"(?:as\s+(?:shown|illustrated|seen|reported|depicted|presented)\s+in|see|cf\.)\s+(?:the\s+)?"
_REFERENCE += r"(?:Figures?|Figs?\.|Tables?)\s*\d+[a-z]?"
_FIGURE_REFERENCE_RE = re.compile(rf",?\s*\(?\b{_REFERENCE}\)?(?:,\s*which\b[^.;]*)?(?=[.;]|$)", re.IGNORECASE)
_OPENING_REFERENCE_RE = re.compile(rf"^{_REFERENCE},\s*", re.IGNORECASE)


def opening(text: str, words: int) -> str:
    """The text's first sentences up to about `words` words (at least its first): what a rewrite is given (asked
    to rewrite four sentences, the 1.5B model rewrote all four, and copied on in the later ones)."""
    sentences = _SENTENCE_RE.split(text.strip())
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if len(" ".join([*kept, sentence]).split()) > words:
            break
        kept.append(sentence)
    return " ".join(kept)


def items(answer: str) -> list[str]:
    """A list answer's items: one per line, list marks and an echoed part name taken off."""
    lines = (one_line(_LIST_MARK_RE.sub("", line)) for line in answer.splitlines())
    return [line for line in lines if line]
