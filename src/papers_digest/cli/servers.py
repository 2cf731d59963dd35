"""`papers sim` and `papers replay`: the engine simulator and the recorded HF/arXiv answers on 127.0.0.1."""

from __future__ import annotations

import argparse
import sys

from papers_digest.cli.sample import SIM_MODEL
from papers_digest.sim.batching import BatchingConfig
from papers_digest.sim.replay import Replay
from papers_digest.sim.routes import EngineSim
from papers_digest.sim.serve import serve_forever


def register(sub: argparse._SubParsersAction) -> None:
    sim = sub.add_parser("sim", help="serve the OpenAI-compatible engine simulator on 127.0.0.1")
    sim.add_argument("--port", type=int, default=8631)
    sim.add_argument("--model", default=SIM_MODEL)
    sim.add_argument("--latency", type=float, default=0.0, help="seconds added to every call")
    sim.add_argument("--decode-tok-s", type=float, default=None, help="simulated decode speed per request")
    sim.add_argument(
        "--batching",
        action="store_true",
        help="time calls with the continuous-batching model (Llama-3.1-8B shape, 1 TB/s, 24 GiB; "
        "docs/design.md §4)",
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
    sim.add_argument("--context-engine", choices=["vllm", "sglang", "llama-cpp", "openai"], default="vllm")
    sim.set_defaults(func=cmd_sim)

    replay = sub.add_parser("replay", help="serve recorded HF/arXiv answers on 127.0.0.1")
    replay.add_argument("--port", type=int, default=8632)
    replay.add_argument("--hf", default="sample/hf", help="folder of <date>.json HF API bodies")
    replay.add_argument("--arxiv", default="sample/arxiv", help="folder of <id>vN.html arXiv pages")
    replay.set_defaults(func=cmd_replay)


def cmd_sim(args: argparse.Namespace) -> int:
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
    replay = Replay(args.hf, args.arxiv)
    print(f"replay: http://127.0.0.1:{args.port} (HF from {args.hf}, arXiv from {args.arxiv}); Ctrl-C stops it")
    serve_forever(replay.app, args.port)
    return 0


