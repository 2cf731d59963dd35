"""The package's import graph, read from the source (ast): each stage's import closure, cycles, layers.

`python -m papers_devtools.testing.imports` prints, per stage of dvc.yaml, the package folders its script or
notebook imports from (directly or not), and its modules of `pipeline/`: what its `deps` must list
(docs/architecture.md, "Rules").
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "papers_digest"
# Lower layers never import from higher ones (docs/architecture.md, "Where each concern lives"); same layer is allowed.
LAYERS: dict[str, int] = {
    "core": 0,
    "checker": 1,
    "reading": 1,
    "sources": 1,
    "llm": 2,
    "day": 3,
    "ways": 3,
    "db": 4,
    "engines": 5,
    "report": 5,
    "site": 5,
    "pipeline": 6,
    "cli": 8,
}
# The development tools (devtools/): a distribution of their own that the package never imports, but through the
# one seam that imports them when a command runs (docs/architecture.md, "Where each concern lives").
DEVTOOLS = "papers_devtools"
DEVTOOLS_SEAM = f"src/{PACKAGE}/cli/devtools.py"


def module_file(src: Path, name: str) -> Path | None:
    """`papers_digest.llm.client` -> src/papers_digest/llm/client.py (or a package's __init__.py)."""
    base = src / name.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(code: str, importer: Path | None = None, src: Path | None = None) -> set[str]:
    """The package modules a piece of code imports (`from papers_digest.x import y` may name module y)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level and importer is not None and src is not None:
                parts = importer.relative_to(src).with_suffix("").parts[: -node.level]
                module = ".".join([*parts, *([module] if module else [])])
            if module.split(".")[0] != PACKAGE:
                continue
            found.add(module)
            if src is not None:
                found |= {f"{module}.{a.name}" for a in node.names if module_file(src, f"{module}.{a.name}")}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == PACKAGE}
    return found


def file_imports(src: Path, path: Path) -> set[Path]:
    names = imported_modules(path.read_text(encoding="utf-8"), path, src)
    return {f for name in names if (f := module_file(src, name)) is not None}


def closure(src: Path, roots: Iterable[Path]) -> set[Path]:
    """Every package file reachable by imports from `roots` (the roots themselves excluded)."""
    seen: set[Path] = set()
    stack = list(roots)
    while stack:
        for found in file_imports(src, stack.pop()):
            if found not in seen:
                seen.add(found)
                stack.append(found)
    return seen


def is_substantive(path: Path) -> bool:
    """A file whose change can change behaviour: any module but a package `__init__` holding only a docstring
    or constants (ours hold a docstring; the root one the version)."""
    if path.name != "__init__.py":
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef) for n in ast.walk(tree))


def notebook_code(path: Path) -> str:
    """The code cells of a notebook, joined (what papermill runs)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    lines = []
    for cell in cells:
        if cell.get("cell_type") == "code":
            source = "".join(cell["source"])
            # IPython magics are not Python; the imports never hide behind them
            lines.extend(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    return "\n".join(lines)


def stage_closure(root: Path, entry: Path) -> list[str]:
    """The substantive package files a stage's script or notebook imports, relative to `root`, sorted."""
    src = root / "src"
    if entry.suffix == ".ipynb":
        direct = imported_modules(notebook_code(entry), None, src)
        first = {f for name in direct if (f := module_file(src, name)) is not None}
        files = first | closure(src, first)
    else:
        files = closure(src, [entry])
    return sorted(f.relative_to(root).as_posix() for f in files if is_substantive(f))


def import_cycles(src: Path) -> list[list[str]]:
    """Cycles in the package's import graph, each as the module names along it (empty when there are none)."""
    files = sorted((src / PACKAGE).rglob("*.py"))
    graph = {f: file_imports(src, f) - {f} for f in files}
    state: dict[Path, int] = {}
    cycles: list[list[str]] = []

    def name(path: Path) -> str:
        return ".".join(path.relative_to(src).with_suffix("").parts)

    def visit(node: Path, path: list[Path]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([name(p) for p in path[path.index(nxt) :]] + [name(nxt)])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for f in files:
        if f not in state:
            visit(f, [f])
    return cycles


def layer_of(src: Path, path: Path) -> str | None:
    parts = path.relative_to(src / PACKAGE).parts
    return parts[0] if len(parts) > 1 else None


def upward_imports(src: Path) -> list[str]:
    """Imports from a higher layer than the importer's (see LAYERS), as `importer -> imported` lines."""
    problems = []
    for path in sorted((src / PACKAGE).rglob("*.py")):
        mine = layer_of(src, path)
        if mine is None:
            continue
        for target in sorted(file_imports(src, path)):
            theirs = layer_of(src, target)
            if theirs is not None and LAYERS[theirs] > LAYERS[mine]:
                problems.append(f"{path.relative_to(src).as_posix()} -> {target.relative_to(src).as_posix()}")
    return problems


def imports_of(path: Path, roots: Iterable[str]) -> list[tuple[int, str, bool]]:
    """Where a module imports from the top-level packages `roots`: (line, module, whether at import time, that is
    outside any function body)."""
    wanted = set(roots)
    found: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        found.extend((node.lineno, name, not in_function) for name in names if name.split(".")[0] in wanted)
        inside = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def devtools_imports(src: Path) -> list[str]:
    """The package's imports of the development tools that break the rule: any outside the one seam, and the
    seam's own at import time; as `file:line module` lines (empty when the rule holds)."""
    problems = []
    for path in sorted((src / PACKAGE).rglob("*.py")):
        seam = path.relative_to(src.parent).as_posix() == DEVTOOLS_SEAM
        for line, module, at_import in imports_of(path, [DEVTOOLS]):
            if at_import or not seam:
                problems.append(f"{path.relative_to(src).as_posix()}:{line} {module}")
    return problems


PIPELINE = f"src/{PACKAGE}/pipeline/"


def package_deps(files: Iterable[str]) -> list[str]:
    """What a stage's deps list of the package, given the files its code imports (docs/architecture.md, "Rules"):
    each package folder whole (a folder inside one, such as `ways/steps/`, in it), except `pipeline/`, which holds
    every stage's own module: those by name."""
    return sorted({f if f.startswith(PIPELINE) else "/".join(f.split("/")[:3]) for f in files})


def stage_deps(root: Path) -> dict[str, list[str]]:
    """For each stage of dvc.yaml, the package deps it must list: the folders (and pipeline modules) its script
    or notebook imports from."""
    import yaml

    stages = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    deps = {}
    for stage, spec in stages.items():
        entries = [root / d for d in spec.get("deps", []) if d.endswith((".py", ".ipynb")) and not d.startswith("src/")]
        deps[stage] = package_deps(f for entry in entries for f in stage_closure(root, entry))
    return deps


def main() -> None:
    """Print the package deps each stage of dvc.yaml must list."""
    for stage, deps in stage_deps(Path.cwd()).items():
        print(f"{stage}:")
        for dep in deps:
            print(f"  - {dep}")


if __name__ == "__main__":
    main()
