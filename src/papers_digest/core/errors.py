"""The expected failures: a stage or command prints one line for them (no traceback) and exits non-zero."""

from __future__ import annotations


class PipelineError(Exception):
    """Something a person must fix or wait out; the message is one line that says what and where."""

    exit_code = 1
    label = "error: "  # printed before the message: `list: error: HF API answered HTTP 503 …`


class ConfigError(PipelineError):
    """Configuration that cannot work (a bad param, an endpoint that is unreachable or refuses the key)."""

    exit_code = 2
    label = ""
