"""`papers`: the daily job, the offline sample day, the local servers, and rebuilding the database."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from papers_digest.params import ParamsError, load_params, validate_params
from papers_digest.preflight import PreflightError, check_llm_endpoint

SAMPLE_DATE = "2025-04-03"
SAMPLE_LIMIT = 4
SIM_MODEL = "sim-digest"


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
    sample.add_argument("--latency", type=float, default=0.2, help="simulated seconds per LLM call")

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
    except (ParamsError, PreflightError, ProjectBusy) as exc:
        print(f"papers {args.command}: {exc}", file=sys.stderr)
        code = 2
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
