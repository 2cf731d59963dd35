"""An English digest written as a plain-text draft, evidence first (docs/checker.md, "Evidence first"): the
model writes its parts under headings and names, for each finding, the numbered candidate sentence it
reports; the program turns the draft into the digest's JSON, taking each result's `numbers` and `sections`
from that sentence, and the checker then judges the digest as it judges any other."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from papers_digest.checker.candidates import Candidate
from papers_digest.checker.english import Verdict, check_digest_en
from papers_digest.checker.fields import words
from papers_digest.checker.numbers import prose_numbers
from papers_digest.checker.paper import PaperFacts
from papers_digest.checker.passages import PaperWords, longest_run
from papers_digest.checker.paths import result_index, steps_of
from papers_digest.checker.problems import Problem
from papers_digest.checker.results import STOP
from papers_digest.core.models import Evidence

# The draft's parts, in the order the prompt asks for them: heading -> the digest's key (None: the draft's
# own, turned into the mind map).
PARTS: dict[str, str] = {
    "PROBLEM": "problem",
    "METHOD": "method",
    "FINDINGS": "results",
    "SUMMARY": "one_sentence",
    "LIMITATIONS": "limitations",
    "TAKEAWAYS": "takeaways",
    "TOPIC": "mind_map",
    "IDEAS": "mind_map.children",
}
REQUIRED = ("PROBLEM", "METHOD", "FINDINGS", "SUMMARY", "LIMITATIONS", "TAKEAWAYS", "TOPIC")
_HEADING_RE = re.compile(
    r"^[ \t>#*_]*(" + "|".join(PARTS) + r")\b[ \t*_]*:?[ \t*_]*(.*)$", re.IGNORECASE | re.MULTILINE
)
_FINDING_RE = re.compile(r"^\s*(?:[-*•]\s*|\d+[.)]\s*)?\[\s*(\d+)\s*\][\s:.-]*(.+)$")
# A finding that speaks of its candidate rather than of the paper: "sentence [3]", or "The sentence … reads/is/
# says/states/found/showcases" at its start, a quotation between.
_FRAMED_RE = re.compile(
    r"\bsentences? \[\d+\]|^(?:the|this) sentence\b(?: \[\d+\])?(?: \"[^\"]*\")?:? "
    r"(?:reads|is|says|states|found|showcases|shows|indicates|reports|demonstrates)\b",
    re.IGNORECASE,
)
_ITEM_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)$")
# A finding written without its candidate's number reports the candidate holding this share of its content
# words (and more of them than any other candidate).
MATCH_SHARE = 0.5
MAX_NUMBERS = 6
# A finding copies its sentence when it carries this many of its words in a row, or a run that is this share
# of the finding (the summaries' bound, checker/substance.py COPY_WORDS and COPY_SHARE).
COPY_WORDS, COPY_SHARE = 12, 0.8  # figures a result lists, at most (the structured schema's cap)


@dataclass(frozen=True)
class Draft:
    """A draft turned into the digest's JSON: the digest as a dict (None when the draft's form is wrong, with
    the problems), and for each result the candidate it reports."""

    digest: dict | None
    problems: list[Problem]
    reported: list[Candidate]

    def answer(self) -> str:
        """The digest as the JSON answer the checker reads (the draft's problems stand in for it otherwise)."""
        return json.dumps(self.digest, ensure_ascii=False) if self.digest is not None else ""


def read_draft(text: str, candidates: list[Candidate]) -> Draft:
    """The digest a draft holds, or the problems of its form (a missing part, a finding naming no candidate,
    or one already reported)."""
    parts = _split_parts(text)
    problems = [
        Problem("draft", f"the draft has no {name}: part: write it on its own line, as '{name}: …'")
        for name in REQUIRED
        if not parts.get(name)
    ]
    by_index = {c.index: c for c in candidates}
    results, reported = [], []
    for line in parts.get("FINDINGS", "").splitlines():
        found = _FINDING_RE.match(line)
        if not line.strip():
            continue
        index, finding = (int(found.group(1)), found.group(2)) if found else (None, _ITEM_RE.sub(r"\1", line))
        candidate = by_index.get(index) if index is not None else closest_candidate(finding, candidates)
        if candidate is None and index is None:
            problems.append(Problem("draft", f"FINDINGS: {line.strip()[:60]!r} names no candidate: start it with [n]"))
        elif candidate is None:
            problems.append(
                Problem("draft", f"FINDINGS: [{found.group(1)}] is not a candidate (1 to {len(candidates)})")
            )
        elif candidate in reported:
            problems.append(
                Problem("draft", f"FINDINGS: [{candidate.index}] is reported twice: report each candidate once")
            )
        else:
            results.append(_result(finding.strip(), candidate))
            reported.append(candidate)
    if problems:
        return Draft(None, problems, [])
    digest = {
        "problem": _prose(parts["PROBLEM"]),
        "method": _prose(parts["METHOD"]),
        "results": results,
        "one_sentence": _prose(parts["SUMMARY"]),
        "limitations": _items(parts["LIMITATIONS"]),
        "takeaways": _items(parts["TAKEAWAYS"]),
        "mind_map": {
            "label": _prose(parts["TOPIC"]).rstrip("."),
            "children": [{"label": idea.rstrip("."), "children": []} for idea in _items(parts.get("IDEAS", ""))],
        },
    }
    return Draft(digest, [], reported)


def judge_draft(text: str, candidates: list[Candidate], facts: PaperFacts) -> Verdict:
    """The checker's verdict on a draft: its form, then every rule of the English digest on the digest it
    holds, then what each finding owes its sentence (evidence_problems); a digest that passes carries, as its
    evidence, the sentences its findings were written from."""
    draft = read_draft(text, candidates)
    if draft.digest is None:
        return Verdict(None, draft.problems)
    verdict = check_digest_en(draft.answer(), facts)
    results = verdict.digest.model_dump()["results"] if verdict.digest else draft.digest["results"]
    owed = evidence_problems(results, draft.reported)
    if verdict.digest is None or owed:
        return Verdict(None, [*verdict.problems, *owed])
    return Verdict(verdict.digest, [], candidate_evidence(draft.reported, results))


def evidence_problems(results: list[dict], reported: list[Candidate]) -> list[Problem]:
    """What a finding owes the sentence it reports: its own words (no run of COPY_WORDS of the sentence's
    words, nor a copy that is most of the finding), no figure the sentence does not state, and no talk of
    "the sentence" itself: a reader never saw the numbered candidates (rule `echo`; the 0.5B model asked in
    steps wrote 'The sentence [3] reads: "…"' and 'The sentence found is: "…"', its sentence reworded in
    quotes)."""
    problems = []
    for i, (result, candidate) in enumerate(zip(results, reported, strict=True)):
        finding = result["finding"]
        framed = _FRAMED_RE.search(finding)
        if framed:
            problems.append(
                Problem(
                    "echo",
                    f"results[{i}].finding: speaks of the numbered sentence ('{framed.group(0)}') instead of saying "
                    "what it shows: say what the paper found, in your own words",
                )
            )
        run = longest_run(finding, PaperWords.of(candidate.sentence))
        if run >= COPY_WORDS or run >= COPY_SHARE * len(words(finding)):
            problems.append(
                Problem(
                    "copied",
                    f"results[{i}].finding: copies {run} words of the sentence it reports: say in your own words "
                    "what it shows",
                )
            )
        foreign = [n.text for n in prose_numbers(finding) if not any(n.matches(f) for f in candidate.figures)]
        if foreign:
            problems.append(
                Problem(
                    "finding_number",
                    f"results[{i}].finding: {foreign[0]!r} is not in the sentence it reports: write only its figures",
                )
            )
    return problems


def closest_candidate(finding: str, candidates: list[Candidate]) -> Candidate | None:
    """The candidate a finding that names none reports: the one sharing most of its content words, when that
    is at least MATCH_SHARE of them and no other candidate shares as many."""
    mine = _content(finding)
    if not mine:
        return None
    scored = sorted(((len(mine & _content(c.sentence)), c.index) for c in candidates), reverse=True)
    if not scored or scored[0][0] < MATCH_SHARE * len(mine) or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return next(c for c in candidates if c.index == scored[0][1])


def candidate_evidence(reported: list[Candidate], results: list[dict]) -> list[list[Evidence]]:
    """Each result's evidence: the sentence it was written from, once per figure it lists."""
    return [
        [Evidence(number=number, section=c.section, sentence=c.sentence) for number in result["numbers"]]
        or [Evidence(number="", section=c.section, sentence=c.sentence)]
        for c, result in zip(reported, results, strict=True)
    ]


def draft_path(path: str, reported: list[Candidate]) -> str:
    """A problem's field in the draft's words: `results[1].finding` -> `FINDINGS [7]`, `one_sentence` ->
    `SUMMARY`, `limitations[0]` -> `LIMITATIONS item 1`, a mind map label -> TOPIC or IDEAS."""
    index = result_index(path)
    if index is not None:
        return f"FINDINGS [{reported[index].index}]" if index < len(reported) else "FINDINGS"
    steps = steps_of(path) if path else []
    if not steps:
        return path
    heading = next((name for name, key in PARTS.items() if key == steps[0]), str(steps[0]))
    if steps[0] in ("limitations", "takeaways") and len(steps) > 1:
        return f"{heading} item {int(steps[1]) + 1}"
    if steps[0] == "mind_map":
        return "IDEAS" if "children" in steps else "TOPIC"
    return heading


def _result(finding: str, candidate: Candidate) -> dict:
    """A result from its finding and the candidate it reports: the candidate's figures the finding writes (all
    of them when it writes none), under the candidate's section."""
    written = prose_numbers(finding)
    figures = [f.text for f in candidate.figures if any(f.matches(w) or w.matches(f) for w in written)]
    if not figures:
        figures = [f.text for f in candidate.figures]
    return {"sections": [candidate.section], "numbers": list(dict.fromkeys(figures))[:MAX_NUMBERS], "finding": finding}


def _content(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP and not w.isdigit()}


def problems_in_draft_words(problems: list[Problem], reported: list[Candidate]) -> str:
    """The opening of a retry's or a repair's message: the problems, each named in the draft's words."""
    return f"Your draft has these problems: {'; '.join(in_draft_words(p, reported) for p in problems)}."


def in_draft_words(problem: Problem, reported: list[Candidate]) -> str:
    """A problem's message with its leading field path in the draft's words (`results[1].finding` ->
    `FINDINGS [7]`), as a retry or a repair shows it to the model."""
    path = problem.field
    return problem.message if not path else draft_path(path, reported) + problem.message[len(path) :]


def parts_of(problems: list[Problem], reported: list[Candidate]) -> list[str] | None:
    """The draft's parts a repair asks for again, in the draft's order: the part each problem's field is in
    (or a draft problem names); None when a problem is the whole answer's (it names no part)."""
    asked: set[str] = set()
    for problem in problems:
        where = draft_path(problem.field, reported) if problem.field else problem.message
        if problem.rule in ("results_count", "same_sections"):
            where = "FINDINGS"
        name = next((n for n in PARTS if re.match(rf"(the draft has no )?{n}\b", where)), None)
        if name is None:
            return None
        asked.add(name)
    return [name for name in PARTS if name in asked]


def merge_parts(draft: str, reply: str, asked: list[str]) -> str:
    """The draft with the parts in `asked` taken from the reply (where it gives them), written back in order."""
    parts = _split_parts(draft)
    parts.update({name: body for name, body in _split_parts(reply).items() if name in asked and body})
    return "\n".join(f"{name}: {parts[name]}" for name in PARTS if name in parts)


def draft_parts(text: str) -> dict[str, str]:
    """A draft's parts by heading (upper case), as read_draft reads them."""
    return _split_parts(text)


def _split_parts(text: str) -> dict[str, str]:
    """Heading (upper case) -> the text under it, up to the next heading; a later repeat of a part is kept
    out (a model that starts the draft again)."""
    parts: dict[str, str] = {}
    matches = list(_HEADING_RE.finditer(text))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        name = match.group(1).upper()
        body = (match.group(2) + "\n" + text[match.end() : end]).strip()
        parts.setdefault(name, body)
    return parts


def _prose(body: str) -> str:
    """A part written as prose: its lines joined, list marks and Markdown emphasis taken off."""
    lines = [_ITEM_RE.sub(r"\1", line).strip() for line in body.splitlines()]
    return " ".join(line for line in lines if line).replace("**", "").strip()


def _items(body: str) -> list[str]:
    """A part written as a list: one item per line, list marks taken off."""
    lines = (_ITEM_RE.sub(r"\1", line).strip().replace("**", "") for line in body.splitlines())
    return [line for line in lines if line]
