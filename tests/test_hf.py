"""The list stage's logic on real HF API bodies: tolerant parsing, paging over HTTP, ranking."""

import asyncio
import json

import pytest
from conftest import HF_DIR, SAMPLE_DATE, SAMPLE_DIR, day_papers, hf_day, sample_papers

from papers_devtools.sim.replay import Replay
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.core.http import RetryPolicy, make_client
from papers_digest.core.models import Paper
from papers_digest.sources.hf import PAGE_SIZE, HfError, fetch_day, merge_pages, parse_items, pick_top

RECORDED_DAYS = sorted(p.stem for p in HF_DIR.glob("*.json"))


@pytest.mark.parametrize("date", RECORDED_DAYS)
def test_every_recorded_shape_parses(date):
    body = hf_day(date)
    papers, invalid = parse_items(body)
    assert invalid == 0
    assert len(papers) == len(body)
    for paper, item in zip(papers, body, strict=True):
        assert paper.arxiv_id == item["paper"]["id"]
        assert paper.upvotes == item["paper"]["upvotes"]  # upvotes live only in paper.upvotes
        assert "\n" not in paper.title and "  " not in paper.title
        assert paper.summary


def test_oldest_and_newest_shapes_keep_their_fields():
    old = day_papers("2024-05-27")[0]  # 2024: mediaUrl, no submittedBy, no ai_*
    assert old.arxiv_id == "2405.15738"
    assert old.ai_summary is None
    assert "Chunjiang Ge" in old.authors
    new = day_papers("2026-01-13")  # 2026: organization, githubStars, ai_summary
    assert any(p.ai_summary for p in new)
    assert any(p.github_repo for p in new)


@pytest.mark.parametrize("date", RECORDED_DAYS)
def test_the_thumbnail_and_the_comment_count_come_from_every_era(date):
    """2024 items name the thumbnail `mediaUrl`, later ones `thumbnail`; `numComments` is on every item."""
    for paper, item in zip(day_papers(date), hf_day(date), strict=True):
        assert paper.thumbnail == (item.get("thumbnail") or item.get("mediaUrl"))
        assert paper.thumbnail and paper.thumbnail.endswith(f"/{paper.arxiv_id}.png")
        assert paper.comments == item["numComments"]


def test_an_odd_thumbnail_or_comment_count_drops_the_extra_not_the_paper():
    item = hf_day("2026-01-13")[0] | {"thumbnail": "javascript:alert(1)", "numComments": "many"}
    (paper,), invalid = parse_items([item])
    assert invalid == 0 and (paper.thumbnail, paper.comments) == (None, None)
    old = Paper.model_validate_json('{"arxiv_id": "2504.00001", "title": "A list.json from before"}')
    assert (old.thumbnail, old.comments) == (None, None)


def test_items_without_id_or_title_are_skipped_not_fatal():
    body = hf_day("2025-03-10")
    broken = [
        {"paper": {"title": "no id"}},
        {"title": "no paper"},
        {"paper": {"id": "not-an-id", "title": "x"}},
    ]
    papers, invalid = parse_items(body + broken)
    assert invalid == 3
    assert len(papers) == len(body)
    with pytest.raises(HfError):
        parse_items({"error": "not a list"})


def test_pick_top_ranks_by_upvotes_breaks_ties_by_id_and_skips_done_papers():
    papers = sample_papers()
    top = pick_top(papers, 4, {})
    assert [p.arxiv_id for p in top] == ["2504.00999", "2504.00883", "2504.01014", "2503.20783"]
    # 2504.01934 and 2504.01848 both have 11 upvotes: the lower id first, whatever the input order.
    ranked = [p.arxiv_id for p in pick_top(list(reversed(papers)), 12, {})]
    assert ranked.index("2504.01848") == ranked.index("2504.01934") - 1
    skipping = pick_top(papers, 4, {"2504.00883": "2025-04-02"})
    assert [p.arxiv_id for p in skipping] == ["2504.00999", "2504.01014", "2503.20783", "2504.01956"]
    assert pick_top(papers, 50, {}) == pick_top(papers, 12, {})


def test_merge_pages_keeps_first_occurrence_of_duplicates():
    papers = sample_papers()
    merged = merge_pages([papers[:5], papers[3:8]])
    assert [p.arxiv_id for p in merged] == [p.arxiv_id for p in papers[:8]]


def _all_recorded_items() -> list[dict]:
    items = [item for date in RECORDED_DAYS for item in hf_day(date)]
    items += hf_day(SAMPLE_DATE, SAMPLE_DIR / "hf")
    return items


@pytest.mark.parametrize(("count", "pages"), [(63, 2), (PAGE_SIZE, 2), (1, 1), (0, 1)])
def test_paging_fetches_until_a_short_page(tmp_path, count, pages):
    """A full page of 50 means ask for the next one (a busy day), over real HTTP."""
    items = _all_recorded_items()[:count]
    assert len(items) == count
    (tmp_path / "2026-02-02.json").write_text(json.dumps(items), encoding="utf-8")
    replay = Replay(hf_dir=tmp_path)

    async def fetch():
        async with make_client(timeout_s=10) as client:
            return await fetch_day(client, server.url, "2026-02-02", RetryPolicy(attempts=1))

    with BackgroundServer(replay.app) as server:
        papers, invalid, fetched_pages = asyncio.run(fetch())
    assert [p.arxiv_id for p in papers] == [i["paper"]["id"] for i in items]
    assert invalid == 0
    assert fetched_pages == pages
    assert replay.requests["hf"] == pages


def test_links_keywords_stars_and_organization_are_kept_where_the_listing_gives_them():
    body = hf_day("2026-01-13")
    papers, _ = parse_items(body)
    for paper, item in zip(papers, body, strict=True):
        hf = item["paper"]
        assert paper.ai_keywords == [" ".join(k.split()) for k in hf.get("ai_keywords", [])]
        assert paper.github_repo == hf.get("githubRepo")
        assert paper.github_stars == hf.get("githubStars")
        assert paper.project_page == hf.get("projectPage")
        org = item.get("organization") or hf.get("organization")
        assert (paper.organization.name if paper.organization else None) == (org["name"] if org else None)
    assert any(p.organization and p.organization.fullname for p in papers)
    old = day_papers("2024-05-27")  # 2024: none of them
    assert all(not p.ai_keywords and p.github_stars is None and p.organization is None for p in old)


def test_an_odd_extra_drops_the_extra_not_the_paper():
    item = {
        "organization": {"fullname": "no handle"},
        "paper": {"id": "2501.00001", "title": "t", "ai_keywords": ["ok", 3], "githubStars": "many"},
    }
    (paper,), invalid = parse_items([item])
    assert invalid == 0
    assert (paper.ai_keywords, paper.github_stars, paper.organization) == (["ok"], None, None)
