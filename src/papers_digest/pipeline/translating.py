"""Stage `translate_zh`: each done English digest's Chinese translation."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Iterable

import httpx

from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import GenerationResult
from papers_digest.core.params import Params
from papers_digest.core.store import Store
from papers_digest.llm.client import LlmClient
from papers_digest.llm.generation import digest_tokens, longest_first, translate_paper
from papers_digest.pipeline.generating import Planner, generate, generation_parser, run_generation_command


def translation_planner(params: Params, date: str, prompt: tuple[str, str]) -> Planner:
    """The stage's work: each done English digest translated, the longest first (a translation's prompt and
    answer both grow with the digest)."""
    system_prompt, version = prompt

    def plan(client: LlmClient, llm_http: httpx.AsyncClient, digests: list) -> tuple[list, object]:
        def work(english: GenerationResult) -> Awaitable[GenerationResult]:
            return translate_paper(client, english, system_prompt, version, date)

        return longest_first((r for r in digests if r.status == "done"), digest_tokens), work

    return plan  # type: ignore[return-value]


async def generate_translations(
    params: Params,
    date: str,
    digests: Iterable[GenerationResult],
    prompt: tuple[str, str],
    on_result: Callable[[GenerationResult], None],
    store: Store | None = None,
) -> list[GenerationResult]:
    """Every done digest's translation (the stage's work without its files: tests and benchmarks call it)."""
    return await generate("translate_zh", params, digests, translation_planner(params, date, prompt), on_result, store)


def run_translation_command(argv: list[str] | None = None, doc: str | None = None) -> None:
    """stages/translate_zh.py's body: its arguments read, the stage run under the one runner."""
    parser = generation_parser("translate_zh", doc, "system prompt file")
    parser.add_argument("--digests", required=True, help="folder written by the digest_en stage")
    args: argparse.Namespace = parser.parse_args(argv)
    run_generation_command(
        "translate_zh", args, lambda: read_folder(args.digests, GenerationResult).values(), plan=translation_planner
    )
