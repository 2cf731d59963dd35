"""Benchmarks: generation throughput against the batching simulator, no-op reruns, parser, memory, the archive.

Run `make bench` (`TQDM_DISABLE=1 .venv/bin/python bench/run.py`) from the repository root. Everything runs on
127.0.0.1; numbers are measured side by side in one run and printed as Markdown tables. `--smoke` runs every part
at its smallest (seconds; tests/test_benches.py runs it), `--profile` adds where the client's time goes.
"""

from __future__ import annotations

import argparse
import os

from archive import archive_publish
from common import DATE, ROOT
from pipeline_costs import noop_repro, parser_speed, peak_memory
from throughput import throughput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--time-scale", type=float, default=0.01, help="wall seconds per simulated second")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 3, 8])
    parser.add_argument("--memory-papers", type=int, default=50)
    parser.add_argument("--archive-days", type=int, default=365)
    parser.add_argument("--archive-date", default=DATE, help="the day published into the archive (its last)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["throughput", "noop", "parser", "memory", "archive"])
    parser.add_argument("--profile", action="store_true", help="the client's time by function (needs pyinstrument)")
    parser.add_argument("--smoke", action="store_true", help="every part at its smallest, in seconds")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.smoke:
        args.papers, args.concurrency, args.memory_papers, args.archive_days = 2, [1, 2], 2, 3
    repeats = 1 if args.smoke else 5
    if "throughput" not in args.skip:
        throughput(args.papers, args.time_scale, args.concurrency, profile=args.profile)
    if "noop" not in args.skip:
        noop_repro(repeats)
    if "parser" not in args.skip:
        parser_speed(repeats)
    if "memory" not in args.skip:
        peak_memory(args.memory_papers)
    if "archive" not in args.skip:
        # smoke: as bench/archive.py --smoke, each publish once and no rebuild (thrice and rebuilt: 28 of its 72 CPU s)
        if args.smoke:
            archive_publish(args.archive_days, papers=2, date=args.archive_date, repeats=1, rebuild=False)
        else:
            archive_publish(args.archive_days, papers=20, date=args.archive_date)


if __name__ == "__main__":
    main()
