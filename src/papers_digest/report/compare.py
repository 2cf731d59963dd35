"""A model comparison on frozen days: each candidate's figures from its experiments' files, and agreement (pure).

`papers compare` (cli/compare.py) runs each candidate as a DVC experiment per date and copies what each wrote
into `data/compare/<first date>/candidates/<name>/<date>/` (list.json, digest_en/, translate_zh/, run.json,
calls.jsonl); this module reads those folders back and computes compare.json, which notebooks/compare.ipynb
shows. The first candidate is the reference its agreement is measured against (docs/experiments.md).
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import pandas as pd
from pydantic import BaseModel, Field

from papers_digest.checker.numbers import normalise_for_match
from papers_digest.core.artefacts import read_folder, read_jsonl, read_model
from papers_digest.core.models import CallRecord, DayList, GenerationResult, RunRecord
from papers_digest.day.files import outcome_detail
from papers_digest.day.metrics import call_metrics

CANDIDATES_DIR = "candidates"  # under data/compare/<first date>/: one folder per candidate, one per date in it
Outcome = Literal["done_first_answer", "done_after_retry", "failed"]


@dataclass
class CandidateDay:
    """What one candidate's experiment wrote for one date."""

    date: str
    day: DayList
    english: dict[str, GenerationResult]
    chinese: dict[str, GenerationResult]
    run: RunRecord
    calls: list[CallRecord]


def load_candidate_day(folder: str | Path) -> CandidateDay:
    """A candidate's copy of one date: list.json, digest_en/, translate_zh/, run.json, calls.jsonl."""
    folder = Path(folder)
    day = read_model(folder / "list.json", DayList)
    return CandidateDay(
        date=day.date,
        day=day,
        english=read_folder(folder / "digest_en", GenerationResult),
        chinese=read_folder(folder / "translate_zh", GenerationResult),
        run=read_model(folder / "run.json", RunRecord),
        calls=read_jsonl(folder / "calls.jsonl", CallRecord),
    )


def candidate_dir(compare_dir: str | Path, name: str, date: str) -> Path:
    return Path(compare_dir) / CANDIDATES_DIR / name / date


# --- one paper -------------------------------------------------------------------------------------------


def paper_outcome(day: CandidateDay, arxiv_id: str) -> tuple[Outcome, list[str]]:
    """done on the first answer (neither stage needed the checker's retry), done after the retry, or failed
    with the rules it failed by: the checker rules its last rejected answer broke, else the error's kind."""
    outcome, rules = outcome_detail(day.english, day.chinese, arxiv_id)
    return cast(Outcome, outcome), rules


def result_keys(digest: Mapping[str, Any] | None) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Each result of a digest as what it cites: (its sections, its numbers in the checker's normalisation)."""
    results = (digest or {}).get("results") or []
    keys = []
    for result in results:
        if not isinstance(result, Mapping):
            continue
        sections = frozenset(str(s).strip() for s in result.get("sections") or [])
        numbers = frozenset(normalise_for_match(str(n)) for n in result.get("numbers") or [])
        keys.append((sections, numbers))
    return keys


def agreement_counts(digest: Mapping[str, Any] | None, reference: Mapping[str, Any] | None) -> tuple[int, int]:
    """(results of `digest` citing the same sections and numbers as a result of `reference`, results of
    `digest`); each reference result is matched at most once."""
    left = Counter(result_keys(reference))
    matched = 0
    mine = result_keys(digest)
    for key in mine:
        if left[key] > 0:
            left[key] -= 1
            matched += 1
    return matched, len(mine)


def english_digest(day: CandidateDay, arxiv_id: str) -> dict[str, Any] | None:
    result = day.english.get(arxiv_id)
    return result.digest if result is not None and result.status == "done" else None


# --- one candidate ---------------------------------------------------------------------------------------


class CandidateFigures(BaseModel):
    """One candidate's row of compare.json, over all the dates compared."""

    name: str
    params: dict[str, str] = Field(default_factory=dict)  # what it sets (-S key=value), reuse and date aside
    reference: bool = False
    rank: int = 0  # 1 = best: most papers done, then most done on the first answer, then agreement
    dates: list[str] = Field(default_factory=list)
    papers: int = 0
    done_first_answer: int = 0
    done_after_retry: int = 0
    done: int = 0
    failed: int = 0
    failed_by_rule: dict[str, int] = Field(default_factory=dict)  # papers per rule (a paper may count twice)
    llm_calls: int = 0
    llm_calls_rejected: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cached_share: float = 0.0
    prompt_tokens_per_paper: float = 0.0
    completion_tokens_per_paper: float = 0.0
    latency_p50_s: float = 0.0
    latency_p90_s: float = 0.0
    generation_s: float = 0.0
    generated_tok_s: float = 0.0
    cost_usd: float | None = None  # null unless every date was priced (llm.price)
    cost_per_paper_usd: float | None = None
    agreement: float | None = None  # agreeing results / results, over papers both it and the reference digested
    agreement_results: int = 0
    agreement_papers: int = 0


def candidate_figures(
    name: str, days: Sequence[CandidateDay], reference: Sequence[CandidateDay], params: Mapping[str, str] | None = None
) -> CandidateFigures:
    """One candidate's figures over its days; `reference` holds the reference candidate's days (same dates)."""
    figures = CandidateFigures(name=name, params=dict(params or {}), dates=[d.date for d in days])
    rules: Counter[str] = Counter()
    matched = results = agreeing_papers = 0
    references = {d.date: d for d in reference}
    for day in days:
        for arxiv_id in day.day.picked:
            outcome, broken = paper_outcome(day, arxiv_id)
            figures.papers += 1
            setattr(figures, outcome, getattr(figures, outcome) + 1)
            rules.update(broken)
            ref = references.get(day.date)
            mine, theirs = english_digest(day, arxiv_id), english_digest(ref, arxiv_id) if ref else None
            if mine is not None and theirs is not None:
                hits, count = agreement_counts(mine, theirs)
                matched, results, agreeing_papers = matched + hits, results + count, agreeing_papers + 1
    figures.done = figures.done_first_answer + figures.done_after_retry
    figures.failed_by_rule = dict(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])))
    calls = [c for day in days for c in day.calls]
    figures.llm_calls = len(calls)
    figures.llm_calls_rejected = sum(c.status == "rejected" for c in calls)
    figures.prompt_tokens = sum(c.prompt_tokens or 0 for c in calls)
    figures.completion_tokens = sum(c.completion_tokens or 0 for c in calls)
    figures.cached_tokens = sum(c.cached_tokens or 0 for c in calls)
    if figures.papers:
        figures.prompt_tokens_per_paper = round(figures.prompt_tokens / figures.papers, 1)
        figures.completion_tokens_per_paper = round(figures.completion_tokens / figures.papers, 1)
    if calls:
        shared = call_metrics(calls)  # the run record's own percentiles, over every date's calls together
        figures.latency_p50_s, figures.latency_p90_s = shared["latency_p50_s"], shared["latency_p90_s"]
        figures.cached_share = shared["cached_share"]
    figures.generation_s = round(sum(d.run.generation_s for d in days), 3)
    fresh = sum(c.completion_tokens or 0 for c in calls if not c.from_store)
    figures.generated_tok_s = round(fresh / figures.generation_s, 2) if figures.generation_s > 0 else 0.0
    costs = [d.run.cost_usd for d in days]
    if days and all(c is not None for c in costs):
        figures.cost_usd = round(sum(c for c in costs if c is not None), 6)
        figures.cost_per_paper_usd = round(figures.cost_usd / figures.papers, 6) if figures.papers else None
    figures.agreement = round(matched / results, 4) if results else None
    figures.agreement_results, figures.agreement_papers = results, agreeing_papers
    return figures


def compare(
    candidates: Sequence[tuple[str, Sequence[CandidateDay]]], params: Mapping[str, Mapping[str, str]] | None = None
) -> list[CandidateFigures]:
    """Every candidate's figures, in the order given (the first is the reference), each with its rank."""
    if not candidates:
        return []
    reference = candidates[0][1]
    rows = [candidate_figures(name, days, reference, (params or {}).get(name)) for name, days in candidates]
    rows[0].reference = True
    for rank, row in enumerate(sorted(rows, key=rank_key), start=1):
        row.rank = rank
    return rows


def rank_key(row: CandidateFigures) -> tuple[float, ...]:
    """Best first: most papers done, most done on the first answer, highest agreement, lowest p50 latency."""
    return (-row.done, -row.done_first_answer, -(row.agreement or 0.0), row.latency_p50_s)


# --- frames for the notebook ----------------------------------------------------------------------------


def load_compare(
    compare_dir: str | Path, names: Iterable[str], dates: Iterable[str]
) -> list[tuple[str, list[CandidateDay]]]:
    """Every candidate's days as `papers compare` copied them (names in order, the reference first)."""
    dates = list(dates)
    return [(name, [load_candidate_day(candidate_dir(compare_dir, name, d)) for d in dates]) for name in names]


def figures_table(rows: Sequence[CandidateFigures]) -> pd.DataFrame:
    """compare.json as a table, one row per candidate (failed_by_rule written out as `rule: papers`)."""
    frame = pd.DataFrame([r.model_dump() for r in rows], columns=list(CandidateFigures.model_fields))
    frame["failed_by_rule"] = [", ".join(f"{k}: {v}" for k, v in r.failed_by_rule.items()) for r in rows]
    frame["params"] = [", ".join(f"{k}={v}" for k, v in r.params.items()) for r in rows]
    return frame.set_index("name")


def papers_table(
    candidates: Sequence[tuple[str, Sequence[CandidateDay]]], link_root: str = CANDIDATES_DIR
) -> pd.DataFrame:
    """One row per paper and date: each candidate's outcome, its agreement with the reference, and links to
    each candidate's English digest file (relative to compare.html)."""
    if not candidates:
        return pd.DataFrame()
    reference = {d.date: d for d in candidates[0][1]}
    rows = []
    for date, ref in reference.items():
        titles = {p.arxiv_id: p.title for p in ref.day.papers}
        for arxiv_id in ref.day.picked:
            row: dict[str, Any] = {"date": date, "arxiv_id": arxiv_id, "title": titles.get(arxiv_id, "")}
            for name, days in candidates:
                day = next((d for d in days if d.date == date), None)
                if day is None:
                    continue
                outcome, broken = paper_outcome(day, arxiv_id)
                row[f"{name}"] = outcome + (f" ({', '.join(broken)})" if broken else "")
                mine, theirs = english_digest(day, arxiv_id), english_digest(ref, arxiv_id)
                hits, count = agreement_counts(mine, theirs) if mine and theirs else (0, 0)
                row[f"{name} agreement"] = f"{hits}/{count}" if mine and theirs else ""
                row[f"{name} digest"] = f"{link_root}/{name}/{date}/digest_en/{arxiv_id}.json"
            rows.append(row)
    return pd.DataFrame(rows)


def read_compare_json(compare_dir: str | Path) -> dict[str, Any]:
    """compare.json as `papers compare` wrote it: dates, reference, experiments and one row per candidate."""
    return json.loads((Path(compare_dir) / "compare.json").read_text(encoding="utf-8"))


def figures_from_json(data: Mapping[str, Any]) -> list[CandidateFigures]:
    return [CandidateFigures.model_validate(row) for row in data.get("candidates") or []]


SECTIONS: dict[str, list[str]] = {  # the notebook's tables: which figures each shows
    "outcomes": ["rank", "papers", "done_first_answer", "done_after_retry", "done", "failed", "failed_by_rule"],
    "tokens": ["llm_calls", "prompt_tokens_per_paper", "completion_tokens_per_paper", "cached_share"],
    "speed": ["latency_p50_s", "latency_p90_s", "generation_s", "generated_tok_s"],
    "cost": ["cost_usd", "cost_per_paper_usd"],
    "agreement": ["agreement", "agreement_results", "agreement_papers"],
}


def linked_papers_html(table: pd.DataFrame) -> str:
    """The per-paper table as HTML (text escaped), each candidate's digest column a link to its file."""
    shown = table.copy()
    for column in shown.columns:
        if str(column).endswith(" digest"):
            shown[column] = [f'<a href="{html.escape(str(v))}">digest</a>' if v else "" for v in shown[column]]
        else:
            shown[column] = [html.escape(str(v)) if isinstance(v, str) else v for v in shown[column]]
    return shown.to_html(index=False, escape=False, na_rep="")
