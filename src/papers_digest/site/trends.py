"""The trends page as plain data: papers per area per week, the areas rising fastest, each area's bars (pure)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from papers_digest.day.areas import area_of
from papers_digest.site.archive import AreaRef, week_key

TRENDS_FILE = "trends.html"
TREND_WEEKS = 26  # the weeks the page shows, the latest published date's week last
# Rising: an area's share of the papers of the latest RECENT_WEEKS weeks against its share of the BEFORE_WEEKS
# weeks before them. Shares, not counts: how many papers Hugging Face lists changes from week to week, and the
# latest week is often still going.
RECENT_WEEKS, BEFORE_WEEKS = 4, 8
RISING_MIN_PAPERS = 5  # fewer papers in the latest weeks are too few to call a rise
RISING_SHOWN = 5
# One week's bar in an area's row of the chart, in pixels; each row is scaled to its own busiest week.
BAR_WIDTH, BAR_GAP, BAR_HEIGHT = 5, 1, 24


@dataclass(frozen=True)
class Week:
    """An ISO week the page shows: its Monday, its papers (each once) and the dates it had papers on."""

    monday: str
    papers: int = 0
    days: int = 0

    @property
    def key(self) -> str:
        return week_key(self.monday)


@dataclass(frozen=True)
class Bar:
    x: int
    y: float
    height: float
    count: int
    recent: bool  # in the latest RECENT_WEEKS weeks


@dataclass(frozen=True)
class AreaTrend:
    """An area's papers per week, oldest first, and its shares of the latest weeks' papers and of those before."""

    area: AreaRef
    counts: tuple[int, ...]
    recent_share: float = 0.0
    before_share: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def peak(self) -> int:
        return max(self.counts, default=0)

    @property
    def recent(self) -> int:
        return sum(self.counts[-RECENT_WEEKS:])

    @property
    def growth(self) -> float:
        """Its share of the latest weeks' papers over its share of those before; infinite when it had none before."""
        return self.recent_share / self.before_share if self.before_share else math.inf

    def bars(self) -> tuple[Bar, ...]:
        """A bar per week with papers, its height scaled to the area's busiest week (BAR_HEIGHT px)."""
        step, first_recent = BAR_WIDTH + BAR_GAP, len(self.counts) - RECENT_WEEKS
        return tuple(
            Bar(
                x=i * step,
                y=round(BAR_HEIGHT - height, 1),
                height=height,
                count=n,
                recent=i >= first_recent,
            )
            for i, n in enumerate(self.counts)
            if n and (height := max(1.0, round(BAR_HEIGHT * n / self.peak, 1)))
        )


@dataclass(frozen=True)
class Trends:
    weeks: tuple[Week, ...]  # oldest first, TREND_WEEKS of them
    areas: tuple[AreaTrend, ...]  # the areas with papers in those weeks, most papers first
    rising: tuple[AreaTrend, ...]  # the areas rising fastest, fastest first
    recent_papers: int  # papers of the latest RECENT_WEEKS weeks, each once
    before_papers: int  # papers of the BEFORE_WEEKS weeks before them

    @property
    def chart_width(self) -> int:
        return len(self.weeks) * (BAR_WIDTH + BAR_GAP) - BAR_GAP

    @property
    def recent_start(self) -> Week:
        return self.weeks[-RECENT_WEEKS]

    @property
    def before_start(self) -> Week:
        return self.weeks[-RECENT_WEEKS - BEFORE_WEEKS]


def trends_window(latest: str) -> tuple[str, str]:
    """The first and the last date the trends page counts: from the Monday TREND_WEEKS - 1 weeks before the latest
    published date's week to that date."""
    day = dt.date.fromisoformat(latest)
    monday = day - dt.timedelta(days=day.weekday()) - dt.timedelta(weeks=TREND_WEEKS - 1)
    return monday.isoformat(), day.isoformat()


def build_trends(rows: Iterable[Mapping[str, Any]], latest: str) -> Trends:
    """db/archive.py area_weeks rows over trends_window(latest) -> the page's weeks, areas and rising areas."""
    start = dt.date.fromisoformat(trends_window(latest)[0])
    mondays = [(start + dt.timedelta(weeks=n)).isoformat() for n in range(TREND_WEEKS)]
    column = {m: i for i, m in enumerate(mondays)}
    totals: dict[str, tuple[int, int]] = {}
    counts: dict[str, list[int]] = {}
    for row in rows:
        if row["week"] not in column:
            continue
        if row["area"] is None:
            totals[row["week"]] = (row["papers"], row["days"] or 0)
        elif area_of(row["area"]):  # an area the vocabulary no longer has is left out
            counts.setdefault(row["area"], [0] * TREND_WEEKS)[column[row["week"]]] = row["papers"]
    weeks = tuple(Week(m, *totals.get(m, (0, 0))) for m in mondays)
    recent = sum(w.papers for w in weeks[-RECENT_WEEKS:])
    before = sum(w.papers for w in weeks[-RECENT_WEEKS - BEFORE_WEEKS : -RECENT_WEEKS])
    areas = [
        AreaTrend(
            area=AreaRef(slug),
            counts=tuple(n),
            recent_share=sum(n[-RECENT_WEEKS:]) / recent if recent else 0.0,
            before_share=sum(n[-RECENT_WEEKS - BEFORE_WEEKS : -RECENT_WEEKS]) / before if before else 0.0,
        )
        for slug, n in counts.items()
    ]
    areas.sort(key=lambda a: (-a.total, a.area.slug))
    return Trends(
        weeks=weeks, areas=tuple(areas), rising=rising(areas, before), recent_papers=recent, before_papers=before
    )


def rising(areas: Iterable[AreaTrend], before_papers: int) -> tuple[AreaTrend, ...]:
    """The areas whose share of the latest weeks' papers grew most against the weeks before (an area new in them
    first), with at least RISING_MIN_PAPERS papers in the latest weeks; none when the weeks before had no paper."""
    if not before_papers:
        return ()
    grown = [a for a in areas if a.recent >= RISING_MIN_PAPERS and a.recent_share > a.before_share]
    grown.sort(key=lambda a: (-a.growth, -a.recent, a.area.slug))
    return tuple(grown[:RISING_SHOWN])
