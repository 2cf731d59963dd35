"""Messages to chats, phones and mailboxes through apprise: one URL a service, the URLs only from the environment.

A URL carries the service's token (a Slack or Telegram path, a password): it is read from the environment,
never printed, logged or written, and apprise's own log, which names URLs, is kept to itself. A service
that fails is one line naming it by its place (`PAPERS_ALERT_URLS #2, Slack`); it never fails the run.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import apprise
from apprise.plugins.custom_json import NotifyJSON
from apprise.utils.parse import parse_urls

NOTIFY_URLS_ENV = "PAPERS_NOTIFY_URLS"  # the readers' digest of each day
ALERT_URLS_ENV = "PAPERS_ALERT_URLS"  # the operator's alerts
TIMEOUT_S = 15.0
ASSET = apprise.AppriseAsset(app_id="papers-digest", app_desc="daily paper digests")
# NotifyJSON's own fields, dropped, and its `message` renamed: the body a JSON webhook got before apprise
_JSON_WEBHOOK_FIELDS = {"version": "", "title": "", "attachments": "", "type": "", "message": "text"}

_log = logging.getLogger("apprise")
_log.propagate = False  # apprise names URLs in its log: nothing of it reaches our output but what we print


@dataclass(frozen=True)
class Service:
    """One place a message goes: `label` names it in every line; `url` is kept only to mask it in apprise's
    words (never printed); `plugin` is None when apprise does not understand the URL."""

    label: str
    plugin: Any = field(repr=False)
    url: str = field(repr=False, default="")


def services_from_env(variable: str) -> list[Service]:
    """The services an environment variable lists: apprise URLs separated by spaces, commas or new lines."""
    urls = parse_urls(os.environ.get(variable, ""))
    services = []
    for number, url in enumerate(urls, start=1):
        with _quiet():
            plugin = apprise.Apprise.instantiate(url, asset=ASSET)
        name = plugin.service_name if plugin else "not a URL apprise understands"
        services.append(Service(f"{variable} #{number}, {name}", plugin, url))
    return services


def json_webhook(url: str, label: str, fields: Mapping[str, Any]) -> Service:
    """An http(s) webhook that gets `{"text": <the message>, **fields}` as JSON, as the alert's webhook did
    before apprise: apprise's JSON plugin with its own fields renamed and dropped (docs/operations.md, "Alerts")."""
    parts = urlsplit(url)
    plugin = NotifyJSON(
        host=parts.hostname,
        port=parts.port,
        user=parts.username,
        password=parts.password,
        fullpath=parts.path or "/",
        secure=parts.scheme == "https",
        params=dict(parse_qsl(parts.query, keep_blank_values=True)),
        payload={**_JSON_WEBHOOK_FIELDS, **fields},
        asset=ASSET,
        cto=TIMEOUT_S,
        rto=TIMEOUT_S,
    )
    return Service(label, plugin, url)


def send(services: Iterable[Service], title: str, body: str, *, command: str, what: str, failure: bool = False) -> int:
    """Send the message to each service; print one line for each that fails. Returns how many took it.

    `what` names the message in those lines (`the alert`, `the digest of 2025-04-03`); `failure` marks it as
    one (services that colour their messages show it so)."""
    kind = apprise.NotifyType.FAILURE if failure else apprise.NotifyType.INFO
    delivered = 0
    for service in services:
        if service.plugin is None:
            print(f"{command}: {what} was not delivered to {service.label}")
            continue
        with _quiet() as said:
            try:
                ok = service.plugin.notify(
                    body=body, title=title, notify_type=kind, body_format=apprise.NotifyFormat.TEXT
                )
            except Exception as exc:  # a plugin's own failure is one line, never the run's
                ok = False
                said.append(type(exc).__name__)
        if ok:
            delivered += 1
        else:
            why = _masked(said[-1], service.url) if said else "no answer"
            print(f"{command}: {what} was not delivered to {service.label}: {why}")
    return delivered


@contextmanager
def _quiet() -> Iterator[list[str]]:
    """apprise's warnings and errors while the block runs, kept for our one line instead of printed."""
    said: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    _log.addHandler(handler)
    try:
        yield said
    finally:
        _log.removeHandler(handler)


def _masked(text: str, url: str) -> str:
    """`text` with every part of `url` but its scheme masked: the host too, where Telegram and Discord put
    their tokens; the line's label says which service it was."""
    parts = urlsplit(url)
    secrets = [
        parts.hostname,
        parts.username,
        parts.password,
        *parts.path.split("/"),
        *(v for _, v in parse_qsl(parts.query)),
    ]
    for secret in sorted({s for s in secrets if s and len(s) >= 3}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return re.sub(r"\s+", " ", text).strip()
