"""#38: the sample day per offline model and per way of asking the English digest, side by side in one run.

For each model (default: both offline models) a fresh managed llama-server (the embedded one `make sample`
runs, the sample's settings: 4 slots, greedy, the model's own sampling) serves, for each way of asking
(`llm.asking`: each way of papers_digest.ways), the sample day's 4 papers through both generation stages, `llm.reuse`
off. One row per model and way: papers done (English and Chinese), done on the first answer (the first
round, for steps), the rules the failed ones broke, prompt and completion tokens, p50 latency, wall time.

    .venv/bin/python bench/asking.py                                  # both models, every way
    .venv/bin/python bench/asking.py --model qwen2.5-coder-1.5b-instruct --way steps
    .venv/bin/python bench/asking.py --smoke                          # seconds: every way on the simulator

About 5-10 minutes per model and way on 2 CPU cores (docs/performance.md has the table).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass

from common import chinese_prompt, english_prompt

from papers_devtools.testing.harness import make_params, repo_root
from papers_devtools.testing.servers import engine_server
from papers_digest.cli.sample import SAMPLE_DATE, SAMPLE_LIMIT, offline_settings
from papers_digest.core.models import FulltextDoc, GenerationResult
from papers_digest.core.params import Params
from papers_digest.engines.localmodel import OFFLINE_MODELS, fetch_model
from papers_digest.engines.process import ManagedEngine
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.fulltexts import fetch_fulltexts
from papers_digest.pipeline.listing import list_day
from papers_digest.pipeline.translating import generate_translations
from papers_digest.ways.registry import WAYS

ROOT = repo_root()


@dataclass
class Row:
    model: str
    way: str
    english: list[GenerationResult]
    chinese: list[GenerationResult]
    wall_s: float

    def cells(self) -> list[str]:
        calls = [c for r in [*self.english, *self.chinese] for c in r.calls]
        latencies = [c.latency_s for c in calls if c.latency_s is not None and not c.from_store]
        done = [r for r in self.chinese if r.status == "done"]
        first = [r for r in self.english if r.status == "done" and all(c.attempt == 1 for c in r.calls)]
        rules = Counter(rule for r in self.english if r.status != "done" for rule in _rules(r))
        broken = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in rules.most_common()) or "—"
        return [
            self.model,
            self.way,
            f"{len(done)} of {len(self.english)}",
            str(len(first)),
            broken,
            f"{sum(c.prompt_tokens or 0 for c in calls):,}",
            f"{sum(c.completion_tokens or 0 for c in calls):,}",
            f"{statistics.median(latencies):.1f} s" if latencies else "—",
            f"{self.wall_s / 60:.1f} min",
        ]


def _rules(result: GenerationResult) -> list[str]:
    """The rules the last answer of a failed paper broke (its rejected calls' rules, the last round's)."""
    rejected = [c for c in result.calls if c.status == "rejected"]
    last = max((c.attempt for c in rejected), default=0)
    return sorted({rule for c in rejected if c.attempt == last for rule in c.checker_rules}) or [
        result.error_kind or "?"
    ]


def _said(result: GenerationResult) -> None:
    print(f"  {result.stage} {result.arxiv_id}: {result.status} ({len(result.calls)} calls)", flush=True)


def params_for(model: str, way: str, managed: bool = True) -> Params:
    """The sample's settings (`papers sample --model`, cli/sample.py), reuse off, `way` of asking; `managed`: on
    the engine the sample starts (else an endpoint's)."""
    llm, engine = offline_settings(ROOT / OFFLINE_MODELS[model].path)
    return make_params(llm={**llm, "asking": way, "reuse": False}, engine=engine if managed else {})


def sample_docs(params: Params) -> list[FulltextDoc]:
    """The sample day's full texts as the pipeline makes them (recorded answers replayed on 127.0.0.1)."""
    from papers_devtools.testing.servers import sample_replay_server

    with sample_replay_server() as (_, url):
        params = params.model_copy(update={"limit": SAMPLE_LIMIT})
        params.source.hf_url = params.source.arxiv_url = url
        day = asyncio.run(list_day(params, SAMPLE_DATE, {}, ()))
        return asyncio.run(fetch_fulltexts(params, day.picked_papers(), lambda _doc: None))


def run(model: str, ways: list[str]) -> list[Row]:
    fetch_model(ROOT / OFFLINE_MODELS[model].path, model=OFFLINE_MODELS[model])
    with ManagedEngine.from_params(params_for(model, ways[0]), log_dir=ROOT / "logs" / "bench") as engine:
        return [sample_day(model, params_for(model, way), f"{engine.url}/v1") for way in ways]


def run_on_simulator(ways: list[str]) -> list[Row]:
    """--smoke: each way on the engine simulator in the model's place, the sample's settings otherwise."""
    model = next(iter(OFFLINE_MODELS))
    with engine_server() as (sim, url):
        return [sample_day("simulator", params_for(model, way, managed=False), url, sim.model) for way in ways]


def sample_day(label: str, params: Params, base_url: str, served: str | None = None) -> Row:
    """The sample day's papers through both generation stages, asked params' way, on the endpoint at `base_url`."""
    params.llm.base_url = base_url
    params.llm.model = served or params.llm.model
    docs = sample_docs(params)
    way = params.llm.asking
    started = time.monotonic()
    english = asyncio.run(generate_digests(params, SAMPLE_DATE, docs, english_prompt(way), _said))
    chinese = asyncio.run(generate_translations(params, SAMPLE_DATE, english, chinese_prompt(), _said))
    row = Row(label, way, english, chinese, time.monotonic() - started)
    print(" | ".join(row.cells()), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", choices=list(OFFLINE_MODELS), help="repeatable; default: both")
    parser.add_argument("--way", action="append", choices=list(WAYS), help="repeatable; default: every way")
    parser.add_argument("--smoke", action="store_true", help="seconds: every way on the engine simulator")
    args = parser.parse_args()
    ways = args.way or list(WAYS)
    if args.smoke:
        rows = run_on_simulator(ways)
    else:
        rows = [row for model in args.model or list(OFFLINE_MODELS) for row in run(model, ways)]
    head = ["model", "asked", "done (EN and ZH)", "done on the first answer", "rules the failed broke",
            "prompt tokens", "completion tokens", "p50 latency", "wall"]  # fmt: skip
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row.cells()) + " |")


if __name__ == "__main__":
    main()
