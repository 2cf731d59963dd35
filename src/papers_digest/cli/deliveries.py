"""After `papers daily`: each date's digest, or the notice of a day without one, to every subscriber by email and
push, each place once per date and kind of message (recorded in data/<date>/deliveries.json).

Who gets what is decided by site/subscribers.py (pure); this module reads the environment (addresses and apprise
URLs that are secrets), sends through cli/mail.py (SMTP) and core/notify.py (apprise), and keeps the record. A
failed send is one line, is not recorded (the next run tries it again) and never changes the run's exit status.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from pydantic import ValidationError

from papers_digest.cli.mail import published_day, send_mail
from papers_digest.core.artefacts import ArtefactError, read_model, write_json
from papers_digest.core.models import DeliveryLog
from papers_digest.core.notify import NOTIFY_URLS_ENV, Service, send, services_from_env
from papers_digest.core.params import DEFAULT_SUBSCRIBER, Params
from papers_digest.site.days import DayView
from papers_digest.site.feed import normalise_base_url
from papers_digest.site.mail import DayMail, day_mail
from papers_digest.site.push import day_push
from papers_digest.site.render import STATUS_FILE
from papers_digest.site.subscribers import (
    EVERY_PAPER,
    DayKind,
    Interests,
    day_kind,
    destination,
    due,
    interests_of,
    notice,
)

DELIVERIES_FILE = "deliveries.json"  # in data/<date>/, beside the day's files


@dataclass(frozen=True)
class Subscriber:
    """A subscriber with its places read from the environment: addresses and apprise services."""

    name: str
    interests: Interests
    addresses: tuple[str, ...]
    services: tuple[Service, ...]


def subscribers(params: Params) -> list[Subscriber]:
    """email.to and PAPERS_NOTIFY_URLS first (every paper, the day's order), then each of params' subscribers with
    its addresses (`to`, and those of the variable `to_env`) and the services of the variable `urls_env`."""
    people = [
        Subscriber(DEFAULT_SUBSCRIBER, EVERY_PAPER, tuple(params.email.to), tuple(services_from_env(NOTIFY_URLS_ENV)))
    ]
    for s in params.subscribers:
        addresses = [*s.to, *os.environ.get(s.to_env, "").replace(",", " ").split()] if s.to_env else s.to
        services = services_from_env(s.urls_env) if s.urls_env else []
        people.append(Subscriber(s.name, interests_of(s), tuple(addresses), tuple(services)))
    return people


def deliver_days(
    params: Params, finished: Iterable[tuple[str, bool]], db_path: Path, command: str, *, alerted: bool = False
) -> None:
    """For each date of the run (and whether it ran to the end), its message to every subscriber's places that have
    not had it: the digest, or the notice of an empty or a failed day (`notices`; `alerted`: the operator's alert
    went out, so the failed day's notice says so)."""
    unset = [(s.name, v) for s in params.subscribers for v in (s.to_env, s.urls_env) if v and not os.environ.get(v)]
    for name, variable in unset:  # said once a run: the subscriber still gets what its other places take
        print(f"{command}: subscriber {name}: the environment variable {variable} is not set")
    people = [p for p in subscribers(params) if p.addresses or p.services]
    if not people:
        return
    for date, ran in finished:
        day = published_day(db_path, date, f"{command}: the digest of {date} was not sent") if ran else None
        if ran and day is None:  # ran, but not to publish (`papers run list`): nothing to tell, nor a failure
            continue
        kind = day_kind(day, ran)
        log_path = db_path.parent / date / DELIVERIES_FILE
        log = _read_log(log_path, date)
        before = sum(len(kinds) for kinds in log.sent.values())
        skipped: list[str] = []
        for person in people:
            skipped += _deliver(params, person, date, day, kind, log, command=command, alerted=alerted)
        if skipped:
            print(f"{command}: {date}: not sent again ({kind} already sent): {', '.join(skipped)}")
        if sum(len(kinds) for kinds in log.sent.values()) != before:
            write_json(log_path, log)


def _deliver(
    params: Params,
    person: Subscriber,
    date: str,
    day: DayView | None,
    kind: DayKind,
    log: DeliveryLog,
    *,
    command: str,
    alerted: bool,
) -> list[str]:
    """One subscriber's message of the date to each of its places still due; returns the places that had it before."""
    email = destination(person.name, "email")
    services = {destination(person.name, s.label.split(",")[0]): s for s in person.services}
    places = ([email] if person.addresses else []) + list(services)
    pending = due(kind, places, log.sent, params.notices)
    had = [p for p in places if kind in log.sent.get(p, ())]
    whose = "" if person.name == DEFAULT_SUBSCRIBER else f" for {person.name}"
    listed = day.listed if day else 0
    if email in pending:
        if kind == "digest" and day is not None:
            mail = day_mail(day, lang=params.email.lang, base_url=params.site.base_url, interests=person.interests)
        else:
            title, text = notice(kind, date, params.email.lang, listed=listed, alerted=alerted)
            mail = DayMail(subject=title, text=f"{text}\n{_link(params, date, kind)}\n", html="")
        what = f"email for {date}{whose}" if kind == "digest" else f"notice of {date}{whose} ({kind} day)"
        if send_mail(params.email, person.addresses, mail, command=command, what=what):
            log.sent.setdefault(email, []).append(kind)
    due_services = {place: s for place, s in services.items() if place in pending}
    if due_services:
        if kind == "digest" and day is not None:
            push = day_push(
                day,
                params.site.base_url,
                papers=params.notify.papers,
                lang=params.notify.lang,
                interests=person.interests,
            )
            title, body = push.title, push.body
        else:
            title, text = notice(kind, date, params.notify.lang, listed=listed, alerted=alerted)
            body = f"{text}\n{_link(params, date, kind)}"
        what = f"the digest of {date}{whose}" if kind == "digest" else f"the notice of {date}{whose} ({kind} day)"
        sent = [place for place, s in due_services.items() if send([s], title, body, command=command, what=what)]
        for place in sent:
            log.sent.setdefault(place, []).append(kind)
        if sent:
            print(f"{command}: {what} pushed to {len(sent)} of {len(due_services)} service(s)")
    return had


def _link(params: Params, date: str, kind: DayKind) -> str:
    """Where to read more: an empty day's page (it says why), or the status page for a failed one."""
    return urljoin(normalise_base_url(params.site.base_url), f"{date}/index.html" if kind == "empty" else STATUS_FILE)


def _read_log(path: Path, date: str) -> DeliveryLog:
    """The record of what was sent for the date; a missing one is empty, and so is a damaged one (after one line:
    a message may then go out twice, which beats none)."""
    if not path.is_file():
        return DeliveryLog(date=date)
    try:
        return read_model(path, DeliveryLog)
    except (ArtefactError, ValidationError) as exc:
        print(f"papers: {path} is not a record of what was sent ({exc}): it is started anew")
        return DeliveryLog(date=date)
