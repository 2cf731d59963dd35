"""DVC stage `publish`: upsert the day into the SQLite database and write the run's metrics."""

import time

from papers_digest.io import write_json, write_jsonl
from papers_digest.publish import load_day, run_record, write_day
from papers_digest.site import DEFAULT_BASE_URL, render_site
from papers_digest.stage import run_stage, stage_parser


def main() -> None:
    parser = stage_parser("publish", __doc__)
    parser.add_argument("--list", required=True, help="list.json of the list stage")
    parser.add_argument("--fulltext", required=True, help="folder of the fulltext stage")
    parser.add_argument("--digest-en", required=True, help="folder of the digest_en stage")
    parser.add_argument("--digest-zh", required=True, help="folder of the translate_zh stage")
    parser.add_argument("--db", required=True, help="SQLite database to upsert into")
    parser.add_argument("--metrics", required=True, help="run.json to write")
    parser.add_argument("--calls", required=True, help="calls.jsonl to write: every LLM call, by start time")
    parser.add_argument("--site", help="folder to render the readers' site and Atom feed into, from the whole database")
    parser.add_argument(
        "--base-url",
        default=DEFAULT_BASE_URL,
        help=f"the site's public address, for the feed's links ({DEFAULT_BASE_URL})",
    )
    args = parser.parse_args()

    def body() -> None:
        started = time.monotonic()
        files = load_day(args.list, args.fulltext, args.digest_en, args.digest_zh)
        run = run_record(files, publish_s=time.monotonic() - started)
        write_day(args.db, files, run)
        write_json(args.metrics, run)
        write_jsonl(args.calls, sorted(files.calls, key=lambda c: c.started_at))
        print(
            f"publish: {args.date}: {run.papers_done} done, {run.papers_failed} failed; "
            f"{run.llm_calls} LLM calls, {run.prompt_tokens} prompt + "
            f"{run.completion_tokens} completion tokens -> {args.db}"
        )
        if args.site:
            # The site is a view of every day in the database, like the database itself: not a DVC output.
            site = render_site(args.db, args.site, base_url=args.base_url)
            print(
                f"publish: site: {site.days} day(s), {site.papers} papers, {site.feed_entries} feed entries; "
                f"{site.written} files written, {site.unchanged} unchanged -> {args.site}"
            )

    run_stage("publish", body)


if __name__ == "__main__":
    main()
