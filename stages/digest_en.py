"""DVC stage `digest_en`: a checked English JSON digest of each paper, papers generated concurrently."""

from papers_digest.core.models import FulltextDoc
from papers_digest.pipeline.generating import stage_main

if __name__ == "__main__":
    stage_main("digest_en", __doc__, "--fulltext", "folder written by the fulltext stage", FulltextDoc)
