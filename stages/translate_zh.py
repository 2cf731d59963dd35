"""DVC stage `translate_zh`: a checked Chinese translation of each English digest, generated concurrently."""

from papers_digest.pipeline.translating import run_translation_command

if __name__ == "__main__":
    run_translation_command(doc=__doc__)
