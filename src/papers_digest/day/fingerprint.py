"""What a day's publish is made from, as one hash: its input files, the code that publishes them, its options."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # src/papers_digest


def publish_fingerprint(
    inputs: Iterable[str | Path], code: Iterable[str | Path] = (PACKAGE,), options: str = ""
) -> str:
    """sha256 over every file of `inputs` and `code` (its name under its root, then its bytes) and `options`.

    The code is the whole package, so any change to it publishes again, as DVC reruns a stage whose code
    changed; a missing input counts as missing, not as empty (docs/architecture.md, "The database and the site").
    """
    digest = hashlib.sha256(options.encode())
    for root in map(Path, [*inputs, *code]):
        if not root.exists():
            digest.update(f"missing {root.name}\0".encode())
            continue
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in files:
            if file.suffix == ".pyc":
                continue
            digest.update(f"{root.name}/{file.relative_to(root) if root.is_dir() else ''}\0".encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()
