"""DVC as papers relies on it, against the installed DVC: its experiments, queue and workspaces
(pipeline/experiments.py), and the hints `dvc repro` ends with, which papers leaves out (cli/project.py). A DVC
upgrade that moves or changes one of them fails here, not in a parallel backfill, a comparison or a sample.

A small project of its own (one stage writing a param to a file), real git, real DVC, a real queue worker.
"""

from __future__ import annotations

import contextlib
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, wait_until
from packaging.requirements import Requirement

from papers_digest.cli.project import HINT_HEADINGS, PUSH_HINT, without_hints
from papers_digest.pipeline import experiments
from papers_digest.pipeline.experiments import dvc_env, dvc_executable, git_output

DVC_YAML = """\
stages:
  echo:
    cmd: python -c "import yaml; print(yaml.safe_load(open('params.yaml'))['x'])" > out.txt
    params: [x]
    outs: [out.txt]
  where:
    cmd: python -c "from papers_digest.pipeline.experiments import in_temporary_workspace as t; print(t())" > where.txt
    outs: [where.txt]
"""


def test_the_installed_dvc_is_the_one_the_pin_allows_and_the_pin_holds_a_minor_version():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [pin] = [Requirement(d) for d in pyproject["project"]["dependencies"] if Requirement(d).name == "dvc"]
    installed = metadata.version("dvc")
    assert pin.specifier.contains(installed), f"dvc {installed} is not what pyproject.toml pins ({pin})"
    major, minor = (int(n) for n in installed.split(".")[:2])
    assert not pin.specifier.contains(f"{major}.{minor + 1}.0")  # the next minor version is tested first


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("x: 1\n", encoding="utf-8")
    (tmp_path / "dvc.yaml").write_text(DVC_YAML, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run([dvc_executable(), "init", "-q"], check=True, env=dvc_env())
    _git("add", "-A")
    _git("commit", "-qm", "the project")
    return tmp_path


def _git(*args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], check=True)


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_a_queued_experiment_is_seen_run_by_a_worker_committed_under_its_ref_read_and_removed(project):
    baseline = git_output("rev-parse", "HEAD")
    assert baseline is not None
    assert experiments.queue("e1", ["echo"], ["x=2"]) is None
    assert experiments.pending_names() == {"e1"}
    assert not experiments.workers_alive()  # none started yet
    assert not experiments.committed(baseline, "e1")

    starts = experiments.WorkerStarts({})
    assert starts.start(1) and starts.wait()
    wait_until(experiments.workers_alive, timeout_s=60, what="the worker to answer")
    wait_until(lambda: experiments.committed(baseline, "e1"), timeout_s=120, what="the experiment's commit")
    assert git_output("for-each-ref", "--format=%(refname)", "refs/exps/") == experiments.experiment_ref(baseline, "e1")
    assert list(experiments.read_files(baseline, "e1", ["out.txt"])) == [("out.txt", b"2\n")]
    wait_until(lambda: "e1" not in experiments.pending_names(), timeout_s=30, what="the task to end")

    assert experiments.remove(["e1", "never-run"]) == ["e1"]  # a name DVC does not know is skipped, not fatal
    assert not experiments.committed(baseline, "e1")
    assert experiments.remove(["never-run"]) == []


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_an_interrupted_run_takes_its_queued_experiments_off_the_queue(project):
    assert experiments.queue("e2", ["echo"], ["x=3"]) is None
    assert experiments.queue("e3", ["echo"], ["x=4"]) is None
    assert experiments.pending_names() == {"e2", "e3"}
    experiments.stop(["e2", "never-queued"])
    assert experiments.pending_names() == {"e3"}
    experiments.stop(["e3"])
    assert experiments.pending_names() == set()


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_a_temporary_experiment_runs_in_the_foreground_and_its_files_are_read_back(project):
    baseline = git_output("rev-parse", "HEAD")
    assert baseline is not None
    assert experiments.run_temporary("t1", ["-S", "x=5", "echo"]) == 0
    assert experiments.committed(baseline, "t1")
    assert list(experiments.read_files(baseline, "t1", ["out.txt"])) == [("out.txt", b"5\n")]
    assert not Path("out.txt").exists()  # it ran in a temporary workspace, not here


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_a_stage_knows_it_runs_in_a_temporary_experiment_workspace(project):
    """From the environment DVC documents (DVC_EXP_NAME, DVC_ROOT): the publish stage renders no site there."""
    baseline = git_output("rev-parse", "HEAD")
    assert baseline is not None
    assert experiments.run_temporary("w1", ["where"]) == 0
    assert list(experiments.read_files(baseline, "w1", ["where.txt"])) == [("where.txt", b"True\n")]


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_a_stage_of_an_experiment_in_the_workspace_knows_it_is_not_in_a_temporary_one(project):
    subprocess.run([dvc_executable(), "exp", "run", "-q", "where"], env=dvc_env(), check=True)
    assert Path("where.txt").read_text(encoding="utf-8") == "False\n"


def test_outside_dvc_a_process_is_not_in_a_temporary_workspace():
    assert not experiments.in_temporary_workspace({})


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_outputs_are_recorded_in_dvc_lock_for_the_experiments_run_meanwhile(project):
    """`papers compare` records the day's list and full texts (made with its date) before each experiment."""
    subprocess.run([dvc_executable(), "repro", "-q", "echo"], env=dvc_env(), check=True)
    Path("params.yaml").write_text("x: 7\n", encoding="utf-8")
    Path("out.txt").write_text("7\n", encoding="utf-8")
    with experiments.outputs_in_lock(["echo"], contextlib.nullcontext):
        recorded = yaml.safe_load(Path("dvc.lock").read_text(encoding="utf-8"))["stages"]["echo"]["params"]
    assert recorded == {"params.yaml": {"x": 7}}


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_dvc_lock_is_put_back_as_it_was_after_the_experiments(project):
    subprocess.run([dvc_executable(), "repro", "-q", "echo"], env=dvc_env(), check=True)
    before = Path("dvc.lock").read_bytes()
    Path("params.yaml").write_text("x: 7\n", encoding="utf-8")
    with experiments.outputs_in_lock(["echo"], contextlib.nullcontext):
        pass
    assert Path("dvc.lock").read_bytes() == before


@pytest.mark.slow
@pytest.mark.xdist_group("dvc-exp")
def test_the_hints_dvc_repro_ends_with_are_worded_as_papers_leaves_them_out(project):
    done = subprocess.run([dvc_executable(), "repro"], env=dvc_env(), capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines(keepends=True)
    for hint in (*HINT_HEADINGS, PUSH_HINT):
        assert f"{hint}\n" in lines, f"dvc repro no longer says {hint!r}: update cli/project.py's without_hints"
    shown = "".join(without_hints(lines))
    assert "git add" not in shown and "autostage" not in shown and "dvc push" not in shown
    assert "Running stage 'echo'" in shown and "Generating lock file 'dvc.lock'" in shown
    assert shown == shown.rstrip("\n") + "\n"  # no blank lines left behind where the hints were


def test_what_is_not_a_hint_is_passed_on_as_it_is():
    lines = ["Running stage 's':\n", "\n", "> python s.py\n", "\n", "\tindented\n", "\n"]
    assert list(without_hints(lines)) == lines
