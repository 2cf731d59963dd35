"""The evidence-first digest asked in steps (llm.asking: steps; docs/checker.md, "Asked in steps").

Measured on the sample day with the 1.5B model (docs/performance.md): asked for the whole draft at once, it
echoed the format, ran findings together and copied the abstract's clauses into every part; asked one
question at a time, with the paper in the engine's prefix cache, it answered each part in 2-13 s, and what it
had copied (runs of 17-29 words of the paper), asked to rewrite it in simpler words without the paper in
view, it said in words of its own (longest run 0-6).

Each part is one short request: the paper's evidence-first message (llm/drafting.py) and one question of
prompts/digest_en_steps.md; the findings are asked one per candidate sentence the model picked. The program
writes the answers into a draft (checker/draft.py) and the checker judges it whole, as it judges a draft
written at once. A part that failed is asked again, alone: one that copied the paper or was cut off is
rewritten in other words without the paper in view, any other asked again with its problem; a finding that
repeats another, or that the summary repeats, is dropped where enough remain (the summary then says it). At
most MAX_ROUNDS rounds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from papers_digest.checker.candidates import Candidate
from papers_digest.checker.passages import PaperWords
from papers_digest.checker.paths import result_index
from papers_digest.checker.problems import Problem

# The prompt file's sections: the system prompt comes first, then one `## NAME` section per step.
QUESTIONS = ("PROBLEM", "METHOD", "PICK", "FINDING", "SUMMARY", "LIMITATIONS", "TAKEAWAYS", "TOPIC", "IDEAS")
SECTIONS = (*QUESTIONS, "AGAIN", "AVOID", "REWRITER", "REWRITE")
# The parts asked after the findings, in order (PROBLEM and METHOD come first, then PICK and the findings).
LATER = ("SUMMARY", "LIMITATIONS", "TAKEAWAYS", "TOPIC", "IDEAS")
# A step's answer cap: one sentence is about 40 tokens; a cap stops a model that goes on (the 0.5B model once
# counted candidates up to [296]). A part cut at its cap is cut back to its last full sentence by the checker.
MAX_TOKENS = {"PICK": 24, "TOPIC": 24, "METHOD": 100, "IDEAS": 80}
SENTENCE_TOKENS = 80
# The words a rewrite may take, by part (the questions' own lengths).
REWRITE_WORDS = {"PROBLEM": 25, "METHOD": 40, "FINDING": 25, "SUMMARY": 25, "LIMITATIONS": 15, "TAKEAWAYS": 15}
REWRITTEN = frozenset({"copied", "cut_off", "repeated"})  # rules a rewrite in other words mends
# the checker's `repeated` problem of a later field, naming the finding it repeats (checker/substance.py)
_REPEATS_FINDING_RE = re.compile(r"\brepeats (results\[\d+\]\.finding)\b")
# From this round on, a part asked again is sampled (RESAMPLING, seeded by the round, so a rerun is the same):
# greedy decoding asked the same question gives the same answer, and the checker picks among the tries.
SAMPLED_FROM_ROUND = 3
RESAMPLING = {"temperature": 0.7}
MAX_ROUNDS = 4  # the answers, and three rounds asking again for the parts that failed (each a few seconds)
MOST_FINDINGS = 3
QUESTION_MARK = "Question ({key}):"  # ends the user message; names the step (the simulator reads it)
REWRITE_MARK = "Text to rewrite:"
_SECTION_RE = re.compile(r"^## ([A-Z]+)[ \t]*$", re.MULTILINE)
_QUESTION_RE = re.compile(r"\n\nQuestion \(([A-Z]+(?: \[\d+\])?)\):")
_NUMBER_RE = re.compile(r"\d+")
_SAID_BACK_RE = re.compile(
    r"(?:the |this )?sentence(?: \[\d+\])?(?: \"[^\"]*\")? "
    r"(?:shows|indicates|states|says|reports|demonstrates|highlights)(?: that)?,? ",
    re.IGNORECASE,
)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_ECHOED_NAME_RE = re.compile(r"^\s*(?:\*\*)?(?:" + "|".join(QUESTIONS) + r"|ANSWER)(?:\*\*)?\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class StepPrompts:
    """prompts/digest_en_steps.md read: the system prompt and each section's text by name."""

    system: str
    sections: dict[str, str]

    def texts(self) -> list[str]:
        """Everything the steps ask in (for the echo rule: no field repeats the instructions)."""
        return [self.system, *self.sections.values()]


def read_step_prompts(text: str, where: str = "the steps prompt") -> StepPrompts:
    """The steps prompt file's system prompt and sections; ValueError naming the file and what is missing."""
    found = list(_SECTION_RE.finditer(text))
    sections = {
        m.group(1): text[m.end() : found[i + 1].start() if i + 1 < len(found) else len(text)].strip()
        for i, m in enumerate(found)
    }
    missing = [name for name in SECTIONS if not sections.get(name)]
    system = text[: found[0].start()].strip() if found else ""
    if missing or not system:
        what = ", ".join(f"## {name}" for name in missing) or "the system prompt before the first section"
        raise ValueError(f"{where}: missing {what} (llm.asking: steps; sections: {', '.join(SECTIONS)})")
    return StepPrompts(system, sections)


def finding_key(candidate: Candidate) -> str:
    return f"FINDING [{candidate.index}]"


def question(
    prompts: StepPrompts,
    key: str,
    fewest: int = 1,
    most: int = MOST_FINDINGS,
    finding: Candidate | None = None,
    found: str = "",
) -> str:
    """The question of step `key`, its placeholders filled: PICK's bounds, a finding's sentence, and for
    SUMMARY the findings written so far (`found`: asked for the main result with only the paper in view, the
    1.5B model restated its method)."""
    text = prompts.sections["FINDING" if finding is not None else key]
    if finding is not None:
        return text.replace("{number}", str(finding.index)).replace("{sentence}", finding.sentence)
    return text.replace("{fewest}", str(fewest)).replace("{most}", str(most)).replace("{findings}", found)


def step_message(paper: str, key: str, asked: str) -> str:
    """The user message of a step: the paper's message (the prefix every step of a paper shares), then the
    question, marked with its step."""
    return f"{paper}\n\n{QUESTION_MARK.format(key=key)} {asked}"


def step_of_request(user: str) -> str | None:
    """The step a user message asks (`PROBLEM`, `FINDING [7]`), or None when it is no step's."""
    found = _QUESTION_RE.search(user)
    return found.group(1) if found else None


def again_message(prompts: StepPrompts, problems: list[Problem]) -> str:
    """The follow-up asking a step again: its problems, each without the digest's field path."""
    said = "; ".join(_without_path(p) for p in problems)
    return prompts.sections["AGAIN"].replace("{problem}", said)


def rewrite_messages(
    prompts: StepPrompts, key: str, text: str, sources: tuple[PaperWords, ...] = ()
) -> list[dict[str, str]]:
    """A rewrite request: the text alone, no paper in view, in at most the part's words; of a long answer its
    opening sentences, about that many words (given four sentences, the 1.5B model rewrote all four). The
    longest run of words it copies from `sources` (the paper, a finding's sentence) is named, to be avoided:
    greedy decoding otherwise rewrites the same text the same way each round."""
    words = REWRITE_WORDS["FINDING" if key.startswith("FINDING") else key]
    asked = prompts.sections["REWRITE"].replace("{words}", str(words))
    text = opening(text, words)
    if avoid := copied_phrase(text, sources):
        asked += "\n" + prompts.sections["AVOID"].replace("{phrase}", avoid)
    return [
        {"role": "system", "content": prompts.sections["REWRITER"]},
        {"role": "user", "content": f"{asked}\n\n{REWRITE_MARK}\n{text}"},
    ]


def copied_phrase(text: str, sources: tuple[PaperWords, ...]) -> str:
    """The longest run of words `text` copies from any of `sources` (the paper, a finding's sentence); ""
    when none."""
    runs = [run for source in sources for run in source.runs(text)]
    return max(runs, key=lambda run: run.length).text if runs else ""


def opening(text: str, words: int) -> str:
    """The text's first sentences up to about `words` words (at least its first sentence)."""
    sentences = _SENTENCE_RE.split(text.strip())
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if len(" ".join([*kept, sentence]).split()) > words:
            break
        kept.append(sentence)
    return " ".join(kept)


def rewritten_text(user: str) -> str | None:
    """The text a rewrite request gives, or None when it is none."""
    _, mark, text = user.rpartition(f"\n\n{REWRITE_MARK}\n")
    return text if mark else None


def max_tokens(key: str) -> int:
    return MAX_TOKENS.get(key.split(" ")[0], SENTENCE_TOKENS)


def sampling(round_: int) -> dict[str, float | int] | None:
    """The sampling settings of a round's requests: the stage's own (None) until SAMPLED_FROM_ROUND."""
    return None if round_ < SAMPLED_FROM_ROUND else {**RESAMPLING, "seed": round_}


def rewritable(key: str) -> bool:
    return key.split(" ")[0] in REWRITE_WORDS


def picked(reply: str, candidates: list[Candidate], most: int) -> list[Candidate]:
    """The candidates a PICK answer names, in its order, each once, at most `most`."""
    by_index = {c.index: c for c in candidates}
    chosen: list[Candidate] = []
    for number in _NUMBER_RE.findall(reply):
        candidate = by_index.get(int(number))
        if candidate is not None and candidate not in chosen:
            chosen.append(candidate)
    return chosen[:most]


def one_line(answer: str) -> str:
    """A prose answer as one line: whitespace collapsed; an echoed part name, wrapping quotes and the question
    said back ("The sentence shows that …", the 1.5B model's opening of most findings) taken off."""
    text = " ".join(_ECHOED_NAME_RE.sub("", answer.strip()).split())
    if len(text) > 1 and text[0] in '"“' and text[-1] in '"”':
        text = text[1:-1].strip()
    said_back = _SAID_BACK_RE.match(text)
    if said_back and len(text) > said_back.end():
        text = text[said_back.end() :]
        first = text.split()[0]
        if first.isalpha() and first.islower():  # "the KL penalty", not "vsGRPO-2B"
            text = text[0].upper() + text[1:]
    return text


def items(answer: str) -> list[str]:
    """A list answer's items: one per line, list marks and an echoed part name taken off."""
    lines = (re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line) for line in answer.splitlines())
    return [one_line(line) for line in lines if one_line(line)]


def draft_text(answers: dict[str, str], findings: list[Candidate]) -> str:
    """The draft the answers make, as checker/draft.py reads one: each part under its heading, each finding
    after its candidate's number."""
    lines = [f"PROBLEM: {one_line(answers.get('PROBLEM', ''))}", f"METHOD: {one_line(answers.get('METHOD', ''))}"]
    lines += ["FINDINGS:", *(f"[{c.index}] {one_line(answers.get(finding_key(c), ''))}" for c in findings)]
    lines.append(f"SUMMARY: {one_line(answers.get('SUMMARY', ''))}")
    for name in ("LIMITATIONS", "TAKEAWAYS"):
        lines += [f"{name}:", *(f"- {item}" for item in items(answers.get(name, ""))[:2])]
    lines.append(f"TOPIC: {one_line(answers.get('TOPIC', '')).rstrip('.')}")
    lines += ["IDEAS:", *(f"- {item.rstrip('.')}" for item in items(answers.get("IDEAS", ""))[:4])]
    return "\n".join(lines)


def steps_to_mend(
    problems: list[Problem], findings: list[Candidate], path_of: Callable[[str, list[Candidate]], str]
) -> dict[str, list[Problem]]:
    """Each failed step with its problems, in the draft's order: a field's problem goes to the step that
    wrote it (`path_of`: checker/draft.py draft_path), a problem of the findings as a whole (too few, all from
    one section, a finding naming no candidate) to PICK."""
    mend: dict[str, list[Problem]] = {}
    for problem in problems:
        where = path_of(problem.field, findings) if problem.field else problem.message
        found = re.match(r"(?:the draft has no )?(FINDINGS \[\d+\]|[A-Z]+\b)", where)
        name = found.group(1) if found else "PICK"
        if problem.rule in ("results_count", "same_sections") or name == "FINDINGS":
            name = "PICK"
        elif name.startswith("FINDINGS ["):
            name = name.replace("FINDINGS", "FINDING")
        elif name not in QUESTIONS:
            name = "PICK"
        mend.setdefault(name, []).append(problem)
    return mend


def _without_path(problem: Problem) -> str:
    prefix = f"{problem.field}: "
    return problem.message[len(prefix) :] if problem.field and problem.message.startswith(prefix) else problem.message


def finding_repeated(problems: list[Problem]) -> int | None:
    """The index of the finding a `repeated` problem says its field repeats (the summary, on the sample day:
    asked to sum up the findings, the 1.5B model wrote one of them again), if any."""
    for problem in problems:
        found = _REPEATS_FINDING_RE.search(problem.message) if problem.rule == "repeated" else None
        if found is not None:
            return result_index(found.group(1))
    return None
