"""`papers email` and the end of `papers daily`: the day's digest by email over SMTP, and pushed to chats (apprise)."""

from __future__ import annotations

import os
import smtplib
import sqlite3
import ssl
from collections.abc import Iterable
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import click

from papers_digest.cli.commands import Command, examples
from papers_digest.cli.project import DB_PATH
from papers_digest.core.notify import NOTIFY_URLS_ENV, send, services_from_env
from papers_digest.core.params import LOCAL_PREVIEW, EmailParams, Params, load_params
from papers_digest.site.days import DayView
from papers_digest.site.mail import day_mail
from papers_digest.site.push import day_push
from papers_digest.site.render import load_day
from papers_digest.site.views import SiteError

PASSWORD_ENV = "PAPERS_SMTP_PASSWORD"
SMTP_TIMEOUT_S = 30.0


@click.command(
    "email",
    cls=Command,
    short_help="send a day's digest by email (the `email` params), as `papers daily` does after each day that ran",
    help="Send a published day's digest by email: its done papers, ranked, with their one sentence and findings "
    "in the languages of email.lang, as HTML with a plain-text part, over SMTP (the `email` params; the "
    f"password from {PASSWORD_ENV}).",
    epilog=examples("papers email --date 2025-04-03", "papers email --date 2025-04-03 --to me@example.org"),
)
@click.option("--date", required=True, help="the day to send, YYYY-MM-DD")
@click.option("--params", default="params.yaml", help="the parameters (the `email` section)")
@click.option("--db", default=str(DB_PATH), help="the SQLite database to read the day from")
@click.option("--to", multiple=True, help="send to this address instead of email.to (repeatable)")
def email_command(date: str, params: str, db: str, to: tuple[str, ...]) -> int:
    loaded = load_params(params)
    settings = loaded.email
    if to:
        settings = settings.model_copy(update={"to": list(to)})
    if not settings.to:
        print(f"papers email: email.to in {params} is empty and no --to was given: nothing sent")
        return 2
    sent = send_day(settings, date, Path(db), command="papers email", base_url=loaded.site.base_url)
    return 0 if sent else 1


def send_days(
    settings: EmailParams,
    dates: Iterable[str],
    db_path: Path = DB_PATH,
    command: str = "papers",
    *,
    base_url: str = LOCAL_PREVIEW,
) -> None:
    """After `papers daily`: each date that ran, when email.to is set. A failure is one line, never raised."""
    if settings.to:
        for date in dates:
            send_day(settings, date, db_path, command=command, base_url=base_url)


def send_day(
    settings: EmailParams, date: str, db_path: Path, command: str = "papers", *, base_url: str = LOCAL_PREVIEW
) -> bool:
    """Send `date`'s digest to email.to, its papers linked to their pages at `base_url` (params site.base_url);
    False (and one line saying why) when it was not sent."""
    day = _published_day(db_path, date, f"{command}: the email for {date} was not sent")
    if day is None:
        return False
    mail = day_mail(day, lang=settings.lang, base_url=base_url)
    message = EmailMessage()
    message["Subject"] = mail.subject
    message["From"] = settings.sender
    message["To"] = ", ".join(settings.to)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message.set_content(mail.text)
    message.add_alternative(mail.html, subtype="html")
    try:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT_S) as smtp:
            if settings.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.username:
                smtp.login(settings.username, os.environ.get(PASSWORD_ENV, ""))
            smtp.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:  # the password is never printed: it is not in the message
        print(f"{command}: the email for {date} was not sent: {type(exc).__name__}: {exc}")
        return False
    print(f"{command}: email for {date} sent to {len(settings.to)} address(es) via {settings.smtp_host}")
    return True


def push_days(params: Params, dates: Iterable[str], db_path: Path = DB_PATH, command: str = "papers") -> None:
    """After `papers daily`: each date that ran, pushed to the services of PAPERS_NOTIFY_URLS (none set: nothing,
    not a word): its top papers (notify.papers, in notify.lang) and the link to it at site.base_url. A service
    that fails is one line, never raised (core/notify.py)."""
    services = services_from_env(NOTIFY_URLS_ENV)
    if not services:
        return
    for date in dates:
        day = _published_day(db_path, date, f"{command}: the digest of {date} was not pushed")
        if day is None:
            continue
        if not any(p.done for p in day.papers):
            print(f"{command}: the digest of {date} was not pushed: no paper of it is done")
            continue
        push = day_push(day, params.site.base_url, papers=params.notify.papers, lang=params.notify.lang)
        sent = send(services, push.title, push.body, command=command, what=f"the digest of {date}")
        if sent:
            print(f"{command}: the digest of {date} pushed to {sent} of {len(services)} service(s)")


def _published_day(db_path: Path, date: str, failed: str) -> DayView | None:
    """The day as the site shows it, or None after one line `<failed>: why` (no database, no such day)."""
    try:
        day = load_day(db_path, date) if Path(db_path).is_file() else None
    except (SiteError, sqlite3.Error) as exc:  # a database the site cannot read: reported, the run goes on
        print(f"{failed}: {type(exc).__name__}: {exc}")
        return None
    if day is None:
        print(f"{failed}: {db_path} has no such day")
    return day
