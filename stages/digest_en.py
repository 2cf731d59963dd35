"""DVC stage `digest_en`: a checked English JSON digest of each paper, papers generated concurrently."""

from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import FulltextDoc
from papers_digest.pipeline.generating import generation_parser, run_generation_stage
from papers_digest.pipeline.runner import run_stage


def main() -> None:
    parser = generation_parser("digest_en", __doc__)
    parser.add_argument("--fulltext", required=True, help="folder written by the fulltext stage")
    args = parser.parse_args()
    run_stage(
        "digest_en",
        lambda: run_generation_stage(
            "digest_en",
            date=args.date,
            params_path=args.params,
            prompt_path=args.prompt,
            out=args.out,
            store_path=args.store,
            load_inputs=lambda: read_folder(args.fulltext, FulltextDoc).values(),
        ),
    )


if __name__ == "__main__":
    main()
