"""The command line of each managed engine (llama-server, vLLM, SGLang), generated from params (pure)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from papers_digest.core.errors import ConfigError
from papers_digest.core.params import EngineParams


class EngineError(ConfigError, RuntimeError):
    """The engine could not be started (bad model path, busy port, died at start, not ready in time)."""


def engine_command(
    engine: EngineParams,
    served_name: str,
    *,
    slots: int = 1,
    threads: int = 1,
    program: Sequence[str] = (),
) -> list[str]:
    """The command line that serves `engine.model` as `served_name` on engine.host:engine.port, OpenAI-style.

    `slots` is how many requests it runs at once (llm.concurrency), `threads` the CPU threads it may use and
    `program` what runs llama-server (llama-cpp only): an executable, or the embedded server's launcher.
    """
    if engine.kind == "llama-cpp":
        if not program:
            raise EngineError("llama-cpp needs the program that runs llama-server")
        command = llama_server_command(engine, served_name, program=program, slots=slots, threads=threads)
    elif engine.kind == "vllm":
        command = vllm_command(engine, served_name)
    elif engine.kind == "sglang":
        command = sglang_command(engine, served_name)
    else:
        raise EngineError(f"engine.kind is {engine.kind!r}: there is no engine to start")
    return [*command, *engine.extra_args]


# llama-server's batch (-b / -ub, in tokens) and attention kernel: what bench/engine_settings.py found best on
# the CPU build (docs/performance.md,
# "llama-batched-bench: prefill, and decode of 4 sequences, by batch setting"). Flash attention "auto" (on) lets
# short sequences skip the masked KV cells of a long one batched beside them, which a day of mixed lengths needs;
# other numerics change a small model's greedy answers. A GPU build wants flash attention on: engine.extra_args
# ["--flash-attn", "on"] come last, and llama-server takes the last value.
LLAMA_BATCH_TOKENS = 256
LLAMA_UBATCH_TOKENS = 256
LLAMA_FLASH_ATTENTION = "auto"


def llama_server_command(
    engine: EngineParams, served_name: str, *, program: Sequence[str], slots: int, threads: int
) -> list[str]:
    # llama.cpp's own server (docs/design.md §3): `--parallel` slots with continuous
    # batching; without --kv-unified the KV cache of --ctx-size is split evenly across the slots, so each
    # slot gets engine.context_tokens; /metrics needs --metrics; the alias is the name /v1/models lists.
    command = [
        *program,
        "--model",
        engine.model,
        "--alias",
        served_name,
        "--host",
        engine.host,
        "--port",
        str(engine.port),
        "--parallel",
        str(slots),
        "--ctx-size",
        str(engine.context_tokens * slots),
        "--no-kv-unified",
        "--threads",
        str(threads),
        "--batch-size",
        str(LLAMA_BATCH_TOKENS),
        "--ubatch-size",
        str(LLAMA_UBATCH_TOKENS),
        "--flash-attn",
        LLAMA_FLASH_ATTENTION,
        "--metrics",
        "--no-webui",
    ]
    if not engine.prefix_caching:
        command.append("--no-cache-prompt")
    return command


def vllm_command(engine: EngineParams, served_name: str) -> list[str]:
    # `vllm serve`: prefix caching is a boolean flag (`--no-enable-prefix-caching` turns it off); cached
    # prompt tokens reach `usage.prompt_tokens_details` only with --enable-prompt-tokens-details; the
    # prefix-cache counters are on /metrics without any flag (docs/design.md §3).
    return [
        "vllm",
        "serve",
        engine.model,
        *_serving(engine, served_name),
        "--max-model-len",
        str(engine.context_tokens),
        "--gpu-memory-utilization",
        str(engine.gpu_memory_fraction),
        "--enable-prefix-caching" if engine.prefix_caching else "--no-enable-prefix-caching",
        "--enable-prompt-tokens-details",
    ]


def sglang_command(engine: EngineParams, served_name: str) -> list[str]:
    # SGLang's radix cache (its prefix cache) is on unless --disable-radix-cache; cached tokens are reported
    # with --enable-cache-report, and sglang:cache_hit_rate on /metrics needs --enable-metrics.
    command = [
        sys.executable,
        "-m",
        "sglang.launch_server",
        "--model-path",
        engine.model,
        *_serving(engine, served_name),
        "--context-length",
        str(engine.context_tokens),
        "--mem-fraction-static",
        str(engine.gpu_memory_fraction),
        "--enable-cache-report",
        "--enable-metrics",
    ]
    if not engine.prefix_caching:
        command.append("--disable-radix-cache")
    return command


def _serving(engine: EngineParams, served_name: str) -> list[str]:
    """The flags vLLM and SGLang share: the name the model is served under, and where they listen."""
    return ["--served-model-name", served_name, "--host", engine.host, "--port", str(engine.port)]


def check_engine_model(engine: EngineParams) -> None:
    """A llama-cpp engine needs an existing GGUF file: say so before starting anything."""
    if engine.kind != "llama-cpp":
        return  # vLLM / SGLang take a model id as well as a folder
    path = Path(engine.model)
    if not path.is_file():
        raise EngineError(
            f"engine.model {engine.model!r}: no such GGUF file (`papers model fetch` gets the offline one)"
        )
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise EngineError(f"engine.model {engine.model!r} is not a GGUF file")
