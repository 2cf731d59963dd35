"""DVC stage `publish`: upsert the day into the SQLite database and write the run's metrics."""

import json
from argparse import Namespace
from pathlib import Path

import yaml

from papers_digest.day.fingerprint import PACKAGE, publish_fingerprint
from papers_digest.db.published import published_fingerprint
from papers_digest.pipeline.runner import in_temporary_experiment, run_stage, stage_parser


def main() -> None:
    parser = stage_parser("publish", __doc__)
    parser.add_argument("--list", required=True, help="list.json of the list stage")
    parser.add_argument("--fulltext", required=True, help="folder of the fulltext stage")
    parser.add_argument("--digest-en", required=True, help="folder of the digest_en stage")
    parser.add_argument("--translate-zh", required=True, help="folder of the translate_zh stage")
    parser.add_argument("--db", required=True, help="SQLite database to upsert into")
    parser.add_argument("--metrics", required=True, help="run.json to write")
    parser.add_argument("--calls", required=True, help="calls.jsonl to write: every LLM call, by start time")
    parser.add_argument(
        "--site",
        help="folder of the readers' site and Atom feed: the day's pages, the index and the feed are rendered into it",
    )
    parser.add_argument(
        "--base-url",
        help="the site's public address, for the feed's links (default: papers_digest.site.feed.DEFAULT_BASE_URL)",
    )
    args = parser.parse_args()

    def body() -> None:
        if args.site and in_temporary_experiment():
            # a parallel backfill's or a comparison's experiment: what counts is run.json and calls.jsonl; the
            # main workspace renders the day when it restores it (docs/experiments.md)
            print(f"publish: {args.date}: in a temporary DVC experiment workspace, thrown away after it: no site")
            args.site = None
        inputs = [args.list, args.fulltext, args.digest_en, args.translate_zh]
        # the price is in the fingerprint: a new price recomputes the day's cost (read raw: the fast path
        # stays free of the params model)
        raw = yaml.safe_load(Path(args.params).read_text(encoding="utf-8")) or {}
        price = json.dumps((raw.get("llm") or {}).get("price"))
        report = json.dumps((raw.get("site") or {}).get("report_url"))
        fingerprint = publish_fingerprint(
            inputs, code=(PACKAGE, Path(__file__)), options=f"{args.site} {args.base_url or ''} {price} {report}"
        )
        if _published(args, fingerprint):
            print(
                f"publish: {args.date}: already published from these files -> {args.db}"
                + (f", {args.site}" if args.site else "")
            )
            return
        _publish(args, fingerprint)

    run_stage("publish", body)


def _published(args: Namespace, fingerprint: str) -> bool:
    # publish runs on every `dvc repro` (always_changed); when the database already holds the day from the
    # same files and code, and the outputs and the day's pages are in place, there is nothing to do, and
    # checking that costs a fraction of loading the library (docs/performance.md).
    outputs = [Path(args.metrics), Path(args.calls)]
    if args.site:
        outputs += [Path(args.site) / "index.html", Path(args.site) / args.date / "index.html"]
    return published_fingerprint(args.db, args.date) == fingerprint and all(p.is_file() for p in outputs)


def _publish(args: Namespace, fingerprint: str) -> None:
    # imported here: they are most of the cost of a publish that has nothing to do (see _published)
    from papers_digest.core.artefacts import write_json, write_jsonl
    from papers_digest.core.params import load_params
    from papers_digest.day.files import load_day
    from papers_digest.day.metrics import run_record
    from papers_digest.db.writer import record_published, write_day
    from papers_digest.site.feed import DEFAULT_BASE_URL
    from papers_digest.site.render import render_day

    files = load_day(args.list, args.fulltext, args.digest_en, args.translate_zh)
    params = load_params(args.params)
    run = run_record(files, price=params.llm.price)
    write_day(args.db, files, run)
    write_json(args.metrics, run)
    write_jsonl(args.calls, sorted(files.calls, key=lambda c: c.started_at))
    cost = f", ${run.cost_usd:.4f}" if run.cost_usd is not None else ""
    print(
        f"publish: {args.date}: {run.papers_done} done, {run.papers_failed} failed; "
        f"{run.llm_calls} LLM calls, {run.prompt_tokens} prompt + "
        f"{run.completion_tokens} completion tokens{cost} -> {args.db}"
    )
    if args.site:
        # The site is a view of every day in the database, like the database itself: not a DVC output.
        # Only what this day changed is rendered (`papers site` rebuilds every day on demand).
        site = render_day(
            args.db,
            args.site,
            args.date,
            base_url=args.base_url or DEFAULT_BASE_URL,
            report_url=params.site.report_url,
        )
        print(
            f"publish: site: {args.date} of {site.days} day(s), {site.papers} papers, "
            f"{site.feed_entries} feed entries; {site.written} files written, {site.unchanged} unchanged, "
            f"{site.removed} removed; search indexes of {site.indexed} month(s) built -> {args.site}"
        )
        if site.search_error:  # the pages are there; the next publish or `papers site` indexes the month again
            print(f"publish: search: the month was not indexed: {site.search_error}")
    # last, after the database, the outputs and the site: a publish killed before it is done again in full
    record_published(args.db, args.date, fingerprint)


if __name__ == "__main__":
    main()
