"""The questions of a digest asked in steps, read from their prompt file (prompts/digest_en_steps.md: a system
prompt, then one `## NAME` section per question), and the messages that ask them (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from papers_digest.llm.prompting import Message

# The prompt file's sections: the questions, then the follow-ups (asked again, a phrase to avoid, a rewrite).
QUESTIONS = ("PROBLEM", "METHOD", "STUDY", "FINDING", "SUMMARY", "AIM", "LIMITATION", "TAKEAWAYS", "TOPIC", "IDEAS")
SECTIONS = (*QUESTIONS, "KEEP", "ACRONYMS", "AGAIN", "AVOID", "REWRITER", "REWRITE")
PAPER_PREFIX = "Paper: "
QUESTION_MARK = "Question ({key}):"  # names the part a request asks (the engine simulator reads it back)
REWRITE_MARK = "Text to rewrite:"
_SECTION_RE = re.compile(r"^## ([A-Z]+)[ \t]*$", re.MULTILINE)
_QUESTION_RE = re.compile(r"\n\nQuestion \(([A-Z]+(?: \[\d+\])?)\):")


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


def check_steps_prompt(text: str, where: str) -> None:
    """A prompt file the steps can ask with (the registry's check: ValueError naming what is missing)."""
    read_step_prompts(text, where)


def question(
    prompts: StepPrompts,
    name: str,
    sentences: list[str],
    findings: str = "",
    keep: list[str] = (),
    acronyms: list[str] = (),
) -> str:
    """Question `name` with its placeholders filled: the one sentence it rewords (`{sentence}`), or several
    (`{sentences}`, each quoted), for TAKEAWAYS what the paper found, `{keep}`: the KEEP line naming what of
    the sentence must stay as written (its scope: checker/scope.py scope_words), and `{acronyms}`: the ACRONYMS
    line naming the acronyms never to spell out; either line, or nothing."""
    quoted = " ".join(f'"{s}"' for s in sentences)
    kept = prompts.sections["KEEP"].replace("{words}", ", ".join(f'"{w}"' for w in keep)) if keep else ""
    named = prompts.sections["ACRONYMS"].replace("{words}", ", ".join(acronyms)) if acronyms else ""
    text = prompts.sections[name]
    return (
        text.replace("{sentence}", sentences[0] if sentences else "")
        .replace("{sentences}", quoted)
        .replace("{findings}", findings)
        .replace("{keep}", kept)
        .replace("{acronyms}", named)
        .strip()
    )


def step_messages(prompts: StepPrompts, title: str, key: str, asked: str) -> list[Message]:
    """A step's request: the system prompt, then the paper's title and the question, marked with its part.
    Every step of a paper shares the system prompt and the title (the engine's prefix cache keeps them)."""
    user = f"{PAPER_PREFIX}{title}\n\n{QUESTION_MARK.format(key=key)} {asked}"
    return [{"role": "system", "content": prompts.system}, {"role": "user", "content": user}]


def again_message(prompts: StepPrompts, problems: list[str]) -> str:
    """The follow-up asking a step again, with its problems."""
    return prompts.sections["AGAIN"].replace("{problem}", "; ".join(problems))


def rewrite_messages(
    prompts: StepPrompts, text: str, words: int, avoid: str = "", keep: list[str] = ()
) -> list[Message]:
    """A rewrite request: the text alone, no paper in view, in at most `words` words, a phrase it copied named
    to be avoided (greedy decoding otherwise rewrites the same text the same way each round), and what it must
    keep as written (rewritten without its sentence, the 1.5B model made "competitive" "outperforms")."""
    asked = prompts.sections["REWRITE"].replace("{words}", str(words))
    if avoid:
        asked += "\n" + prompts.sections["AVOID"].replace("{phrase}", avoid)
    if keep:
        asked += "\n" + prompts.sections["KEEP"].replace("{words}", ", ".join(f'"{w}"' for w in keep))
    return [
        {"role": "system", "content": prompts.sections["REWRITER"]},
        {"role": "user", "content": f"{asked}\n\n{REWRITE_MARK}\n{text}"},
    ]


def step_of_request(user: str) -> str | None:
    """The part a user message asks (`PROBLEM`, `FINDING [2]`), or None when it is no step's."""
    found = _QUESTION_RE.search(user)
    return found.group(1) if found else None


def rewritten_text(user: str) -> str | None:
    """The text a rewrite request gives, or None when it is none."""
    _, mark, text = user.rpartition(f"\n\n{REWRITE_MARK}\n")
    return text if mark else None
