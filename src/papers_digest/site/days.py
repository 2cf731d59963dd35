"""A day as its page shows it, as plain data: every paper Hugging Face listed, digested or not, and the index (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from papers_digest.day.status import empty_day_reason
from papers_digest.site.trust import trust_view
from papers_digest.site.views import DATE_RE, PaperView, Reason, SiteError, listed_fields, paper_view


@dataclass(frozen=True)
class DayView:
    date: str
    papers: tuple[PaperView, ...]  # the papers picked that day (each has a page), ranked by upvotes then arXiv id
    listed: int = 0  # papers Hugging Face listed that day (0 when unknown)
    # What the day's page lists: every paper Hugging Face listed, in its order by upvotes, each the picked paper's
    # view or a `listed` one saying why it has no digest; then the picked papers it did not list (the retry queue).
    entries: tuple[PaperView, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.date}/index.html"

    @property
    def done(self) -> int:
        return sum(p.done for p in self.papers)

    @property
    def failed(self) -> int:
        return len(self.papers) - self.done

    @property
    def shown(self) -> tuple[PaperView, ...]:
        """The papers the day's page lists: its entries, or for a database without day_items, the picked ones."""
        return self.entries or self.papers

    @property
    def empty_reason(self) -> str:
        """Why no paper was picked, when none was (the status page says the same)."""
        return empty_day_reason(self.listed)


@dataclass(frozen=True)
class TopPaper:
    """The paper a day's index entry names: the day's first by upvotes."""

    arxiv_id: str
    title: str


@dataclass(frozen=True)
class DaySummary:
    """A day as the calendar lists it: its counts and its top paper, not the papers themselves."""

    date: str
    count: int  # papers picked
    done: int
    listed: int  # papers Hugging Face listed that day (0 when unknown)
    top: TopPaper | None = None

    @property
    def path(self) -> str:
        return f"{self.date}/index.html"

    @property
    def failed(self) -> int:
        return self.count - self.done

    @property
    def month(self) -> str:
        return self.date[:7]


def build_index(rows: Iterable[Mapping[str, Any]]) -> list[DaySummary]:
    """Aggregate rows (db/queries.py site_days) -> the calendar's days, newest first (pure)."""
    days = []
    for row in rows:
        date = row["date"]
        if not DATE_RE.match(date or ""):
            raise SiteError(f"papers.db: not a date (YYYY-MM-DD): {date!r}")
        top_id = row.get("top_id")
        top = TopPaper(arxiv_id=top_id, title=row.get("top_title") or top_id) if top_id else None
        days.append(
            DaySummary(
                date=date,
                count=row.get("papers") or 0,
                done=row.get("done") or 0,
                listed=row.get("listed") or 0,
                top=top,
            )
        )
    return sorted(days, key=lambda d: d.date, reverse=True)


def build_days(
    papers: Iterable[Mapping[str, Any]],
    digests: Iterable[Mapping[str, Any]],
    items: Iterable[Mapping[str, Any]] = (),
    run_dates: Iterable[str] = (),
    calls: Iterable[Mapping[str, Any]] = (),
    engines: Mapping[str, str | None] | None = None,
) -> list[DayView]:
    """Database rows -> days, newest first, each with its picked papers ranked by upvotes and every listed paper
    (`items`: day_items rows with `paper_date` and `paper_status`, db/queries.py site_day_rows) (pure); with
    `calls` (llm_calls rows) and `engines` (runs.engine_kind by date), each picked paper carries its Trust."""
    engines = engines or {}
    by_paper: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in digests:
        by_paper.setdefault(row["arxiv_id"], {})[row["lang"]] = row
    calls_of: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for call in calls:
        calls_of.setdefault((call["date"], call["arxiv_id"]), []).append(call)
    by_date: dict[str, list[Mapping[str, Any]]] = {d: [] for d in run_dates}
    for row in papers:
        by_date.setdefault(row["date"], []).append(row)
    items_of: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:
        items_of.setdefault(item["date"], []).append(item)
        by_date.setdefault(item["date"], [])
    days = []
    for date in sorted(by_date, reverse=True):
        if not DATE_RE.match(date):
            raise SiteError(f"papers.db: not a date (YYYY-MM-DD): {date!r}")
        ranked = sorted(by_date[date], key=lambda r: (-(r.get("upvotes") or 0), r["arxiv_id"]))
        views = tuple(
            paper_view(
                r,
                by_paper.get(r["arxiv_id"], {}),
                rank,
                trust_view(calls_of.get((date, r["arxiv_id"]), ()), engines.get(date)),
            )
            for rank, r in enumerate(ranked, 1)
        )
        listing = items_of.get(date, [])
        days.append(DayView(date=date, papers=views, listed=len(listing), entries=day_entries(views, listing)))
    return days


def day_entries(papers: tuple[PaperView, ...], items: list[Mapping[str, Any]]) -> tuple[PaperView, ...]:
    """Every paper Hugging Face listed, in its order, the picked ones as picked; then the picked papers it did not
    list (the retry queue's); () without a listing (a database from before day_items)."""
    if not items:
        return ()
    picked = {p.arxiv_id: p for p in papers}
    chosen = sum(bool(i.get("picked")) for i in items)
    entries = [picked.get(i["arxiv_id"]) or listed_view(i, chosen) for i in items]
    listed = {i["arxiv_id"] for i in items}
    return (*entries, *(p for p in papers if p.arxiv_id not in listed))


def listed_view(item: Mapping[str, Any], picked: int) -> PaperView:
    """A listed paper the day has no page of: why (its digest or its retry is on another day, or it was not
    picked), and where its title leads (that day's page, or its Hugging Face page)."""
    fields = listed_fields(item, item.get("rank") or 0)
    elsewhere, status = item.get("paper_date"), item.get("paper_status")
    if elsewhere and DATE_RE.match(elsewhere) and elsewhere != item["date"]:
        kind = "digested_on" if status == "done" else "tried_on"
        href = f"{elsewhere}/{fields['arxiv_id']}.html"
        return PaperView(**fields, reason=Reason(kind, date=elsewhere), href=href)
    since = item.get("excluded_since")
    if isinstance(since, str) and DATE_RE.match(since):  # digested before, its row since gone: a rebuilt database
        return PaperView(**fields, reason=Reason("digested_on", date=since), href=f"{since}/index.html")
    return PaperView(**fields, reason=Reason("not_picked", picked=picked), href=fields["links"].hf_url)
