"""Pydantic models for the data that crosses a boundary: files under data/<date>/ and the database."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

ARXIV_ID_RE = re.compile(r"^\d{4}\.\d{4,5}$")


class Organization(BaseModel):
    """The Hugging Face organisation a paper is listed under: its handle (`name`) and display name."""

    name: str
    fullname: str | None = None


class Paper(BaseModel):
    """One paper of a Hugging Face day, normalised from the API item (see hf.py)."""

    arxiv_id: str
    title: str
    summary: str = ""
    upvotes: int = 0
    authors: list[str] = Field(default_factory=list)
    published_at: str | None = None
    github_repo: str | None = None
    project_page: str | None = None
    ai_summary: str | None = None
    # Added with the topic pages (#29); absent in older list.json files and older API eras.
    ai_keywords: list[str] = Field(default_factory=list)  # HF's own keywords, as written
    github_stars: int | None = None
    organization: Organization | None = None
    # Added with the readers' front page (#39); absent in older list.json files.
    thumbnail: str | None = None  # HF's social thumbnail of the paper (an image URL)
    comments: int | None = None  # comments on the paper's Hugging Face page, as listed that day

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv_id_shape(cls, value: str) -> str:
        if not ARXIV_ID_RE.match(value):
            raise ValueError(f"not an arXiv id (YYMM.NNNNN): {value!r}")
        return value


class DayList(BaseModel):
    """data/<date>/list.json: every paper of the day and the ones picked for digesting."""

    date: str
    limit: int
    papers: list[Paper]
    picked: list[str]
    excluded: dict[str, str] = Field(
        default_factory=dict, description="arxiv_id -> earlier date on which it was already digested"
    )
    invalid_items: int = 0
    pages: int = 1
    elapsed_s: float = 0.0
    # The retry queue: papers that failed on an earlier date, tried again today (picked after the top ones).
    backfill: list[Paper] = Field(default_factory=list)
    backfill_from: dict[str, str] = Field(default_factory=dict, description="arxiv_id -> the date it failed on")

    def picked_papers(self) -> list[Paper]:
        by_id = {p.arxiv_id: p for p in [*self.papers, *self.backfill]}
        return [by_id[i] for i in self.picked]


class Section(BaseModel):
    """A section or subsection heading of a paper, as printed (`3.2`, `A.1`, `Abstract`)."""

    tag: str
    title: str
    anchor: str | None = None  # the element id in the arXiv HTML (`S3.SS2`), for links
    level: int = 1  # 0 abstract, 1 section/appendix, 2 subsection, 3 subsubsection


FulltextSource = Literal["html", "trimmed", "abstract"]


class FulltextDoc(BaseModel):
    """data/<date>/fulltext/<id>.json: the text the model is given, with its section markers."""

    arxiv_id: str
    title: str
    version: int | None = None
    source: FulltextSource
    reason: str | None = None  # why the abstract was used, in words
    url: str | None = None
    text: str
    sections: list[Section]
    dropped: list[str] = Field(default_factory=list)  # tags of sections cut to fit the context budget
    # Lines of the text that LaTeXML placed outside every section (floats before section 1, keywords): they
    # belong to no section, so a result may cite their numbers under any section (docs/checker.md, "The rules").
    unsectioned: list[str] = Field(default_factory=list)
    tokens: int | None = None  # tokens of the paper's message as sent
    counted_by: str | None = None  # "engine /tokenize", "estimate", …

    @property
    def tags(self) -> list[str]:
        return [s.tag for s in self.sections]


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None


CallStatus = Literal["ok", "rejected", "error"]


GenerationStage = Literal["digest_en", "translate_zh"]


class CallRecord(BaseModel):
    """One HTTP call to the LLM endpoint, successful or not."""

    model_config = ConfigDict(extra="forbid")

    date: str
    arxiv_id: str
    stage: GenerationStage
    attempt: int  # 1 = first answer, 2 = the checker's retry
    repair: bool = False  # a retry that asked for the failed fields alone, not the whole answer (llm/repair.py)
    retry: int = 0  # transport retries within one attempt (0 = first try)
    status: CallStatus  # ok: answer passed the checker; rejected: it did not; error: no usable answer
    error: str | None = None
    # error: http, transport, context_length (the prompt does not fit), quota, bad_response; rejected: checker
    error_kind: str | None = None
    context_tokens: int | None = None  # the model's context, when a context_length error states it
    http_status: int | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    started_at: float
    ended_at: float
    latency_s: float
    from_store: bool = False  # answered from the store of finished calls, no HTTP request made
    checker_rules: list[str] = Field(default_factory=list)  # rejected: the checker's rules it broke


PaperStatus = Literal["done", "failed"]


class Evidence(BaseModel):
    """Where one of a result's numbers stands in the paper: the cited section (`*`: outside every section)
    and the sentence, at most 300 characters, as the checker matched it."""

    number: str
    section: str
    sentence: str
    # The sentence's role as the program read it (background, objective, method, result, other), where it chose
    # the sentence for the field (asked in steps: docs/checker.md, "Asked in steps"); None otherwise.
    role: str | None = None


class GenerationResult(BaseModel):
    """data/<date>/digest_en/<id>.json and translate_zh/<id>.json."""

    arxiv_id: str
    stage: GenerationStage
    status: PaperStatus
    digest: dict | None = None
    error: str | None = None
    error_kind: str | None = None  # as in CallRecord: http, transport, context_length, bad_response, checker
    # When the engine refused the paper as too long and it was asked again, trimmed tighter:
    refit_dropped: list[str] = Field(default_factory=list)  # the further sections dropped
    refit_tokens: int | None = None  # the tokens of the paper's message then
    problems: list[str] = Field(default_factory=list)
    # Each answer the checker rejected, as it judged it (a repair's merged into the first answer), in order:
    # what the model wrote, for reading a failure.
    rejected_answers: list[str] = Field(default_factory=list)
    # English digests: for each result, where each of its numbers stands in the cited sections.
    evidence: list[list[Evidence]] = Field(default_factory=list)
    model: str
    prompt_version: str
    calls: list[CallRecord] = Field(default_factory=list)
    # English digests: the paper's title as the model was given it (a translation translates it too).
    title: str | None = None
    # English digests asked in steps: the sentences each field was written from (field path -> sentences, each
    # with its section and role), as the program chose them.
    sources: dict[str, list[Evidence]] = Field(default_factory=dict)


class StageInfo(BaseModel):
    """`_stage.json` inside a stage's output folder: what the stage did and how long it took."""

    stage: str
    date: str
    started_at: float
    ended_at: float
    elapsed_s: float
    papers: int = 0
    note: str | None = None
    model: str | None = None
    prompt_version: str | None = None
    # What the engine's /metrics said the batch did: prefix-cache token queries, hits, hit rate.
    prefix_cache: dict[str, float] = Field(default_factory=dict)


class RunRecord(BaseModel):
    """data/<date>/run.json: the run's DVC metrics, one row of the `runs` table."""

    date: str
    papers: int
    papers_done: int
    papers_failed: int
    fulltext_html: int
    fulltext_abstract: int
    llm_calls: int
    llm_call_errors: int
    retries: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    elapsed_s: float
    generation_s: float
    generated_tok_s: float
    # Added for the run report and `dvc exp show`; defaults keep older run.json files readable.
    llm_calls_rejected: int = 0  # answers the checker rejected
    checker_retries: int = 0  # attempt-2 calls: the checker's one retry
    transport_retries: int = 0  # calls with retry > 0: HTTP tries after a transient failure
    llm_calls_from_store: int = 0  # answered from the store of finished calls, no HTTP request
    reasoning_tokens: int = 0
    calls_reporting_cache: int = 0  # calls whose engine reported cached tokens
    cached_share: float = 0.0  # cached / prompt tokens over those calls (0 when none reported)
    latency_p50_s: float = 0.0  # over HTTP calls (store answers excluded)
    latency_p90_s: float = 0.0
    latency_max_s: float = 0.0
    max_in_flight: int = 0  # most HTTP calls in flight at once, from the calls' start and end times
    fulltext_trimmed: int = 0  # papers cut to fit llm.max_input_tokens (or after a context error)
    context_errors: int = 0  # calls the engine refused as longer than its context
    # From the engine's /metrics (vLLM: token queries and hits over the batch; SGLang: its hit rate).
    prefix_cache_queries: float = 0.0
    prefix_cache_hits: float = 0.0
    prefix_cache_hit_rate: float = 0.0
    # What the day's HTTP calls cost at llm.price (answers from the store cost nothing); null when unpriced.
    cost_usd: float | None = None
    # The checker's view, as `papers compare` counts it (`dvc exp show` lists these side by side): papers done
    # without the checker's retry in either language, and failed papers per rule (a paper may count twice)
    papers_done_first_answer: int = 0
    failed_by_rule: dict[str, int] = Field(default_factory=dict)


# --- the digest, in either language (what the checker parses an answer into) ---------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class MindMapNode(_Strict):
    label: StrictStr
    children: list[MindMapNode] = Field(default_factory=list)


class Result(_Strict):
    finding: StrictStr
    numbers: list[StrictStr]
    sections: list[StrictStr] = Field(min_length=1)


class Digest(_Strict):
    """The digest's JSON object, in either language: exactly these keys."""

    one_sentence: StrictStr
    problem: StrictStr
    method: StrictStr
    results: list[Result] = Field(max_length=6)  # none where the paper reports no result (asked in steps)
    limitations: list[StrictStr]
    takeaways: list[StrictStr]
    mind_map: MindMapNode


DIGEST_KEYS = tuple(Digest.model_fields)


class DeliveryLog(BaseModel):
    """data/<date>/deliveries.json: what each place got of a date (`papers daily`, cli/deliveries.py), so that a rerun
    of the date sends nothing twice; beside the day's files, not in the database, which `papers rebuild-db` makes
    anew from those files."""

    date: str
    # a place ("default email", "agents PAPERS_NOTIFY_AGENTS #1") -> the kinds it got: digest | empty | failed
    sent: dict[str, list[str]] = Field(default_factory=dict)
