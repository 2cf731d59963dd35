"""Follow and mute, For you and trends: the bytes the follow script adds to a day's page, and what the For you data
and the trends page cost a publish in an archive of a month and of a year.

    python bench/follow.py [--smoke] [--days 365]

- Bytes: a day of the recorded Hugging Face listings (the largest, 24 papers) and a day of 50 (the recorded days
  together), published into a site: what a reader's browser loads more than before for follow and mute is
  follow.js, the cards' `data-keywords` and the authors' lines' `data-authors` (the names past those shown),
  and the markup of the For you link and the script's tag (the Trends link is the trends page's);
  follow-settings.js, loaded only on the For you page and when the reader opens the header's For you, is printed
  on its own. Printed as sent and gzip-compressed (as a web server
  that compresses sends them); target: at most 20 kB.
- Cost: the For you data (foryou.json, one SQL query over the latest 30 days) and the trends page (one over the
  latest 26 weeks), as every publish writes them (site/pages.py reader_files), in an archive of 30 days and one of
  26 weeks (what the trends read) and one of `--days` days, each day the recorded listings again under ids of its
  own; the median of 5 runs, side by side. Target: the year within 1.5x the 26 weeks. `--smoke`: 10 and 40 days,
  one run each.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from common import ROOT

from papers_digest.core.models import CallRecord, DayList, GenerationResult, Paper
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.archive import area_weeks, recent_papers
from papers_digest.db.writer import write_day
from papers_digest.site.environment import make_environment
from papers_digest.site.foryou import for_you_window
from papers_digest.site.pages import reader_files
from papers_digest.site.render import render_day, static_file
from papers_digest.site.trends import trends_window
from papers_digest.sources.hf import parse_items

RECORDED = ROOT / "tests" / "data" / "hf"
PICKED = 6
TARGET_BYTES = 20_000
# What a page carries for follow.js: the cards' data, the For you link (hidden without the script) and the tag.
FOLLOW_MARKUP = re.compile(
    r' data-(?:keywords|authors)="[^"]*"'
    r'|\n\s*<a class="foryou"[^\n]*</a>'
    r'|\n<script src="[^"]*follow\.js" defer></script>'
)


def recorded_papers() -> list[Paper]:
    """Every paper of the recorded listings, the largest day first."""
    days = sorted(RECORDED.glob("*.json"), key=lambda f: -len(json.loads(f.read_text(encoding="utf-8"))))
    return [p for f in days for p in parse_items(json.loads(f.read_text(encoding="utf-8")))[0]]


def day_files(date: str, papers: list[Paper]) -> DayFiles:
    """A day listing `papers`, its PICKED most upvoted digested (short digests: the bytes measured are not theirs)."""
    ranked = sorted(papers, key=lambda p: (-p.upvotes, p.arxiv_id))
    results: dict[str, dict[str, GenerationResult]] = {"digest_en": {}, "translate_zh": {}}
    for paper in ranked[:PICKED]:
        for stage in results:
            call = CallRecord(date=date, arxiv_id=paper.arxiv_id, stage=stage, attempt=1, status="ok",
                              started_at=1.0e9, ended_at=1.0e9 + 1, latency_s=1.0)  # fmt: skip
            digest = {
                "one_sentence": f"It studies {paper.title}.",
                "problem": "p",
                "method": "m",
                "results": [{"finding": "It works.", "numbers": [], "sections": ["Abstract"]}] * 3,
                "limitations": ["l"],
                "takeaways": ["t"],
                "mind_map": {"label": "root", "children": []},
            }
            results[stage][paper.arxiv_id] = GenerationResult(
                arxiv_id=paper.arxiv_id, stage=stage, status="done", digest=digest, model="bench",
                prompt_version="bench", calls=[call],
            )  # fmt: skip
    day = DayList(date=date, limit=PICKED, papers=ranked, picked=[p.arxiv_id for p in ranked[:PICKED]])
    return DayFiles(day=day, fulltext={}, english=results["digest_en"], chinese=results["translate_zh"])


def renamed(papers: list[Paper], day: int) -> list[Paper]:
    """The papers under arXiv ids of their own for the `day`-th day of an archive."""
    return [
        p.model_copy(update={"arxiv_id": f"{2000 + day // 100:04d}.{day % 100:02d}{n:03d}"})
        for n, p in enumerate(papers)
    ]


def follow_bytes(page: str, script: bytes) -> tuple[int, int]:
    """What a page loads more for follow and mute (its follow markup and follow.js): bytes sent and gzip-compressed
    (the page's gzip with the markup less the page's without it, and the script's)."""
    bare = FOLLOW_MARKUP.sub("", page).encode()
    sent = len(page.encode()) - len(bare) + len(script)
    packed = len(gzip.compress(page.encode(), 9)) - len(gzip.compress(bare, 9)) + len(gzip.compress(script, 9))
    return sent, packed


def page_bytes(work: Path) -> None:
    papers = recorded_papers()
    script = static_file("follow.js").encode()  # as the site serves it
    print("\n### What follow and mute add to a day's page\n")
    settings = static_file("follow-settings.js").encode()
    print("| page | papers | page bytes | added, sent | added, gzip | of which follow.js (sent / gzip) |")
    print("|---|---:|---:|---:|---:|---:|")
    largest = len(json.loads(max(RECORDED.glob("*.json"), key=lambda f: f.stat().st_size).read_text("utf-8")))
    added = {}
    for n, date in ((largest, "2026-01-13"), (50, "2026-01-14")):
        db, site = work / f"bytes-{n}.db", work / f"site-{n}"
        files = day_files(date, papers[:n])
        write_day(db, files, run_record(files))
        render_day(db, site, date)
        page = (site / date / "index.html").read_text(encoding="utf-8")
        added[n] = sent, packed = follow_bytes(page, script)
        print(
            f"| {date}/index.html | {n} | {len(page.encode()):,} | {sent:,} | {packed:,} "
            f"| {len(script):,} / {len(gzip.compress(script, 9)):,} |"
        )
    verdict = "within" if added[largest][0] <= TARGET_BYTES else "OVER"
    print(
        f"\nThe recorded day ({largest} papers): {added[largest][0]:,} bytes sent, {verdict} the target of "
        f"{TARGET_BYTES:,}. follow-settings.js, loaded when the settings are opened: {len(settings):,} bytes sent, "
        f"{len(gzip.compress(settings, 9)):,} gzip."
    )


def archive(db: Path, days: int, papers: list[Paper], last: str) -> None:
    end = dt.date.fromisoformat(last)
    for n in range(days):
        date = (end - dt.timedelta(days=days - 1 - n)).isoformat()
        files = day_files(date, renamed(papers, n))
        write_day(db, files, run_record(files))


def reader_cost(work: Path, sizes: list[int], repeats: int, last: str = "2026-01-13") -> None:
    """reader_files in archives of `sizes` days, and its two queries alone: the median of `repeats` runs each."""
    papers = recorded_papers()[:24]
    env = make_environment()
    rows = []
    for n in sizes:
        db = work / f"archive-{n}.db"
        started = time.perf_counter()
        archive(db, n, papers, last)
        built = time.perf_counter() - started
        written = list(reader_files(env, db, last))
        sizes_of = {name: len(text.encode()) for name, text in written}
        packed = len(gzip.compress(dict(written)["foryou.json"].encode(), 9))
        times = {
            "reader_files": lambda db=db: list(reader_files(env, db, last)),
            "recent_papers": lambda db=db: recent_papers(db, *for_you_window(last)),
            "area_weeks": lambda db=db: area_weeks(db, *trends_window(last)),
        }
        medians = {name: statistics.median(_seconds(run) for _ in range(repeats)) for name, run in times.items()}
        rows.append((n, built, medians, sizes_of["foryou.json"], packed, sizes_of["trends.html"]))
    print(f"\n### For you and trends, as a publish writes them ({repeats} run(s) each, median)\n")
    print("| archive | built in s | reader_files s | its For you query s | its trends query s | foryou.json bytes "
          "(gzip) | trends.html bytes |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n, built, t, data, packed, page in rows:
        print(
            f"| {n} days x {len(papers)} papers | {built:.1f} | {t['reader_files']:.3f} | {t['recent_papers']:.3f} "
            f"| {t['area_weeks']:.3f} | {data:,} ({packed:,}) | {page:,} |"
        )
    # The trends read 26 weeks: an archive shorter than that reads less. Beyond them the cost must stay flat.
    window = next((r for r in rows if r[0] >= 26 * 7), rows[0])
    ratio = rows[-1][2]["reader_files"] / window[2]["reader_files"]
    print(f"\n{rows[-1][0]} days vs {window[0]}: {ratio:.2f}x; target <= 1.5x (the trends' 26 weeks are 182 days).")


def _seconds(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="small archives, one run each")
    parser.add_argument("--days", type=int, default=365)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="papers-bench-follow-"))
    try:
        page_bytes(work)
        reader_cost(work, [10, 40] if args.smoke else [30, 26 * 7, args.days], 1 if args.smoke else 5)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
