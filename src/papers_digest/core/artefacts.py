"""Reading and writing the per-date JSON artefacts: atomic writes, validated reads that name the file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from papers_digest.core.errors import PipelineError

M = TypeVar("M", bound=BaseModel)

STAGE_INFO = "_stage.json"  # inside a stage's output folder; every other *.json there is one paper


def _umask() -> int:
    mask = os.umask(0)  # reading the umask sets it: put it back at once (at import, before any thread)
    os.umask(mask)
    return mask


# A file written through mkstemp is 0600; an artefact gets the mode open() would give it (0644 under umask 022),
# so an analyst or a web server running as another user can read data/ and the site.
FILE_MODE = 0o666 & ~_umask()


class ArtefactError(PipelineError, ValueError):
    """An input file of a stage is missing or does not hold what it should."""


def write_json(path: str | Path, data: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Write JSON via a temporary file and rename, so a crash never leaves a half-written file."""
    if isinstance(data, BaseModel):
        text = data.model_dump_json(indent=2)
    else:
        text = json.dumps(data, ensure_ascii=False, indent=2)
    write_text_atomic(Path(path), text + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """`text` written to a temporary file beside `path`, then renamed onto it: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: str | Path, rows: Iterable[BaseModel]) -> None:
    """One JSON object per line, written atomically like write_json."""
    write_text_atomic(Path(path), "".join(row.model_dump_json() + "\n" for row in rows))


def read_jsonl(path: str | Path, model: type[M]) -> list[M]:
    path = Path(path)
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(model.model_validate_json(line))
            except ValidationError as exc:
                raise ArtefactError(
                    f"{path}:{number}: not a valid {model.__name__}: {exc.errors()[0]['msg']}"
                ) from None
    return rows


def read_model(path: str | Path, model: type[M]) -> M:
    path = Path(path)
    try:
        return model.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise ArtefactError(f"{path}: not found (did the previous stage run?)") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ArtefactError(f"{path}: not a valid {model.__name__}: {where}: {first['msg']}") from None


def read_yaml_model(path: Path, model: type[M], error: type[Exception]) -> M:
    """A YAML file read into `model`; `error` naming the file and the key when it cannot be read or holds a bad
    value (`areas.yaml: areas.3.slug: …`)."""
    import yaml  # only the vocabularies shipped with the package are YAML; the artefacts are JSON

    try:
        return model.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as exc:
        raise error(f"{path}: cannot be read: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise error(f"{path}: {where}: {first['msg']}") from None


def read_folder(folder: str | Path, model: type[M]) -> dict[str, M]:
    """Every per-paper file of a stage's output folder, keyed by arXiv id (file stem)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ArtefactError(f"{folder}: not found (did the previous stage run?)")
    return {path.stem: read_model(path, model) for path in sorted(folder.glob("*.json")) if path.name != STAGE_INFO}


def reset_folder(folder: str | Path) -> Path:
    """An empty output folder (DVC removes outputs before a run; a manual run may find old files)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.json"):
        stale.unlink()
    for stale in folder.glob(".*.tmp"):
        stale.unlink()
    return folder
