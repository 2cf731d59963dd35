"""The run's alert when a date failed or a day went bad (`alerts` params): to the JSON webhook and apprise's URLs."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from papers_digest.core.notify import ALERT_URLS_ENV, json_webhook, send, services_from_env
from papers_digest.core.params import AlertParams
from papers_digest.day.status import REASONS_SHOWN, DateRun, alert, day_status
from papers_digest.db.queries import failure_reasons, status_rows

ALERT_WEBHOOK_ENV = "PAPERS_ALERT_WEBHOOK"


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


def send_alert(command: str, alerts: AlertParams, runs: list[DateRun]) -> int:
    """Send the run's alert when it has one: to the webhook, the same JSON as ever (`{"text", "dates"}`), and to
    each service of PAPERS_ALERT_URLS (its first line as the title). A service that fails is one line and never
    fails the run; no URL is printed: it may hold a token (core/notify.py). Returns how many places took it."""
    message = alert(runs, alerts.max_failed_share)
    if message is None:
        return 0
    url = webhook_url(alerts)
    where = ALERT_WEBHOOK_ENV if os.environ.get(ALERT_WEBHOOK_ENV, "").strip() else "alerts.webhook_url"
    webhook = [json_webhook(url, f"the webhook ({where})", {"dates": message["dates"]})] if url else []
    services = services_from_env(ALERT_URLS_ENV)
    if not webhook and not services:
        return 0
    title, _, details = message["text"].partition("\n")
    what = "the alert"
    sent = send(webhook, "", message["text"], command=command, what=what, failure=True)
    sent += send(services, title, details, command=command, what=what, failure=True)
    if sent:
        dates, total = len(message["dates"]), len(webhook) + len(services)
        print(f"{command}: alert sent for {dates} date(s) to {sent} of {total} service(s)")
    return sent
