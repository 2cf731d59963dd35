"""The pages' Jinja2 environment: autoescaping, LaTeX as MathML, dates in English and Chinese, the report link."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from papers_digest.site.archive import SiteNav
from papers_digest.site.tex import tex_markup, tex_text
from papers_digest.site.trust import report_link
from papers_digest.site.views import PaperView

# XML 1.0 forbids C0 controls other than tab/LF/CR, surrogates and U+FFFE/U+FFFF; one of them in model
# output would make the feed unparseable, so they are dropped from every rendered value.
_XML_INVALID_RE = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
WEEKDAYS_ZH = "一二三四五六日"


def make_environment(report_url: str = "", base_url: str = "") -> Environment:
    """Jinja2 with autoescaping for .html and .xml: model output is untrusted text, never markup.
    `report_url` is params site.report_url: `report_link(paper, field)` fills it ("" when unset); `base_url`,
    site.base_url, is where link previews (og:url) point."""
    env = Environment(
        loader=PackageLoader("papers_digest.site", "templates"),
        autoescape=select_autoescape(["html", "xml"]),
        undefined=StrictUndefined,
        finalize=xml_safe,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["when"] = format_when
    env.filters["tex"] = lambda text: tex_markup(xml_safe(text or ""))  # LaTeX as MathML, the rest escaped
    env.filters["plain"] = lambda text: tex_text(text or "")  # LaTeX as Unicode: <title>, link previews
    env.filters["date_en"] = date_en
    env.filters["date_zh"] = date_zh
    env.filters["month_en"] = lambda iso: date_en(iso, month=True)
    env.filters["month_zh"] = lambda iso: date_zh(iso, month=True)
    env.globals["nav"] = SiteNav()  # the dates shown: render_site and render_day set it (site/archive.py)
    env.globals["base_url"] = base_url
    env.globals["path"] = ""  # each page's path in the site, for its link preview's address

    def paper_report_link(paper: PaperView, field_name: str) -> str:
        return report_link(
            report_url, arxiv_id=paper.arxiv_id, date=paper.date, field=field_name, title=paper.title, page=paper.path
        )

    env.globals["report_link"] = paper_report_link
    return env


def format_when(iso: str | None) -> str:
    """`2025-04-03T06:15:09Z` -> `2025-04-03 06:15 UTC`."""
    if not iso:
        return "unknown"
    try:
        moment = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def date_en(iso: str, weekday: bool = False, month: bool = False) -> str:
    """`2025-04-03` -> `3 April 2025` (`Thursday 3 April 2025`, or its month, `April 2025`); a value that is not a
    date as it is."""
    day = _date(iso)
    if day is None:
        return iso
    if month:
        return f"{day:%B %Y}"
    return (f"{day:%A} " if weekday else "") + f"{day.day} {day:%B %Y}"


def date_zh(iso: str, weekday: bool = False, month: bool = False) -> str:
    """`2025-04-03` -> `2025年4月3日` (`2025年4月3日 星期四`, or its month, `2025年4月`)."""
    day = _date(iso)
    if day is None:
        return iso
    if month:
        return f"{day.year}年{day.month}月"
    return f"{day.year}年{day.month}月{day.day}日" + (f" 星期{WEEKDAYS_ZH[day.weekday()]}" if weekday else "")


def xml_safe(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return _XML_INVALID_RE.sub("", value)
    return value


def _date(iso: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(iso)
    except (TypeError, ValueError):
        return None
