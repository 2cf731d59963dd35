"""Sentence roles on labelled abstracts: the pipeline's finding candidates and the committed classifier next to two
baselines, and its time per paper.

    python bench/roles.py --data tests/data/csabstruct/dev.jsonl --out /tmp/dev.pred.jsonl
    python bench/roles.py --smoke        # a few abstracts, a second or two: the suite runs it

Reads CSAbstruct-format JSONL (`sentences`, `labels` optional) and writes one JSON line per abstract, in order:
`{"labels": [a role per sentence], "finding_candidates": [sentence indices]}`: the committed classifier's roles and
the sentences a digest of the abstract writes its findings from (`abstract_findings`, ways/steps/outline.py: the
reader's candidates, outcomes offered, the likeliest result where they offer none, at most 3). With labels it
prints, for those candidates, for the committed model's own thresholds (papers_digest.reading), the last
sentence alone, and TF-IDF + logistic regression over words
(trained here on the train split; scikit-learn, the dev extra): precision (the share of offered candidates
labelled `result`), coverage (the share of abstracts having a result sentence for which a candidate labelled
`result` is offered), the share of those abstracts offered any candidate, and per-role accuracy (the share of
each role's sentences given that role). Then milliseconds per paper: an abstract, and each recorded full text.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papers_digest.reading.features import cue_names, position_features
from papers_digest.reading.model import role_model
from papers_digest.reading.roles import ROLES, abstract_roles, finding_candidates, fulltext_roles
from papers_digest.ways.steps.outline import abstract_findings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "csabstruct"
TRAIN, DEV = DATA / "train.jsonl", DATA / "dev.jsonl"
SMOKE_ABSTRACTS, SMOKE_TRAIN = 12, 150
BASELINE_CUT = 0.5
TIMED_RUNS = 3  # a full text's time is the least of this many readings (the machine is shared)


@dataclass(frozen=True)
class Abstract:
    sentences: list[str]
    labels: list[str] | None


@dataclass(frozen=True)
class Measured:
    """How a way of offering findings did on labelled abstracts."""

    precision: float  # offered candidates labelled result / offered candidates
    coverage: float  # abstracts with a result that were offered one / abstracts with a result
    offered_any: float  # abstracts with a result that were offered any candidate / abstracts with a result
    offered: int
    with_result: int


@dataclass(frozen=True)
class Reading:
    """What a way of reading produced for each abstract: a role per sentence and the finding candidates."""

    labels: list[list[str]]
    candidates: list[list[int]]


def load_abstracts(path: Path) -> list[Abstract]:
    """CSAbstruct-format JSONL: one abstract a line, `sentences` and, when labelled, `labels`."""
    abstracts = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        labels = row.get("labels")
        if labels is not None and len(labels) != len(row["sentences"]):
            sys.exit(f"{path}:{n}: {len(labels)} labels for {len(row['sentences'])} sentences")
        abstracts.append(Abstract(sentences=list(row["sentences"]), labels=labels))
    return abstracts


def precision_coverage(labels: Sequence[Sequence[str]], offered: Sequence[Sequence[int]]) -> Measured:
    """Precision and coverage of the offered candidates against the labels (see the module's docstring)."""
    right = sum(labels[k][i] == "result" for k, picked in enumerate(offered) for i in picked)
    count = sum(len(picked) for picked in offered)
    having = [k for k, abstract in enumerate(labels) if "result" in abstract]
    covered = sum(any(labels[k][i] == "result" for i in offered[k]) for k in having)
    return Measured(
        precision=right / count if count else 0.0,
        coverage=covered / len(having) if having else 0.0,
        offered_any=sum(bool(offered[k]) for k in having) / len(having) if having else 0.0,
        offered=count,
        with_result=len(having),
    )


def per_role_accuracy(labels: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict[str, float]:
    """For each role, the share of the sentences labelled with it that were given it; `all` over every sentence."""
    pairs = [(gold, guess) for g, p in zip(labels, predicted, strict=True) for gold, guess in zip(g, p, strict=True)]
    shares = {}
    for role in ROLES:
        given = [guess for gold, guess in pairs if gold == role]
        shares[role] = sum(guess == role for guess in given) / len(given) if given else float("nan")
    shares["all"] = sum(gold == guess for gold, guess in pairs) / len(pairs)
    return shares


def read_pipeline(abstracts: Sequence[Abstract]) -> Reading:
    """The committed classifier's roles, and the candidates a digest of each abstract writes its findings from."""
    return Reading(
        [[r.role for r in abstract_roles(a.sentences)] for a in abstracts],
        [abstract_findings(a.sentences) for a in abstracts],
    )


def read_committed(abstracts: Sequence[Abstract], **rule: Any) -> Reading:
    """The committed classifier (papers_digest.reading), its candidates by `rule` (finding_candidates' keywords;
    none: the model's own thresholds)."""
    roles = [abstract_roles(a.sentences) for a in abstracts]
    return Reading([[r.role for r in rs] for rs in roles], [finding_candidates(rs, **rule) for rs in roles])


def read_last_sentence(abstracts: Sequence[Abstract]) -> Reading:
    """The last sentence is the finding (and a result); every other sentence is background."""
    return Reading(
        [["background"] * (len(a.sentences) - 1) + ["result"] for a in abstracts],
        [[len(a.sentences) - 1] for a in abstracts],
    )


def tfidf_reader(train: Sequence[Abstract], context: bool) -> Callable[[Sequence[Abstract]], Reading]:
    """TF-IDF over words (and pairs of words) and a multinomial logistic regression, trained on `train`; with
    `context` also the neighbours' words, the sentence's place and its cue phrases (the issue's quick try); the
    candidates are its sentences whose result probability reaches BASELINE_CUT, at most 3."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True).fit(
        [s for a in train for s in a.sentences]
    )
    extras = DictVectorizer().fit([row for a in train for row in _place_and_cues(a.sentences)])

    def matrix(abstracts: Sequence[Abstract]) -> Any:
        parts = [words.transform([s for a in abstracts for s in a.sentences])]
        if context:
            for offset in (-1, 1):
                parts.append(
                    words.transform(
                        [_neighbour(a.sentences, i, offset) for a in abstracts for i in range(len(a.sentences))]
                    )
                )
            parts.append(extras.transform([row for a in abstracts for row in _place_and_cues(a.sentences)]))
        return hstack(parts).tocsr()

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # on a few thousand sentences BLAS threads only fight each other (3 s against 20)
        regression = LogisticRegression(max_iter=3000).fit(
            matrix(train), [label for a in train for label in a.labels or []]
        )

    result = list(regression.classes_).index("result")

    def read(abstracts: Sequence[Abstract]) -> Reading:
        probs = regression.predict_proba(matrix(abstracts))
        labels, candidates, start = [], [], 0
        for a in abstracts:
            rows = probs[start : start + len(a.sentences)]
            labels.append([str(regression.classes_[int(row.argmax())]) for row in rows])
            candidates.append(_baseline_candidates([float(row[result]) for row in rows]))
            start += len(a.sentences)
        return Reading(labels, candidates)

    return read


def _baseline_candidates(scores: list[float]) -> list[int]:
    """A baseline's candidates: its sentences whose result probability is at least BASELINE_CUT, most probable
    first, at most 3 ."""
    return sorted((i for i, p in enumerate(scores) if p >= BASELINE_CUT), key=lambda i: -scores[i])[:3]


def _neighbour(sentences: Sequence[str], i: int, offset: int) -> str:
    j = i + offset
    return sentences[j] if 0 <= j < len(sentences) else ""


def _place_and_cues(sentences: Sequence[str]) -> list[dict[str, float]]:
    rows = []
    for i, sentence in enumerate(sentences):
        row = position_features(i, len(sentences))
        row.update({f"cue={c}": 1.0 for c in cue_names(sentence)})
        rows.append(row)
    return rows


def ms_per_abstract(abstracts: Sequence[Abstract]) -> float:
    """Median milliseconds to read one abstract and pick its candidates (the model already loaded)."""
    times = []
    for a in abstracts:
        started = time.perf_counter()
        finding_candidates(abstract_roles(a.sentences))
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def ms_per_fulltext() -> list[tuple[str, int, float]]:
    """(page, sentences, milliseconds) to read each recorded full text (tests/data/arxiv and the sample's): the
    least of TIMED_RUNS readings."""
    sys.path.insert(0, str(ROOT / "bench"))
    from common import PAGES

    from papers_digest.core.models import Paper
    from papers_digest.sources.arxiv import doc_from_page
    from papers_digest.sources.latexml import parse_latexml

    rows = []
    for path in PAGES:
        url = f"https://arxiv.org/html/{path.stem}"
        page = parse_latexml(path.read_bytes(), url=url)
        doc = doc_from_page(Paper(arxiv_id=path.stem.split("v")[0], title=page.title or path.stem), page, url)
        times = []
        for _ in range(TIMED_RUNS):
            started = time.perf_counter()
            read = fulltext_roles(doc)
            times.append((time.perf_counter() - started) * 1000)
        rows.append((path.stem, len(read), min(times)))
    return rows


def write_predictions(path: Path, reading: Reading) -> None:
    with path.open("w", encoding="utf-8") as out:
        for labels, candidates in zip(reading.labels, reading.candidates, strict=True):
            out.write(json.dumps({"labels": labels, "finding_candidates": candidates}) + "\n")


def print_table(abstracts: Sequence[Abstract], readings: dict[str, Reading]) -> None:
    gold = [a.labels or [] for a in abstracts]
    print(f"{len(abstracts)} abstracts, {sum(map(len, gold))} sentences, "
          f"{sum('result' in g for g in gold)} with a result sentence")  # fmt: skip
    header = ["reader", "precision", "coverage", "offered any", "candidates", *ROLES, "all roles"]
    print(" | ".join(header))
    for name, reading in readings.items():
        m = precision_coverage(gold, reading.candidates)
        acc = per_role_accuracy(gold, reading.labels)
        cells = [f"{m.precision:.3f}", f"{m.coverage:.3f}", f"{m.offered_any:.3f}", str(m.offered)]
        print(" | ".join([name, *cells, *(f"{acc[r]:.3f}" for r in ROLES), f"{acc['all']:.3f}"]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEV, help="CSAbstruct-format JSONL")
    parser.add_argument("--out", type=Path, help="where to write the predictions (JSON lines)")
    parser.add_argument("--train", type=Path, default=TRAIN, help="the baseline's training data")
    parser.add_argument("--smoke", action="store_true", help=f"the first {SMOKE_ABSTRACTS} abstracts only")
    parser.add_argument(
        "--baselines", action="store_true", help="train the TF-IDF baselines and time full texts too (about 20 s)"
    )
    args = parser.parse_args(argv)
    abstracts = load_abstracts(args.data)
    train = load_abstracts(args.train) if args.baselines else []
    if args.smoke:
        abstracts, train = abstracts[:SMOKE_ABSTRACTS], train[:SMOKE_TRAIN]
    ours = read_pipeline(abstracts)
    out = args.out or Path(tempfile.mkdtemp()) / "predictions.jsonl"
    write_predictions(out, ours)
    print(f"wrote {out}")
    if all(a.labels is not None for a in abstracts):
        coverage_first = role_model().trained.get("coverage_first", {})
        readings = {
            "the pipeline's candidates (written to --out)": ours,
            "committed model": read_committed(abstracts),
            "committed model, outcomes offered too": read_committed(abstracts, outcomes=True),
            "committed model, coverage-first thresholds": read_committed(abstracts, **coverage_first),
            "last sentence": read_last_sentence(abstracts),
        }
        if args.baselines:  # trained here on the train split: most of the bench's time
            readings["TF-IDF + LR, words"] = tfidf_reader(train, context=False)(abstracts)
            readings["TF-IDF + LR, words, place, cues, neighbours"] = tfidf_reader(train, context=True)(abstracts)
        print_table(abstracts, readings)
    print(f"ms per abstract (median of {len(abstracts)}): {ms_per_abstract(abstracts):.2f}")
    for page, sentences, ms in ms_per_fulltext()[: 1 if args.smoke else None] if args.baselines else ():
        print(f"ms per full text {page} ({sentences} sentences): {ms:.1f}")


if __name__ == "__main__":
    main()
