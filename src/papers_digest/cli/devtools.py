"""The one seam to the development tools (papers_devtools: the engine simulator, the HF/arXiv replay).

They are a distribution of their own (devtools/), so `pip install .` ships only what runs and pulls neither
starlette nor uvicorn. `papers sample` and `papers dev` import them here, when they run, never at import time;
without them a command ends with one line saying how to install them (tests/test_architecture.py checks that
no other module of the package imports them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from papers_digest.core.errors import ConfigError

INSTALL = "pip install -e ./devtools in the repository (make setup installs it)"
# What an ImportError names when the tools, or the servers they run on, are not installed.
DEVTOOLS_MODULES = ("papers_devtools", "starlette", "uvicorn")


class DevToolsMissing(ConfigError):
    """The development tools are not installed; the command says how to install them."""


@dataclass(frozen=True)
class DevServers:
    """The local servers of the development tools, as the commands use them."""

    replay: Callable[..., Any]  # papers_devtools.sim.replay.Replay
    engine_sim: Callable[..., Any]  # papers_devtools.sim.routes.EngineSim
    batching_config: Callable[..., Any]  # papers_devtools.sim.batching.BatchingConfig
    background_server: Callable[..., Any]  # papers_devtools.sim.serve.BackgroundServer
    serve_forever: Callable[[Any, int], None]  # papers_devtools.sim.serve.serve_forever


def dev_servers(what: str) -> DevServers:
    """The simulator's and the replay's classes; `what` names what needs them, for the one-line error."""
    try:
        from papers_devtools.sim.batching import BatchingConfig
        from papers_devtools.sim.replay import Replay
        from papers_devtools.sim.routes import EngineSim
        from papers_devtools.sim.serve import BackgroundServer, serve_forever
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] not in DEVTOOLS_MODULES:
            raise
        raise DevToolsMissing(
            f"{what} needs papers-digest's development tools ({missing.name} is not installed): {INSTALL}"
        ) from None
    return DevServers(Replay, EngineSim, BatchingConfig, BackgroundServer, serve_forever)
