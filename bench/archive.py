"""Publishing one day into a year-long archive: time and peak memory against the archive of its month."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import DATE, PAGES, ROOT, measured_run, peak_rss_mb, synthetic_day

from papers_digest.core.models import FulltextDoc, Paper

# --- archive: publishing a day into a year of days -----------------------------------------------

# What every publish renders besides its day's pages, so the times above include it: the trends page joins them where
# the branch that adds it (#47 item 6, site-browser) is merged, as render_day then renders it.
PUBLISHED_PARTS = ("the day's related papers", "its citation files", "the front page, calendar and feeds")
# What a publish rewrites besides its day's pages, the archive pages and the search indexes: put back before each run.
COMMON = ("papers.db", "site/index.html", "site/days.html", "site/feed.xml", "site/feed.zh.xml")


def archive_publish(days: int, papers: int = 20, date: str = DATE, *, repeats: int = 3, rebuild: bool = True) -> None:
    """`stages/publish.py`, as DVC runs it, publishing `date` into the archive of its month (the days of its
    month before it) and into a `days`-day archive (the days up to it), and `papers site` rebuilding the latter
    (unless not `rebuild`): wall seconds and peak RSS of each process, side by side, the median of `repeats`. A
    publish indexes its month's pages again for the search (Pagefind): `date` at the end of a month (2025-12-31) is
    the dearest day, the first of a month (2026-01-01, the default) the cheapest, and the month's archive pays the
    same as the year's. Everything a publish renders is in its time: the day's related papers (site/related.py),
    and the trends page where the branch that adds it is merged (render_day renders it; PUBLISHED_PARTS)."""
    work = Path(tempfile.mkdtemp(prefix="papers-bench-archive-"))
    try:
        year, month = work / "year", work / "month"
        started = time.perf_counter()
        dates = build_archives(year, month, days, papers, date, work)
        build_s = time.perf_counter() - started
        papers_bin = str(Path(sys.executable).parent / "papers")

        def site(archive: Path, out: Path) -> list[str]:  # `papers site` of an archive's database
            return [papers_bin, "site", "--db", str(archive / "papers.db"), "--out", str(out)]

        before = {archive: _served(archive, site(archive, archive / "site"), work, date) for archive in (year, month)}

        def empty_folder() -> None:
            shutil.rmtree(work / "new", ignore_errors=True)

        month_db, year_db = _publish_command(work, month, date), _publish_command(work, year, date)
        small = f"its month, {sum(d[:7] == date[:7] for d in dates)} days"
        runs = [
            ("publish a new day", small, _timed(month_db, work, before[month], repeats)),
            ("publish a new day", f"{days} days", _timed(year_db, work, before[year], repeats)),
            ("publish it again, nothing changed", small, _timed(month_db, work, repeats=repeats)),
            ("publish it again, nothing changed", f"{days} days", _timed(year_db, work, repeats=repeats)),
        ]
        if rebuild:  # once each: a rebuild of the whole site runs Pagefind on every month (minutes), and is no publish
            runs += [
                (
                    "`papers site` into an empty folder",
                    f"{days} days",
                    _timed(site(year, work / "new"), work, empty_folder, 1),
                ),
                ("`papers site`, nothing changed", f"{days} days", _timed(site(year, year / "site"), work, repeats=1)),
            ]
        ids = [f"2501.{10000 + (days - 1) * papers + j}" for j in range(papers)]  # the new day's (_archive_day)
        related = {name: _related_ms(folder / "papers.db", ids) for name, folder in ((small, month), ("year", year))}
        size_mb = (year / "papers.db").stat().st_size / 1e6
        with sqlite3.connect(year / "papers.db") as conn:
            terms = conn.execute("select count(*) from paper_terms").fetchone()[0]
        pages = sum(1 for _ in (year / "site").rglob("*.html"))
        index_mb = sum(f.stat().st_size for f in (year / "site" / "pagefind").rglob("*") if f.is_file()) / 1e6
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"\n### Publishing {date} into an archive: {days} days x {papers} papers ({days * papers:,} papers, "
        f"papers.db {size_mb:.0f} MB with {terms:,} stored terms, {pages:,} pages, search indexes {index_mb:.0f} MB; "
        f"built in {build_s:.0f} s)\n"
    )
    _report(runs, f"{days} days", small, related)


def build_archives(year: Path, month: Path, days: int, papers: int, date: str, work: Path) -> list[str]:
    """The `days` days up to `date` into the year's database, those of its month into the month's; the day itself
    written as the stages leave it, in work/<date>. Returns the dates, `date` last."""
    import datetime as dt

    from papers_digest.day.metrics import run_record
    from papers_digest.db.writer import write_day

    kinds = archive_kinds()
    last = dt.date.fromisoformat(date)
    dates = [(last - dt.timedelta(days=days - 1 - n)).isoformat() for n in range(days)]
    for folder in (year, month):
        folder.mkdir()
    for n, earlier in enumerate(dates[:-1]):
        files = _archive_day(earlier, n, papers, kinds)
        write_day(year / "papers.db", files, run_record(files))
        if earlier[:7] == date[:7]:
            write_day(month / "papers.db", files, run_record(files))
    _archive_day(date, days - 1, papers, kinds, folder=work / date)
    return dates


def _report(runs: list[tuple[str, str, tuple[float, float]]], year: str, small: str, related: dict) -> None:
    """The table of runs, the ratios against the targets, and what the day's related papers took in each archive."""
    print("| run | archive | wall s | peak RSS MB |")
    print("|---|---|---:|---:|")
    for label, archive, (seconds, mb) in runs:
        print(f"| {label} | {archive} | {seconds:.2f} | {mb:.0f} |")
    (new_month, _), (new_year, _) = runs[0][2], runs[1][2]
    (again_month, _), (again_year, _) = runs[2][2], runs[3][2]
    peak = max(mb for label, _, (_, mb) in runs if label.startswith("publish"))
    print(
        f"\nPublish into {year} vs {small}: {new_year / new_month:.2f}x (new day), "
        f"{again_year / again_month:.2f}x (nothing changed); target <= 1.5x. Peak RSS of a publish: {peak:.0f} MB; "
        f"target < 400 MB."
        + (f" `papers site` of the {year}: {runs[4][2][0]:.0f} s; target <= 180 s." if len(runs) > 4 else "")
    )
    print(
        "Of which finding the day's related papers (db/writer.py relate, in process, median of 5): "
        f"{related[small]:.0f} ms into {small}, {related['year']:.0f} ms into {year}. Also in every publish above: "
        f"{', '.join(PUBLISHED_PARTS)}. Load average at the end: "
        + ", ".join(f"{x:.1f}" for x in os.getloadavg())
        + " (the cores are shared: rerun on idle cores for the final figures)."
    )


def _related_ms(db: Path, ids: list[str]) -> float:
    """Milliseconds the writer takes to find and store the related papers of these papers in `db` (db/writer.py
    `relate`, inside a transaction then rolled back), the median of 5."""
    from papers_digest.db.writer import open_for_writing, relate

    times = []
    for _ in range(5):
        db_rw = open_for_writing(db)
        try:
            db_rw.conn.execute("begin immediate")
            started = time.perf_counter()
            relate(db_rw, ids)
            times.append((time.perf_counter() - started) * 1000)
            db_rw.conn.rollback()
        finally:
            db_rw.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--date", default=DATE, help="the day published into the archive (its last)")
    parser.add_argument("--smoke", action="store_true", help="a small archive, each run once, no rebuild: it works")
    args = parser.parse_args()
    if args.smoke:
        archive_publish(8, 3, args.date, repeats=1, rebuild=False)
    else:
        archive_publish(args.days, args.papers, args.date)


def _served(archive: Path, site: list[str], work: Path, date: str) -> Any:
    """Build the archive's site (`papers site`, as served before the day) and keep what a publish changes: its
    database, index, feed and search indexes. Returns what puts them back, before each publish. An archive of no
    day (the month of its first day) is an empty folder, emptied again before each publish."""
    if not (archive / "papers.db").is_file():

        def empty() -> None:
            shutil.rmtree(archive)
            archive.mkdir()

        return empty
    peak_rss_mb(site, work)
    backup = archive / "backup"
    backup.mkdir()
    for name in ("papers.db", "site/index.html", "site/feed.xml"):
        shutil.copy(archive / name, backup / Path(name).name)
    shutil.copytree(archive / "site" / "pagefind", backup / "pagefind")  # the search indexes (site/search.py)

    def restore() -> None:
        for name in ("papers.db", "site/index.html", "site/feed.xml"):
            shutil.copy(backup / Path(name).name, archive / name)
        # each run starts from the site as it was: the day's pages not there yet, the indexes as they were
        shutil.rmtree(archive / "site" / date, ignore_errors=True)
        shutil.rmtree(archive / "site" / "pagefind")
        shutil.copytree(backup / "pagefind", archive / "site" / "pagefind")

    return restore


def archive_kinds(extra_days: Sequence[Path] = ()) -> list[tuple[FulltextDoc, dict, dict, list, Paper | None]]:
    """The archive's distinct papers, each with the simulator's English digest (as the checker accepted it, with
    its evidence) and Chinese translation of it: real digests of realistic size. The recorded arXiv pages give
    full-text digests; every paper of the recorded HF days gives one more paper, digested from its abstract
    (as a paper without HTML is), with its listing (title, abstract, HF keywords, links). So the year repeats
    about 70 papers, not 6: a word of one paper is on about 1 page in 70, as in an archive of distinct papers,
    which is what a search's time depends on (docs/site.md, "Search"). `extra_days`: more recorded HF days."""

    from papers_devtools.sim.answers import build_digest, translate
    from papers_digest.checker.english import check_digest_en
    from papers_digest.checker.paper import read_paper
    from papers_digest.llm.prompting import digest_messages
    from papers_digest.sources.arxiv import abstract_doc
    from papers_digest.sources.hf import parse_items

    listed: list[tuple[FulltextDoc, Paper | None]] = [(doc, None) for doc in synthetic_day(len(PAGES))]
    seen = set()
    recorded = [*sorted((ROOT / "tests" / "data" / "hf").glob("*.json")), *extra_days]
    for day in recorded:
        for paper in parse_items(json.loads(day.read_text(encoding="utf-8")))[0]:
            if paper.arxiv_id not in seen:
                seen.add(paper.arxiv_id)
                listed.append((abstract_doc(paper, "bench: the abstract"), paper))
    kinds = []
    for doc, paper in listed:
        english = build_digest(digest_messages("system", doc)[1]["content"])
        verdict = check_digest_en(json.dumps(english), read_paper(doc))
        evidence = verdict.evidence if verdict.digest else []
        english = verdict.digest.model_dump() if verdict.digest else english
        kinds.append((doc, english, translate(english), evidence, paper))
    return kinds


def _archive_day(date: str, n: int, papers: int, kinds: list, folder: Path | None = None) -> Any:
    """Day `n` of the archive as DayFiles; with `folder`, also written there as the stages leave a day."""
    import datetime as dt

    from papers_digest.core.artefacts import write_json
    from papers_digest.core.models import CallRecord, DayList, GenerationResult
    from papers_digest.day.files import DayFiles

    at = dt.datetime.fromisoformat(f"{date}T06:00:00+00:00").timestamp()
    listed, docs, results = [], {}, {"digest_en": {}, "translate_zh": {}}
    for j in range(papers):
        doc, english, chinese, evidence, paper = kinds[(n * papers + j) % len(kinds)]
        arxiv_id = f"2501.{10000 + n * papers + j}"
        title = doc.title
        if paper is None:
            paper = Paper(arxiv_id=arxiv_id, title=title, summary=doc.text[:1200], authors=["A. Author", "B. Author"])
        listed.append(paper.model_copy(update={"arxiv_id": arxiv_id, "upvotes": 100 - j}))
        docs[arxiv_id] = doc.model_copy(update={"arxiv_id": arxiv_id, "title": title})
        for stage, digest in (("digest_en", english), ("translate_zh", chinese)):
            call = CallRecord(
                date=date, arxiv_id=arxiv_id, stage=stage, attempt=1, status="ok", prompt_tokens=9_000,
                completion_tokens=6_200, started_at=at + j, ended_at=at + j + 30, latency_s=30.0,
            )  # fmt: skip
            results[stage][arxiv_id] = GenerationResult(
                arxiv_id=arxiv_id, stage=stage, status="done", digest=digest, model="sim-digest",
                prompt_version="bench", evidence=evidence if stage == "digest_en" else [], calls=[call],
            )  # fmt: skip
    day = DayList(date=date, limit=papers, papers=listed, picked=list(docs))
    if folder is not None:
        write_json(folder / "list.json", day)
        for arxiv_id, doc in docs.items():
            write_json(folder / "fulltext" / f"{arxiv_id}.json", doc)
            for stage in results:
                write_json(folder / stage / f"{arxiv_id}.json", results[stage][arxiv_id])
    return DayFiles(day=day, fulltext=docs, english=results["digest_en"], chinese=results["translate_zh"])


def _publish_command(work: Path, archive: Path, date: str) -> list[str]:
    """The publish stage's command line, as dvc.yaml has it, for the day in `work/<date>`, into `archive`."""
    day = work / date
    return [
        sys.executable, str(ROOT / "stages" / "publish.py"), "--date", date, "--list", str(day / "list.json"),
        "--fulltext", str(day / "fulltext"), "--digest-en", str(day / "digest_en"),
        "--translate-zh", str(day / "translate_zh"), "--db", str(archive / "papers.db"),
        "--metrics", str(day / "run.json"), "--calls", str(day / "calls.jsonl"), "--site", str(archive / "site"),
        "--params", str(ROOT / "params.yaml"),
    ]  # fmt: skip


def _timed(command: list[str], cwd: Path, before: Any = None, repeats: int = 3) -> tuple[float, float]:
    """(median wall seconds, highest peak RSS MB) of a command run `repeats` times, `before()` before each."""
    seconds, peaks = [], []
    for _ in range(repeats):
        if before is not None:
            before()
        wall, peak = measured_run(command, cwd)
        seconds.append(wall)
        peaks.append(peak)
    return statistics.median(seconds), max(peaks)


if __name__ == "__main__":
    main()
