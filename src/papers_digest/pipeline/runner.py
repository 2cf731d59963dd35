"""The thin runner every stage script uses: arguments, logging, timing, one-line errors instead of tracebacks."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from papers_digest.core.artefacts import STAGE_INFO, write_json
from papers_digest.core.errors import PipelineError
from papers_digest.core.models import StageInfo


def stage_parser(name: str, doc: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"stages/{name}.py", description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    parser.add_argument("--date", required=True, help="the day to process, YYYY-MM-DD")
    return parser


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a stage, with what it kept: `2 of 4 papers kept`."""


def run_stage(name: str, body: Callable[[], None]) -> None:
    """Run a stage body; expected failures print one line naming the problem and exit non-zero, and so does an
    interrupt (Ctrl-C, `papers` stopping DVC, SIGTERM): what the stage finished is already written."""
    logging.basicConfig(level=logging.INFO, format=f"{name}: %(message)s", stream=sys.stderr)
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # SIGTERM as SIGINT: asyncio.run then cancels the stage's work as for Ctrl-C, and the line below says so
    signal.signal(signal.SIGTERM, lambda _signum, _frame: signal.raise_signal(signal.SIGINT))
    try:
        body()
    except PipelineError as exc:  # configuration that cannot work, or a source that is down: say what, stop
        print(f"{name}: {exc.label}{exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except httpx.HTTPError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt as exc:
        kept = f": {exc}" if isinstance(exc, Interrupted) else ""
        print(f"interrupted during {name}{kept}; rerun to finish", file=sys.stderr)
        sys.exit(130)


class StageClock:
    """Times a stage and writes its `_stage.json` into the stage's output folder."""

    def __init__(self, stage: str, date: str) -> None:
        self.stage, self.date = stage, date
        self.started_at = time.time()
        self._started = time.monotonic()

    def info(self, **fields: object) -> StageInfo:
        elapsed = time.monotonic() - self._started
        return StageInfo(
            stage=self.stage,
            date=self.date,
            started_at=round(self.started_at, 3),
            ended_at=round(self.started_at + elapsed, 3),
            elapsed_s=round(elapsed, 3),
            **fields,  # type: ignore[arg-type]
        )

    def write(self, folder: str | Path, **fields: object) -> StageInfo:
        info = self.info(**fields)
        write_json(Path(folder) / STAGE_INFO, info)
        return info
