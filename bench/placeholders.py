"""#45: which placeholder form the offline model keeps best, side by side on the same translation units.

The units of done English digests that hold two names or more (the sample day's, or any `digest_en` folders
given) are asked with their names as placeholders of each form (`⟨1⟩`, `[N1]`, `X1`, `{1}`, `<1>`), with the
stage's prompt (its example marks written in that form), greedy, on a fresh embedded llama-server with the
sample's settings. Printed per form: the units whose answer keeps every placeholder exactly as often as the
English has it, and those answered in Chinese.

    .venv/bin/python bench/placeholders.py /tmp/en/2025-04-03 --threads 1   # about 10 minutes on 2 busy cores
    .venv/bin/python bench/placeholders.py --smoke   # seconds: the simulator's digests, asked of the simulator
"""

from __future__ import annotations

import argparse
import asyncio
import re
from pathlib import Path

import httpx
from translation import done_digests, sample_abstracts, smoke_digests, write_results

from papers_devtools.testing.harness import make_params, repo_root
from papers_digest.checker.placeholders import PLACEHOLDER, protect
from papers_digest.checker.units import translation_units
from papers_digest.cli.sample import offline_settings
from papers_digest.core.models import Digest
from papers_digest.engines.localmodel import DEFAULT_MODEL, OFFLINE_MODELS
from papers_digest.engines.process import ManagedEngine
from papers_digest.llm.prompting import load_prompt
from papers_digest.llm.translating import KIND_NOTE

ROOT = repo_root()
FORMS = ("⟨{n}⟩", "[N{n}]", "X{n}", "{{{n}}}", "<{n}>")
MOST_UNITS = 24


def units(folders: list[Path]) -> list[tuple[str, list[str]]]:
    """(English, its names) of the units with two names or more."""
    found = []
    for folder in folders:
        for result in done_digests(folder):
            for unit in translation_units(Digest.model_validate(result.digest), result.title):
                names = list(unit.protected.names.values())
                if unit.kind == "sentence" and len(names) >= 2:
                    found.append((unit.english, names))
    return found[:MOST_UNITS]


async def ask(client: httpx.AsyncClient, model: str, system: str, text: str) -> str:
    messages = [
        {"role": "system", "content": f"{system}\n\n{KIND_NOTE['sentence']}"},
        {"role": "user", "content": text},
    ]
    body = {"model": model, "temperature": 0, "max_tokens": 200, "messages": messages}
    reply = (await client.post("/v1/chat/completions", json=body)).json()
    return reply["choices"][0]["message"]["content"]


async def measure(url: str, model: str, cases: list[tuple[str, list[str]]]) -> dict[str, tuple[int, int]]:
    prompt, _ = load_prompt(ROOT / "prompts" / "translate_zh.md")
    scores = {}
    async with httpx.AsyncClient(base_url=url, timeout=3600, trust_env=False) as client:
        for form in FORMS:
            system = prompt
            for n in (1, 2):  # the prompt's example marks, in this form
                system = system.replace(PLACEHOLDER.format(n=n), form.format(n=n))
            protected = [protect(english, names, form) for english, names in cases]
            answers = await asyncio.gather(*(ask(client, model, system, p.text) for p in protected))
            kept = sum(
                all(a.count(m) == p.text.count(m) for m in p.names) for p, a in zip(protected, answers, strict=True)
            )
            chinese = sum(re.search(r"[\u4e00-\u9fff]", a) is not None for a in answers)
            scores[form.format(n=1)] = (kept, chinese)
            print(
                f"{form.format(n=1)}: {kept} of {len(cases)} kept every placeholder, {chinese} in Chinese", flush=True
            )
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="digest_en folders of done English digests")
    parser.add_argument("--threads", type=int, help="the engine's threads (on busy cores 1 decodes faster)")
    parser.add_argument("--smoke", action="store_true", help="the simulator's digests, asked of the simulator")
    args = parser.parse_args()
    if args.smoke:
        return run_smoke()
    if not args.folders:
        parser.error("give at least one digest_en folder (or --smoke)")
    cases = units(args.folders)
    llm, engine = offline_settings(ROOT / OFFLINE_MODELS[DEFAULT_MODEL].path)
    if args.threads:
        engine["extra_args"] = ["--threads", str(args.threads)]
    params = make_params(llm=llm, engine=engine)
    with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench") as served:
        scores = asyncio.run(measure(served.url, params.llm.model, cases))
    report(cases, scores)


def run_smoke() -> None:
    """The code above on the engine simulator: its digests of the sample day's abstracts, its translations."""
    import tempfile

    from papers_devtools.sim.routes import EngineSim
    from papers_devtools.sim.serve import BackgroundServer

    with BackgroundServer(EngineSim(model="sim").app) as server, tempfile.TemporaryDirectory() as work:
        params = make_params(llm={"base_url": f"{server.url}/v1", "model": "sim", "reuse": False})
        write_results(Path(work), smoke_digests(params, sample_abstracts()))
        cases = units([Path(work) / "digest_en"])
        report(cases, asyncio.run(measure(f"{server.url}", "sim", cases)))


def report(cases: list[tuple[str, list[str]]], scores: dict[str, tuple[int, int]]) -> None:
    print(f"\n{len(cases)} units with two names or more, greedy\n")
    print("| form | every placeholder kept | in Chinese |\n|---|---:|---:|")
    for form, (kept, chinese) in scores.items():
        print(f"| `{form}` | {kept} of {len(cases)} | {chinese} of {len(cases)} |")


if __name__ == "__main__":
    main()
