"""Stage `publish`: the day into papers.db, its run.json and calls.jsonl, and its pages of the site.

Only the check for nothing to do is imported at the top: publish runs on every `dvc repro` (always_changed),
and loading the writer and the site is most of what a publish with nothing to do would cost (docs/architecture.md,
"The database and the site").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from papers_digest.day.fingerprint import PACKAGE, publish_fingerprint
from papers_digest.db.published import published_fingerprint


@dataclass(frozen=True)
class PublishFiles:
    """What publish reads and writes, as dvc.yaml passes them; `site` None: no site (a temporary experiment)."""

    list: Path
    fulltext: Path
    digest_en: Path
    translate_zh: Path
    db: Path
    metrics: Path
    calls: Path
    site: Path | None = None
    base_url: str | None = None  # the site's public address for the feeds and link previews; None: site.base_url

    @property
    def inputs(self) -> list[Path]:
        return [self.list, self.fulltext, self.digest_en, self.translate_zh]

    def outputs(self, date: str) -> list[Path]:
        """The files a finished publish of `date` leaves: run.json, calls.jsonl, and the day's and index pages."""
        pages = [self.site / "index.html", self.site / date / "index.html"] if self.site else []
        return [self.metrics, self.calls, *pages]


def day_fingerprint(files: PublishFiles, params_path: Path, script: Path) -> str:
    """The hash of what the day is published from: its files, the package and the script, the site options (its
    address and report link) and the price (a new price recomputes the day's cost). params.yaml is read raw: this
    path stays free of the params model."""
    raw = yaml.safe_load(params_path.read_text(encoding="utf-8")) or {}
    price = json.dumps((raw.get("llm") or {}).get("price"))
    # site.base_url and site.report_url, and the email's address of before (params.py moves it to base_url)
    site = json.dumps([raw.get("site"), (raw.get("email") or {}).get("site_url")])
    options = f"{files.site} {files.base_url or ''} {price} {site}"
    return publish_fingerprint(files.inputs, code=(PACKAGE, script), options=options)


def already_published(files: PublishFiles, date: str, fingerprint: str) -> bool:
    """Whether the database holds `date` from these very files and code, and its outputs and pages are in place."""
    return published_fingerprint(files.db, date) == fingerprint and all(p.is_file() for p in files.outputs(date))


def publish_day(files: PublishFiles, date: str, params_path: Path, fingerprint: str) -> None:
    """Upsert the day into the database in one transaction, write run.json and calls.jsonl, render what the day
    changed on the site, then record the fingerprint; prints what it did."""
    from papers_digest.core.artefacts import write_json, write_jsonl
    from papers_digest.core.params import load_params
    from papers_digest.day.files import load_day
    from papers_digest.day.metrics import run_record
    from papers_digest.db.writer import checkpoint, record_published, write_day
    from papers_digest.site.render import render_day

    day = load_day(files.list, files.fulltext, files.digest_en, files.translate_zh)
    params = load_params(params_path)
    run = run_record(day, price=params.llm.price)
    write_day(files.db, day, run)
    write_json(files.metrics, run)
    write_jsonl(files.calls, sorted(day.calls, key=lambda c: c.started_at))
    cost = f", ${run.cost_usd:.4f}" if run.cost_usd is not None else ""
    print(
        f"publish: {date}: {run.papers_done} done, {run.papers_failed} failed; "
        f"{run.llm_calls} LLM calls, {run.prompt_tokens} prompt + "
        f"{run.completion_tokens} completion tokens{cost} -> {files.db}"
    )
    if files.site:
        # The site is a view of every day in the database, like the database itself: not a DVC output.
        # Only what this day changed is rendered (`papers site` rebuilds every day on demand).
        site = render_day(
            files.db,
            files.site,
            date,
            base_url=files.base_url or params.site.base_url,
            report_url=params.site.report_url,
        )
        print(
            f"publish: site: {date} of {site.days} day(s), {site.papers} papers, "
            f"{site.feed_entries} feed entries; {site.written} files written, {site.unchanged} unchanged, "
            f"{site.removed} removed; search indexes of {site.indexed} month(s) built -> {files.site}"
        )
        if site.search_error:  # the pages are there; the next publish or `papers site` indexes the month again
            print(f"publish: search: the month was not indexed: {site.search_error}")
    # last, after the database, the outputs and the site: a publish killed before it is done again in full
    record_published(files.db, date, fingerprint)
    checkpoint(files.db)
