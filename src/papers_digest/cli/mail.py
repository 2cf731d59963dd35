"""`papers email`: a day's digest by email over SMTP, as `papers daily` sends it to subscribers (cli/deliveries.py)."""

from __future__ import annotations

import os
import smtplib
import sqlite3
import ssl
from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import click

from papers_digest.cli.commands import Command, examples
from papers_digest.cli.project import DB_PATH
from papers_digest.core.params import LOCAL_PREVIEW, EmailParams, ParamsError, load_params
from papers_digest.site.days import DayView
from papers_digest.site.mail import DayMail, day_mail
from papers_digest.site.render import load_day
from papers_digest.site.subscribers import EVERY_PAPER, Interests, interests_of, unknown_areas
from papers_digest.site.views import SiteError

PASSWORD_ENV = "PAPERS_SMTP_PASSWORD"
SMTP_TIMEOUT_S = 30.0


@click.command(
    "email",
    cls=Command,
    short_help="send a day's digest by email (the `email` params), as `papers daily` does after each day that ran",
    help="Send a published day's digest by email: its done papers, ranked, with their one sentence and findings "
    "in the languages of email.lang, as HTML with a plain-text part, over SMTP (the `email` params; the "
    f"password from {PASSWORD_ENV}). With --subscriber, as that subscriber gets it: their papers first, to "
    "their addresses (or --to). It always sends: the record of what `papers daily` sent is not read.",
    epilog=examples(
        "papers email --date 2025-04-03",
        "papers email --date 2025-04-03 --to me@example.org",
        "papers email --date 2025-04-03 --subscriber agents --to me@example.org  # see what they get",
    ),
)
@click.option("--date", required=True, help="the day to send, YYYY-MM-DD")
@click.option("--params", default="params.yaml", help="the parameters (the `email` section)")
@click.option("--db", default=str(DB_PATH), help="the SQLite database to read the day from")
@click.option("--to", multiple=True, help="send to this address instead of email.to (repeatable)")
@click.option("--subscriber", metavar="NAME", help="as this subscriber of params.yaml gets it (their papers first)")
def email_command(date: str, params: str, db: str, to: tuple[str, ...], subscriber: str | None) -> int:
    loaded = load_params(params)
    settings, interests = loaded.email, EVERY_PAPER
    if subscriber:
        chosen = [s for s in loaded.subscribers if s.name == subscriber]
        if not chosen or (bad := unknown_areas(chosen, params)):
            raise ParamsError(bad[0] if chosen else f"{params}: no subscriber is named {subscriber!r}")
        settings, interests = settings.model_copy(update={"to": chosen[0].to}), interests_of(chosen[0])
    if to:
        settings = settings.model_copy(update={"to": list(to)})
    if not settings.to:
        print(f"papers email: email.to in {params} is empty and no --to was given: nothing sent")
        return 2
    sent = send_day(
        settings, date, Path(db), command="papers email", base_url=loaded.site.base_url, interests=interests
    )
    return 0 if sent else 1


def send_day(
    settings: EmailParams,
    date: str,
    db_path: Path,
    command: str = "papers",
    *,
    base_url: str = LOCAL_PREVIEW,
    interests: Interests = EVERY_PAPER,
) -> bool:
    """Send `date`'s digest to email.to, its papers linked to their pages at `base_url` (params site.base_url), a
    subscriber's (`interests`) first; False (and one line saying why) when it was not sent."""
    day = published_day(db_path, date, f"{command}: the email for {date} was not sent")
    if day is None:
        return False
    mail = day_mail(day, lang=settings.lang, base_url=base_url, interests=interests)
    return send_mail(settings, settings.to, mail, command=command, what=f"email for {date}")


def send_mail(settings: EmailParams, to: Sequence[str], mail: DayMail, *, command: str, what: str) -> bool:
    """One message over SMTP (the `email` params; the password only from PAPERS_SMTP_PASSWORD): its plain text, and
    its HTML when it has one. False, and one line saying why, when it was not sent; it never raises."""
    message = EmailMessage()
    message["Subject"] = mail.subject
    message["From"] = settings.sender
    message["To"] = ", ".join(to)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    message.set_content(mail.text)
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    try:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT_S) as smtp:
            if settings.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.username:
                smtp.login(settings.username, os.environ.get(PASSWORD_ENV, ""))
            smtp.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:  # the password is never printed: it is not in the message
        print(f"{command}: the {what} was not sent: {type(exc).__name__}: {exc}")
        return False
    print(f"{command}: {what} sent to {len(to)} address(es) via {settings.smtp_host}")
    return True


def published_day(db_path: Path, date: str, failed: str) -> DayView | None:
    """The day as the site shows it, or None after one line `<failed>: why` (no database, no such day)."""
    try:
        day = load_day(db_path, date) if Path(db_path).is_file() else None
    except (SiteError, sqlite3.Error) as exc:  # a database the site cannot read: reported, the run goes on
        print(f"{failed}: {type(exc).__name__}: {exc}")
        return None
    if day is None:
        print(f"{failed}: {db_path} has no such day")
    return day
