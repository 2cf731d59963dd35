"""#39: the translation carries the paper's title in Chinese (#45: asked as a unit of its own, its name kept), read
by the site and the feeds from the translation's `title`."""

from __future__ import annotations

import asyncio

from conftest import SAMPLE_DATE, make_params
from test_checker import MERGEVQ, doc, en

from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_devtools.testing.harness import chinese_prompt, english_prompt
from papers_digest.checker.schema import translation_schema
from papers_digest.core.models import Digest
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.pipeline.translating import generate_translations

TITLE = "MergeVQ: A Unified Framework for Visual Generation and Representation"


def test_the_schema_asks_for_the_title_first_only_when_there_is_one():
    english = Digest.model_validate(en(MERGEVQ))
    schema = translation_schema(english, TITLE)
    assert next(iter(schema["properties"])) == "title" and "title" in schema["required"]
    assert "title" not in translation_schema(english)["properties"]


def test_a_day_through_both_stages_gives_the_translation_a_chinese_title():
    """Over HTTP on the simulator: the English result records the title it was given, the translation
    request sends it, and the done translation carries it in Chinese."""
    mergevq = doc(MERGEVQ)
    params = make_params(llm={"model": "sim", "reuse": False, "structured_output": True})
    with BackgroundServer(EngineSim(model="sim").app) as server:
        run = params.model_copy(update={"llm": params.llm.model_copy(update={"base_url": f"{server.url}/v1"})})
        asked, translated = english_prompt(run.llm.asking), chinese_prompt()  # asked the way production asks
        (english,) = asyncio.run(generate_digests(run, SAMPLE_DATE, [mergevq], asked, lambda r: None))
        (chinese,) = asyncio.run(generate_translations(run, SAMPLE_DATE, [english], translated, lambda r: None))
    assert english.status == "done" and english.title == mergevq.title
    assert chinese.status == "done", chinese.problems
    assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese.digest["title"])
    assert Digest.model_validate({k: v for k, v in chinese.digest.items() if k != "title"})
