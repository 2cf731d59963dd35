"""The English digest asked as one JSON answer (llm.asking: json): the whole digest at once, held to its schema
with llm.structured_output, and one checker retry that asks again only for the fields that failed."""

from __future__ import annotations

from papers_digest.checker.english import Verdict, check_digest_en
from papers_digest.checker.paper import read_paper
from papers_digest.checker.schema import digest_schema, retry_digest_schema
from papers_digest.core.models import FulltextDoc, GenerationResult
from papers_digest.llm.client import LlmClient
from papers_digest.llm.conversation import Task
from papers_digest.llm.generation import Asking, converse
from papers_digest.llm.prompting import digest_messages
from papers_digest.llm.repair import digest_repair
from papers_digest.ways.way import Way, any_prompt


async def ask_json(
    client: LlmClient, doc: FulltextDoc, prompt: str, task: Task, first_attempt: int
) -> GenerationResult:
    """The digest as one JSON answer, checked against the text the model was given; a failed answer's fields
    asked again (llm/repair.py), or the whole conversation with its problems when a problem is the answer's."""
    facts = read_paper(doc)  # once per paper: the checker and the schema read the same facts
    messages = digest_messages(prompt, doc)

    def check(reply: str) -> Verdict:
        return check_digest_en(reply, facts)

    asking = Asking(
        check,
        schema=digest_schema(facts),
        retry_schema=lambda problems: retry_digest_schema(facts, problems),
        repair=lambda answer, problems: digest_repair(messages, facts, answer, problems),
    )
    return await converse(client, task, messages, asking, first_attempt=first_attempt)


JSON_WAY = Way(
    name="json",
    asks="the whole digest as one JSON answer, the paper in view (with llm.structured_output, held to the schema)",
    mends="the fields that failed asked again alone, the rest kept; a problem of the whole answer resends it",
    ask=ask_json,
    check_prompt=any_prompt,
)
