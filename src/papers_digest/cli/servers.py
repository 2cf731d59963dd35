"""`papers dev sim` and `papers dev replay`: the engine simulator and the recorded HF/arXiv answers on 127.0.0.1."""

from __future__ import annotations

import sys
from typing import Any

import click

from papers_digest.cli.commands import Command, CommandGroup, examples
from papers_digest.cli.devtools import dev_servers
from papers_digest.cli.sample import SIM_MODEL

SIM_EXAMPLES = examples(
    "papers dev sim --port 8631 --latency 0.2",
    "papers dev sim --batching --time-scale 0.01 --completion-tokens digest=8000",
)
REPLAY_EXAMPLES = examples(
    "papers dev replay --port 8632", "papers dev replay --hf tests/data/hf --arxiv tests/data/arxiv"
)


@click.command(
    "sim",
    cls=Command,
    short_help="serve the OpenAI-compatible engine simulator on 127.0.0.1",
    help="Serve the OpenAI-compatible engine simulator on 127.0.0.1: checked digests and translations of the "
    "papers it is asked about, with latency, faults and, with --batching, a continuous-batching timing model.",
    epilog=SIM_EXAMPLES,
)
@click.option("--port", type=int, default=8631, help="the port to listen on")
@click.option("--model", default=SIM_MODEL, help="the model name it serves (llm.model)")
@click.option("--latency", type=float, default=0.0, help="seconds added to every call")
@click.option(
    "--decode-tok-s",
    type=float,
    default=None,
    help="simulated decode speed per request, tokens/s (default: none, --latency only)",
)
@click.option(
    "--batching",
    is_flag=True,
    help="time calls with the continuous-batching model (Llama-3.1-8B shape, 1 TB/s, 24 GiB; docs/architecture.md)",
)
@click.option("--time-scale", type=float, default=1.0, help="wall seconds per simulated second (--batching)")
@click.option("--kv-capacity", type=int, default=None, help="KV cache tokens (--batching; default: 24 GiB)")
@click.option(
    "--completion-tokens",
    multiple=True,
    metavar="KIND=N",
    help="modelled mean completion length for digest or translate calls, e.g. digest=8000; repeatable "
    "(default: the answer's own length)",
)
@click.option("--context-tokens", type=int, default=None, help="answer longer prompts with a 400 (default: no limit)")
@click.option(
    "--context-engine",
    type=click.Choice(["vllm", "sglang", "llama-cpp", "openai"]),
    default="vllm",
    help="whose words the context-length error uses",
)
def sim_command(**options: Any) -> int:
    return cmd_sim(**options)


@click.command(
    "replay",
    cls=Command,
    short_help="serve recorded HF/arXiv answers on 127.0.0.1",
    help="Serve recorded Hugging Face API days and arXiv HTML pages on 127.0.0.1, as the live sites answer them.",
    epilog=REPLAY_EXAMPLES,
)
@click.option("--port", type=int, default=8632, help="the port to listen on")
@click.option("--hf", default="sample/hf", help="folder of <date>.json HF API bodies")
@click.option("--arxiv", default="sample/arxiv", help="folder of <id>vN.html arXiv pages")
def replay_command(port: int, hf: str, arxiv: str) -> int:
    return cmd_replay(port, hf, arxiv)


dev_group = CommandGroup(
    name="dev",
    short_help="development servers on 127.0.0.1: the engine simulator, the recorded HF/arXiv answers",
    help="Development servers on 127.0.0.1, for trying the pipeline by hand without a network or a GPU: point "
    "llm.base_url at `papers dev sim`, source.hf_url and source.arxiv_url at `papers dev replay`.",
    epilog=examples("papers dev sim --port 8631 --latency 0.2", "papers dev replay --port 8632"),
    commands=[sim_command, replay_command],
)


def _moved(command: click.Command) -> click.Command:
    """`papers <name>`, the name `papers dev <name>` had before the dev group: the same options, a note first."""
    assert command.callback is not None
    callback = command.callback

    def run(**options: Any) -> int:
        print(f"papers {command.name} is now `papers dev {command.name}`; the old name will go", file=sys.stderr)
        return callback(**options)

    return Command(
        command.name,
        params=command.params,
        callback=run,
        help=f"Now `papers dev {command.name}`; this name still works.",
        hidden=True,
    )


# The old names, run by `papers` (cli/main.py) but neither listed nor offered for a mistyped command.
MOVED = {command.name or "": _moved(command) for command in (sim_command, replay_command)}


def cmd_sim(
    *,
    port: int,
    model: str,
    latency: float,
    decode_tok_s: float | None,
    batching: bool,
    time_scale: float,
    kv_capacity: int | None,
    completion_tokens: tuple[str, ...],
    context_tokens: int | None,
    context_engine: str,
) -> int:
    lengths = {}
    for item in completion_tokens:
        kind, _, value = item.partition("=")
        if kind not in ("digest", "translate") or not value.isdigit():
            print(f"papers dev sim: --completion-tokens takes digest=N or translate=N, got {item!r}", file=sys.stderr)
            return 2
        lengths[kind] = int(value)
    servers = dev_servers("the engine simulator")
    model_timing = servers.batching_config(time_scale=time_scale, kv_capacity_tokens=kv_capacity) if batching else None
    engine = servers.engine_sim(
        model=model,
        latency_s=latency,
        decode_tok_s=decode_tok_s,
        batching=model_timing,
        completion_tokens=lengths,
        context_tokens=context_tokens,
        context_engine=context_engine,
    )
    print(f"engine simulator: http://127.0.0.1:{port}/v1 (model {model}); Ctrl-C stops it", flush=True)
    servers.serve_forever(engine.app, port)
    return 0


def cmd_replay(port: int, hf: str, arxiv: str) -> int:
    servers = dev_servers("the HF/arXiv replay")
    recorded = servers.replay(hf, arxiv)
    print(f"replay: http://127.0.0.1:{port} (HF from {hf}, arXiv from {arxiv}); Ctrl-C stops it")
    servers.serve_forever(recorded.app, port)
    return 0
