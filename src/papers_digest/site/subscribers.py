"""Who gets what of a day: each subscriber's papers first, by area and keyword in both languages; the notices of a
day without a digest; what is still due after what was sent (pure). Sending is cli/deliveries.py's."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from papers_digest.core.params import DEFAULT_SUBSCRIBER, NoticeParams, SubscriberParams
from papers_digest.day.areas import area_of, words_of
from papers_digest.day.status import empty_day_reason
from papers_digest.site.days import DayView
from papers_digest.site.views import DigestView, PaperView

DayKind = Literal["digest", "empty", "failed"]
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Interests:
    """A subscriber's areas (slugs) and keywords; none: every paper in the day's order (email.to)."""

    areas: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.areas or self.keywords)

    def named(self, lang: str = "en") -> str:
        """`Agents, Reinforcement learning; tool use`: the areas as the pages name them, then the keywords."""
        areas = [getattr(area_of(a), "zh" if lang == "zh" else "en", a) for a in self.areas]
        return "; ".join(part for part in (", ".join(areas), ", ".join(self.keywords)) if part)


EVERY_PAPER = Interests()  # email.to's and PAPERS_NOTIFY_URLS': the day as it is


def interests_of(subscriber: SubscriberParams) -> Interests:
    return Interests(tuple(subscriber.areas), tuple(subscriber.keywords))


def unknown_areas(subscribers: Iterable[SubscriberParams], source: str) -> list[str]:
    """One line per area a subscriber names that the vocabulary (day/areas.yaml) does not have, naming the key."""
    return [
        f"{source}: subscribers.{n}.areas: {slug!r} is not an area; the areas are listed at topics/index.html "
        "and in src/papers_digest/day/areas.yaml"
        for n, subscriber in enumerate(subscribers)
        for slug in subscriber.areas
        if area_of(slug) is None
    ]


@dataclass(frozen=True)
class PersonalDay:
    """A day's done papers as one subscriber gets them: theirs first (each with what it matched), then the rest."""

    interests: Interests
    date: str
    matched: tuple[tuple[PaperView, Interests], ...]
    rest: tuple[PaperView, ...]

    @property
    def ordered(self) -> list[tuple[PaperView, Interests]]:
        return [*self.matched, *((p, Interests()) for p in self.rest)]

    def lines(self, lang: str) -> list[str]:
        """What the subscriber reads first, in `lang` (en | zh | both): how many of the day's papers are theirs, or
        that none is; nothing for a subscriber without interests (email.to)."""
        if not self.interests:
            return []
        total, mine = len(self.matched) + len(self.rest), len(self.matched)
        en, zh = self.interests.named("en"), self.interests.named("zh")
        if mine:
            said = {
                "en": f"For you ({en}): {mine} of the day's {total} papers, first.",
                "zh": f"为你挑选（{zh}）：当天 {total} 篇中的 {mine} 篇，排在最前。",
            }
        else:
            said = {
                "en": f"Nothing on {self.date} matched your interests ({en}); the day's papers follow.",
                "zh": f"{self.date} 没有论文符合你的兴趣（{zh}）；以下是当天的论文。",
            }
        return [said[code] for code in ("en", "zh") if lang in (code, "both")]


def why_text(why: Interests, lang: str) -> str:
    """`you follow: Agents; tool use` for a paper that matched, in `lang`; "" for one that did not."""
    if not why:
        return ""
    said = {"en": f"you follow: {why.named('en')}", "zh": f"你关注：{why.named('zh')}"}
    return " / ".join(said[code] for code in ("en", "zh") if lang in (code, "both"))


def personal_day(day: DayView, interests: Interests) -> PersonalDay:
    """The day's done papers, in the day's order, those matching `interests` first. A subscriber whose interests
    match nothing gets the rest all the same, after one line saying so (site/mail.py, site/push.py): the day's top
    papers are still the day's news, and an email that says only "nothing" reads like one that failed."""
    done = [p for p in day.papers if p.done]
    matched = tuple((p, why) for p in done if (why := matches(p, interests))) if interests else ()
    mine = {p.arxiv_id for p, _ in matched}
    return PersonalDay(interests, day.date, matched, tuple(p for p in done if p.arxiv_id not in mine))


def matches(paper: PaperView, interests: Interests) -> Interests:
    """What of `interests` the paper has: its areas among theirs, and each keyword found in its
    title, its English or Chinese digest or Hugging Face's keywords. An English keyword is matched as whole words,
    singular and case-insensitive as areas are (`tool use` finds `Tool-Use`); one with Chinese characters as it is
    written, anywhere in the text."""
    areas = {a.slug for a in paper.links.areas} if paper.links else set()
    found: list[str] = []
    texts = _texts(paper)
    words = [words_of(text) for text in texts]
    for keyword in interests.keywords:
        if _CJK_RE.search(keyword):
            if any(keyword in text for text in texts):
                found.append(keyword)
        elif any(_has_run(w, words_of(keyword)) for w in words):
            found.append(keyword)
    return Interests(tuple(a for a in interests.areas if a in areas), tuple(found))


def day_kind(day: DayView | None, ran: bool) -> DayKind:
    """A date of the run, as subscribers hear of it: its digest (a paper done), an empty day (none picked), or a
    failed day (the run failed, or none of the papers picked was digested)."""
    if not ran or day is None:
        return "failed"
    if not day.papers:
        return "empty"
    return "digest" if any(p.done for p in day.papers) else "failed"


def notice(kind: DayKind, date: str, lang: str, *, listed: int = 0, alerted: bool = False) -> tuple[str, str]:
    """(title, text) of the message of a day without a digest, in `lang` (en | zh | both)."""
    if kind == "empty":
        title = f"papers-digest {date}: no papers"
        en = f"No new papers on {date}: {empty_day_reason(listed)}." if listed else f"No papers were listed on {date}."
        zh = f"{date} 没有论文上榜。" if not listed else f"{date} 没有新论文：所列论文均已在更早的日期摘要过。"
    else:
        title = f"papers-digest {date}: the digest failed"
        en = f"The digest of {date} failed" + ("; the operator has been told." if alerted else ".")
        zh = f"{date} 的摘要生成失败" + ("，已通知运维人员。" if alerted else "。")
    return title, "\n".join(line for code, line in (("en", en), ("zh", zh)) if lang in (code, "both"))


def due(
    kind: DayKind, destinations: Iterable[str], sent: Mapping[str, Iterable[str]], notices: NoticeParams
) -> list[str]:
    """The destinations that still get this day's message of `kind`: each at most once per kind of a date (`sent`:
    destination -> the kinds it got), an empty or a failed day only when its notice is switched on."""
    if (kind == "empty" and not notices.empty_day) or (kind == "failed" and not notices.failed_day):
        return []
    return [d for d in destinations if kind not in set(sent.get(d, ()))]


def destination(subscriber: str, channel: str) -> str:
    """How the record of what was sent names a place: `default email`, `agents PAPERS_NOTIFY_AGENTS #2`."""
    return f"{subscriber or DEFAULT_SUBSCRIBER} {channel}"


def _texts(paper: PaperView) -> list[str]:
    texts = [paper.title, paper.title_zh or ""]
    for digest in (paper.en, paper.zh):
        texts += _digest_texts(digest) if digest else []
    return texts + list(paper.links.keywords if paper.links else ())


def _digest_texts(digest: DigestView) -> list[str]:
    return [
        digest.one_sentence,
        digest.problem,
        digest.method,
        *(r.finding for r in digest.results),
        *digest.takeaways,
    ]


def _has_run(words: tuple[str, ...], run: tuple[str, ...]) -> bool:
    size = len(run)
    return bool(size) and any(words[i : i + size] == run for i in range(len(words) - size + 1))
