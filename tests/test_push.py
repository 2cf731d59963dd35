"""Pushes through apprise (#40): the day's digest to the readers' chats, the run's alert to the operator's,
the old alert webhook getting the very JSON it got before; against local receivers on 127.0.0.1."""

from __future__ import annotations

import email
import email.policy
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_db
from readers_archive import DATES, TITLE_ZH, arxiv_id, write_archive

from papers_devtools.testing.servers import Inbox, smtp_server, webhook_server
from papers_digest.cli import runs
from papers_digest.cli.alerts import ALERT_WEBHOOK_ENV, send_alert
from papers_digest.cli.deliveries import deliver_days
from papers_digest.core.notify import ALERT_URLS_ENV, NOTIFY_URLS_ENV
from papers_digest.core.params import AlertParams, validate_params
from papers_digest.day.status import DateRun, DayStatus, alert
from papers_digest.site.push import day_push
from papers_digest.site.render import load_day

DAY = DATES[-1]
TOKEN = "secret-token"  # the path segment webhook_server's URL carries, as a chat's token


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """The archive, each test its own: what was sent is recorded beside it (data/<date>/deliveries.json)."""
    (tmp_path / "data").mkdir()
    return write_archive(tmp_path / "data" / "papers.db")


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is a dev dependency (.[dev])")
    with smtp_server() as served:
        yield served


def _json_url(hook: str) -> str:
    """apprise's own JSON plugin for an http:// URL: json://host:port/path."""
    return "json://" + hook.removeprefix("http://")


def _mailto(port: int) -> str:
    return f"mailto://127.0.0.1:{port}?from=digest@example.org&to=reader@example.org"


def _mail(inbox: Inbox) -> email.message.EmailMessage:
    ((rcpt, raw),) = inbox.messages
    assert rcpt == ["reader@example.org"]
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def _params(**sections: object):
    return validate_params({"date": DAY, "site": {"base_url": "https://digest.example.org/"}, **sections})


def test_the_days_digest_reaches_a_json_webhook_and_a_mailbox_one_line_a_paper(archive, smtp, monkeypatch, capsys):
    inbox, port = smtp
    with webhook_server() as (receiver, hook):
        monkeypatch.setenv(NOTIFY_URLS_ENV, f"{_json_url(hook)}, {_mailto(port)}")
        deliver_days(_params(), [(DAY, True)], archive, command="papers daily")
    out = capsys.readouterr().out
    assert out.splitlines() == [f"papers daily: the digest of {DAY} pushed to 2 of 2 service(s)"]
    (pushed,) = receiver.received
    assert pushed["title"] == f"papers-digest {DAY}: 2 papers"
    lines = pushed["message"].splitlines()
    # the two done papers, ranked, each on one line with its one sentence; the failed one is not there
    assert [line.split(". ", 1)[0] for line in lines[:2]] == ["1", "2"]
    for n in (1, 2):
        assert any(
            line.endswith(
                f"Sparse routers, part {n} ({DAY}): Paper {n} of {DAY} trains a sparse router for long contexts."
            )
            for line in lines[:2]
        ), lines
    # the day's commonest areas, as its pages name them, then the link to the day at site.base_url
    assert lines[2:] == [
        "Areas: Reinforcement learning (2), Model architecture (2), Efficient inference and compression (2)",
        f"https://digest.example.org/{DAY}/index.html",
    ]
    assert arxiv_id(DAY, 3) not in pushed["message"]
    mail = _mail(inbox)
    assert mail["Subject"] == pushed["title"]
    assert mail.get_body(("plain",)).get_content().strip().splitlines() == lines
    assert TOKEN not in out


def test_a_failing_service_is_one_line_without_its_url_and_the_others_still_get_the_day(
    archive, smtp, monkeypatch, capsys
):
    inbox, port = smtp
    with webhook_server() as (_, gone):
        pass  # nothing listens there now
    with webhook_server(status=500) as (refusing, hook):
        urls = [_json_url(gone), _json_url(hook), "nosuchservice://" + TOKEN, _mailto(port)]
        monkeypatch.setenv(NOTIFY_URLS_ENV, " ".join(urls))
        deliver_days(_params(notify={"papers": 1, "lang": "zh"}), [(DAY, True)], archive, command="papers daily")
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        f"papers daily: the digest of {DAY} was not delivered to {NOTIFY_URLS_ENV} #1, JSON: "
        "A Connection error occurred sending JSON notification to ***.",
        f"papers daily: the digest of {DAY} was not delivered to {NOTIFY_URLS_ENV} #2, JSON: "
        "Failed to send JSON POST notification: Internal server error., error=500.",
        f"papers daily: the digest of {DAY} was not delivered to {NOTIFY_URLS_ENV} #3, not a URL apprise understands",
    ]
    assert out[3:] == [f"papers daily: the digest of {DAY} pushed to 1 of 4 service(s)"]
    assert len(refusing.received) == 1 and not any(TOKEN in line or "127.0.0.1" in line for line in out)
    text = _mail(inbox).get_body(("plain",)).get_content()
    # notify.papers and notify.lang: the translation's title and sentence, and the rest in Chinese too
    assert text.strip().splitlines()[:3] == [
        f"1. {TITLE_ZH}：该论文训练了一个用于长上下文的稀疏路由器。",
        "…… 另有 1 篇",
        "领域：强化学习（2）、模型架构（2）、高效推理与压缩（2）",
    ]


def test_latex_in_a_title_is_unicode_in_the_push_as_in_the_feeds(archive, tmp_path):
    db = tmp_path / "papers.db"
    copy_db(archive, db)
    with sqlite3.connect(db) as conn:
        title = r"Routing $\alpha$-sparse tokens at $8 \times$ the speed"
        conn.execute("update papers set title = ? where arxiv_id = ?", [title, arxiv_id(DAY, 2)])
    push = day_push(load_day(db, DAY), "https://digest.example.org/")
    line = f"Routing α-sparse tokens at 8 × the speed: Paper 2 of {DAY} trains a sparse router for long contexts."
    assert any(row.endswith(line) for row in push.body.splitlines()), push.body


def test_the_old_webhook_gets_the_same_json_as_before_and_alert_urls_get_the_alert(smtp, monkeypatch, capsys):
    inbox, port = smtp
    status = DayStatus("2026-11-29", listed=20, picked=10, done=0, failed=10, reasons=("2511.00001: HTTP 500",))
    dated = [DateRun("2026-11-29", status), DateRun("2026-11-30", None, "dvc repro exited with 1")]
    expected = alert(dated, 0.5)
    with webhook_server() as (old, hook), webhook_server() as (chat, chat_hook):
        monkeypatch.setenv(ALERT_WEBHOOK_ENV, hook)
        monkeypatch.setenv(ALERT_URLS_ENV, f"{_json_url(chat_hook)} {_mailto(port)}")
        send_alert("papers daily", AlertParams(), dated)
    assert old.received == [expected]  # {"text", "dates"}, nothing more: no receiver of it breaks
    (pushed,) = chat.received
    assert pushed["title"] == "papers-digest: 2 date(s) need a look" and pushed["type"] == "failure"
    assert pushed["message"] == expected["text"].split("\n", 1)[1]
    assert _mail(inbox)["Subject"] == pushed["title"]
    out = capsys.readouterr().out
    assert out.splitlines() == ["papers daily: alert sent for 2 date(s) to 3 of 3 service(s)"]
    assert TOKEN not in out


def test_pushes_that_fail_never_change_the_exit_status_of_papers_daily(archive, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(archive.parents[1])  # papers daily reads data/papers.db
    dead = f"json://127.0.0.1:9/hook/{TOKEN}"  # nothing listens on port 9
    monkeypatch.setenv(NOTIFY_URLS_ENV, dead)
    monkeypatch.setenv(ALERT_URLS_ENV, dead)
    monkeypatch.setenv(ALERT_WEBHOOK_ENV, f"http://127.0.0.1:9/hook/{TOKEN}")
    outcomes = [runs.Outcome(DAY, 0), runs.Outcome("2025-04-03", 1)]
    assert runs._summary("papers daily", outcomes, _params()) == 1  # a date failed: as without pushes
    assert runs._summary("papers daily", outcomes[:1], _params()) == 0
    out = capsys.readouterr().out
    assert f"papers daily: the digest of {DAY} was not delivered to {NOTIFY_URLS_ENV} #1, JSON: " in out
    assert "papers daily: the alert was not delivered to the webhook (PAPERS_ALERT_WEBHOOK): " in out
    assert TOKEN not in out
    assert not any(TOKEN.encode() in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
