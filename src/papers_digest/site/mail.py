"""The day's digest as an email: subject, plain text and HTML, from the same day view as the site (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from papers_digest.site.days import DayView
from papers_digest.site.environment import make_environment
from papers_digest.site.feed import is_local, normalise_base_url
from papers_digest.site.subscribers import EVERY_PAPER, Interests, personal_day, why_text

LANGS = ("both", "en", "zh")


@dataclass(frozen=True)
class DayMail:
    subject: str
    text: str
    html: str


def day_mail(day: DayView, *, lang: str = "both", base_url: str = "", interests: Interests = EVERY_PAPER) -> DayMail:
    """The day's done papers, ranked, each with its one sentence and findings in `lang` (both | en | zh), and a
    line on the failed ones; a subscriber's (`interests`) first, each saying what it matched, after a line saying
    how many are theirs or that none is (site/subscribers.py). Papers link to their page at `base_url` (params
    site.base_url), or to arXiv when it is empty or this machine's own address (the local preview: no one the
    email reaches could follow it). Model output is escaped in the HTML (autoescaping, as on the site), plain in
    the text; LaTeX is Unicode in both."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    base = normalise_base_url(base_url) if base_url and not is_local(base_url) else ""
    env = make_environment()
    done = [p for p in day.papers if p.done]
    subject = f"papers-digest {day.date}: {len(done)} paper{'' if len(done) == 1 else 's'}"
    personal = personal_day(day, interests)
    ordered = [(paper, why_text(why, lang)) for paper, why in personal.ordered]
    values = {"day": day, "done": done, "lang": lang, "base": base, "subject": subject}
    values |= {"ordered": ordered, "first_lines": personal.lines(lang), "theirs": len(personal.matched)}
    return DayMail(
        subject=subject,
        text=env.get_template("email.txt").render(**values),
        html=env.get_template("email.html").render(**values),
    )
