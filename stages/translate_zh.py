"""DVC stage `translate_zh`: a checked Chinese translation of each English digest, generated concurrently."""

from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import GenerationResult
from papers_digest.pipeline.generating import generation_parser, run_generation_stage
from papers_digest.pipeline.runner import run_stage


def main() -> None:
    parser = generation_parser("translate_zh", __doc__)
    parser.add_argument("--digests", required=True, help="folder written by the digest_en stage")
    args = parser.parse_args()
    run_stage(
        "translate_zh",
        lambda: run_generation_stage(
            "translate_zh",
            date=args.date,
            params_path=args.params,
            prompt_path=args.prompt,
            out=args.out,
            store_path=args.store,
            load_inputs=lambda: read_folder(args.digests, GenerationResult).values(),
        ),
    )


if __name__ == "__main__":
    main()
