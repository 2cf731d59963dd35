"""The Atom feeds of the latest days, in English and in Chinese: one entry per digested paper, stable ids (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from urllib.parse import urljoin, urlsplit

from markupsafe import Markup

from papers_digest.site.days import DayView
from papers_digest.site.tex import tex_text
from papers_digest.site.views import PaperView, SiteError

DEFAULT_BASE_URL = "http://localhost:8000/"
FEED_FILE = "feed.xml"
FEED_ZH_FILE = "feed.zh.xml"  # the Chinese digests
FEED_DAYS = 7  # the feeds carry the latest days; the site keeps every day
FEED_ID = "tag:papers-digest,2025:feed"
FEED_TITLE = "papers-digest: daily paper digests"
FEED_ZH_TITLE = "papers-digest：每日论文速递"
SUBTITLE = "One-sentence summaries and findings of the top Hugging Face Daily Papers, checked against each paper."
ZH_SUBTITLE = "Hugging Face 每日热门论文的一句话总结与主要发现，均已对照论文原文核查。"
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


@dataclass(frozen=True)
class FeedEntry:
    id: str
    title: str
    url: str
    updated: str
    summary: str
    content: str = ""  # HTML, escaped where it holds text (the feed's template escapes it once more for XML)


@dataclass(frozen=True)
class Feed:
    id: str
    updated: str
    self_url: str
    site_url: str
    entries: tuple[FeedEntry, ...]
    title: str = FEED_TITLE
    lang: str = "en"
    subtitle: str = SUBTITLE


def build_feeds(days: Iterable[DayView], base_url: str, limit_days: int = FEED_DAYS) -> tuple[Feed, Feed]:
    """The English and the Chinese feed of the latest `limit_days` days: one entry per done paper, newest day
    first (pure). `days` is read lazily, newest first, and only its first `limit_days` days: it may load them one
    by one."""
    base = normalise_base_url(base_url)
    papers = [paper for day in islice(days, limit_days) for paper in day.papers if paper.done]
    return make_feeds(papers, base)


def make_feeds(papers: Sequence[PaperView], base_url: str) -> tuple[Feed, Feed]:
    """The English and the Chinese feed of these done papers, in their order."""
    base = normalise_base_url(base_url)
    english = make_feed([paper_entry(p, base, "en") for p in papers], base)
    chinese = make_feed(
        [paper_entry(p, base, "zh") for p in papers],
        base,
        path=FEED_ZH_FILE,
        feed_id=f"{FEED_ID}:zh",
        title=FEED_ZH_TITLE,
        lang="zh-Hans",
        subtitle=ZH_SUBTITLE,
    )
    return english, chinese


def paper_entry(paper: PaperView, base_url: str, lang: str = "en") -> FeedEntry:
    """A done paper's entry in one language: its title, the one sentence as the summary, and the sentence, the
    findings and its links as the content; LaTeX as Unicode text."""
    digest = paper.zh if lang == "zh" else paper.en
    if digest is None:
        raise ValueError(f"{paper.arxiv_id}: only a digested paper has a feed entry")
    url = urljoin(base_url, paper.path)
    title = (paper.title_zh or paper.title) if lang == "zh" else paper.title
    words = ("论文速递全文与证据", "代码") if lang == "zh" else ("The digest, with the evidence", "Code")
    links = [(url, words[0]), (paper.abs_url, "arXiv")]
    if paper.links:
        links.append((paper.links.hf_url, "Hugging Face"))
        if paper.links.code_url:
            links.append((paper.links.code_url, words[1]))
    findings = Markup("").join(Markup("<li>{}</li>").format(tex_text(r.finding)) for r in digest.results)
    content = Markup("<p>{}</p><ul>{}</ul><p>{}</p>").format(
        tex_text(digest.one_sentence),
        findings,
        Markup(" · ").join(Markup('<a href="{}">{}</a>').format(href, text) for href, text in links),
    )
    return FeedEntry(
        # Stable across re-renders and base URLs: a reader never sees an entry twice.
        id=f"tag:papers-digest,{paper.date}:{paper.arxiv_id}" + (":zh" if lang == "zh" else ""),
        title=tex_text(title),
        url=url,
        updated=paper.generated_at or f"{paper.date}T00:00:00Z",
        summary=tex_text(digest.one_sentence),
        content=str(content),
    )


def make_feed(
    entries: Iterable[FeedEntry],
    base_url: str,
    *,
    path: str = FEED_FILE,
    page: str = "index.html",
    feed_id: str = FEED_ID,
    title: str = FEED_TITLE,
    lang: str = "en",
    subtitle: str = SUBTITLE,
) -> Feed:
    """The feed around its entries, updated when the newest of them was (pure); `path` and `page`, the feed's
    and its page's paths in the site, for another feed than the site's (an area's)."""
    base = normalise_base_url(base_url)
    entries = tuple(entries)
    return Feed(
        id=feed_id,
        updated=max((e.updated for e in entries), default="1970-01-01T00:00:00Z"),
        self_url=urljoin(base, path),
        site_url=urljoin(base, page),
        entries=entries,
        title=title,
        lang=lang,
        subtitle=subtitle,
    )


def normalise_base_url(base_url: str) -> str:
    """The site's public address (params site.base_url), ending in `/`: the feeds, the email and link previews
    use it (pages link relatively)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SiteError(f"site.base_url must be an absolute http(s) URL, got {base_url!r}")
    return base_url if base_url.endswith("/") else base_url + "/"


def is_local(base_url: str) -> bool:
    """Whether the address is this machine's (the local preview): no one else can follow a link to it."""
    return (urlsplit(base_url).hostname or "") in LOCAL_HOSTS
