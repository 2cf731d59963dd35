"""Train the sentence-role classifier on CSAbstruct's train split and write `reading/roles_model.json`.

    python bench/train_roles.py   # --data and --out default to the train split and the package's model file

Three layers of one-against-the-rest logistic regressions with an L1 penalty (scikit-learn's liblinear, the dev extra; reading them
needs none of it): the sentence layer over an abstract's sentences (words, pairs of words, cue phrases, place,
neighbours' cues), the context layer over the sentence layer's probabilities of each sentence and its neighbours,
and the body layer over a sentence alone, for a full text's sections. Every setting is chosen by 5-fold
cross-validation on the train split, folds by abstract (abstract i in fold i mod 5), never on dev: each layer's C,
then the candidate thresholds, the loosest whose cross-validated precision stays >= PRECISION_GOAL. The context
layer is fitted on the sentence layer's out-of-fold probabilities, as it meets unseen abstracts when reading.
Deterministic: the same data and library versions give the same file, byte for byte (docs/reading.md, "Training").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from roles import ROOT, TRAIN, Abstract, load_abstracts, precision_coverage

from papers_digest.reading.features import Features, abstract_features, context_features, sentence_features
from papers_digest.reading.model import MODEL_FILE, layer_json
from papers_digest.reading.roles import ROLES, SentenceRole, finding_candidates, roles_from_scores

OUT = ROOT / "src" / "papers_digest" / "reading" / MODEL_FILE
FOLDS = 5
C_GRID = (0.1, 0.3, 1.0)
MIN_COUNT = (
    5  # a word feature seen fewer times in the train split is left out (as good in cross-validation, 1/10 the size)
)
PRECISION_GOAL = 0.88  # the 0.85 and a margin: the test split is not the train split
MOST_CANDIDATES = 3
COVERAGE_AT = 0.75  # a layer's C is the one whose best-sentence-per-abstract precision is highest at this coverage


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=TRAIN)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    abstracts = load_abstracts(args.data)
    model = train(abstracts, source=args.data)
    args.out.write_text(json.dumps(model, indent=None, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")


def train(abstracts: list[Abstract], source: Path) -> dict[str, Any]:
    """The model file's content, every choice made by cross-validation on `abstracts`."""
    labels = np.array([ROLES.index(label) for a in abstracts for label in a.labels])
    group = np.array([k for k, a in enumerate(abstracts) for _ in a.sentences])
    fold = group % FOLDS
    first_rows = _kept([row for a in abstracts for row in abstract_features(a.sentences)])
    body_rows = _kept([sentence_features(s) for a in abstracts for s in a.sentences])

    c_sentence, first_pass = _choose_c("sentence", first_rows, labels, fold, abstracts, group)
    context_rows = [
        row for k in range(len(abstracts)) for row in context_features(first_pass[group == k].tolist(), ROLES)
    ]
    c_context, second_pass = _choose_c("context", context_rows, labels, fold, abstracts, group)
    c_body = _choose_body_c(body_rows, labels, fold)
    read = [roles_from_scores(a.sentences, second_pass[group == k].tolist()) for k, a in enumerate(abstracts)]
    first, more = _choose_thresholds(abstracts, read)
    precision, coverage = _measure(abstracts, read, first, more)
    print(f"candidates: first >= {first:.2f}, more >= {more:.2f}: cross-validated precision {precision:.3f}, "
          f"coverage {coverage:.3f}")  # fmt: skip

    import sklearn

    return {
        "roles": list(ROLES),
        "layers": {
            "sentence": _fit_layer(first_rows, labels, c_sentence),
            "context": _fit_layer(context_rows, labels, c_context),
            "body": _fit_layer(body_rows, labels, c_body),
        },
        "base_rates": [round(float((labels == k).mean()), 4) for k in range(len(ROLES))],
        "candidates": {"first": first, "more": more, "most": MOST_CANDIDATES},
        "trained": {
            "data": source.resolve().relative_to(ROOT).as_posix()
            if source.resolve().is_relative_to(ROOT)
            else str(source),
            "data_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
            "abstracts": len(abstracts),
            "sentences": len(labels),
            "c": {"sentence": c_sentence, "context": c_context, "body": c_body},
            "min_count": MIN_COUNT,
            "cross_validated": {"precision": round(precision, 4), "coverage": round(coverage, 4), "folds": FOLDS},
            "scikit_learn": sklearn.__version__,
        },
    }


def _kept(rows: list[Features]) -> list[Features]:
    """Rows without the indicator features seen fewer than MIN_COUNT times (numeric ones are always kept)."""
    counts = Counter(name for row in rows for name in row)
    return [{k: v for k, v in row.items() if counts[k] >= MIN_COUNT or v != 1.0} for row in rows]


def _choose_c(
    name: str, rows: list[Features], labels: np.ndarray, fold: np.ndarray, abstracts: list[Abstract], group: np.ndarray
) -> tuple[float, np.ndarray]:
    """The C whose out-of-fold result scores give the best precision at COVERAGE_AT, and those out-of-fold
    probabilities (every role's)."""
    best: tuple[float, float, np.ndarray] | None = None
    for c in C_GRID:
        probs = _out_of_fold(rows, labels, fold, c)
        scores = [probs[group == k, ROLES.index("result")].tolist() for k in range(len(abstracts))]
        precision = _precision_at_coverage(abstracts, scores, COVERAGE_AT)
        accuracy = float((probs.argmax(axis=1) == labels).mean())
        print(f"{name} layer C={c}: precision {precision:.3f} at coverage {COVERAGE_AT}, accuracy {accuracy:.3f}")
        if best is None or precision > best[1]:
            best = (c, precision, probs)
    assert best is not None
    return best[0], best[2]


def _choose_body_c(rows: list[Features], labels: np.ndarray, fold: np.ndarray) -> float:
    """The body layer's C: the best cross-validated accuracy over every role (it reads sentences alone)."""
    accuracy = {c: float((_out_of_fold(rows, labels, fold, c).argmax(axis=1) == labels).mean()) for c in C_GRID}
    print("body layer accuracy by C: " + ", ".join(f"C={c}: {a:.3f}" for c, a in accuracy.items()))
    return max(C_GRID, key=lambda c: accuracy[c])


def _out_of_fold(rows: list[Features], labels: np.ndarray, fold: np.ndarray, c: float) -> np.ndarray:
    from sklearn.feature_extraction import DictVectorizer

    matrix = DictVectorizer().fit_transform(rows).tocsr()
    probs = np.zeros((len(labels), len(ROLES)))
    for f in range(FOLDS):
        fit, held = fold != f, fold == f
        for k in range(len(ROLES)):
            probs[held, k] = _regression(matrix[fit], labels[fit] == k, c).predict_proba(matrix[held])[:, 1]
    return probs


def _regression(matrix: Any, target: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression

    # liblinear wants 32-bit indices; slicing a CSR matrix gives them
    # an L1 penalty keeps a few hundred features per role (as good as L2 over all of them in cross-validation)
    regression = LogisticRegression(C=c, solver="liblinear", l1_ratio=1.0, random_state=0)
    return regression.fit(matrix[np.arange(matrix.shape[0])], target)


def _fit_layer(rows: list[Features], labels: np.ndarray, c: float) -> dict[str, Any]:
    """One regression per role on every row, stored as a bias and a weight row per feature."""
    from sklearn.feature_extraction import DictVectorizer

    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform(rows).tocsr()
    fitted = [_regression(matrix, labels == k, c) for k in range(len(ROLES))]
    names = vectorizer.get_feature_names_out()
    weights = np.array([m.coef_[0] for m in fitted]).T  # features x roles
    return layer_json([float(m.intercept_[0]) for m in fitted], dict(zip(names, weights.tolist(), strict=True)))


def _precision_at_coverage(abstracts: list[Abstract], scores: list[list[float]], coverage: float) -> float:
    """Offering each abstract's best sentence from the highest score down: the precision when `coverage` of the
    abstracts that have a result first have a result offered."""
    tops = sorted(
        ((max(s), a.labels[int(np.argmax(s))] == "result") for a, s in zip(abstracts, scores, strict=True)),
        key=lambda t: -t[0],
    )
    having = sum("result" in a.labels for a in abstracts)
    right = 0
    for offered, (_, is_result) in enumerate(tops, start=1):
        right += is_result
        if right >= coverage * having:
            return right / offered
    return right / len(tops)


def _choose_thresholds(abstracts: list[Abstract], read: list[list[SentenceRole]]) -> tuple[float, float]:
    """The (first, more) covering the most abstracts with a cross-validated precision >= PRECISION_GOAL."""
    # each abstract's three best offered scores (a sentence not read as a result offers 0) and whether each is a result
    top = np.zeros((len(read), MOST_CANDIDATES))
    right = np.zeros((len(read), MOST_CANDIDATES), dtype=bool)
    for k, (abstract, roles) in enumerate(zip(abstracts, read, strict=True)):
        offered = finding_candidates(roles, first=0.0, more=0.0, most=MOST_CANDIDATES)
        for j, i in enumerate(offered):
            top[k, j] = roles[i].result_score if roles[i].role == "result" else 0.0
            right[k, j] = abstract.labels[i] == "result"
    having = np.array(["result" in a.labels for a in abstracts])
    grid = [round(float(x), 2) for x in np.arange(0.30, 1.0, 0.01)]
    best: tuple[float, float, float, float] | None = None  # coverage, precision, first, more
    for first in grid:
        shown = top[:, 0] >= first
        for more in (m for m in grid if m >= first):
            mask = np.column_stack([shown, shown & (top[:, 1] >= more), shown & (top[:, 2] >= more)]) & (top > 0)
            if not mask.any():
                continue
            precision = float((mask & right).sum() / mask.sum())
            coverage = float(((mask & right).any(axis=1) & having).sum() / having.sum())
            if precision >= PRECISION_GOAL and (best is None or (coverage, precision) > best[:2]):
                best = (coverage, precision, first, more)
    if best is None:
        sys.exit(f"no thresholds reach precision {PRECISION_GOAL} in cross-validation")
    return best[2], best[3]


def _measure(
    abstracts: list[Abstract], read: list[list[SentenceRole]], first: float, more: float
) -> tuple[float, float]:
    offered = [finding_candidates(roles, first=first, more=more, most=MOST_CANDIDATES) for roles in read]
    measured = precision_coverage([a.labels for a in abstracts], offered)
    return measured.precision, measured.coverage


if __name__ == "__main__":
    main()
