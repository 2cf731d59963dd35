"""A small multi-day archive written straight into the database (no DVC, no model): the readers' tests' data.

Each day Hugging Face lists five papers and three are picked: two done in both languages, one failed; the other
two are listed only. Words only one paper carries let a test find it by search: an English word (`WORD_EN`) and a
Chinese one (`WORD_ZH`) in different papers. The first paper's translation carries a Chinese title, every English
digest a formula (`8 \\times A100`) and evidence (one sentence holding two numbers), and the listing thumbnails,
comments and more keywords than a paper has areas.
A word of one title (`WORD_TITLE`) finds its paper; one paper's digest cites another by its arXiv id
(`CITING_PAPER` cites `EN_PAPER`).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from papers_digest.core.models import CallRecord, DayList, Evidence, FulltextDoc, GenerationResult, Paper, Section
from papers_digest.day.files import DayFiles
from papers_digest.day.metrics import run_record
from papers_digest.db.writer import write_day

DATES = ["2025-03-30", "2025-03-31", "2025-04-01", "2025-04-02"]  # two months: two month indexes, merged from the days
WORD_EN = "zebrafish"  # only in the English digest of EN_PAPER
WORD_ZH = "斑马鱼"  # only in the Chinese digest of ZH_PAPER
PICKED, LISTED = 3, 5  # papers picked of those listed, each day
TITLE_ZH = "稀疏路由器（第一部分）"  # the first paper's title in its translation
KEYWORDS = [  # the listing's keywords: more areas than a paper shows
    "Mixture-of-Experts", "long-context modeling", "Large Language Models", "reinforcement learning",
    "diffusion models", "benchmark", "quantization", "speech recognition",
]  # fmt: skip
WORD_TITLE = "axolotl"  # only in the title of TITLE_PAPER


def arxiv_id(date: str, n: int) -> str:
    day = dt.date.fromisoformat(date)
    return f"{day:%y%m}.{day.day:02d}{n}0{n}"


EN_PAPER, ZH_PAPER = (arxiv_id("2025-04-01", 2), "2025-04-01"), (arxiv_id("2025-03-31", 1), "2025-03-31")
TITLE_PAPER, CITING_PAPER = (arxiv_id("2025-03-30", 2), "2025-03-30"), (arxiv_id("2025-03-31", 2), "2025-03-31")


def digest(lang: str, date: str, n: int) -> dict:
    """A digest that validates (core/models.py Digest), in English or Chinese prose."""
    if lang == "en":
        extra = f" It studies {WORD_EN} models." if (arxiv_id(date, n), date) == EN_PAPER else ""
        extra += f" It builds on {EN_PAPER[0]}." if (arxiv_id(date, n), date) == CITING_PAPER else ""
        text = f"Paper {n} of {date} trains a sparse router for long contexts.{extra}"
        results = [
            {
                "finding": f"The router cuts latency by {10 + k}% on task {k}"
                + (" on 8 \\times A100 GPUs." if k else "."),
                "numbers": [f"{10 + k}%"],
                "sections": ["S1"],
            }
            for k in range(3)
        ]
        results[0] |= {
            "finding": "The router cuts latency by 10% and 11% on the first two tasks.",
            "numbers": ["10%", "11%"],
        }
        items = ["Only English benchmarks were used.", "Costs were measured on one GPU."]
    else:
        extra = f"它研究{WORD_ZH}。" if (arxiv_id(date, n), date) == ZH_PAPER else ""
        text = f"该论文训练了一个用于长上下文的稀疏路由器。{extra}"
        results = [
            {"finding": f"路由器在任务{k}上将延迟降低了{10 + k}%。", "numbers": [f"{10 + k}%"], "sections": ["S1"]}
            for k in range(3)
        ]
        items = ["只使用了英文基准。", "成本仅在一块GPU上测量。"]
    title = {"title": TITLE_ZH} if lang == "zh" and n == 1 else {}
    return title | {
        "one_sentence": text,
        "problem": text,
        "method": text,
        "results": results,
        "limitations": items,
        "takeaways": items,
        "mind_map": {"label": text[:40], "children": [{"label": items[0], "children": []}]},
    }


def day_files(date: str, failing: bool = True) -> DayFiles:
    """A day's files: the third paper fails both its answers, unless not `failing`."""
    at = dt.datetime.fromisoformat(f"{date}T06:00:00+00:00").timestamp()
    papers, docs, results = [], {}, {"digest_en": {}, "translate_zh": {}}
    for n in range(1, LISTED + 1):
        paper_id = arxiv_id(date, n)
        papers.append(
            Paper(
                arxiv_id=paper_id,
                title=f"{'Axolotl' if (paper_id, date) == TITLE_PAPER else 'Sparse'} routers, part {n} ({date})",
                upvotes=50 - n,
                summary="We study sparse routers.",
                authors=["A. Author"],
                ai_summary=f"Hugging Face says part {n} routes tokens." if n == PICKED + 1 else None,
                ai_keywords=KEYWORDS,
                thumbnail=f"https://cdn-thumbnails.huggingface.co/social-thumbnails/papers/{paper_id}.png",
                comments=n,
            )
        )
        if n > PICKED:
            continue
        docs[paper_id] = FulltextDoc(
            arxiv_id=paper_id,
            title=papers[-1].title,
            version=2,
            source="html",
            text="[§S1] Intro\nText.",
            sections=[Section(tag="S1", title="Introduction", anchor="S1")],
        )
        for stage in results:
            failed = failing and n == PICKED
            calls = [
                CallRecord(
                    date=date,
                    arxiv_id=paper_id,
                    stage=stage,
                    attempt=a,
                    status=s,
                    prompt_tokens=1000,
                    completion_tokens=300,
                    started_at=at + a,
                    ended_at=at + a + 5,
                    latency_s=5.0,
                    checker_rules=["echo"] if s == "rejected" else [],
                )
                for a, s in ((1, "rejected"), (2, "rejected" if failed else "ok"))
            ]
            results[stage][paper_id] = GenerationResult(
                arxiv_id=paper_id,
                stage=stage,
                status="failed" if failed else "done",
                digest=None if failed else digest("en" if stage == "digest_en" else "zh", date, n),
                error="the answer failed the checks 2 times: results[0].numbers: echo" if failed else None,
                evidence=[] if failed or stage != "digest_en" else evidence(),
                model="sim-digest",
                prompt_version=f"{stage}-v1",
                calls=calls,
            )
            if failed:
                break
    day = DayList(date=date, limit=3, papers=papers, picked=list(docs))
    return DayFiles(day=day, fulltext=docs, english=results["digest_en"], chinese=results["translate_zh"])


def evidence() -> list[list[Evidence]]:
    """Where each English result's number stands: one sentence of §S1 holds the numbers of results 0 and 1."""
    sentence = "Latency drops by 10% and by 11% on the first two tasks."
    return [
        [Evidence(number=n, section="S1", sentence=sentence) for n in ("10%", "11%")],
        [Evidence(number="11%", section="S1", sentence=sentence)],
        [Evidence(number="12%", section="S1", sentence="On task 2 it drops by 12% with $8\\times$ A100 GPUs.")],
    ]


def write_archive(db: Path, dates: list[str] = DATES) -> Path:
    for date in dates:
        files = day_files(date)
        write_day(db, files, run_record(files))
    return db
