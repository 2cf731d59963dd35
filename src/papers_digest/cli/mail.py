"""`papers email` and the end of `papers daily`: the day's digest by email (HTML and plain text) over SMTP."""

from __future__ import annotations

import argparse
import os
import smtplib
import sqlite3
import ssl
from collections.abc import Iterable
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from papers_digest.cli.project import DB_PATH
from papers_digest.core.params import LOCAL_PREVIEW, EmailParams, load_params
from papers_digest.site.mail import day_mail
from papers_digest.site.render import load_day
from papers_digest.site.views import SiteError

PASSWORD_ENV = "PAPERS_SMTP_PASSWORD"
SMTP_TIMEOUT_S = 30.0


def register(sub: argparse._SubParsersAction) -> None:
    email = sub.add_parser(
        "email",
        help="send a day's digest by email (the `email` params), as `papers daily` does after each day that ran",
        description="Send a published day's digest by email: its done papers, ranked, with their one sentence "
        "and findings in the languages of email.lang, as HTML with a plain-text part, over SMTP (the `email` "
        f"params; the password from {PASSWORD_ENV}).",
        epilog="""examples:
  papers email --date 2025-04-03
  papers email --date 2025-04-03 --to me@example.org""",
    )
    email.add_argument("--date", required=True, help="the day to send, YYYY-MM-DD")
    email.add_argument("--params", default="params.yaml", help="the parameters (the `email` section)")
    email.add_argument("--db", default=str(DB_PATH), help="the SQLite database to read the day from")
    email.add_argument("--to", action="append", help="send to this address instead of email.to (repeatable)")
    email.set_defaults(func=cmd_email)


def cmd_email(args: argparse.Namespace) -> int:
    params = load_params(args.params)
    settings = params.email
    if args.to:
        settings = settings.model_copy(update={"to": args.to})
    if not settings.to:
        print(f"papers email: email.to in {args.params} is empty and no --to was given: nothing sent")
        return 2
    sent = send_day(settings, args.date, Path(args.db), command="papers email", base_url=params.site.base_url)
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
    try:
        day = load_day(db_path, date) if Path(db_path).is_file() else None
    except (SiteError, sqlite3.Error) as exc:  # a database the site cannot read: reported, the run goes on
        print(f"{command}: the email for {date} was not sent: {type(exc).__name__}: {exc}")
        return False
    if day is None:
        print(f"{command}: the email for {date} was not sent: {db_path} has no such day")
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
