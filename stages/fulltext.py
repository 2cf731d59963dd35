"""DVC stage `fulltext`: each picked paper's text from arXiv's HTML (serial, polite), or its abstract."""

import asyncio
from pathlib import Path

from papers_digest.core.artefacts import read_model, reset_folder, write_json
from papers_digest.core.models import DayList, FulltextDoc
from papers_digest.core.params import load_params
from papers_digest.core.store import stage_store
from papers_digest.pipeline.fulltexts import fetch_fulltexts
from papers_digest.pipeline.runner import StageClock, run_stage, stage_parser


def main() -> None:
    parser = stage_parser("fulltext", __doc__)
    parser.add_argument("--list", required=True, help="list.json from the list stage")
    parser.add_argument("--out", required=True, help="folder for one <arxiv_id>.json per paper")
    parser.add_argument("--store", required=True, help="store of fetched arXiv pages (reused across runs)")
    args = parser.parse_args()

    def body() -> None:
        clock = StageClock("fulltext", args.date)
        params = load_params(args.params)
        day = read_model(args.list, DayList)
        out = reset_folder(args.out)

        def save(doc: FulltextDoc) -> None:
            write_json(Path(out) / f"{doc.arxiv_id}.json", doc)

        docs = asyncio.run(fetch_fulltexts(params, day.picked_papers(), save, stage_store(args.store)))
        html = sum(d.source != "abstract" for d in docs)
        trimmed = sum(d.source == "trimmed" for d in docs)
        clock.write(out, papers=len(docs))
        cut = f" ({trimmed} trimmed to llm.max_input_tokens)" if trimmed else ""
        print(f"fulltext: {len(docs)} papers, {html} from arXiv HTML{cut}, {len(docs) - html} abstract only")
        for doc in docs:
            if doc.source == "abstract":
                print(f"fulltext:   {doc.arxiv_id}: abstract only: {doc.reason}")
            elif doc.source == "trimmed":
                print(f"fulltext:   {doc.arxiv_id}: {doc.tokens} tokens after dropping {', '.join(doc.dropped)}")

    run_stage("fulltext", body)


if __name__ == "__main__":
    main()
