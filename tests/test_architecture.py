"""The architecture holds by construction: stage deps cover their imports, no cycles, layers, small modules."""

from __future__ import annotations

import ast

import pytest
import yaml
from conftest import ROOT

from papers_digest.testing.imports import (
    LAYERS,
    import_cycles,
    is_substantive,
    package_deps,
    stage_closure,
    upward_imports,
)

SRC = ROOT / "src"
PACKAGE = SRC / "papers_digest"
STAGES = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
MAX_MODULE_LINES = 400


def _entries(stage: dict) -> list[str]:
    """The stage's own code: its script, and the notebook papermill runs (the report stage has both)."""
    return [d for d in stage["deps"] if d.startswith(("stages/", "notebooks/")) and d.endswith((".py", ".ipynb"))]


@pytest.mark.parametrize("name", list(STAGES))
def test_each_stage_lists_the_package_folders_its_code_imports_from(name):
    """A stage depends on each package folder its code imports from, whole, and on its own modules of
    `pipeline/` by name: a change to any of them reruns it, a change elsewhere does not. No folder it does not
    import from is listed. `python -m papers_digest.testing.imports` prints what each stage must list."""
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
    assert folders == set(LAYERS), "every package folder has a layer in papers_digest.testing.imports.LAYERS"
    assert upward_imports(SRC) == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_every_module_says_what_it_is_for_and_stays_small(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and doc.strip(), f"{path.name}: a one-line docstring says what the module is for"
    assert len(doc.splitlines()[0]) <= 120
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it by job"


def test_package_inits_only_describe_the_package():
    inits = [p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE]
    assert inits and not any(is_substantive(p) for p in inits)
