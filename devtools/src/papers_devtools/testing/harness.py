"""Project copies and DVC runs for tests and benchmarks: params files, `dvc` with our Python, the stages' command
lines and prompts as dvc.yaml gives them."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from papers_digest.core.params import Params, validate_params
from papers_digest.llm.prompting import load_prompt
from papers_digest.pipeline import experiments

SAMPLE_DATE = "2025-04-03"
# What a runnable copy of the pipeline needs from the repository.
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


def repo_root() -> Path:
    """The repository this package was installed from (editable install), else the folder above holding dvc.yaml."""
    here = Path(__file__).resolve()
    for folder in [*here.parents, Path.cwd(), *Path.cwd().parents]:
        if (folder / "dvc.yaml").is_file() and (folder / "src" / "papers_digest").is_dir():
            return folder
    raise RuntimeError("papers_devtools.testing needs the repository (an editable install or a run from inside it)")


TEMPLATED = re.compile(r"\$\{([\w.]+)\}")


def stage_command(stage: str, values: Mapping[str, Any], root: Path | None = None) -> list[str]:
    """A stage's command line as dvc.yaml writes it, each `${key}` filled from `values` (`date`, `llm.asking`, ...)
    and `python` this interpreter: the paths and prompts a test or bench gives a stage are the pipeline's own."""
    dvc_yaml = (root or repo_root()) / "dvc.yaml"
    cmd = yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))["stages"][stage]["cmd"]
    words = shlex.split(TEMPLATED.sub(lambda m: str(values[m.group(1)]), cmd))
    return [sys.executable if words[0] == "python" else words[0], *words[1:]]


def english_prompt(asking: str, root: Path | None = None) -> tuple[str, str]:
    """The English digest's prompt (text, version) for a way of asking: the file dvc.yaml's digest_en stage passes
    for it (`--<way>-prompt`, else `--prompt`), so a test or bench asks as the pipeline does, whatever the way."""
    root = root or repo_root()
    words = stage_command("digest_en", {"date": SAMPLE_DATE, "llm.asking": asking}, root)
    flag = f"--{asking}-prompt" if f"--{asking}-prompt" in words else "--prompt"
    return load_prompt(root / words[words.index(flag) + 1])


def chinese_prompt(root: Path | None = None) -> tuple[str, str]:
    """The translation's prompt, the file dvc.yaml's translate_zh stage passes."""
    root = root or repo_root()
    words = stage_command("translate_zh", {"date": SAMPLE_DATE}, root)
    return load_prompt(root / words[words.index("--prompt") + 1])


def make_params(**sections: Any) -> Params:
    """Params for tests: the sample date, no waits between arXiv requests, fast retries; sections merge in. The
    English digest is asked the way production asks (llm.asking's default); a test of another way's machinery
    (the JSON answer's schema, repairs and faults) sets it: `llm={"asking": "json"}`."""
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


def write_params(project: Path, params: Params | dict[str, Any]) -> None:
    """Write params.yaml as the pipeline expects it (validated; the date stays a quoted string)."""
    model = params if isinstance(params, Params) else validate_params(params, "params")
    data = model.model_dump(mode="json")
    (project / "params.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def copy_project(dest: Path) -> Path:
    """A runnable copy of the pipeline (dvc.yaml, params, stages, prompts, sources) in a fresh git repo."""
    root = repo_root()
    for name in PROJECT_FILES:
        src = root / name
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
    """The environment the pipeline runs in (this interpreter's bin folder first on PATH), with `extra` set."""
    return {**experiments.dvc_env(), **extra}


def dvc_command(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "dvc"), *args]


def run_dvc(
    project: Path, *args: str, check: bool = True, env: dict[str, str] | None = None, timeout_s: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run dvc in a project copy with this interpreter's bin folder first on PATH."""
    done = subprocess.run(
        dvc_command(*args), cwd=project, env=env or dvc_env(), capture_output=True, text=True, timeout=timeout_s
    )
    if check and done.returncode != 0:
        raise AssertionError(f"dvc {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def wait_until(
    predicate: Callable[[], object], *, timeout_s: float = 60, what: str = "the condition", interval_s: float = 0.01
) -> None:
    """Poll `predicate` until it holds; past `timeout_s`, fail with an AssertionError that says what never came.

    Every wait in the tests and benchmarks goes through here, so none can hang a run: the predicate may
    itself assert (a process that must still be running), and that error is raised as it is."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(interval_s)


def kill_dvc_when(project: Path, ready: Callable[[], bool], *args: str, timeout_s: float = 120) -> None:
    """Start `dvc <args>` in its own process group and kill -9 all of it the moment `ready()` holds (or when
    the wait fails: no dvc is left running)."""
    run = subprocess.Popen(
        dvc_command(*args),
        cwd=project,
        env=dvc_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def ready_while_running() -> bool:
        assert run.poll() is None, "the run ended before it could be interrupted"
        return ready()

    try:
        wait_until(ready_while_running, timeout_s=timeout_s, what="the run to reach the point to interrupt")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()
