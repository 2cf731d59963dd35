"""An answer read into the digest's words: one line, without the frames, echoes and praise the model adds; a
list's items; a summary's one sentence; the scope its sentence states kept (checker/scope.py); and a
finding or summary as the digest gives it, which the checks and the borrowings between parts judge (pure)."""

from __future__ import annotations

import re

from papers_digest.checker.echo import without_audience
from papers_digest.checker.evidence import FRAMED_RE
from papers_digest.checker.hype import without_hype
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.scope import (
    HEAD_WORDS,
    with_comparison_kept,
    with_hedges_kept,
    with_pair_kept,
    with_state_of_the_art_kept,
    without_added_comparison,
    without_added_intensifiers,
    without_added_praise,
)
from papers_digest.checker.substance import restates_title
from papers_digest.reading.sentences import split_sentences

_ECHOED_NAME_RE = re.compile(
    r"^\s*(?:\*\*)?(?:PROBLEM|METHOD|STUDY|FINDING|SUMMARY|AIM|LIMITATION|TAKEAWAYS|TOPIC|IDEAS|ANSWER)(?:\*\*)?\s*:\s*",
    re.IGNORECASE,
)
# A lead-in and a quotation: 'The paper's significant achievement: "The strategy results in …"' (PaCoRe's summary
# on the 2026-01-13 listing at b3b0aff): what is quoted is the answer.
_QUOTED_AFTER_LEAD_RE = re.compile(r'^[^"“:]{1,80}:\s*["“](?P<quoted>[^"”]+)["”]\.?$')
_NAME_COLON_RE = re.compile(r"^([^\s:]+): (An?|The) (?=\w)")  # "MergeVQ: A novel framework …"
_LIST_MARK_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_OUR_RE = re.compile(r"^Our\s+")  # the paper's voice opening an answer
# A method said after the problem: "by proposing …", ", through introducing …" to the sentence's end.
_BY_METHOD_RE = re.compile(
    # (not "by using": "Current models cheat by using shortcuts" may be the problem itself)
    r",?\s+(?:by|through|via)\s+(?:proposing|introducing|presenting|developing|designing)\b[^.]*\.?$",
    re.IGNORECASE,
)
# Where the paper is the problem's subject, what it studies by is its method too: 2509.09677's problem on the
# 2025-09-15 listing at 47e7336, "The paper addresses the gap in understanding the long-term execution of LLMs by
# exploring the illusion of diminishing returns", came back in Chinese as …，这是通过探索幻觉的收益递减实现的.
_PAPER = r"(?:paper|study|work|research)"  # what a problem's answer calls the paper: "The study addresses …"
_PAPER_SUBJECT_RE = re.compile(rf"^(?:The|This|Our) {_PAPER}\b", re.IGNORECASE)
# Any "by …ing" then: 2405.15574's problem on the 2024-05-27 listing at 53b670c, "The paper addresses the gap … between
# open-source LLVMs and powerful closed-source LLVMs by utilizing additional vision encoders …", made the paper do
# what the open models did (该论文通过利用额外的视觉编码器…), and R1-Searcher's "… by incentivizing the search
# capability through reinforcement learning" (2025-03-10) came back the same. Not after a participle: "caused by
# training on noisy data" is the problem.
_BY_STUDYING_RE = re.compile(r"(?P<before>[^\s,]+),?\s+(?:by|through|via)\s+[a-z]+ing\b[^.]*\.?$", re.IGNORECASE)
_PARTICIPLE_RE = re.compile(r"(?:ed|en|wn|ght|ade|eld|ilt|ung|aid)$|^(?:led|set|put|hit|cut|run)$", re.IGNORECASE)
# "addresses the gap in understanding X", the PROBLEM answer's formula, is "studies X". Said whole, the 1.5B
# model's Chinese made it a misunderstanding (2509.09677's 长期执行的误解, the 2025-09-15 listing at 8f72912) or,
# told that understanding is 理解, RL's "understanding ability" (R1-Zero's 强化学习在大规模场景下的理解能力, the
# sample at cde45f7).
_GAP_IN_UNDERSTANDING_RE = re.compile(
    rf"^((?:The|This) {_PAPER}) addresses the gap in (?:the )?understanding (?:of )?", re.IGNORECASE
)
MIN_PROBLEM_WORDS = 8  # a problem left shorter than this by the cut says too little: the answer stays whole
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_READER_SHOULD = r"^(?:a |the )?(?:practitioners?|engineers?|readers?)\s+should\s+"  # the takeaway question said back
# "The paper shows that …", "Further analysis reveals that …" (VideoDR's summary, 2026-01-13 listing at 5fe895a): a
# frame around what was found, which the reader knows already (taken off).
_FRAME_RE = re.compile(
    r"^(?:the|this|our|these|further|extensive|comprehensive|(?:the|our)\s+further)\s+"
    r"(?:paper|study|work|authors?|results?|experiments?|evaluations?|analys[ie]s)\s+(?:also\s+)?"
    r"(?:shows?|showed|shown|demonstrates?|demonstrated|reports?|reported|finds?|found|reveals?|revealed|"
    r"indicates?|indicated|verif(?:y|ies|ied)|confirms?|confirmed|suggests?|suggested)\s+that,?\s+"
    # the question said back: "Practitioners should remember that …" (every takeaway of the sample run at f439731,
    # and its Chinese with the calque 实践者应该记住), "The paper's main result is that …" (HANRAG's summary, 135cb49)
    rf"|{_READER_SHOULD}(?:remember|note|know|keep in mind|"
    r"bear in mind|understand|recogni[sz]e|reali[sz]e|be aware)\s+"
    r"(?:that,?\s+|(?=(?-i:[A-Z][\w.\-]*\s+(?:[a-z]+s|can|will)\b)))"  # "remember ConvLLaVA achieves …"
    r"|^(?:the\s+paper's|this\s+paper's|the|its)\s+(?:main|key|primary)\s+(?:result|finding)\s+is\s+that,?\s+",
    re.IGNORECASE,
)
# The question said back around a name and its clause: "Practitioners should remember the Pro block design, which
# improves the performance of FoX …" (2503.02130's takeaway on the 2025-03-10 listing at 57fb7fa, its Chinese the
# calque 实践者应该记住): the name is the subject of its clause.
_REMEMBER_WHICH_RE = re.compile(
    rf"{_READER_SHOULD}(?:remember|note|know|understand)\s+"
    r"(?P<what>[^,;.]{3,80}?),\s+(?:which|that)\s+(?P<rest>[a-z]+s\b.*)$",
    re.IGNORECASE,
)

# "Experiments on ImageNet show that …": the frame with where it was measured, which stays ("On ImageNet, …")
_MEASURED_FRAME_RE = re.compile(
    r"^(?:(?:extensive|comprehensive|further|our|the|these)\s+)?(?:experiments?|evaluations?|results?|analys[ie]s)"
    r"\s+on\s+(?P<on>[^,]+?)\s+(?:also\s+)?(?:show|demonstrate|verify|indicate|reveal|confirm|suggest)(?:s|ed)?"
    r"\s+that,?\s+",
    re.IGNORECASE,
)


def said_as_sentence(text: str) -> str:
    """An answer opening as a heading, a name and a colon, said as a sentence ("MergeVQ: A novel framework
    that …" -> "MergeVQ is a novel framework that …": the sample's MergeVQ method at bc5b10e, whose Chinese lost
    the name before its colon in all 8 rounds of its translation)."""
    return _NAME_COLON_RE.sub(lambda m: f"{m.group(1)} is {m.group(2).lower()} ", text, count=1)


def as_studied(problem: str) -> str:
    """A problem said as "The paper addresses the gap in understanding X" said as "The paper studies X"."""
    return _GAP_IN_UNDERSTANDING_RE.sub(lambda m: f"{m.group(1)} studies ", problem, count=1)


def without_method(problem: str, title: str = "") -> str:
    """A problem without the method said after it ("… by proposing a novel training method called
    R1-Zero-Like", 2504.00883's problem in the sample run at d9e4f29, which the paper applies and does not
    propose), or what the paper studies by ("The paper addresses … by exploring …"): the question asks for the
    problem alone, and the method is its own field. Not where what is left restates the `title`: BabyVision's
    problem on the 2026-01-13 listing at 6f052a8, cut to "The paper addresses the gap in visual reasoning beyond
    language.", failed rule title_restated in all 6 rounds."""
    cut = _BY_METHOD_RE.sub("", problem)
    studying = _BY_STUDYING_RE.search(cut)
    if _PAPER_SUBJECT_RE.match(cut) and studying and not _PARTICIPLE_RE.search(studying["before"]):
        cut = cut[: studying.start()] + studying["before"]
    kept = cut != problem and len(cut.split()) >= MIN_PROBLEM_WORDS and not restates_title(cut, title)
    return f"{cut}." if kept else problem


def unquoted(text: str) -> str:
    """`text` without the quotation marks that wrap it whole."""
    return text[1:-1].strip() if len(text) > 1 and text[0] in '"“' and text[-1] in '"”' else text


def one_sentence(answer: str, sentence: str) -> str:
    """A summary answered in more than one sentence as its one sentence that states most of the main result's
    figures, or, where none states one, the one that shares most words with it and opens on no pronoun; unchanged
    where every sentence does. PaCoRe's, in a run at 6f6e3a3, opened with the approach's "strong improvements
    across diverse domains" and gave its 94.5% in a second sentence; 2503.05236's on the 2025-03-10 listing at
    57fb7fa said its result, then "It demonstrates this by applying its pipeline …", and its Chinese had no verb."""
    said = split_sentences(answer)
    figures = prose_numbers(sentence)
    words = _words(sentence)

    def stated(text: str) -> tuple[int, int]:
        return sum(any(f.matches(w) for w in prose_numbers(text)) for f in figures), len(_words(text) & words)

    standing = said if figures else [s for s in said if not _PRONOUN_OPENING_RE.match(s)]
    best = max(standing, key=stated, default=answer)
    return best if len(said) > 1 and (stated(best)[0] or not figures) else answer


# A sentence that opens on a pronoun leans on the one before it: it cannot stand as the summary alone.
_PRONOUN_OPENING_RE = re.compile(r"^(?:It|This|These|They|Its|Their|Such)\b")


def _words(text: str) -> set[str]:
    """A text's words of four letters or more, lower-cased: what two wordings of one result share."""
    return {w.casefold() for w in re.findall(r"[A-Za-z][\w-]{3,}", text)}


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


def one_line(answer: str) -> str:
    """A prose answer as one line: whitespace collapsed; an echoed part name, wrapping quotes, the sentence said
    back ("The sentence shows that …"), the prompt's reader and words of praise taken off; an opening "Our …" as
    "The paper's …"."""
    text = " ".join(_ECHOED_NAME_RE.sub("", answer.strip()).split())
    if quoted := _QUOTED_AFTER_LEAD_RE.match(text):
        text = quoted.group("quoted")
    text = unquoted(text)
    for frame in (FRAMED_RE, _FRAME_RE):
        framed = frame.match(text)
        if framed and len(text) > framed.end():
            text = text[framed.end() :].strip()
            first = text.split()[0]
            if first.isalpha() and first.islower():  # "the KL penalty", not "vsGRPO-2B"
                text = text[0].upper() + text[1:]
    if remembered := _REMEMBER_WHICH_RE.match(text):
        what = remembered["what"]
        text = f"{what[0].upper()}{what[1:]} {remembered['rest']}"
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


def as_given(question: str, answer: str, sentence: str) -> str:
    """A finding's (`question` FINDING) or the summary's (SUMMARY) answer as the digest gives it, the program's mends
    made: what the checks judge, and what one part borrowing the other's wording must judge too (MergeVQ's summary
    at 45740b7 borrowed nothing in 4 rounds from its finding, which passed as the digest gave it)."""
    said = one_line(answer)
    if question == "SUMMARY":
        # its one sentence may be the one it quoted: ConvLLaVA's summary on the 2024-05-27 listing (a run of
        # 2026-12-06) was its sentence in quotation marks
        said = unquoted(one_sentence(said, sentence))
    return kept_scope(without_added_reading(said, sentence), sentence)


# A reading the model adds to what was found: 2509.09677's finding on the 2025-09-15 listing (a run of 2026-12-06),
# of "We observe that the per-step accuracy of models degrades as the number of steps increases", ended ", indicating a
# diminishing return in long-term execution", where the paper argues those returns are an illusion.
_READING_CLAUSE_RE = re.compile(
    r",\s+(?:which\s+)?(?:indicat|suggest|impl[yi]|highlight|show|demonstrat|reveal|mean|underscor|emphasi[sz]|"
    r"confirm|signal|point)\w*\b(?P<said>.*?)\.?$",
    re.IGNORECASE,
)
_CONTENT_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]{3,}")


def without_added_reading(text: str, sentence: str) -> str:
    """`text` without a closing ", indicating / suggesting / showing …" whose words are mostly not its sentence's
    (by their first five letters) and that states none of its figures: what the sentence found, not what the
    model reads into it. The rest, of HEAD_WORDS words or more, said as a sentence."""
    found = _READING_CLAUSE_RE.search(text.strip())
    if found is None or len(text[: found.start()].split()) < HEAD_WORDS:
        return text
    said = {w[:5].casefold() for w in _CONTENT_WORD_RE.findall(found["said"])}
    known = {w[:5].casefold() for w in _CONTENT_WORD_RE.findall(sentence)}
    if not said or 2 * len(said & known) >= len(said):
        return text
    figures = prose_numbers(sentence)
    if any(n.matches(f) for n in prose_numbers(found["said"]) for f in figures):
        return text
    return f"{text[: found.start()].rstrip(' ,;')}."
