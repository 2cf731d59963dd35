"""DVC stage `digest_en`: a checked English JSON digest of each paper, papers generated concurrently."""

from papers_digest.pipeline.digesting import run_digest_command

if __name__ == "__main__":
    run_digest_command(doc=__doc__)
