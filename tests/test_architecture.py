"""The architecture holds by construction: stage deps cover their imports, no cycles, layers, small modules."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from packaging.requirements import Requirement

from papers_devtools.testing.imports import (
    DEVTOOLS,
    LAYERS,
    devtools_imports,
    import_cycles,
    imports_of,
    is_substantive,
    package_deps,
    stage_closure,
    upward_imports,
)

SRC = ROOT / "src"
PACKAGE = SRC / "papers_digest"
DEVTOOLS_PACKAGE = ROOT / "devtools" / "src" / DEVTOOLS
STAGES = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# The development tools' servers: what `pip install .` of the package must not pull.
DEV_SERVERS = ("starlette", "uvicorn")
CODE = sorted([*PACKAGE.rglob("*.py"), *DEVTOOLS_PACKAGE.rglob("*.py")])


def _code_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _entries(stage: dict) -> list[str]:
    """The stage's own code: its script, and the notebook papermill runs (the report stage has both)."""
    return [d for d in stage["deps"] if d.startswith(("stages/", "notebooks/")) and d.endswith((".py", ".ipynb"))]


@pytest.mark.parametrize("name", list(STAGES))
def test_each_stage_lists_the_package_folders_its_code_imports_from(name):
    """A stage depends on each package folder its code imports from, whole, and on its own modules of
    `pipeline/` by name: a change to any of them reruns it, a change elsewhere does not. No folder it does not
    import from is listed. `python -m papers_devtools.testing.imports` prints what each stage must list."""
    stage = STAGES[name]
    entries = _entries(stage)
    assert entries, f"dvc.yaml stage {name} lists no script or notebook of its own"
    needed = set(package_deps(path for entry in entries for path in stage_closure(ROOT, ROOT / entry)))
    listed = {d for d in stage["deps"] if d.startswith("src/")}
    assert not needed - listed, f"dvc.yaml stage {name} misses {sorted(needed - listed)}"
    assert not listed - needed, f"dvc.yaml stage {name} lists code it does not import: {sorted(listed - needed)}"
    for dep in stage["deps"]:
        templated = dep.replace("${date}", "2025-04-03").replace("${llm.asking}", PARAMS["llm"]["asking"])
        assert (ROOT / templated).exists() or "${date}" in dep, f"{name}: {dep} is missing"


def test_the_listing_does_not_depend_on_the_llm_code():
    """Editing the token estimator or the chat client reruns the stages that use them, never the HF listing."""
    assert not any(d.startswith("src/papers_digest/llm") for d in STAGES["list"]["deps"])
    assert "src/papers_digest/llm" in STAGES["fulltext"]["deps"]  # the texts are fitted with its tokenizer


def test_dvc_ignores_the_bytecode_python_writes_into_the_package_folders():
    ignored = (ROOT / ".dvcignore").read_text(encoding="utf-8").split()
    assert "__pycache__/" in ignored


def test_the_closure_follows_imports_through_packages():
    closure = stage_closure(ROOT, ROOT / "stages" / "digest_en.py")
    # the stage imports the pipeline; the pipeline the checked generation; that one the checker
    assert "src/papers_digest/checker/english.py" in closure and "src/papers_digest/llm/client.py" in closure
    assert not any(path.startswith("src/papers_digest/site/") for path in closure)


def test_there_are_no_import_cycles():
    assert import_cycles(SRC) == []


def test_no_module_imports_from_a_layer_above_its_own():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYERS), "every package folder has a layer in papers_devtools.testing.imports.LAYERS"
    assert upward_imports(SRC) == []


def test_the_package_imports_the_development_tools_only_through_the_seam_and_only_when_a_command_runs():
    """papers_devtools is imported by cli/devtools.py alone, inside a function: `papers` without it installed
    still starts, and its commands but `papers sample` and `papers dev` run."""
    assert devtools_imports(SRC) == []


def test_the_package_imports_no_development_server():
    found = [
        f"{_code_id(path)}:{line} {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, name, _ in imports_of(path, DEV_SERVERS)
    ]
    assert found == [], "starlette and uvicorn are the development tools' (devtools/pyproject.toml)"


def test_installing_the_package_pulls_no_development_server():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {Requirement(dep).name.lower() for dep in project["dependencies"]}
    assert names.isdisjoint(DEV_SERVERS)


def test_the_development_tools_bring_the_servers_they_run_on():
    project = tomllib.loads((ROOT / "devtools" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {Requirement(dep).name.lower() for dep in project["dependencies"]}
    assert names >= {"papers-digest", *DEV_SERVERS}


def test_no_stage_depends_on_the_development_tools():
    listed = [(name, dep) for name, stage in STAGES.items() for dep in stage["deps"] if dep.startswith("devtools")]
    assert listed == []


@pytest.mark.parametrize("path", [*CODE, *sorted((ROOT / "bench").glob("*.py"))], ids=_code_id)
def test_no_function_is_over_sixty_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    lengths = {f.name: f.end_lineno - f.lineno + 1 for f in functions}
    long = sorted(f"{name} ({lines} lines)" for name, lines in lengths.items() if lines > MAX_FUNCTION_LINES)
    assert not long, f"{_code_id(path)}: split {sorted(long)} (at most {MAX_FUNCTION_LINES} lines a function)"


@pytest.mark.parametrize("path", CODE, ids=_code_id)
def test_every_module_says_what_it_is_for_and_stays_small(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and doc.strip(), f"{path.name}: a one-line docstring says what the module is for"
    assert len(doc.splitlines()[0]) <= 120
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by job"


def test_package_inits_only_describe_the_package():
    inits = [p for p in CODE if p.name == "__init__.py" and p.parent != PACKAGE]
    assert inits and not any(is_substantive(p) for p in inits)


def test_opening_the_database_imports_no_pandas_and_leaves_it_importable():
    """A stage that opens papers.db does not pay for pandas and numpy (db/sqlite_library.py); a notebook that
    imported pandas first keeps sqlite-utils' pandas column types, and a process that imports pandas later gets
    it whole."""
    stage_like = (
        "import sys\n"
        "from papers_digest.db import queries, writer\n"
        "print('pandas' in sys.modules, 'numpy' in sys.modules)\n"
        "import pandas, sqlite_utils\n"
        "db = sqlite_utils.Database(memory=True)\n"
        "db['t'].insert({'n': int(pandas.Series([7]).iloc[0])})\n"
        "print(db.execute('select n from t').fetchone()[0])\n"
    )
    notebook_like = (
        "import pandas\n"
        "from papers_digest.db import queries\n"
        "import sqlite_utils.db as library\n"
        "print(library.COLUMN_TYPE_MAPPING[pandas.Timestamp])\n"
    )
    outputs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        for code in (stage_like, notebook_like)
    ]
    assert outputs == [["False", "False", "7"], ["TEXT"]]
