"""DVC stage `publish`: upsert the day into the SQLite database and write the run's metrics."""

from pathlib import Path

from papers_digest.pipeline.experiments import in_temporary_workspace
from papers_digest.pipeline.publishing import PublishFiles, already_published, day_fingerprint, publish_day
from papers_digest.pipeline.runner import run_stage, stage_parser


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
        help="the site's public address, for the feeds and the link previews (default: site.base_url of --params)",
    )
    args = parser.parse_args()

    def body() -> None:
        site = Path(args.site) if args.site else None
        if site and in_temporary_workspace():
            # a parallel backfill's or a comparison's experiment: what counts is run.json and calls.jsonl; the
            # main workspace renders the day when it restores it (docs/experiments.md)
            print(f"publish: {args.date}: in a temporary DVC experiment workspace, thrown away after it: no site")
            site = None
        files = PublishFiles(
            *map(
                Path, (args.list, args.fulltext, args.digest_en, args.translate_zh, args.db, args.metrics, args.calls)
            ),
            site=site,
            base_url=args.base_url,
        )
        fingerprint = day_fingerprint(files, Path(args.params), Path(__file__))
        if already_published(files, args.date, fingerprint):
            print(
                f"publish: {args.date}: already published from these files -> {args.db}"
                + (f", {args.site}" if site else "")
            )
            return
        publish_day(files, args.date, Path(args.params), fingerprint)

    run_stage("publish", body)


if __name__ == "__main__":
    main()
