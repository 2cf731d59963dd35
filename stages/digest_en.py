"""DVC stage `digest_en`: a checked English JSON digest of each paper, papers generated concurrently."""

from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import FulltextDoc
from papers_digest.pipeline.generating import generation_parser, run_generation_command


def main() -> None:
    parser = generation_parser("digest_en", __doc__)
    parser.add_argument("--fulltext", required=True, help="folder written by the fulltext stage")
    args = parser.parse_args()
    run_generation_command("digest_en", args, lambda: read_folder(args.fulltext, FulltextDoc).values())


if __name__ == "__main__":
    main()
