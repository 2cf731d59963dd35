"""`papers sample`: the bundled sample day, offline, on the engine simulator or on the real local model."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from papers_digest.cli.commands import Command, examples
from papers_digest.cli.devtools import DevServers, dev_servers
from papers_digest.cli.project import project_lock, sigterm_as_interrupt, temporary_params
from papers_digest.cli.runs import run_batch
from papers_digest.core.params import load_params
from papers_digest.engines.commands import EngineError
from papers_digest.engines.localmodel import DEFAULT_MODEL, OFFLINE_MODELS, fetch_model, model_for_file, served_name
from papers_digest.engines.process import free_port
from papers_digest.ways.registry import way_named

SAMPLE_DATE = "2025-04-03"
SAMPLE_LIMIT = 4
SIM_MODEL = "sim-digest"
# The sample day on an offline model, on 2 CPU cores. Its one full paper is 13,000 tokens: about 4 minutes
# of prefill, and decoding next to it runs at a third of the speed (attention over the long context;
# docs/performance.md). So the sample trims it to SAMPLE_INPUT_TOKENS (appendices first, then the longest
# sections; what was dropped is recorded and shown), the way a small context would. Each slot holds that,
# the answer and the checker's retry (the first answer again, and the problems): 10k tokens, 120 MiB of
# KV cache for the 0.5B model, 280 MiB for the 1.5B. The cap on an answer keeps a small model from rambling
# (the steps' own caps are smaller, llm/steps.py); 4 slots batch the day.
SAMPLE_INPUT_TOKENS = 6000
SAMPLE_CONTEXT_TOKENS = 10240
SAMPLE_MAX_TOKENS = 1500
SAMPLE_LLM_TIMEOUT_S = 1800
SAMPLE_CONCURRENCY = 4
SAMPLE_TEMPERATURE = 0  # greedy decoding: the same day gives the same answers, a rerun of the sample too


@dataclass(frozen=True)
class SampleRun:
    """What `papers sample` was asked for (its options)."""

    params: str = "params.yaml"
    sample_dir: str = "sample"
    date: str = SAMPLE_DATE
    limit: int = SAMPLE_LIMIT
    latency: float = 0.2
    engine: str = "llama-cpp"
    model: str = DEFAULT_MODEL
    max_tokens: int = SAMPLE_MAX_TOKENS


@click.command(
    "sample",
    cls=Command,
    short_help="run the pipeline on the bundled sample day, fully offline (recorded HF/arXiv answers)",
    help=f"Run the pipeline on the bundled sample day, {SAMPLE_DATE}, fully offline: the HF and arXiv answers "
    "recorded in --sample-dir are replayed on 127.0.0.1, and the digests come from the offline model on a local "
    "llama.cpp server (fetched into models/ when missing; about 9 minutes on 2 cores) or from the engine "
    "simulator (seconds; its digests are not prose). params.yaml is put back as it was.",
    epilog=examples(
        "papers sample               # the offline model (what `make sample` runs)",
        "papers sample --engine sim  # the engine simulator (`make sample-sim`)",
    ),
)
@click.option("--params", default=SampleRun.params, help="the pipeline's parameters, restored after the run")
@click.option("--sample-dir", default=SampleRun.sample_dir, help="recorded HF/arXiv answers")
@click.option(
    "--date",
    default=SampleRun.date,
    help="the recorded day to run: --sample-dir holds its listing as hf/DATE.json (a paper without an arXiv page "
    "there is seen as its abstract)",
)
@click.option("--limit", type=int, default=SampleRun.limit, help="papers of the day to digest")
@click.option(
    "--latency", type=float, default=SampleRun.latency, help="simulated seconds per LLM call (--engine sim only)"
)
@click.option(
    "--engine",
    type=click.Choice(["sim", "llama-cpp"]),
    default=SampleRun.engine,
    help="llama-cpp: the offline GGUF on a local llama.cpp server (`make sample`); sim: the engine "
    "simulator (`make sample-sim`)",
)
@click.option(
    "--model",
    default=SampleRun.model,
    help=f"--engine llama-cpp: an offline model's name ({', '.join(OFFLINE_MODELS)}; fetched when missing) or a "
    "GGUF file",
)
@click.option("--max-tokens", type=int, default=SampleRun.max_tokens, help="llm.max_tokens for --engine llama-cpp")
def sample_command(**options: Any) -> int:
    return cmd_sample(SampleRun(**options))


def sample_overrides(
    replay_url: str, limit: int, llm: dict[str, Any], engine: dict[str, Any], date: str = SAMPLE_DATE
) -> dict[str, Any]:
    """The params one sample run sets (everything else comes from params.yaml): the replayed sources, asked
    without arXiv's pace (it is arXiv's rule, not the replay's), the sample date and limit, and the endpoint
    or engine (`llm.*`, `engine.*` as dotted keys)."""
    return {
        "date": date,
        "limit": limit,
        "source.hf_url": replay_url,
        "source.arxiv_url": replay_url,
        "source.arxiv_interval_s": 0,
        **endpoint_overrides(llm, engine),
    }


def endpoint_overrides(llm: dict[str, Any], engine: dict[str, Any]) -> dict[str, Any]:
    """`llm` and `engine` params as the dotted keys params.yaml is set with (`llm.model`, `engine.port`, …)."""
    sections = {"llm": llm, "engine": engine}
    return {f"{name}.{key}": value for name, part in sections.items() for key, value in part.items()}


def cmd_sample(args: SampleRun) -> int:
    sample_dir = Path(args.sample_dir)
    if not (sample_dir / "hf" / f"{args.date}.json").is_file():
        print(f"papers sample: {sample_dir}/hf/{args.date}.json not found (run from the repository root)")
        return 2
    servers = dev_servers("the sample's HF/arXiv replay")
    model = local_model(args.model) if args.engine == "llama-cpp" else None
    replay = servers.replay(sample_dir / "hf", sample_dir / "arxiv")
    with (
        servers.background_server(replay.app) as replay_server,
        _sample_endpoint(args, model, servers) as (llm, engine, what),
    ):
        print(
            f"papers sample: {args.date}, limit {args.limit}; HF and arXiv replayed from {sample_dir}/ "
            f"on {replay_server.url}; LLM = {what}"
        )
        print(
            "papers sample: a paper without a recorded arXiv page takes the abstract fallback, exactly as a live "
            "run does for papers without HTML."
        )
        overrides = sample_overrides(replay_server.url, args.limit, llm, engine, args.date)
        params_path = Path(args.params)
        with project_lock("papers sample"), temporary_params(params_path, overrides), sigterm_as_interrupt():
            params = load_params(params_path)
            way_named(params.llm.asking, str(params_path))
            code = run_batch("papers sample", params_path, params, [args.date])
    if code != 0:
        print(f"papers sample: dvc repro failed (exit code {code}), see above; params.yaml restored.")
        return code
    print(
        f"papers sample: {replay.total_requests} HF/arXiv requests; params.yaml restored. "
        f"Results: data/{args.date}/ and data/papers.db"
    )
    return code


@contextlib.contextmanager
def _sample_endpoint(
    args: SampleRun, model: Path | None, servers: DevServers
) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """(llm params, engine params, what it is in words): the simulator served here for the run, or the
    offline model on a llama.cpp server that the run starts and stops."""
    if model is None:
        sim = servers.engine_sim(model=SIM_MODEL, latency_s=args.latency)
        with servers.background_server(sim.app) as server:
            yield {"base_url": f"{server.url}/v1", "model": SIM_MODEL}, {}, f"engine simulator on {server.url}"
        return
    llm, engine = offline_settings(model, args.max_tokens)
    yield llm, engine, f"{model} on a local llama.cpp server (at most {args.max_tokens} tokens per English answer)"


def offline_settings(model: Path, max_tokens: int = SAMPLE_MAX_TOKENS) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sample's `llm` and `engine` params for an offline GGUF on a llama.cpp server started for the run: what
    `papers sample --model` runs, and each candidate of `papers compare --sample`."""
    known = model_for_file(model)
    llm = {
        "model": served_name(model),  # the name the run records: the model that actually ran
        "concurrency": SAMPLE_CONCURRENCY,
        "timeout_s": SAMPLE_LLM_TIMEOUT_S,
        "max_tokens": max_tokens,
        "max_input_tokens": SAMPLE_INPUT_TOKENS,
        "temperature": SAMPLE_TEMPERATURE,
        "extra_body": known.sampling if known is not None else {},
        # the translation (and the English asked as one JSON answer, llm.asking: json) held to its schema: a
        # small model rarely gets the shape right on its own
        "structured_output": True,
    }
    engine = {
        "kind": "llama-cpp",
        "model": str(model),
        "context_tokens": SAMPLE_CONTEXT_TOKENS,
        "host": "127.0.0.1",
        "port": free_port(),
    }
    return llm, engine


def local_model(name_or_file: str, command: str = "papers sample") -> Path:
    """The GGUF to serve: an offline model by name, fetched when missing and its hash checked either way, or a
    GGUF file as given."""
    if name_or_file in OFFLINE_MODELS:
        model = OFFLINE_MODELS[name_or_file]
        print(f"{command}: checking {model.path} (sha256) …", flush=True)
        fetched = fetch_model(model.path, model=model)
        print(f"{command}: {model.path}: {'fetched and verified' if fetched.fetched else 'present, hash verified'}")
        return model.path
    path = Path(name_or_file)
    if not path.is_file():
        known = ", ".join(OFFLINE_MODELS)
        raise EngineError(f"{name_or_file!r} is neither an offline model ({known}) nor a GGUF file")
    return path
