"""llama.cpp's own server, embedded: `python -m papers_digest.engines.embedded_server <llama-server flags>`.

The xllamacpp wheel compiles llama.cpp's HTTP server (tools/server: slots, continuous batching, prompt
cache, /metrics, json_schema grammars) into a Python extension, prebuilt with portable flags (AVX2/FMA/F16C,
no -march=native, no AVX-512 or AMX), so `make engine` installs it in seconds instead of compiling for
ten minutes (docs/engines.md). This process is what the managed llama-cpp engine runs when
`engine.binary` is empty: it takes the flags `commands.llama_server_command` writes, the same ones a
`llama-server` executable takes, serves until SIGTERM or SIGINT, and dies as the server dies (a SIGILL in
the engine is this process's SIGILL).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any, NoReturn

# llama-server's --flash-attn values, as llama.cpp's llama_flash_attn_type names them
FLASH_ATTENTION = {
    "auto": "LLAMA_FLASH_ATTN_TYPE_AUTO",
    "on": "LLAMA_FLASH_ATTN_TYPE_ENABLED",
    "off": "LLAMA_FLASH_ATTN_TYPE_DISABLED",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(
            2,
            f"{self.prog}: {message}\nthe embedded llama-server takes only the flags papers-digest writes; "
            "to pass others (engine.extra_args), set engine.binary to a llama-server executable\n",
        )


def parser() -> argparse.ArgumentParser:
    """The llama-server flags `llama_server_command` writes (same names, same meaning)."""
    flags = _Parser(prog="papers_digest.engines.embedded_server", description=__doc__.splitlines()[0])
    flags.add_argument("--model", required=True)
    flags.add_argument("--alias", default="")
    flags.add_argument("--host", default="127.0.0.1")
    flags.add_argument("--port", type=int, default=8080)
    flags.add_argument("--parallel", type=int, default=1)
    flags.add_argument("--ctx-size", type=int, default=0)
    flags.add_argument("--kv-unified", action=argparse.BooleanOptionalAction, default=False)
    flags.add_argument("--threads", type=int, default=-1)
    flags.add_argument("--batch-size", type=int, default=2048)
    flags.add_argument("--ubatch-size", type=int, default=512)
    flags.add_argument("--flash-attn", choices=sorted(FLASH_ATTENTION), default="auto")
    flags.add_argument("--metrics", action="store_true")
    flags.add_argument("--no-webui", action="store_true")
    flags.add_argument("--no-cache-prompt", action="store_true")
    return flags


def server_params(args: argparse.Namespace, xllamacpp: Any) -> Any:
    """xllamacpp's CommonParams (llama.cpp's common_params) for the parsed flags."""
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    if args.alias:
        params.model_alias = {args.alias}  # what /v1/models lists and requests name
    params.hostnames = [args.host]
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx_size
    params.kv_unified = args.kv_unified
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads  # llama-server: -t sets both unless -tb is given
    params.n_batch = args.batch_size
    params.n_ubatch = args.ubatch_size
    params.flash_attn_type = getattr(xllamacpp.llama_flash_attn_type, FLASH_ATTENTION[args.flash_attn])
    params.endpoint_metrics = args.metrics
    params.ui = not args.no_webui
    params.cache_prompt = not args.no_cache_prompt
    return params


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    import xllamacpp  # imported late: `--help` and flag errors work without it

    return serve(server_params(args, xllamacpp), args.model, xllamacpp)


def serve(params: Any, model: str, xllamacpp: Any) -> int:
    """Serve with xllamacpp's CommonParams until SIGTERM or SIGINT: the exit code (1 when it could not start)."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        server = xllamacpp.Server(params)  # returns once the model is loaded
    except Exception as exc:  # the extension raises plain RuntimeErrors (bad model file, busy port)
        print(f"llama-server could not start: {exc}", file=sys.stderr, flush=True)
        return 1
    print(f"serving {model} on {server.listening_address}", flush=True)
    stop.wait()
    del server  # its destructor finishes the running requests' main loop and closes the socket
    return 0


if __name__ == "__main__":
    sys.exit(main())
