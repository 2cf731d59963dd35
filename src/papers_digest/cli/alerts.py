"""The run's alert: one JSON message to a chat webhook when a date failed or a day went bad (`alerts` params)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import httpx

from papers_digest.core.http import make_sync_client
from papers_digest.core.params import AlertParams
from papers_digest.day.status import REASONS_SHOWN, DateRun, alert, day_status
from papers_digest.db.queries import failure_reasons, status_rows

ALERT_WEBHOOK_ENV = "PAPERS_ALERT_WEBHOOK"
ALERT_TIMEOUT_S = 15.0


def webhook_url(alerts: AlertParams) -> str:
    """The environment's PAPERS_ALERT_WEBHOOK, else alerts.webhook_url: a URL holding a token stays out of files."""
    return os.environ.get(ALERT_WEBHOOK_ENV, "").strip() or alerts.webhook_url


def date_runs(db_path: Path, finished: Iterable[tuple[str, str | None]]) -> list[DateRun]:
    """(date, why it did not finish or None) -> each date's run, with its status read from the database."""
    finished = list(finished)
    ok = [date for date, failure in finished if failure is None]
    statuses = {row["date"]: row for row in status_rows(db_path, ok)}
    runs = []
    for date, failure in finished:
        row = statuses.get(date)
        status = day_status(row, failure_reasons(db_path, date, REASONS_SHOWN)) if row and failure is None else None
        runs.append(DateRun(date, status, failure))
    return runs


def send_alert(command: str, alerts: AlertParams, runs: list[DateRun]) -> None:
    """POST the run's alert when it has one; a webhook that fails is reported in one line and never fails the
    run. The URL is never printed: it may hold a token."""
    url = webhook_url(alerts)
    message = alert(runs, alerts.max_failed_share) if url else None
    if message is None:
        return
    try:
        with make_sync_client(timeout_s=ALERT_TIMEOUT_S, local=False) as client:
            response = client.post(url, json=message)
    except httpx.HTTPError as exc:
        print(f"{command}: the alert was not delivered: {type(exc).__name__}: {exc or 'no answer'}")
        return
    if response.is_success:
        print(f"{command}: alert sent for {len(message['dates'])} date(s)")
    else:
        print(f"{command}: the alert was not delivered: the webhook answered HTTP {response.status_code}")
