"""Everything the pipeline wrote for one date, read back and validated, and each paper's outcome (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from papers_digest.core.artefacts import STAGE_INFO, read_folder, read_model
from papers_digest.core.models import CallRecord, DayList, FulltextDoc, GenerationResult, PaperStatus, StageInfo

GENERATION_STAGES = ("digest_en", "translate_zh")
LANG_OF_STAGE = {"digest_en": "en", "translate_zh": "zh"}


@dataclass
class DayFiles:
    """Everything the pipeline wrote for one date."""

    day: DayList
    fulltext: dict[str, FulltextDoc]
    english: dict[str, GenerationResult]
    chinese: dict[str, GenerationResult]
    stages: dict[str, StageInfo] = field(default_factory=dict)

    @property
    def calls(self) -> list[CallRecord]:
        return [c for results in (self.english, self.chinese) for r in results.values() for c in r.calls]


def load_day_dir(day_dir: str | Path) -> DayFiles:
    """The files of `data/<date>/`, in the layout dvc.yaml gives them (one folder per stage)."""
    day = Path(day_dir)
    return load_day(day / "list.json", day / "fulltext", day / "digest_en", day / "translate_zh")


def load_day(
    list_path: str | Path, fulltext_dir: str | Path, digest_en_dir: str | Path, translate_zh_dir: str | Path
) -> DayFiles:
    stages = {}
    for name, folder in (
        ("fulltext", fulltext_dir),
        ("digest_en", digest_en_dir),
        ("translate_zh", translate_zh_dir),
    ):
        info_path = Path(folder) / STAGE_INFO
        if info_path.exists():
            stages[name] = read_model(info_path, StageInfo)
    return DayFiles(
        day=read_model(list_path, DayList),
        fulltext=read_folder(fulltext_dir, FulltextDoc),
        english=read_folder(digest_en_dir, GenerationResult),
        chinese=read_folder(translate_zh_dir, GenerationResult),
        stages=stages,
    )


def paper_outcome(files: DayFiles, arxiv_id: str) -> tuple[PaperStatus, str | None]:
    """done only when both languages passed their checks; otherwise failed with the first reason."""
    for stage, results in (("digest_en", files.english), ("translate_zh", files.chinese)):
        result = results.get(arxiv_id)
        if result is None:
            note = files.stages[stage].note if stage in files.stages else None
            return "failed", f"{stage}: not generated" + (f" ({note})" if note else "")
        if result.status == "failed":
            return "failed", f"{stage}: {result.error}"
    return "done", None


def failure_rules(result: GenerationResult) -> list[str]:
    """Why a paper's stage failed, as rule ids: the checker rules of its last answer if the checker rejected
    it, else the error's kind (`context_length`, `http`, `transport`, ...)."""
    last = result.calls[-1] if result.calls else None
    if last is not None and last.status == "rejected" and last.checker_rules:
        return list(dict.fromkeys(last.checker_rules))
    return [result.error_kind or "error"]


def outcome_detail(
    english: dict[str, GenerationResult], chinese: dict[str, GenerationResult], arxiv_id: str
) -> tuple[str, list[str]]:
    """("done_first_answer" | "done_after_retry" | "failed", the rules it failed by): done on the first answer
    when neither stage needed the checker's retry; a failed paper's rules are those of the stage that failed
    (failure_rules), or "not generated"."""
    retried = False
    for results in (english, chinese):
        result = results.get(arxiv_id)
        if result is None:
            return "failed", ["not generated"]
        if result.status != "done":
            return "failed", failure_rules(result)
        retried = retried or any(c.attempt > 1 for c in result.calls)
    return ("done_after_retry" if retried else "done_first_answer"), []


def model_saw(files: DayFiles, arxiv_id: str) -> tuple[str | None, list[str]]:
    """What the model was given of a paper: its source (html, trimmed, abstract; None without a full
    text) and the sections dropped, including those a context error made the digest stage drop."""
    doc = files.fulltext.get(arxiv_id)
    english = files.english.get(arxiv_id)
    dropped = [*(doc.dropped if doc else []), *(english.refit_dropped if english else [])]
    source = doc.source if doc else None
    if dropped and source == "html":
        source = "trimmed"
    return source, dropped
