"""DVC stage `list`: the day's Hugging Face Daily Papers and the top `limit` picked for digesting."""

import asyncio
from pathlib import Path

from papers_digest.core.artefacts import write_json
from papers_digest.core.params import load_params
from papers_digest.db.queries import digested_before, failed_recently
from papers_digest.pipeline.listing import list_day
from papers_digest.pipeline.runner import run_stage, stage_parser


def main() -> None:
    parser = stage_parser("list", __doc__)
    parser.add_argument("--db", required=True, help="database of earlier days (papers already digested)")
    parser.add_argument("--out", required=True, help="list.json to write")
    args = parser.parse_args()

    def body() -> None:
        params = load_params(args.params)
        exclude = digested_before(Path(args.db), args.date)
        retry_queue = failed_recently(Path(args.db), args.date, params.backfill_days)
        day = asyncio.run(list_day(params, args.date, exclude, retry_queue))
        write_json(args.out, day)
        print(
            f"list: {args.date}: {len(day.papers)} papers on {day.pages} page(s), picked {len(day.picked)}"
            + (f", {len(day.excluded)} already digested earlier" if day.excluded else "")
            + (f", {len(day.backfill)} failed earlier and tried again" if day.backfill else "")
        )

    run_stage("list", body)


if __name__ == "__main__":
    main()
