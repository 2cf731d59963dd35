"""Subscribers with interests and no silent day (#47): each subscriber's papers first, by area and keyword in both
languages; an empty or a failed day told once; against a local SMTP server and apprise's json:// to a local receiver."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from pathlib import Path

import pytest
from readers_archive import EN_PAPER, ZH_PAPER, arxiv_id, write_archive

from papers_devtools.testing.servers import Inbox, WebhookReceiver, smtp_server, webhook_server
from papers_digest.cli import runs
from papers_digest.cli.deliveries import deliver_days
from papers_digest.cli.main import main as papers_cli
from papers_digest.core.models import DayList
from papers_digest.core.params import ParamsError, validate_params
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.site.render import load_day
from papers_digest.site.subscribers import Interests, personal_day

DAY = EN_PAPER[1]  # 2025-04-01: its paper 2's English digest, alone, studies zebrafish
EMPTY_DAY = "2025-04-05"


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    db = write_archive(tmp_path / "data" / "papers.db")
    empty = DayFiles(day=DayList(date=EMPTY_DAY, limit=3, papers=[], picked=[]), fulltext={}, english={}, chinese={})
    write_day(db, empty, run_record(empty))
    return db


@pytest.fixture
def places(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Inbox, int, WebhookReceiver]]:
    pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is a dev dependency (.[dev])")
    with smtp_server() as (inbox, port), webhook_server() as (receiver, hook):
        monkeypatch.setenv("FISH_URLS", "json://" + hook.removeprefix("http://"))
        monkeypatch.setenv("FISH_MAIL", "fish@example.org")
        yield inbox, port, receiver


def params(port: int, **changes: object):
    email_settings = {"to": ["all@example.org"], "smtp_host": "127.0.0.1", "smtp_port": port, "starttls": False}
    fish = {"name": "fish", "keywords": ["zebrafish", "斑马鱼"], "to_env": "FISH_MAIL", "urls_env": "FISH_URLS"}
    raw = {"date": DAY, "site": {"base_url": "https://digest.example.org/"}, "email": email_settings}
    return validate_params(raw | {"subscribers": [fish]} | changes)


def texts(inbox: Inbox) -> dict[str, str]:
    """Each recipient's plain text."""
    found = {}
    for rcpt, raw in inbox.messages:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        found[rcpt[0]] = message.get_body(("plain",)).get_content()
    return found


def numbered(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1].isdigit() and ". " in line]


def before_the_papers(text: str) -> list[str]:
    """The email's lines above its first paper."""
    lines = text.splitlines()
    return lines[: lines.index(numbered(text)[0])]


def test_a_subscriber_gets_their_papers_first_and_the_others_the_day_as_it_is(archive, places):
    inbox, port, receiver = places
    deliver_days(params(port), [(DAY, True)], archive, "papers daily")
    mails = texts(inbox)
    sparse = f"Sparse routers, part {{}} ({DAY})"
    assert numbered(mails["all@example.org"]) == [f"1. {sparse.format(1)}", f"2. {sparse.format(2)}"]
    assert numbered(mails["fish@example.org"]) == [f"1. {sparse.format(2)}", f"2. {sparse.format(1)}"]
    first = "For you (zebrafish, 斑马鱼): 1 of the day's 2 papers, first."
    assert first in before_the_papers(mails["fish@example.org"])
    assert "(you follow: zebrafish / 你关注：zebrafish)" in mails["fish@example.org"]
    (pushed,) = receiver.received
    lines = pushed["message"].splitlines()
    assert lines[0] == "For you (zebrafish, 斑马鱼): 1 of the day's 2 papers, first."
    assert lines[1].startswith(f"1. {sparse.format(2)}: ") and lines[1].endswith("(you follow: zebrafish)")


def test_a_chinese_keyword_finds_its_paper_in_the_chinese_digest(archive):
    day = load_day(archive, ZH_PAPER[1])
    personal = personal_day(day, Interests(keywords=("斑马鱼",)))
    assert [p.arxiv_id for p, _ in personal.matched] == [ZH_PAPER[0]]


def test_an_area_finds_every_paper_filed_under_it(archive):
    personal = personal_day(load_day(archive, DAY), Interests(areas=("reinforcement-learning",)))
    assert [p.arxiv_id for p, _ in personal.matched] == [arxiv_id(DAY, 1), arxiv_id(DAY, 2)]


def test_interests_that_match_nothing_get_one_line_then_the_day(archive, places):
    inbox, port, _ = places
    nobody = {"name": "k8s", "keywords": ["kubernetes"], "to": ["k8s@example.org"]}
    deliver_days(params(port, subscribers=[nobody]), [(DAY, True)], archive, "papers daily")
    text = texts(inbox)["k8s@example.org"]
    nothing = f"Nothing on {DAY} matched your interests (kubernetes); the day's papers follow."
    assert nothing in before_the_papers(text)
    assert len(numbered(text)) == 2


def test_a_rerun_of_the_same_date_sends_nothing_twice(archive, places, capsys):
    inbox, port, receiver = places
    for _ in range(2):
        deliver_days(params(port), [(DAY, True)], archive, "papers daily")
    assert len(inbox.messages) == 2 and len(receiver.received) == 1
    again = capsys.readouterr().out.splitlines()[-1]
    assert again == (
        f"papers daily: {DAY}: not sent again (digest already sent): default email, fish email, fish FISH_URLS #1"
    )
    assert (archive.parent / DAY / "deliveries.json").is_file()


def test_an_empty_day_reaches_every_subscriber_once(archive, places):
    inbox, port, receiver = places
    for _ in range(2):
        deliver_days(params(port), [(EMPTY_DAY, True)], archive, "papers daily")
    mails = texts(inbox)
    assert set(mails) == {"all@example.org", "fish@example.org"} and len(inbox.messages) == 2
    assert mails["fish@example.org"].splitlines()[:2] == [
        f"No papers were listed on {EMPTY_DAY}.",
        f"{EMPTY_DAY} 没有论文上榜。",
    ]
    assert [r["message"].splitlines() for r in receiver.received] == [
        [f"No papers were listed on {EMPTY_DAY}.", f"https://digest.example.org/{EMPTY_DAY}/index.html"]
    ]


def test_a_failed_day_says_the_operator_was_told_once(archive, places):
    inbox, port, receiver = places
    for _ in range(2):
        deliver_days(params(port), [("2025-04-06", False)], archive, "papers daily", alerted=True)
    assert len(inbox.messages) == 2 and len(receiver.received) == 1
    assert receiver.received[0]["message"].splitlines()[0] == (
        "The digest of 2025-04-06 failed; the operator has been told."
    )


@pytest.mark.parametrize(
    ("date", "ran", "switch"), [(EMPTY_DAY, True, "empty_day"), ("2025-04-06", False, "failed_day")]
)
def test_each_notice_can_be_switched_off(archive, places, date, ran, switch):
    inbox, port, receiver = places
    deliver_days(params(port, notices={switch: False}), [(date, ran)], archive, "papers daily")
    assert inbox.messages == [] and receiver.received == []


def test_a_subscribers_bad_values_fail_naming_the_key_and_the_file(tmp_path):
    with pytest.raises(ParamsError, match=r"^p\.yaml: subscribers\.0\.urls_env must name an environment variable"):
        validate_params({"date": DAY, "subscribers": [{"name": "a", "keywords": ["x"], "urls_env": "a-b"}]}, "p.yaml")
    with pytest.raises(ParamsError, match=r"^p\.yaml: subscribers\.0 subscriber 'a' has nowhere to go"):
        validate_params({"date": DAY, "subscribers": [{"name": "a", "keywords": ["x"]}]}, "p.yaml")
    path = tmp_path / "params.yaml"
    path.write_text(f'date: "{DAY}"\nsubscribers:\n  - {{name: a, areas: [agentz], to: [a@example.org]}}\n')
    with pytest.raises(ParamsError, match=r"params\.yaml: subscribers\.0\.areas: 'agentz' is not an area"):
        runs._run_params(path)  # papers daily stops before anything runs


def test_papers_email_sends_one_subscribers_email_by_hand(archive, places, tmp_path, capsys):
    inbox, port, _ = places
    path = tmp_path / "params.yaml"
    email_settings = f"email:\n  smtp_host: 127.0.0.1\n  smtp_port: {port}\n  starttls: false\n"
    fish = "subscribers:\n  - {name: fish, keywords: [zebrafish], to: [fish@example.org]}\n"
    path.write_text(f'date: "{DAY}"\n{email_settings}{fish}', encoding="utf-8")
    argv = ["email", "--date", DAY, "--params", str(path), "--db", str(archive), "--subscriber", "fish"]
    with pytest.raises(SystemExit) as sent:
        papers_cli([*argv, "--to", "me@example.org"])
    assert sent.value.code == 0
    assert numbered(texts(inbox)["me@example.org"])[0] == f"1. Sparse routers, part 2 ({DAY})"
    with pytest.raises(SystemExit) as unknown:
        papers_cli([*argv[:-1], "cat"])
    assert unknown.value.code == 2 and "params.yaml: no subscriber is named 'cat'" in capsys.readouterr().err


def test_a_date_that_ran_without_publishing_tells_nobody_anything(archive, places, capsys):
    inbox, port, receiver = places  # `papers run list`: the date ran, and is not in the database
    deliver_days(params(port), [("2025-04-07", True)], archive, "papers run")
    assert inbox.messages == [] and receiver.received == []
    assert "papers run: the digest of 2025-04-07 was not sent: " in capsys.readouterr().out


def test_a_subscribers_variable_that_is_not_set_is_one_line_and_its_other_places_still_get_the_day(
    archive, places, monkeypatch, capsys
):
    inbox, port, receiver = places
    monkeypatch.delenv("FISH_URLS")
    deliver_days(params(port), [(DAY, True)], archive, "papers daily")
    assert "papers daily: subscriber fish: the environment variable FISH_URLS is not set" in capsys.readouterr().out
    assert "fish@example.org" in texts(inbox) and receiver.received == []
