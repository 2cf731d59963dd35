"""DVC stage `translate_zh`: a checked Chinese translation of each English digest, generated concurrently."""

from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import GenerationResult
from papers_digest.pipeline.generating import generation_parser, run_generation_command


def main() -> None:
    parser = generation_parser("translate_zh", __doc__)
    parser.add_argument("--digests", required=True, help="folder written by the digest_en stage")
    args = parser.parse_args()
    run_generation_command("translate_zh", args, lambda: read_folder(args.digests, GenerationResult).values())


if __name__ == "__main__":
    main()
