"""A day's outcome as the operator sees it: the status page's row, an empty day's reason, and the alert (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NOTHING_LISTED = "Hugging Face listed no papers"
ALL_DIGESTED_BEFORE = "every listed paper was digested on an earlier day"
REASONS_SHOWN = 3  # failure reasons an alert quotes per date


def empty_day_reason(listed: int) -> str:
    """Why a day picked no paper: HF listed none, or every one it listed was digested on an earlier day."""
    return ALL_DIGESTED_BEFORE if listed else NOTHING_LISTED


@dataclass(frozen=True)
class DayStatus:
    """One published date: what was listed, picked, done and failed, what it spent, how long it took."""

    date: str
    listed: int
    picked: int
    done: int
    failed: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # when llm.price is set
    elapsed_s: float = 0.0
    reasons: tuple[str, ...] = field(default_factory=tuple)  # the first failed papers' "<id>: <error>"

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def outcome(self) -> str:
        """The day in a few words: all done, how many failed, none done, or why it was empty."""
        if self.picked == 0:
            return f"empty: {empty_day_reason(self.listed)}"
        if self.done == 0:
            return f"none done: all {self.picked} failed"
        if self.failed:
            return f"{self.failed} of {self.picked} failed"
        return "all done"

    @property
    def kind(self) -> str:
        """ok | partial | bad | empty: the row's class on the status page."""
        if self.picked == 0:
            return "empty"
        if self.done == 0:
            return "bad"
        return "partial" if self.failed else "ok"

    def alarm(self, max_failed_share: float) -> str | None:
        """Why this day must reach the operator, or None: papers were picked and none ended done, or more
        than `max_failed_share` of them failed. An empty day is a normal day."""
        if self.picked and self.done == 0:
            return f"0 of {self.picked} papers done"
        if self.picked and self.failed / self.picked > max_failed_share:
            return f"{self.failed} of {self.picked} papers failed (more than {max_failed_share:.0%})"
        return None


def day_status(row: Mapping[str, Any], reasons: Iterable[str] = ()) -> DayStatus:
    """A status row of the database (db/queries.py status_rows) -> the day's status."""
    return DayStatus(
        date=row["date"],
        listed=row.get("listed") or 0,
        picked=row.get("picked") or 0,
        done=row.get("done") or 0,
        failed=row.get("failed") or 0,
        prompt_tokens=row.get("prompt_tokens") or 0,
        completion_tokens=row.get("completion_tokens") or 0,
        cost_usd=row.get("cost_usd"),
        elapsed_s=row.get("elapsed_s") or 0.0,
        reasons=tuple(reasons),
    )


@dataclass(frozen=True)
class DateRun:
    """One date of a `papers daily` run: its status when it published, else why it did not."""

    date: str
    status: DayStatus | None
    failure: str | None = None  # the run did not finish: `dvc repro exited with 1`


def alert(runs: Iterable[DateRun], max_failed_share: float) -> dict[str, Any] | None:
    """The one message a run sends when a date failed or a day went bad, else None.

    `text` is what Slack, Mattermost and ntfy's JSON publishing show; `dates` carries the same facts for a
    receiver that reads them (docs/operations.md, "Alerts")."""
    flagged = []
    for run in runs:
        why = f"FAILED ({run.failure})" if run.failure else run.status.alarm(max_failed_share) if run.status else None
        if why is None:
            continue
        status = run.status
        counts = (
            {"listed": status.listed, "picked": status.picked, "done": status.done, "failed": status.failed}
            if status
            else {}
        )
        reasons = list(status.reasons[:REASONS_SHOWN]) if status else []
        flagged.append({"date": run.date, "problem": why, **counts, "reasons": reasons})
    if not flagged:
        return None
    lines = [f"papers-digest: {len(flagged)} date(s) need a look"]
    for entry in flagged:
        counts = (
            f" ({entry['done']} done, {entry['failed']} failed of {entry['picked']} picked, {entry['listed']} listed)"
            if "picked" in entry
            else ""
        )
        lines.append(f"{entry['date']}: {entry['problem']}{counts}")
        lines += [f"  - {reason}" for reason in entry["reasons"]]
    return {"text": "\n".join(lines), "dates": flagged}
