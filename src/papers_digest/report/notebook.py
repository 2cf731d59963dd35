"""Run a report notebook with papermill and render the executed copy to HTML without code, in one process.

The `report` stage (stages/report.py) and `papers compare` (cli/compare.py) both do this. One process, not
`papermill` then `jupyter nbconvert`: each of those starts Python and imports nbformat again, whose jsonschema
import is dear where rfc3987_syntax is installed, for IRI formats no notebook schema uses
(python-jsonschema/jsonschema#1428; docs/performance.md, "A parallel backfill, on the engine simulator").
docs/reports.md, "The run report".
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from papers_digest.core.artefacts import write_text_atomic
from papers_digest.core.errors import PipelineError

# A None in sys.modules makes `import rfc3987_syntax` raise ImportError, which jsonschema takes as the optional
# package being absent. Set before papermill or nbconvert is imported; a process that already imported
# jsonschema keeps what it has (setdefault), so nothing else changes.
sys.modules.setdefault("rfc3987_syntax", None)

KERNEL = "python3"
# nbconvert's lab template, with each figure's alternative text (report/figures.py)
TEMPLATE = Path(__file__).parent / "templates" / "report.html.j2"
# The longest name jupyter_client gives a kernel's channel socket under the runtime directory; a Unix socket's
# path must fit in sun_path, 108 bytes on Linux with its closing NUL.
_LONGEST_SOCKET = "kernel-00000000-0000-0000-0000-000000000000-ipc-99"
_SUN_PATH_BYTES = 107


def kernel_transport(runtime_dir: Path) -> str:
    """How papermill's kernel talks to it: "ipc" (Unix sockets in Jupyter's runtime directory, its owner's only)
    where their paths fit, else "tcp" on 127.0.0.1, over which ipykernel 7 warns at every start that the
    channels are unencrypted."""
    return "ipc" if len(os.fsencode(runtime_dir / _LONGEST_SOCKET)) <= _SUN_PATH_BYTES else "tcp"


class NotebookError(PipelineError):
    """The notebook raised: names the cell's error, as papermill reports it."""


def execute_and_render(notebook: Path, executed: Path, parameters: dict[str, object], kernel: str = KERNEL) -> Path:
    """Execute `notebook` with `parameters` into `executed` (papermill), then write the HTML beside it, named
    after it (`report.ipynb` -> `report.html`), without code or prompts, as `nbconvert --no-input --no-prompt`
    does. Returns the HTML's path. Raises NotebookError when a cell fails; the executed copy then shows where."""
    import papermill
    from jupyter_core.paths import jupyter_runtime_dir
    from nbconvert import HTMLExporter
    from papermill.exceptions import PapermillExecutionError
    from traitlets.config import Config

    transport = kernel_transport(Path(jupyter_runtime_dir()))
    try:
        papermill.execute_notebook(
            str(notebook),
            str(executed),
            parameters=parameters,
            kernel_name=kernel,
            progress_bar=False,
            config=Config({"KernelManager": {"transport": transport}}),  # nbclient's kernel manager takes it
        )
    except PapermillExecutionError as exc:
        where = f"{notebook}: cell In [{exc.exec_count}] of {executed}"
        raise NotebookError(f"{where} raised {exc.ename}: {exc.evalue}") from exc
    exporter = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True, template_file=str(TEMPLATE)
    )
    body, _ = exporter.from_filename(str(executed))
    html = executed.with_suffix(".html")
    write_text_atomic(html, body)
    return html
