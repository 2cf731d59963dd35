"""The role classifier's weights (`roles_model.json`, written by bench/train_roles.py), read once, and the
arithmetic that applies them: plain Python, a few hundred multiplications a sentence (docs/reading.md,
"The model")."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from papers_digest.reading.features import Features

MODEL_FILE = "roles_model.json"


@dataclass(frozen=True)
class LinearLayer:
    """One logistic regression per role (one against the rest): a bias and a weight per feature for each role."""

    bias: tuple[float, ...]
    weights: dict[str, tuple[float, ...]]

    def probabilities(self, features: Features) -> list[float]:
        """Each role's probability for one sentence's features (each against the rest, so they need not sum to 1);
        a feature the layer never saw in training counts for nothing."""
        totals = list(self.bias)
        for name, value in features.items():
            row = self.weights.get(name)
            if row is not None:
                for k, w in enumerate(row):
                    totals[k] += w * value
        return [_sigmoid(t) for t in totals]


@dataclass(frozen=True)
class RoleModel:
    """The committed classifier: the roles it tells apart, its three layers (an abstract's sentences, the second
    reading in context, a full text's sentences without an abstract's positions), how often each role occurs in
    the training abstracts, and where a sentence becomes a finding candidate."""

    roles: tuple[str, ...]
    sentence: LinearLayer
    context: LinearLayer
    body: LinearLayer
    base_rates: tuple[float, ...]
    first_candidate: float  # the best sentence of an abstract is offered from this result score
    more_candidates: float  # any further sentence from this one
    most_candidates: int
    trained: dict[str, Any]  # what it was trained on and how it scored in cross-validation


@cache
def role_model() -> RoleModel:
    """The committed model, read once per process."""
    text = resources.files("papers_digest.reading").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return model_from_json(json.loads(text))


def model_from_json(data: dict[str, Any]) -> RoleModel:
    """A model from the JSON object bench/train_roles.py writes."""
    candidates = data["candidates"]
    return RoleModel(
        roles=tuple(data["roles"]),
        sentence=_layer(data["layers"]["sentence"]),
        context=_layer(data["layers"]["context"]),
        body=_layer(data["layers"]["body"]),
        base_rates=tuple(data["base_rates"]),
        first_candidate=float(candidates["first"]),
        more_candidates=float(candidates["more"]),
        most_candidates=int(candidates["most"]),
        trained=data.get("trained", {}),
    )


def layer_json(bias: Sequence[float], weights: dict[str, Sequence[float]], digits: int = 4) -> dict[str, Any]:
    """A layer as the model file stores it: weights rounded, features whose weights all round to 0 left out."""
    rounded = {name: [round(w, digits) for w in row] for name, row in sorted(weights.items())}
    return {
        "bias": [round(b, digits) for b in bias],
        "weights": {name: row for name, row in rounded.items() if any(row)},
    }


def _layer(data: dict[str, Any]) -> LinearLayer:
    return LinearLayer(
        bias=tuple(float(b) for b in data["bias"]),
        weights={name: tuple(float(w) for w in row) for name, row in data["weights"].items()},
    )


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)
