"""Fixtures over the shared harness (papers_devtools.testing): recorded data, local servers, project copies."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from papers_devtools.sim.replay import Replay
from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import free_port
from papers_devtools.testing.harness import (
    SAMPLE_DATE,
    copy_project,
    dvc_command,
    dvc_env,
    kill_dvc_when,
    make_params,
    repo_root,
    run_dvc,
    wait_until,
    write_params,
)
from papers_devtools.testing.servers import engine_server, recorded_dirs, replay_server, sample_replay_server
from papers_digest.checker.chinese import check_digest_zh
from papers_digest.checker.english import check_digest_en
from papers_digest.checker.paper import read_paper
from papers_digest.checker.problems import problem_texts
from papers_digest.core.models import Digest, FulltextDoc, Paper
from papers_digest.sources.arxiv import abstract_doc
from papers_digest.sources.hf import parse_items

ROOT = repo_root()
DATA = ROOT / "tests" / "data"
HF_DIR, ARXIV_DIR = recorded_dirs("tests")
SAMPLE_DIR = ROOT / "sample"

__all__ = [
    "ARXIV_DIR",
    "DATA",
    "HF_DIR",
    "ROOT",
    "SAMPLE_DATE",
    "SAMPLE_DIR",
    "abstract_docs",
    "chat_calls",
    "chats_of",
    "check_en",
    "check_zh",
    "copy_project",
    "day_papers",
    "dvc_command",
    "dvc_env",
    "free_port",
    "hf_day",
    "kill_dvc_when",
    "make_params",
    "run_dvc",
    "sample_papers",
    "sent_calls",
    "wait_until",
    "write_params",
]


GROUP_LOST = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`make test` runs on pytest-xdist's workers with `--dist loadgroup` (pyproject.toml): the tests of one
    xdist_group (the real engine's, a module's costly fixtures) go to one worker because xdist suffixes their ids
    with `@group`. pytest 9.2 drops that suffix, so the groups would be spread silently (pytest-xdist#1386):
    such a test fails at setup instead, saying why."""
    if getattr(config.option, "loadgroup", False):  # set on the workers of --dist loadgroup
        for item in items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                item.stash[GROUP_LOST] = True


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.stash.get(GROUP_LOST, False):
        pytest.fail(
            f"pytest {pytest.__version__} ignores xdist_group under --dist loadgroup (pytest-xdist#1386): "
            "install the dev extra's pytest (pip install -e '.[dev]'), or run pytest -n 0",
            pytrace=False,
        )


LAST_GROUP = "llama-server"  # the real engine's tests (tests/test_engines.py)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadgroup, with the real engine's group handed out only once every other unit has been: llama.cpp's
    threads take both cores, and next to the other workers its decoding fell below 1 token/s (2026-12-03)."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class RealEngineLast(LoadGroupScheduling):
        def _assign_work_unit(self, node: Any) -> None:
            if LAST_GROUP in self.workqueue:
                self.workqueue.move_to_end(LAST_GROUP)
            super()._assign_work_unit(node)

    return RealEngineLast(config, log)


@cache
def bench_module(name: str) -> ModuleType:
    """bench/<name>.py imported as its script runs: bench/ first on sys.path (its neighbours, bench/common.py,
    importable), registered in sys.modules as `<name>_bench` (its dataclasses look their module up); once."""
    bench = ROOT / "bench"
    if str(bench) not in sys.path:
        sys.path.insert(0, str(bench))
    spec = importlib.util.spec_from_file_location(f"{name}_bench", bench / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"{name}_bench"] = module
    spec.loader.exec_module(module)
    return module


def copy_db(source: Path, target: Path) -> None:
    """A copy of papers.db as docs/database.md tells analysts to take one (SQLite's backup): whole even while
    recent commits are still in the write-ahead log beside it, which a plain file copy would miss."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


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
    return [abstract_doc(p, "test: abstract only") for p in papers]


def check_en(reply: str, doc: FulltextDoc) -> tuple[Digest | None, list[str]]:
    """The checker's verdict on an English answer for `doc`, as (digest or None, problem messages)."""
    verdict = check_digest_en(reply, read_paper(doc))
    return verdict.digest, problem_texts(verdict.problems)


def check_zh(reply: str, english: Digest) -> tuple[Digest | None, list[str]]:
    """The checker's verdict on a translation of `english`, as (digest or None, problem messages)."""
    verdict = check_digest_zh(reply, english)
    return verdict.digest, problem_texts(verdict.problems)


def chat_calls(sim: EngineSim) -> int:
    """Completions the simulator served (the stages' endpoint checks on /v1/models are not calls)."""
    return sim.stats.by_path.get("/v1/chat/completions", 0)


def sent_calls(project: Path, stage: str, papers: set[str] | None = None, date: str = SAMPLE_DATE) -> int:
    """How many calls a day's results of `stage` (of `papers`, default all) record as sent to the engine, not
    served from the store: what a run asked, whatever the way of asking makes of a paper."""
    folder = project / "data" / date / stage
    paths = [p for p in folder.glob("*.json") if p.name != "_stage.json" and (papers is None or p.stem in papers)]
    calls = [c for p in paths for c in json.loads(p.read_text(encoding="utf-8"))["calls"]]
    return sum(1 for c in calls if not c.get("from_store"))


def chats_of(sim: EngineSim, kind: str) -> int:
    """Completions the simulator served for one kind of request: "digest" (an English digest's) or "translate"
    (a translation unit's: a paper's translation is one request per unit, llm/translating.py)."""
    return sum(1 for r in sim.stats.records if r.path.endswith("/completions") and r.kind == kind)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium for a module's browser tests (papers_devtools.testing.browser), skipped without it."""
    from papers_devtools.testing.browser import MISSING, chromium, have_chromium

    if not have_chromium():
        pytest.skip(MISSING)
    pytest.importorskip("selenium.webdriver", reason="selenium is a dev dependency (.[dev])")
    with chromium() as driver:
        yield driver


@pytest.fixture
def start_engine() -> Iterator[Callable[..., tuple[EngineSim, str]]]:
    """A factory: `start_engine(**EngineSim options)` serves a simulator until the test ends -> (sim, base_url)."""
    with ExitStack() as stack:
        yield lambda **options: stack.enter_context(engine_server(**options))


@pytest.fixture
def start_replay() -> Iterator[Callable[..., tuple[Replay, str]]]:
    """A factory: `start_replay(hf_dir=None, arxiv_dir=None)` serves recorded answers until the test ends."""
    with ExitStack() as stack:
        yield lambda hf_dir=None, arxiv_dir=None: stack.enter_context(replay_server(hf_dir, arxiv_dir))


@pytest.fixture
def engine(start_engine) -> tuple[EngineSim, str]:
    """The engine simulator on a free port: (sim, base_url with /v1)."""
    return start_engine()


@pytest.fixture
def replay(start_replay) -> tuple[Replay, str]:
    """Recorded HF days (tests/data/hf) and arXiv pages (tests/data/arxiv)."""
    return start_replay()


@pytest.fixture
def sample_replay() -> Iterator[tuple[Replay, str]]:
    """The bundled sample day, served as `papers sample` serves it."""
    with sample_replay_server() as served:
        yield served
