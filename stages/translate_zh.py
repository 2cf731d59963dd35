"""DVC stage `translate_zh`: a checked Chinese translation of each English digest, generated concurrently."""

from papers_digest.core.models import GenerationResult
from papers_digest.pipeline.generating import stage_main

if __name__ == "__main__":
    stage_main("translate_zh", __doc__, "--digests", "folder written by the digest_en stage", GenerationResult)
