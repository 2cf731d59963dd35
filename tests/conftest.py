"""Shared test data builders and local servers (everything on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from papers_digest.hf import parse_items
from papers_digest.models import FulltextDoc, Paper
from papers_digest.params import Params, validate_params
from papers_digest.sim.engine import EngineSim
from papers_digest.sim.replay import Replay
from papers_digest.sim.serve import BackgroundServer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
HF_DIR = DATA / "hf"
ARXIV_DIR = DATA / "arxiv"
SAMPLE_DIR = ROOT / "sample"
SAMPLE_DATE = "2025-04-03"


def hf_day(date: str, folder: Path = HF_DIR) -> list[dict[str, Any]]:
    """The recorded HF API body of a day (tests/data/hf or sample/hf)."""
    return json.loads((folder / f"{date}.json").read_text(encoding="utf-8"))


def day_papers(date: str, folder: Path = HF_DIR) -> list[Paper]:
    papers, invalid = parse_items(hf_day(date, folder))
    assert invalid == 0
    return papers


def sample_papers() -> list[Paper]:
    return day_papers(SAMPLE_DATE, SAMPLE_DIR / "hf")


def abstract_docs(papers: list[Paper]) -> list[FulltextDoc]:
    """Abstract-only documents of real papers (the fallback text the pipeline builds)."""
    from papers_digest.fulltext import abstract_doc

    return [abstract_doc(p, "test: abstract only") for p in papers]


def make_params(**sections: Any) -> Params:
    """Params for tests: the sample date, no waits between arXiv requests, fast retries."""
    raw: dict[str, Any] = {
        "date": SAMPLE_DATE,
        "limit": 4,
        "source": {"arxiv_interval_s": 0},
        "retry": {"attempts": 3, "max_wait_s": 0.05},
    }
    for key, value in sections.items():
        if isinstance(value, dict):
            raw.setdefault(key, {}).update(value)
        else:
            raw[key] = value
    return validate_params(raw, "test params")


def chat_calls(sim: EngineSim) -> int:
    """Completions the simulator served (the stages' endpoint checks on /v1/models are not calls)."""
    return sim.stats.by_path.get("/v1/chat/completions", 0)


@pytest.fixture
def engine() -> Iterator[tuple[EngineSim, str]]:
    """The engine simulator on a free port: (sim, base_url with /v1)."""
    sim = EngineSim(model="sim-digest")
    with BackgroundServer(sim.app) as server:
        yield sim, f"{server.url}/v1"


@pytest.fixture
def replay() -> Iterator[tuple[Replay, str]]:
    """Recorded HF days (tests/data/hf) and arXiv pages (tests/data/arxiv)."""
    yield from _replay_of(HF_DIR, ARXIV_DIR)


def _replay_of(hf_dir: Path, arxiv_dir: Path) -> Iterator[tuple[Replay, str]]:
    server_replay = Replay(hf_dir, arxiv_dir)
    with BackgroundServer(server_replay.app) as server:
        yield server_replay, server.url


@pytest.fixture
def sample_replay() -> Iterator[tuple[Replay, str]]:
    """The bundled sample day, served as `papers sample` serves it."""
    yield from _replay_of(SAMPLE_DIR / "hf", SAMPLE_DIR / "arxiv")


PROJECT_FILES = (
    "dvc.yaml",
    "params.yaml",
    "stages",
    "prompts",
    "notebooks",
    "src/papers_digest",
    "sample",
    ".dvc/config",
    ".dvcignore",
    ".gitignore",
)


def copy_project(dest: Path) -> Path:
    """A runnable copy of the pipeline (dvc.yaml, params, stages, prompts, sources) in a fresh DVC repo."""
    for name in PROJECT_FILES:
        src = ROOT / name
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, target)
    (dest / "data").mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return dest


def dvc_env(**extra: str) -> dict[str, str]:
    """The environment the pipeline runs in: this interpreter's bin folder first on PATH."""
    bin_dir = Path(sys.executable).parent
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "DVC_NO_ANALYTICS": "1",
        **extra,
    }


def dvc_command(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "dvc"), *args]


def run_dvc(
    project: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run dvc in a project copy with this interpreter's bin folder first on PATH."""
    done = subprocess.run(
        dvc_command(*args), cwd=project, env=env or dvc_env(), capture_output=True, text=True, timeout=600
    )
    if check and done.returncode != 0:
        raise AssertionError(f"dvc {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def kill_dvc_when(project: Path, ready: Callable[[], bool], *args: str, timeout_s: float = 120) -> None:
    """Start `dvc <args>` in its own process group and kill -9 all of it the moment `ready()` holds."""
    run = subprocess.Popen(
        dvc_command(*args),
        cwd=project,
        env=dvc_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert run.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run never reached the point to interrupt"
        time.sleep(0.01)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()


def write_params(project: Path, params: Params) -> None:
    """Write params.yaml as the pipeline expects it (date quoted)."""
    import yaml

    data = params.model_dump(mode="json")
    (project / "params.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
