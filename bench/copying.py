"""How many of the paper's words in a row a careful summary keeps: the measure behind the checker's `copied` bound.

    python bench/copying.py            # every recorded listing: tests/data/hf (the shared fixtures') and sample/hf
    python bench/copying.py --smoke    # the sample day's listing: the suite runs it

Careful summaries: Hugging Face's one-line `ai_summary` of a paper and the paper's own title, each against its
abstract (an `ai_summary` over MAX_SUMMARY_WORDS words is not a one-line summary: one listing item repeats its
abstract). Copies the checker must keep rejecting: the fields of the sample day's bad digests
(tests/data/checker/sample_bad_digests.json) against the text the model was given. For each, the longest run of
consecutive words shared with the paper (checker/passages.py, the checker's own count), how much of a run is
names and figures, and what each way of bounding runs would reject (docs/reading.md, "Copying").
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from papers_digest.checker.passages import PaperWords
from papers_digest.checker.substance import COPY_WORDS

ROOT = Path(__file__).resolve().parents[1]
LISTINGS = [*sorted((ROOT / "tests" / "data" / "hf").glob("*.json")), *sorted((ROOT / "sample" / "hf").glob("*.json"))]
BAD = ROOT / "tests" / "data" / "checker" / "sample_bad_digests.json"
R1_PAGE = ROOT / "sample" / "arxiv" / "2503.20783v2.html"
MAX_SUMMARY_WORDS = 60
BINS = [(0, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 19), (20, 10_000)]
_TOKEN_RE = re.compile(r"[A-Za-z0-9]+")
# A name or a figure: a digit, a capital after the first letter (MergeVQ, GitHub, LLMs), or a capitalised word that
# does not open its text.
_NAME_RE = re.compile(r"\d|^[A-Za-z]+[A-Z]|^[A-Z]")


@dataclass(frozen=True)
class Pair:
    """A text that sums a paper up (or copies it), and the paper's words it is checked against."""

    source: str
    paper: str
    text: str
    against: str


@dataclass(frozen=True)
class Copy:
    """The longest run of the paper's words in a text: its length, its words as the text writes them, and how
    many of them are names or figures."""

    length: int
    words: str
    names: int
    weight: float = 0.0  # the checker's weighing (checker/passages.py): names, figures, lists half, a compound once

    @property
    def weighted(self) -> float:
        """The run's length with its names and figures counted half (the bound this benchmark weighs)."""
        return self.length - self.names / 2


def careful_pairs(listings: Sequence[Path]) -> Iterator[Pair]:
    """Each paper once: its `ai_summary` and its title, against its abstract."""
    seen: set[str] = set()
    for listing in listings:
        for item in json.loads(listing.read_text(encoding="utf-8")):
            paper = item.get("paper") or {}
            abstract = " ".join((paper.get("summary") or "").split())
            if not abstract or paper.get("id") in seen:
                continue
            seen.add(paper["id"])
            summary = " ".join((paper.get("ai_summary") or "").split())
            if summary and len(summary.split()) <= MAX_SUMMARY_WORDS:
                yield Pair("HF ai_summary", paper["id"], summary, abstract)
            yield Pair("title", paper["id"], " ".join(paper["title"].split()), abstract)


def bad_pairs() -> Iterator[Pair]:
    """The prose fields of the sample day's bad digests, against the text the model was given."""
    from papers_digest.sources.latexml import parse_latexml

    listing = json.loads((ROOT / "sample" / "hf" / "2025-04-03.json").read_text(encoding="utf-8"))
    texts = {item["paper"]["id"]: " ".join(item["paper"]["summary"].split()) for item in listing}
    texts["2503.20783"] = parse_latexml(R1_PAGE.read_bytes(), url="https://arxiv.org/html/2503.20783v2").text
    for paper, entry in json.loads(BAD.read_text(encoding="utf-8")).items():
        digest = entry["digest"]
        fields = [digest.get(k) or "" for k in ("one_sentence", "problem", "method")]
        fields += [r["finding"] for r in digest.get("results", [])]
        for text in fields:
            if text:
                yield Pair("bad digest field", paper, text, texts[paper])


def longest_copy(pair: Pair) -> Copy:
    """The longest run of `pair.against`'s words in `pair.text` (the checker's count), with its original words."""
    runs = PaperWords.of(pair.against).runs(pair.text)
    if not runs:
        return Copy(0, "", 0, 0.0)
    run = runs[0]
    tokens = [m.group(0) for m in _TOKEN_RE.finditer(pair.text)]
    kept = tokens[run.start : run.start + run.length]
    names = sum(1 for i, t in enumerate(kept) if _NAME_RE.search(t[1:] if run.start + i == 0 else t) or t.isdigit())
    return Copy(run.length, " ".join(kept), names, run.weight)


def print_tables(measured: list[tuple[Pair, Copy]]) -> None:
    sources = list(dict.fromkeys(p.source for p, _ in measured))
    print("longest run of the paper's words, per text:")
    print(" | ".join(["source", "texts", *(f"{a}-{b}" if b < 10_000 else f"{a}+" for a, b in BINS), "median", "max"]))
    for source in sources:
        lengths = [c.length for p, c in measured if p.source == source]
        counts = [sum(a <= n <= b for n in lengths) for a, b in BINS]
        cells = [str(len(lengths)), *map(str, counts), f"{statistics.median(lengths):g}", str(max(lengths))]
        print(" | ".join([source, *cells]))
    print("\ncareful summaries' runs of 6 words or more (names and figures of the run):")
    for pair, copy in sorted(measured, key=lambda m: -m[1].length):
        if pair.source != "bad digest field" and copy.length >= 6:
            print(f"{copy.length:>3} | {copy.names} | {pair.source} {pair.paper} | {copy.words}")
    print("\nshare of texts each bound rejects:")
    print(" | ".join(["bound", *sources]))
    bounds = [(f"run >= {n}", lambda c, n=n: c.length >= n) for n in (8, 10, COPY_WORDS, 14)]
    bounds.append((f"run >= {COPY_WORDS}, names and figures counted half", lambda c: c.weighted >= COPY_WORDS))
    bounds.append(
        (f"run >= {COPY_WORDS}, the checker's: names and lists half, a compound once", lambda c: c.weight >= COPY_WORDS)
    )
    for name, rejects in bounds:
        shares = []
        for source in sources:
            copies = [c for p, c in measured if p.source == source]
            shares.append(f"{sum(map(rejects, copies))}/{len(copies)}")
        print(" | ".join([name, *shares]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="the sample day's listing and the bad digests only")
    args = parser.parse_args(argv)
    listings = [ROOT / "sample" / "hf" / "2025-04-03.json"] if args.smoke else LISTINGS
    pairs = [*careful_pairs(listings), *bad_pairs()]
    print_tables([(pair, longest_copy(pair)) for pair in pairs])


if __name__ == "__main__":
    main()
