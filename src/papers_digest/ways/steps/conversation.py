"""The conversation of a digest asked in steps: each part asked alone from the sentences the program chose, the
digest they make judged whole by the checker, and the parts a problem names mended alone (docs/checker.md,
"Asked in steps")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from papers_digest.checker.echo import echoed
from papers_digest.checker.english import ENGLISH_RULES, Verdict, rule_problems
from papers_digest.checker.evidence import evidence_problems, finding_owes, summary_owes
from papers_digest.checker.naming import (
    acronyms_spelled,
    paper_name,
    terms,
    with_acronym_alone,
    with_name_as_written,
    with_paper_named,
)
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.parse import digest_of
from papers_digest.checker.passages import PaperWords, without_last_clause
from papers_digest.checker.problems import Problem
from papers_digest.checker.scope import scope_words
from papers_digest.checker.substance import cut_back, label
from papers_digest.core.models import CallRecord
from papers_digest.llm.client import CallContext, ChatReply, LlmClient
from papers_digest.llm.conversation import Task, sampling
from papers_digest.llm.prompting import Message
from papers_digest.reading.names import acronyms_in, names_in
from papers_digest.ways.steps.answers import as_given, one_line, opening
from papers_digest.ways.steps.mindmap import ideas_from_terms
from papers_digest.ways.steps.parts import Part, assemble, field_sentences, part_of, written_from
from papers_digest.ways.steps.questions import (
    StepPrompts,
    again_message,
    question,
    rewrite_messages,
    step_messages,
)

# The program chose the findings and their number (none where the paper reports no result), so the rules on
# how many results a digest has, and from which sections, are not asked of it.
# Its numbers are its sentence's, so a result that lists none reports a sentence that states none (rule
# result_empty asks a model's answer for the figures of its cited sections).
STEPS_RULES = (
    *((name, rule) for name, rule in ENGLISH_RULES if name not in ("results_count", "same_sections", "result_empty")),
    ("label", label),
    ("term", terms),
)
REWRITTEN = frozenset({"copied", "cut_off", "repeated"})  # the rules a rewrite in other words mends
BORROW_FROM_ROUND = 3
MAX_ROUNDS = 6  # the answers, then five rounds asking again for the parts that failed (each a few seconds)


@dataclass
class StepsConversation:
    """One paper's parts and their latest requests and answers."""

    task: Task
    client: LlmClient
    prompts: StepPrompts
    title: str
    facts: PaperFacts
    parts: list[Part]
    first_attempt: int = 1
    calls: list[CallRecord] = field(default_factory=list)
    asked: dict[str, list[Message]] = field(default_factory=dict)
    replies: dict[str, ChatReply] = field(default_factory=dict)
    borrowed: dict[str, str] = field(default_factory=dict)  # a part answered by another part's answer (its key)
    trimmed: dict[str, str] = field(default_factory=dict)  # a part's answer as the program mended it

    @property
    def answers(self) -> dict[str, str]:
        """Each part's answer (its own, another's it borrowed, or the program's mend), the paper's work said by
        its name where the title gives one (checker/naming.py)."""
        own = {key: reply.content for key, reply in self.replies.items()}
        borrowed = {key: own[other] for key, other in self.borrowed.items() if other in own}
        name = paper_name(self.title)
        return {key: with_paper_named(text, name) for key, text in {**own, **borrowed, **self.trimmed}.items()}

    def in_use(self) -> list[ChatReply]:
        return [self.replies[p.key] for p in self.parts if p.key in self.replies and p.key not in self.borrowed]

    async def ask(self, part: Part, messages: list[Message], attempt: int) -> None:
        round_ = attempt - self.first_attempt + 1
        context = CallContext(self.task.date, self.task.arxiv_id, self.task.stage, attempt, repair=round_ > 1)
        reply = await self.client.chat(
            messages, context, self.calls, max_tokens=part.max_tokens, sampling=sampling(round_)
        )
        self.asked[part.key], self.replies[part.key] = messages, reply
        self.trimmed.pop(part.key, None)
        self.borrowed.pop(part.key, None)

    def _mended(self, part: Part, text: str) -> None:
        """The program's mend of `part` as its answer, in place of whatever answered it before."""
        self.borrowed.pop(part.key, None)
        self.trimmed[part.key] = text

    def _borrow(self, part: Part, other: Part) -> None:
        """`other`'s answer as `part`'s, in place of whatever answered it before: a summary cut to its head in one
        round and borrowing its finding's wording in the next kept the cut (PaCoRe on the 2026-01-13 listing at
        835c373, its summary's cut dropping "surpassing GPT-5's 93.2%" in rounds 3 to 6, no call made)."""
        self.trimmed.pop(part.key, None)
        self.borrowed[part.key] = other.key

    async def first(self, part: Part, attempt: int, mind: list[str] = ()) -> None:
        """Ask a part its question; `mind`: what its last answer got wrong, said after the question (asked again
        after its own wrong answer, the 1.5B model wrote the same answer again: so a part is asked afresh)."""
        if part.given and not mind:
            return  # the program wrote it (the topic the title names)
        sentences = [s.text for s in part.sources]
        if part.question == "TAKEAWAYS":
            found = [self._given(p) for p in self.findings()]  # the findings as the digest gives them
            asked = question(self.prompts, part.question, [], " ".join(found) or " ".join(sentences))
        else:
            asked = question(
                self.prompts, part.question, sentences, keep=kept_words(part), acronyms=acronyms_named(part)
            )
        if mind:
            asked += "\n" + again_message(self.prompts, list(mind))
        await self.ask(part, step_messages(self.prompts, self.title, part.key, asked), attempt)

    async def mend(
        self, part: Part, problems: list[Problem], attempt: int, failing: frozenset[str] = frozenset()
    ) -> None:
        """Mend a part from its problems' data: a finding that repeats another dropped where others remain (one
        still saying what the paper does, from BORROW_FROM_ROUND on), and so are the mind map's ideas that are no
        labels of the paper's words where others are (none left late, the glossary's terms of the method); an
        acronym's invented words taken out and a misspelt name written as the paper writes it, by the program; a
        part that copied, repeated or was cut off rewritten in other words without the paper in view (the words it
        copied named); a summary of the main result that keeps failing, from BORROW_FROM_ROUND on, said as the
        finding of the same sentence says it, where that finding passed and owes it nothing (`failing`: the parts
        that did not), or else, where it copied, its last clause taken off; a finding that keeps failing said as
        the summary of its sentence says it, where that passed and owes the finding nothing, or else, where it
        still copies, dropped where others remain; any other asked again afresh, told what to mind."""
        rules = {p.rule for p in problems}
        late = attempt - self.first_attempt >= BORROW_FROM_ROUND - 1
        same = self._finding_to_borrow(part, failing)
        summary = self._summary_to_borrow(part, failing) if late else None
        failed = {p.field for p in problems}
        mind_map = assemble(self.parts, self.answers, self.title)["mind_map"] if part.question == "IDEAS" else {}
        ideas = mind_map.get("children", [])
        kept = [idea["label"] for i, idea in enumerate(ideas) if f"{part.field}[{i}].label" not in failed]
        if summary is not None:
            # the result said as the digest's summary says it: that passed every check the finding owes its sentence
            self._mended(part, assemble(self.parts, self.answers, self.title)[summary.field])
        elif part.question == "FINDING" and _droppable(rules, late) and len(self.findings()) > 1:
            self.parts = renumbered([p for p in self.parts if p is not part])
        elif part.question == "IDEAS" and rules == {"label"} and (kept or late):
            # the ideas that are labels in the paper's words kept, the others left out (asked again, the 1.5B
            # model gave the prompt's example idea back); none left after a few rounds, the ideas are the
            # glossary's terms of the method's sentences, or the mind map is its topic alone rather than the paper
            # failing (HANRAG's ideas on the 2025-09-15 listing were sentences in every round)
            kept = kept or ideas_from_terms(part.sources, mind_map.get("label", ""))
            self._mended(part, "\n".join(f"- {idea}" for idea in kept))
        elif rules <= set(_WRITTEN_BACK) and (written := _written_back(self.answers.get(part.key, ""), problems)):
            self._mended(part, written)  # the paper's acronym alone, the paper's name where one was misspelt
        elif part.question == "SUMMARY" and same is not None and late:
            # the main result said as its finding says it: that wording passed every check of the same sentence
            self._borrow(part, same)
        elif part.question == "SUMMARY" and late and rules == {"copied"} and (cut := self._cut(part)):
            self._mended(part, cut)  # its head, where the sentence's whole was copied (passages.py)
        elif rules & REWRITTEN and part.rewritable:
            text = one_line(self.replies[part.key].content)
            others = " . ".join(r.content for key, r in self.replies.items() if key != part.key)
            sources = (
                self.facts.passages,
                PaperWords.of(" ".join(s.text for s in part.sources)),
                PaperWords.of(others),
            )
            runs = [run for source in sources for run in source.runs(text)]
            avoid = max(runs, key=lambda run: run.length).text if runs else ""
            asked = rewrite_messages(self.prompts, opening(text, part.words), part.words, avoid, kept_words(part))
            await self.ask(part, asked, attempt)
        else:
            await self.first(part, attempt, [p.text for p in problems])

    def _cut(self, part: Part) -> str:
        """A summary's answer without its last clause, where that shortens it (one cut per round)."""
        return without_last_clause(one_line(self.answers.get(part.key, "")))

    def findings(self) -> list[Part]:
        return [p for p in self.parts if p.question == "FINDING"]

    def _finding_to_borrow(self, part: Part, failing: frozenset[str]) -> Part | None:
        """The finding of `part`'s own sentence whose wording the summary may take: it passed, and, given as the
        summary (its first sentence), it owes the summary nothing. PaCoRe's "PaCoRe outperforms GPT-5 by scaling …",
        which wrote none of 94.5% and 93.2%, borrowed from round 3 on, failed rule summary_figure in every round
        after (the 2026-01-13 listing at 0463dfa); its finding of two sentences, "An 8B model achieves 94.5% on HMMT
        2025. It surpasses GPT-5's 93.2% …", borrowed, dropped the comparison with its second sentence and failed
        rule scope in rounds 3 to 6, the summary never asked again (at 754ecd1)."""
        return next(
            (
                f
                for f in self.findings()
                if f.sources == part.sources
                and f.key not in failing
                and not summary_owes(self._given(f, as_question="SUMMARY"), f.sources[0].text)
            ),
            None,
        )

    def _summary_to_borrow(self, part: Part, failing: frozenset[str]) -> Part | None:
        """The summary whose wording the finding `part` may take: written from the finding's own sentence, its own
        (borrowed from no finding), passing, and owing the finding nothing. MergeVQ's one finding copied 19 to 26
        words of its sentence, or claimed "enhancing" or "outperforms", in all 6 rounds of two sample runs (at
        94b905f and 78e622b), its summary of the same sentence passing: the paper failed on a result it had said."""
        summary = next((p for p in self.parts if p.question == "SUMMARY"), None)
        if part.question != "FINDING" or summary is None or summary.sources != part.sources:
            return None
        if summary.key in failing or summary.key in self.borrowed:
            return None
        text = self._given(summary) if summary.key in self.answers else ""
        return summary if text and not finding_owes(f"{part.field}.finding", text, part.sources[0].text) else None

    def _given(self, part: Part, as_question: str | None = None) -> str:
        """A finding's or the summary's answer as the digest gives it (answers.as_given), or as it would give it for
        `as_question` (a finding borrowed as the summary): the raw answer may owe what the program's mends take care
        of."""
        return as_given(as_question or part.question, self.answers.get(part.key, ""), part.sources[0].text)

    def judged(self) -> tuple[dict, Verdict]:
        """The digest the answers make and the checker's verdict on it: every rule of the English digest but
        the count's, what each finding and the summary owe their sentences, and no echo of the questions."""
        data = assemble(self.parts, self.answers, self.title)
        digest, shape = digest_of(data)
        if digest is None:
            return data, Verdict(None, shape)
        digest = cut_back(digest)
        sources = written_from(self.parts)
        found = rule_problems(digest, self.facts, STEPS_RULES)
        found += evidence_problems(digest, sources) + echoed(digest, self.prompts.texts())
        found += acronyms_spelled(digest, self.facts, field_sentences(digest, self.parts))
        problems = [p for p in found if not _same_result(p, sources)]
        return data, Verdict(None if problems else digest, problems)


def kept_words(part: Part) -> list[str]:
    """What of a finding's or the summary's sentence its answer must keep as written (checker/scope.py)."""
    return scope_words(part.sources[0].text) if part.question in ("FINDING", "SUMMARY") and part.sources else []


def acronyms_named(part: Part) -> list[str]:
    """The acronyms of the problem's and the method's sentences as they write them, which the question says never
    to spell out: asked without, the 1.5B model wrote GlimpRouter's LRMs as "Long Short-Term Memory (LSTMs)" in 3
    of 6 samples of its method, asked with, in none (the 2026-01-13 listing at 014b950); MergeVQ's method copied
    its sentence in 6 of 6 with the line, 4 of 6 without: a rewrite, which mends a copy, is asked without it."""
    if part.question not in ("PROBLEM", "METHOD", "STUDY"):
        return []
    text = " ".join(s.text for s in part.sources)
    return [name for name in names_in(text) if name.removesuffix("s") in acronyms_in(text)]


def to_mend(problems: list[Problem], parts: list[Part]) -> dict[str, list[Problem]]:
    """Each part a problem's field belongs to, with its problems, in the parts' order, except that a finding still
    said as what the paper does comes before the other findings: dropped late, it leaves the others standing. X-Part's
    main result, copying its sentence, was dropped before its "This work establishes a new paradigm …", which then
    could not be, and the paper failed (the 2025-09-15 listing at bd94e11). A problem of no part's field (the whole
    digest's) is left out: no part can mend it."""
    mend: dict[str, list[Problem]] = {}
    for problem in problems:
        part = part_of(problem.field, parts)
        if part is not None:
            mend.setdefault(part.key, []).append(problem)
    order = [part.key for part in parts]
    first_finding = next((i for i, part in enumerate(parts) if part.question == "FINDING"), 0)

    def place(key: str) -> tuple[float, int]:
        doing = key.startswith("FINDING") and {p.rule for p in mend[key]} == {"finding_doing"}
        return (first_finding - 0.5, order.index(key)) if doing else (order.index(key), 0)

    return dict(sorted(mend.items(), key=lambda item: place(item[0])))


def _droppable(rules: set[str], late: bool) -> bool:
    """Whether a finding failing `rules` is dropped where others remain: one repeating another, and one still
    said as what the paper does after a few rounds (its sentence was a claim the 1.5B model reads as the method:
    X-Part's "This work establishes a new paradigm …" on the 2025-09-15 listing), or still copying it (R1-Zero's
    third finding copied 18 words of its sentence in rounds 1 to 3 of the sample run at 78e622b, and the paper
    failed, its two other findings passing)."""
    return rules == {"repeated"} or (late and rules in ({"finding_doing"}, {"copied"}))


def renumbered(parts: list[Part]) -> list[Part]:
    """The parts with each finding's and limitation's field numbered again in order (after one is dropped)."""
    counts: dict[str, int] = {}
    out = []
    for part in parts:
        if part.question in ("FINDING", "LIMITATION"):
            index = counts.get(part.question, 0)
            counts[part.question] = index + 1
            base = "results" if part.question == "FINDING" else "limitations"
            part = Part(part.key, part.question, f"{base}[{index}]", part.sources, part.words)
        out.append(part)
    return out


def _same_result(problem: Problem, sources: dict[str, list[str]]) -> bool:
    """A summary that repeats the finding written from its own sentence: the paper's main result, said once as
    the summary and once as a finding with its figures, is no repetition to mend."""
    if problem.rule != "repeated" or problem.field != "one_sentence" or not problem.about.startswith("results["):
        return False
    result = problem.about.removesuffix(".finding")
    return bool(sources.get(result)) and sources.get(result) == sources.get("one_sentence")


# What the program writes back itself for a rule, from its problem's two subjects: an acronym alone where its
# expansion was invented, a paper's name where the part misspelt it.
_WRITTEN_BACK = {"acronym": with_acronym_alone, "names": with_name_as_written}


def _written_back(answer: str, problems: list[Problem]) -> str:
    """The answer with each problem mended as `_WRITTEN_BACK` says (the invented words of an `acronym` problem
    written as the acronym, a misspelt name of a `names` problem as the paper writes it), or "" where one of them
    names no two subjects or its words are not found as written (the part is then asked again)."""
    mended = answer
    for problem in problems:
        write = _WRITTEN_BACK[problem.rule]
        if len(problem.subjects) != 2 or (written := write(mended, *problem.subjects)) == mended:
            return ""
        mended = written
    return mended


def rejected_text(data: dict) -> str:
    """A rejected digest as the result records it (what the model's parts made)."""
    return json.dumps(data, ensure_ascii=False)
