"""`papers dev sim` and `papers dev replay`: the engine simulator and the recorded HF/arXiv answers on 127.0.0.1."""

from __future__ import annotations

import argparse
import sys

from papers_digest.cli.sample import SIM_MODEL
from papers_digest.sim.batching import BatchingConfig
from papers_digest.sim.replay import Replay
from papers_digest.sim.routes import EngineSim
from papers_digest.sim.serve import serve_forever


def register(sub: argparse._SubParsersAction) -> None:
    dev = sub.add_parser(
        "dev",
        help="development servers on 127.0.0.1: the engine simulator, the recorded HF/arXiv answers",
        description="Development servers on 127.0.0.1, for trying the pipeline by hand without a network or a "
        "GPU: point llm.base_url at `papers dev sim`, source.hf_url and source.arxiv_url at `papers dev replay`.",
        epilog="""examples:
  papers dev sim --port 8631 --latency 0.2
  papers dev replay --port 8632""",
    )
    dev_sub = dev.add_subparsers(dest="dev_command", title="commands", metavar="COMMAND")
    _sim_arguments(dev_sub.add_parser("sim", help=SIM_HELP, description=SIM_DESCRIPTION, epilog=SIM_EXAMPLES))
    _replay_arguments(
        dev_sub.add_parser("replay", help=REPLAY_HELP, description=REPLAY_DESCRIPTION, epilog=REPLAY_EXAMPLES)
    )
    # `papers sim` and `papers replay`, as they were before the dev group: still run, not listed
    for name, add in (("sim", _sim_arguments), ("replay", _replay_arguments)):
        add(sub.add_parser(name, description=f"Now `papers dev {name}`; this name still works."), moved=True)


SIM_HELP = "serve the OpenAI-compatible engine simulator on 127.0.0.1"
SIM_DESCRIPTION = (
    "Serve the OpenAI-compatible engine simulator on 127.0.0.1: checked digests and translations of the "
    "papers it is asked about, with latency, faults and, with --batching, a continuous-batching timing model."
)
SIM_EXAMPLES = """examples:
  papers dev sim --port 8631 --latency 0.2
  papers dev sim --batching --time-scale 0.01 --completion-tokens digest=8000"""
REPLAY_HELP = "serve recorded HF/arXiv answers on 127.0.0.1"
REPLAY_DESCRIPTION = (
    "Serve recorded Hugging Face API days and arXiv HTML pages on 127.0.0.1, as the live sites answer them."
)
REPLAY_EXAMPLES = """examples:
  papers dev replay --port 8632
  papers dev replay --hf tests/data/hf --arxiv tests/data/arxiv"""


def _sim_arguments(sim: argparse.ArgumentParser, moved: bool = False) -> None:
    sim.add_argument("--port", type=int, default=8631, help="the port to listen on")
    sim.add_argument("--model", default=SIM_MODEL, help="the model name it serves (llm.model)")
    sim.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    sim.add_argument(
        "--decode-tok-s",
        type=float,
        default=None,
        help="simulated decode speed per request, tokens/s (default: none, --latency only)",
    )
    sim.add_argument(
        "--batching",
        action="store_true",
        help="time calls with the continuous-batching model (Llama-3.1-8B shape, 1 TB/s, 24 GiB; docs/architecture.md)",
    )
    sim.add_argument("--time-scale", type=float, default=1.0, help="wall seconds per simulated second (--batching)")
    sim.add_argument("--kv-capacity", type=int, default=None, help="KV cache tokens (--batching; default: 24 GiB)")
    sim.add_argument(
        "--completion-tokens",
        action="append",
        default=[],
        metavar="KIND=N",
        help="modelled mean completion length for digest or translate calls, e.g. digest=8000; repeatable "
        "(default: the answer's own length)",
    )
    sim.add_argument(
        "--context-tokens", type=int, default=None, help="answer longer prompts with a 400 (default: no limit)"
    )
    sim.add_argument(
        "--context-engine",
        choices=["vllm", "sglang", "llama-cpp", "openai"],
        default="vllm",
        help="whose words the context-length error uses",
    )
    sim.set_defaults(func=cmd_sim, moved=moved)


def _replay_arguments(replay: argparse.ArgumentParser, moved: bool = False) -> None:
    replay.add_argument("--port", type=int, default=8632, help="the port to listen on")
    replay.add_argument("--hf", default="sample/hf", help="folder of <date>.json HF API bodies")
    replay.add_argument("--arxiv", default="sample/arxiv", help="folder of <id>vN.html arXiv pages")
    replay.set_defaults(func=cmd_replay, moved=moved)


def _moved(args: argparse.Namespace, name: str) -> None:
    if args.moved:
        print(f"papers {name} is now `papers dev {name}`; the old name will go", file=sys.stderr)


def cmd_sim(args: argparse.Namespace) -> int:
    _moved(args, "sim")
    lengths = {}
    for item in args.completion_tokens:
        kind, _, value = item.partition("=")
        if kind not in ("digest", "translate") or not value.isdigit():
            print(f"papers dev sim: --completion-tokens takes digest=N or translate=N, got {item!r}", file=sys.stderr)
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
    _moved(args, "replay")
    replay = Replay(args.hf, args.arxiv)
    print(f"replay: http://127.0.0.1:{args.port} (HF from {args.hf}, arXiv from {args.arxiv}); Ctrl-C stops it")
    serve_forever(replay.app, args.port)
    return 0
