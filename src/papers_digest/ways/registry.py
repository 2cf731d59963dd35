"""The registry of the ways of asking for the English digest (llm.asking), one entry each: params, the stage's
arguments, dvc.yaml's prompt dependency, the benchmarks and the docs all read it (docs/checker.md, "Ways of
asking", says how to add one)."""

from __future__ import annotations

from papers_digest.core.errors import ConfigError
from papers_digest.ways.json.asking import JSON_WAY
from papers_digest.ways.steps.asking import STEPS_WAY
from papers_digest.ways.way import Way

WAYS: dict[str, Way] = {way.name: way for way in (STEPS_WAY, JSON_WAY)}


def way_named(name: str, where: str = "params.yaml") -> Way:
    """The way llm.asking names; ConfigError in one line naming the ways otherwise."""
    way = WAYS.get(name)
    if way is None:
        raise ConfigError(f"{where}: llm.asking must be one of {', '.join(WAYS)}, got {name!r}")
    return way
