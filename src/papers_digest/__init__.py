"""papers-digest: daily arXiv paper digests as a DVC pipeline."""

__version__ = "0.1.0"
