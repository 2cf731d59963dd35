"""`papers`: the daily job, managed engine runs, the offline sample day, local servers, rebuilding the views."""

from __future__ import annotations

import argparse
import sys

from papers_digest.cli import data, runs, sample, servers
from papers_digest.core.errors import PipelineError


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="papers", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (runs, sample, data, servers):
        group.register(sub)
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except PipelineError as exc:
        print(f"papers {args.command}: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: cleanup (engine stopped, params.yaml restored) ran on the way
        print(f"papers {args.command}: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
