"""#45: the translation asked unit by unit, on done English digests, counted the way a native reader would.

Translates every done English digest of the given folders (`data/<date>/digest_en`, as `papers sample` leaves
them) through the stage's own code (pipeline/generating.py, llm/translating.py) on the offline model, served
by a fresh embedded llama-server with the sample's settings (4 slots, greedy, `llm.reuse` off), and prints
per day: papers done, calls, prompt and completion tokens, wall time, the rules the failed ones broke, and over
the done translations the faults a reader counts: ordinary English words left, names lost or changed, glossary
terms rendered otherwise (targets: 0, 0, 0). `--table` prints each done translation side by side with its
English, field by field (docs/translation.md). `--smoke` runs the sample day's abstracts on the engine
simulator instead (seconds; a test runs it).

    .venv/bin/python bench/translation.py /tmp/en/2025-04-03 --table        # done English digests
    .venv/bin/python bench/translation.py --day /tmp/day --table --out /tmp/zh  # /tmp/day/hf/2025-03-10.json
    .venv/bin/python bench/translation.py --smoke
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from pathlib import Path

from papers_devtools.testing.harness import make_params, repo_root
from papers_digest.checker.english import prose_fields
from papers_digest.checker.zh_words import EnglishFacts, english_words_left, names_changed, terms_otherwise
from papers_digest.cli.sample import SAMPLE_DATE, SAMPLE_LIMIT, offline_settings
from papers_digest.core.models import Digest, GenerationResult
from papers_digest.core.params import Params
from papers_digest.engines.localmodel import DEFAULT_MODEL, OFFLINE_MODELS, fetch_model
from papers_digest.engines.process import ManagedEngine
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.translating import generate_translations
from papers_digest.reading.names import title_names

ROOT = repo_root()
PROMPT = ROOT / "prompts" / "translate_zh.md"


def done_digests(folder: Path) -> list[GenerationResult]:
    """The done English digests of a `digest_en` folder."""
    results = [
        GenerationResult.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("2*.json"))
    ]
    return [r for r in results if r.status == "done" and r.digest is not None]


def faults(english: GenerationResult, chinese: GenerationResult) -> Counter[str]:
    """What a reader counts in a done translation: English words left, names lost or added, terms otherwise."""
    found: Counter[str] = Counter()
    names = tuple(title_names(english.title or ""))
    source = dict(prose_fields(Digest.model_validate(english.digest)))
    pairs = [(source[path], text) for path, text in prose_fields(_digest(chinese)) if path in source]
    if english.title and chinese.digest and "title" in chinese.digest:
        pairs.append((english.title, chinese.digest["title"]))
    for original, text in pairs:
        facts = EnglishFacts.of(original, names)
        lost, added = names_changed(text, facts)
        found["English words left"] += len(english_words_left(text, facts))
        found["name faults"] += len(lost) + len(added)
        found["terms otherwise"] += len(terms_otherwise(text, facts))
        found["glossary terms"] += len(facts.terms)
    return found


def translate(english: list[GenerationResult], base_url: str, model: str) -> tuple[list[GenerationResult], float]:
    llm, _ = offline_settings(ROOT / OFFLINE_MODELS[DEFAULT_MODEL].path)
    params = make_params(llm={**llm, "base_url": base_url, "model": model, "reuse": False})
    started = time.monotonic()
    chinese = asyncio.run(generate_translations(params, SAMPLE_DATE, english, load_prompt(PROMPT), _said))
    return chinese, time.monotonic() - started


def _said(result: GenerationResult) -> None:
    print(f"  {result.arxiv_id}: {result.status} ({len(result.calls)} calls)", flush=True)


def report(day: str, english: list[GenerationResult], chinese: list[GenerationResult], wall_s: float) -> None:
    by_id = {r.arxiv_id: r for r in english}
    done = [r for r in chinese if r.status == "done"]
    counted = sum((faults(by_id[r.arxiv_id], r) for r in done), Counter())
    calls = [c for r in chinese for c in r.calls]
    broke = Counter(rule for r in chinese if r.status != "done" for c in r.calls for rule in c.checker_rules)
    print(f"\n{day}: {len(done)} of {len(english)} done; {len(calls)} calls, "
          f"{sum(c.prompt_tokens or 0 for c in calls):,} prompt and {sum(c.completion_tokens or 0 for c in calls):,} "
          f"completion tokens, {wall_s:.0f} s")  # fmt: skip
    print(f"  over the done: {counted['English words left']} English words left, {counted['name faults']} name faults, "
          f"{counted['terms otherwise']} of {counted['glossary terms']} glossary terms otherwise")  # fmt: skip
    if broke:
        print("  the failed broke: " + ", ".join(f"{rule} ×{n}" for rule, n in broke.most_common()))


def table(english: GenerationResult, chinese: GenerationResult) -> str:
    """A done translation beside its English, field by field, as a Markdown table."""
    rows = [("title", english.title or "", (chinese.digest or {}).get("title", ""))]
    source = dict(prose_fields(Digest.model_validate(english.digest)))
    rows += [(p, source[p], t) for p, t in prose_fields(_digest(chinese)) if p in source]
    lines = [f"#### {english.arxiv_id}", "", "| field | English | Chinese |", "|---|---|---|"]
    return "\n".join(lines + [f"| {p} | {_cell(e)} | {_cell(z)} |" for p, e, z in rows])


def _digest(chinese: GenerationResult) -> Digest:
    """A translation's digest without its `title` (the Digest model has none)."""
    return Digest.model_validate({k: v for k, v in (chinese.digest or {}).items() if k != "title"})


def write_results(folder: Path, results: list[GenerationResult]) -> None:
    """Each result as `<stage>/<arxiv id>.json` under `folder` (its digest_en folder is one `done_digests` reads)."""
    for result in results:
        (folder / result.stage).mkdir(parents=True, exist_ok=True)
        (folder / result.stage / f"{result.arxiv_id}.json").write_text(
            result.model_dump_json(indent=1), encoding="utf-8"
        )


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="digest_en folders of done English digests")
    parser.add_argument("--smoke", action="store_true", help="the sample day's abstracts on the engine simulator")
    parser.add_argument("--table", action="store_true", help="print each done translation beside its English")
    parser.add_argument("--out", type=Path, help="write each translation here, one folder per day")
    parser.add_argument("--threads", type=int, help="the engine's threads (on busy cores 1 decodes faster)")
    parser.add_argument(
        "--day",
        type=Path,
        help="a recorded listing (hf/<file>.json, any date): its top papers digested first (abstracts, in steps), "
        "their digests written under --out, then translated",
    )
    args = parser.parse_args()
    if args.smoke:
        return run_smoke(args)
    model = OFFLINE_MODELS[DEFAULT_MODEL]
    fetch_model(ROOT / model.path, model=model)
    llm, engine = offline_settings(ROOT / model.path)
    if args.threads:
        engine["extra_args"] = ["--threads", str(args.threads)]
    params = make_params(llm=llm, engine=engine)
    with ManagedEngine.from_params(params, log_dir=ROOT / "logs" / "bench") as served:
        if args.day:
            english = digest_day(args.day, params, f"{served.url}/v1")
            if args.out:  # the digests first: the day's slowest part
                write_results(args.out / args.day.name, english)
            chinese, wall = translate(english, f"{served.url}/v1", params.llm.model)
            finish(args.day.name, english, chinese, wall, args)
        for folder in args.folders:
            english = done_digests(folder)
            chinese, wall = translate(english, f"{served.url}/v1", params.llm.model)
            finish(folder.name, english, chinese, wall, args)


def digest_day(day: Path, params: Params, base_url: str) -> list[GenerationResult]:
    """The English digests of a recorded listing's top papers (their abstracts), asked in steps as the sample
    is; only the done ones."""
    from papers_devtools.testing.servers import replay_server
    from papers_digest.pipeline.fulltexts import fetch_fulltexts
    from papers_digest.pipeline.listing import list_day

    [listing] = sorted((day / "hf").glob("*.json"))
    with replay_server(day / "hf", day / "arxiv") as (_, url):
        run = params.model_copy(update={"limit": SAMPLE_LIMIT, "date": listing.stem})
        run.source.hf_url = run.source.arxiv_url = url
        run.llm.base_url = base_url
        run.llm.asking = "steps"  # as the sample day's digests were asked (make_params asks for one JSON answer)
        listed = asyncio.run(list_day(run, listing.stem, {}, ()))
        docs = asyncio.run(fetch_fulltexts(run, listed.picked_papers(), lambda _doc: None))
    prompt = load_prompt(ROOT / "prompts" / "digest_en_steps.md")
    english = asyncio.run(generate_digests(run, listing.stem, docs, prompt, _said))
    return [r for r in english if r.status == "done"]


def finish(
    day: str, english: list[GenerationResult], chinese: list[GenerationResult], wall: float, args: argparse.Namespace
) -> None:
    report(day, english, chinese, wall)
    by_id = {r.arxiv_id: r for r in english}
    if args.out:
        write_results(args.out / day, [*english, *chinese])
    if args.table:
        for result in (r for r in chinese if r.status == "done"):
            print("\n" + table(by_id[result.arxiv_id], result))


def smoke_digests(params: Params, docs: list) -> list[GenerationResult]:
    """The docs' English digests, asked the way params ask, on the engine params name."""
    prompt = load_prompt(ROOT / "prompts" / f"digest_en_{params.llm.asking}.md")
    return asyncio.run(generate_digests(params, SAMPLE_DATE, docs, prompt, _said))


def sample_abstracts(count: int = 4) -> list:
    """The sample day's first `count` papers as abstracts (the smoke runs' papers)."""
    from papers_digest.sources.arxiv import abstract_doc
    from papers_digest.sources.hf import parse_items

    papers, _ = parse_items(json.loads((ROOT / "sample" / "hf" / f"{SAMPLE_DATE}.json").read_text(encoding="utf-8")))
    return [abstract_doc(p, "smoke") for p in papers[:count]]


def run_smoke(args: argparse.Namespace) -> None:
    from papers_devtools.sim.routes import EngineSim
    from papers_devtools.sim.serve import BackgroundServer

    docs = sample_abstracts()
    sim = EngineSim(model="sim-digest")
    with BackgroundServer(sim.app) as server:
        params = make_params(llm={"base_url": f"{server.url}/v1", "model": "sim-digest", "reuse": False})
        english = smoke_digests(params, docs)
        chinese, wall = translate(english, f"{server.url}/v1", "sim-digest")
    finish(SAMPLE_DATE, english, chinese, wall, args)


if __name__ == "__main__":
    main()
