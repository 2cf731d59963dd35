"""The day's digest as an email: subject, plain text and HTML, from the same day view as the site (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from papers_digest.site.render import make_environment
from papers_digest.site.views import DayView

LANGS = ("both", "en", "zh")


@dataclass(frozen=True)
class DayMail:
    subject: str
    text: str
    html: str


def day_mail(day: DayView, *, lang: str = "both", site_url: str = "") -> DayMail:
    """The day's done papers, ranked, each with its one sentence and findings in `lang` (both | en | zh), and a
    line on the failed ones. Links go to the paper's page when `site_url` is set, else to arXiv. Model
    output is escaped in the HTML (autoescaping, as on the site) and plain in the text."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, got {lang!r}")
    base = site_url.rstrip("/") + "/" if site_url else ""
    env = make_environment()
    done = [p for p in day.papers if p.done]
    subject = f"papers-digest {day.date}: {len(done)} paper{'' if len(done) == 1 else 's'}"
    values = {"day": day, "done": done, "lang": lang, "base": base, "subject": subject}
    return DayMail(
        subject=subject,
        text=env.get_template("email.txt").render(**values),
        html=env.get_template("email.html").render(**values),
    )
