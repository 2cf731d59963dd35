"""Stage `digest_en`: each paper's English digest, asked the way llm.asking names (papers_digest.ways)."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

import httpx

from papers_digest.core.artefacts import read_folder
from papers_digest.core.errors import ConfigError
from papers_digest.core.models import FulltextDoc, GenerationResult
from papers_digest.core.params import Params
from papers_digest.core.store import Store
from papers_digest.llm.budget import fit_to_budget
from papers_digest.llm.client import LlmClient
from papers_digest.llm.conversation import Task
from papers_digest.llm.endpoint import token_counter
from papers_digest.llm.generation import digest_paper, longest_first, paper_tokens
from papers_digest.pipeline.generating import Planner, generate, generation_parser, run_generation_command
from papers_digest.ways.registry import WAYS, way_named


def digest_planner(params: Params, date: str, prompt: tuple[str, str]) -> Planner:
    """The stage's work: each paper asked the way llm.asking names, the longest first; a paper the engine finds
    too long trimmed tighter and asked again."""
    system_prompt, version = prompt
    way = way_named(params.llm.asking)

    def plan(client: LlmClient, llm_http: httpx.AsyncClient, docs: list) -> tuple[list, object]:
        tokenizer = token_counter(params.llm, llm_http)

        async def refit(doc: FulltextDoc, budget: int) -> FulltextDoc:
            return await fit_to_budget(doc, budget, tokenizer.count)

        def ask(doc: FulltextDoc, first_attempt: int) -> Awaitable[GenerationResult]:
            return way.ask(client, doc, system_prompt, Task(date, doc.arxiv_id, "digest_en", version), first_attempt)

        def work(doc: FulltextDoc) -> Awaitable[GenerationResult]:
            return digest_paper(ask, doc, refit)

        return longest_first(docs, paper_tokens), work

    return plan  # type: ignore[return-value]


async def generate_digests(
    params: Params,
    date: str,
    docs: Iterable[FulltextDoc],
    prompt: tuple[str, str],
    on_result: Callable[[GenerationResult], None],
    store: Store | None = None,
) -> list[GenerationResult]:
    """Every paper's English digest (the stage's work without its files: tests and benchmarks call it)."""
    return await generate("digest_en", params, docs, digest_planner(params, date, prompt), on_result, store)


def check_way_prompt(params: Params, prompt_path: str, prompt: str) -> None:
    """The prompt is the one the way of asking declares (dvc.yaml passes prompts/digest_en_${llm.asking}.md) and
    reads as that way needs; ConfigError in one line otherwise."""
    way = way_named(params.llm.asking)
    if not Path(prompt_path).as_posix().endswith(way.prompt):
        raise ConfigError(
            f"llm.asking: {way.name} asks with {way.prompt}, but the stage was given --prompt {prompt_path}"
        )
    try:
        way.check_prompt(prompt, prompt_path)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def run_digest_command(argv: list[str] | None = None, doc: str | None = None) -> None:
    """stages/digest_en.py's body: its arguments read, the stage run under the one runner."""
    ways = ", ".join(f"{way.prompt} ({name})" for name, way in WAYS.items())
    parser = generation_parser("digest_en", doc, f"the prompt file of the way llm.asking names: {ways}")
    parser.add_argument("--fulltext", required=True, help="folder written by the fulltext stage")
    args: argparse.Namespace = parser.parse_args(argv)
    run_generation_command(
        "digest_en",
        args,
        lambda: read_folder(args.fulltext, FulltextDoc).values(),
        plan=digest_planner,
        check_prompt=check_way_prompt,
    )
