"""#44's targets, measured: `papers sample` on a recorded day (the bundled sample, or another listing seen as
abstracts), timed from the command's start to its end, then what readers got: how many papers ended `done`,
and for each done paper the role of the sentence each finding and the summary was written from.

    python bench/findings.py                                          # make sample's day, the offline model
    python bench/findings.py --sample-dir tests/data --date 2026-01-13  # another recorded day, as abstracts
    python bench/findings.py --smoke                                  # the same on the engine simulator

Run it alone on idle cores for timings: the real model shares the CPU with whatever else runs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from papers_devtools.testing.harness import copy_project
from papers_digest.core.artefacts import read_folder
from papers_digest.core.models import GenerationResult

ROOT = Path(__file__).resolve().parents[1]


def run_sample(args: argparse.Namespace, project: Path) -> float:
    """`papers sample` as a user runs it, in `project`; its wall time in seconds."""
    sample_dir = Path(args.sample_dir)
    command = [str(Path(sys.executable).with_name("papers")), "sample", "--sample-dir", str(ROOT / sample_dir)]
    command += ["--date", args.date, "--limit", str(args.limit)]
    command += ["--engine", "sim"] if args.smoke else ["--model", args.model]
    started = time.monotonic()
    subprocess.run(command, cwd=project, check=True, stdout=subprocess.DEVNULL if args.quiet else None)
    return time.monotonic() - started


def report(day: Path) -> list[str]:
    """The Markdown lines of what readers got on `day`: per paper its status, and per done paper the role of
    each finding's and the summary's sentence."""
    english = read_folder(day / "digest_en", GenerationResult)
    chinese = read_folder(day / "translate_zh", GenerationResult) if (day / "translate_zh").is_dir() else {}
    lines = ["| paper | English | Chinese | summary from | findings from |", "|---|---|---|---|---|"]
    for arxiv_id, result in sorted(english.items()):
        zh = chinese.get(arxiv_id)
        summary = result.sources.get("one_sentence", [])
        roles = [e[0].role or "?" for e in result.evidence if e]
        lines.append(
            f"| {arxiv_id} | {result.status} | {zh.status if zh else '—'} | "
            f"{summary[0].role if summary else '—'} | {', '.join(roles) or 'none'} |"
        )
    done = [
        r for r in english.values() if r.status == "done" and (zh := chinese.get(r.arxiv_id)) and zh.status == "done"
    ]
    findings = [e[0].role for r in done for e in r.evidence if e]
    summaries = [r.sources["one_sentence"][0].role for r in done if r.sources.get("one_sentence")]
    lines += [
        "",
        f"done in both languages: {len(done)} of {len(english)}",
        f"findings of done papers written from a result sentence: {findings.count('result')} of {len(findings)}",
        f"summaries written from a background sentence: {summaries.count('background')} of {len(summaries)}",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-dir", default="sample")
    parser.add_argument("--date", default="2025-04-03")
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--smoke", action="store_true", help="the engine simulator instead of the model (seconds)")
    parser.add_argument("--quiet", action="store_true", help="hide papers sample's own output")
    parser.add_argument("--no-run", action="store_true", help="report the day already in data/ without running")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        # the smoke runs in a copy of the project, so the suite never touches this checkout's data/
        project = copy_project(Path(scratch)) if args.smoke else ROOT
        wall = None if args.no_run else run_sample(args, project)
        engine = "the engine simulator" if args.smoke else args.model
        print(
            f"\n{args.date} from {args.sample_dir}/, limit {args.limit}, {engine}" + (f": {wall:.0f} s" if wall else "")
        )
        print("\n".join(report(project / "data" / args.date)))


if __name__ == "__main__":
    main()
