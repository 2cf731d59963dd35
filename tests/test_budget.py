"""Papers longer than the context: token counting, the trim policy on real pages, the tighter retry."""

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, SAMPLE_DATE, make_params

from papers_devtools.sim.routes import EngineSim
from papers_devtools.sim.serve import BackgroundServer
from papers_digest.core.markup import blocks_of
from papers_digest.core.models import FulltextDoc, Paper
from papers_digest.llm.budget import count_estimated, estimate_tokens, fit_to_budget
from papers_digest.llm.endpoint import EngineTokenizer
from papers_digest.llm.prompting import load_prompt, paper_message
from papers_digest.pipeline.digesting import generate_digests
from papers_digest.sources.arxiv import doc_from_page
from papers_digest.sources.latexml import parse_latexml

PAGES = {
    "2508.10395": ROOT / "tests" / "data" / "arxiv" / "2508.10395v1.html",  # appendices A1, A2
    "2512.14946": ROOT / "tests" / "data" / "arxiv" / "2512.14946v1.html",  # appendix A
    "2503.20783": ROOT / "sample" / "arxiv" / "2503.20783v2.html",  # appendices A, B, G
    "2601.19139": ROOT / "tests" / "data" / "arxiv" / "2601.19139v2.html",  # no appendix
}


def real_doc(arxiv_id: str) -> FulltextDoc:
    path: Path = PAGES[arxiv_id]
    page = parse_latexml(path.read_bytes(), url=f"https://arxiv.org/html/{path.stem}")
    return doc_from_page(
        Paper(arxiv_id=arxiv_id, title=page.title or arxiv_id), page, f"https://arxiv.org/html/{path.stem}"
    )


def fit(doc: FulltextDoc, budget: int | None) -> FulltextDoc:
    return asyncio.run(fit_to_budget(doc, budget, count_estimated))


@pytest.mark.parametrize("arxiv_id", sorted(PAGES))
def test_a_paper_within_budget_is_untouched_but_counted(arxiv_id):
    doc = real_doc(arxiv_id)
    sent = fit(doc, None)
    assert sent.text == doc.text and sent.source == "html" and sent.dropped == []
    assert sent.tokens == estimate_tokens(paper_message(doc))


@pytest.mark.parametrize("arxiv_id", sorted(PAGES))
def test_trimming_drops_appendices_first_then_the_longest_sections_never_the_abstract(arxiv_id):
    doc = real_doc(arxiv_id)
    full = estimate_tokens(paper_message(doc))
    appendix_tags = [s.tag for s in doc.sections if s.anchor and s.anchor.startswith("A") and s.anchor[1].isdigit()]
    for share in (0.9, 0.6, 0.3, 0.05):
        budget = int(full * share)
        sent = fit(doc, budget)
        assert sent.source == "trimmed"
        assert sent.tokens <= budget or sent.tags == ["Abstract"]
        assert "Abstract" in sent.tags and sent.text.startswith("[§Abstract]")
        # every kept section keeps its marker line, in the original order
        kept = [b.section.tag for b in blocks_of(sent)]
        assert kept == sent.tags == [t for t in doc.tags if t not in sent.dropped]
        # appendices go before any body section
        body_dropped = [t for t in sent.dropped if t not in appendix_tags]
        if body_dropped:
            assert set(appendix_tags) <= set(sent.dropped)
        else:  # appendices go from the end (`dropped` lists them in document order)
            assert sent.dropped == appendix_tags[len(appendix_tags) - len(sent.dropped) :]


def test_body_sections_go_longest_first():
    doc = real_doc("2601.19139")  # no appendix: the body is cut, longest sections first
    sizes = [(b.section.tag, estimate_tokens(b.text)) for b in blocks_of(doc)]
    sent = fit(doc, int(estimate_tokens(paper_message(doc)) * 0.8))
    # the longest first; of two equally long, the later one ("from the end")
    order = sorted(range(1, len(sizes)), key=lambda i: (-sizes[i][1], -i))
    assert set(sent.dropped) == {sizes[i][0] for i in order[: len(sent.dropped)]}
    assert sent.dropped == ["1", "4.4"]  # 4.3 and 4.4 are equally long: the later goes


def test_the_checker_accepts_only_what_the_model_saw():
    from conftest import check_en

    doc = real_doc("2503.20783")
    sent = fit(doc, int(estimate_tokens(paper_message(doc)) * 0.5))
    assert "G" in sent.dropped  # appendix G's Table 6 holds Adam's (0.9, 0.95), printed nowhere else
    finding = "Training uses Adam with betas of 0.95 and below, as the settings table of the appendix gives them."
    reply = json.dumps(
        {
            "one_sentence": "The paper studies how R1-Zero-like training really works on base models.",
            "problem": "x",
            "method": "x",
            "results": [
                {"finding": finding, "numbers": ["0.95"], "sections": ["G"]},
                {"finding": "The introduction frames the questions it answers.", "numbers": [], "sections": ["1"]},
                {"finding": "Closing remarks sum up what the analysis found.", "numbers": [], "sections": ["4"]},
            ],
            "limitations": [],
            "takeaways": [],
            "mind_map": {"label": "x", "children": []},
        }
    )
    _, on_full = check_en(reply, doc)
    _, on_sent = check_en(reply, sent)
    assert not any("'0.95'" in p or "'G'" in p for p in on_full), on_full
    assert any("'0.95' appears nowhere in the paper" in p for p in on_sent)
    assert any("'G' is not a section of the paper" in p for p in on_sent)


def test_tokens_are_counted_by_the_engine_when_it_has_a_tokenize_route():
    sim = EngineSim()
    doc = real_doc("2512.14946")

    async def count() -> tuple[int, str]:
        async with httpx.AsyncClient() as client:
            tokenizer = EngineTokenizer(client, f"{server.url}/v1", "sim-digest")
            return await tokenizer.count(paper_message(doc)), tokenizer.method

    with BackgroundServer(sim.app) as server:
        counted, method = asyncio.run(count())
    assert method == "engine /tokenize"
    assert counted == estimate_tokens(paper_message(doc))  # the simulator's tokenizer is the estimate
    assert sim.stats.by_path["/tokenize"] == 2  # the probe, then the count


def test_a_hosted_api_without_tokenize_falls_back_to_the_estimate():
    async def count() -> tuple[int, str]:
        async with httpx.AsyncClient() as client:
            tokenizer = EngineTokenizer(client, "http://127.0.0.1:9/v1", "m")  # nothing listens there
            return await tokenizer.count("abcdefgh"), tokenizer.method

    assert asyncio.run(count()) == (2, "estimate")


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llama-cpp", "openai"])
def test_a_context_error_is_retried_once_with_a_tighter_budget(engine):
    """The engine's context holds less than the paper: it answers 400 (its own body), the paper is
    trimmed to 75 % of the stated context and asked again, and the digest only cites what was sent."""
    doc = real_doc("2503.20783")
    full = estimate_tokens(paper_message(doc))
    sim = EngineSim(context_tokens=full // 2, context_engine=engine)
    with BackgroundServer(sim.app) as server:
        params = make_params(llm={"asking": "json", "base_url": f"{server.url}/v1", "model": "sim-digest"})
        (result,) = asyncio.run(
            generate_digests(params, SAMPLE_DATE, [doc], load_prompt("prompts/digest_en_json.md"), lambda r: None)
        )
    assert result.status == "done"
    first, *rest = result.calls
    assert first.error_kind == "context_length" and first.attempt == 1
    assert rest and rest[0].attempt == 2 and rest[-1].status == "ok"
    assert result.refit_dropped and "Abstract" not in result.refit_dropped
    assert result.refit_tokens is not None
    cited = {s for r in result.digest["results"] for s in r["sections"]}
    assert not cited & set(result.refit_dropped)
    if engine in ("sglang", "llama-cpp", "vllm"):  # these state the context in their error
        assert first.context_tokens == full // 2


def _structured_run(sim: EngineSim, docs: list[FulltextDoc], **params) -> list:
    with BackgroundServer(sim.app) as server:
        engine = params.pop("engine", {})
        if engine:  # a managed engine is the endpoint: point it at the simulator
            engine["port"] = server.port
        llm = {"asking": "json", "base_url": f"{server.url}/v1", "model": "sim-digest", "structured_output": True}
        run_params = make_params(llm=llm, engine=engine)
        return asyncio.run(
            generate_digests(run_params, SAMPLE_DATE, docs, load_prompt("prompts/digest_en_json.md"), lambda r: None)
        )


def test_structured_output_sends_the_schema_nested_under_json_schema():
    from conftest import abstract_docs, sample_papers

    docs = abstract_docs(sample_papers()[:2])
    sim = EngineSim()
    assert all(r.status == "done" for r in _structured_run(sim, docs))
    # nested under json_schema, the form vLLM, SGLang, llama-server and hosted APIs take (a top-level
    # `schema` is silently ignored by llama-server)
    assert {r.response_format for r in sim.stats.records} == {"json_schema"}


def test_an_engine_that_refuses_structured_output_gets_prompt_only_requests():
    from conftest import abstract_docs, sample_papers

    docs = abstract_docs(sample_papers()[:3])
    sim = EngineSim(refuse_response_format=True)
    results = _structured_run(sim, docs)
    assert all(r.status == "done" for r in results)
    chats = [r for r in sim.stats.records if r.path.endswith("/completions")]
    refused = [r for r in chats if r.status == 400]
    assert 1 <= len(refused) <= 3  # the requests already in flight when the first refusal came back
    assert all(r.response_format is None for r in chats if r.status == 200)


def test_prefix_cache_counters_are_read_from_vllm_and_sglang_metrics():
    from papers_digest.llm.endpoint import parse_prefix_cache, prefix_cache_delta

    vllm = (
        "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.\n"
        "# TYPE vllm:prefix_cache_queries_total counter\n"
        'vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen2.5-7B-Instruct"} 120000.0\n'
        'vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen2.5-7B-Instruct"} 30000.0\n'
    )
    before = parse_prefix_cache(vllm)
    after = parse_prefix_cache(vllm.replace("120000.0", "220000.0").replace("30000.0", "90000.0"))
    assert prefix_cache_delta(before, after) == {
        "prefix_cache_queries": 100000.0,
        "prefix_cache_hits": 60000.0,
        "prefix_cache_hit_rate": 0.6,
    }
    sglang = 'sglang:cache_hit_rate{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.4375\n'
    assert prefix_cache_delta(None, parse_prefix_cache(sglang)) == {"prefix_cache_hit_rate": 0.4375}
    assert prefix_cache_delta(None, None) == {}


@pytest.mark.parametrize("arxiv_id", sorted(PAGES))
def test_the_digest_schema_offers_each_section_with_its_own_figures(arxiv_id):
    """What structured output asks of the engine: a result is one of the paper's sections with figures that
    section holds, and a three-level mind map; an answer the checker accepts fits it when it cites them."""
    import json

    import jsonschema

    from papers_devtools.sim.answers import build_digest
    from papers_digest.checker.paper import read_paper
    from papers_digest.checker.schema import digest_schema
    from papers_digest.llm.prompting import digest_messages

    doc = real_doc(arxiv_id)
    facts = read_paper(doc)
    schema = digest_schema(facts)
    options = schema["properties"]["results"]["items"].get("anyOf") or [schema["properties"]["results"]["items"]]
    offered = {o["properties"]["sections"]["const"][0]: o["properties"]["numbers"] for o in options}
    assert set(offered) <= set(doc.tags) and len(offered) >= 3
    for tag, numbers in offered.items():
        for figure in numbers.get("items", {}).get("enum", []):
            assert any(n.text == figure for n in [*facts.numbers[tag], *facts.unsectioned]), (tag, figure)
    answer = build_digest(digest_messages("system", doc)[1]["content"])

    def fits(result: dict) -> bool:
        tag = result["sections"][0]
        return tag in offered and set(result["numbers"]) <= set(offered[tag].get("items", {}).get("enum", []))

    answer["results"] = [r for r in answer["results"] if fits(r)][:6]
    if len(answer["results"]) >= 3:
        jsonschema.validate(answer, schema)
        bad = json.loads(json.dumps(answer))
        bad["results"][0]["sections"] = ["99.9"]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        bad = json.loads(json.dumps(answer))
        bad["results"][0]["numbers"] = ["987654.321"]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_the_translation_schema_takes_the_english_shape():
    """A translation must keep every array length and the mind map's shape: its schema says so."""
    import jsonschema
    from conftest import abstract_docs, sample_papers

    from papers_devtools.sim.answers import build_digest, translate
    from papers_digest.checker.schema import translation_schema
    from papers_digest.core.models import Digest
    from papers_digest.llm.prompting import digest_messages

    doc = abstract_docs(sample_papers())[1]  # prose without TeX backslashes (the pattern sees raw JSON)
    english = Digest.model_validate(build_digest(digest_messages("system", doc)[1]["content"]))
    schema = translation_schema(english)
    chinese = translate(english.model_dump())
    jsonschema.validate(chinese, schema)
    shorter = {**chinese, "takeaways": chinese["takeaways"][:-1]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(shorter, schema)
    pruned = {**chinese, "mind_map": {**chinese["mind_map"], "children": chinese["mind_map"]["children"][:-1]}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(pruned, schema)


def test_the_digest_is_written_results_first_and_one_sentence_after_them():
    """Asked first, the 0.5B model restated the title as one_sentence; after the findings it sums them up."""
    from conftest import abstract_docs, sample_papers

    from papers_digest.checker.paper import read_paper
    from papers_digest.checker.schema import DIGEST_ORDER, digest_schema

    schema = digest_schema(read_paper(abstract_docs(sample_papers())[0]))
    assert tuple(schema["properties"]) == DIGEST_ORDER
    assert DIGEST_ORDER.index("one_sentence") > DIGEST_ORDER.index("results")
    assert set(schema["required"]) == set(DIGEST_ORDER)
    prompt = Path(ROOT / "prompts" / "digest_en_json.md").read_text(encoding="utf-8")
    where = [prompt.index(f'- "{key}"') for key in DIGEST_ORDER]
    assert where == sorted(where)  # the prompt lists the keys in the order the schema asks for them


@pytest.mark.parametrize("arxiv_id", sorted(PAGES))
def test_after_a_figure_rule_breaks_the_retry_can_write_only_the_papers_figures_there(arxiv_id):
    """The retry's schema binds the prose where a figure broke a rule: a finding to its section's figures,
    a prose field to the paper's; digits that are no figure ("GPT-4", "3 stages") stay writable."""
    import jsonschema

    from papers_digest.checker.paper import read_paper
    from papers_digest.checker.problems import Problem
    from papers_digest.checker.schema import digest_schema, retry_digest_schema

    facts = read_paper(real_doc(arxiv_id))
    first = digest_schema(facts)
    assert (
        retry_digest_schema(facts, [Problem("number_unknown", "results[0].numbers", "'1.5' appears nowhere")]) == first
    )
    problems = [
        Problem("finding_number", "results[2].finding", "'7B' is not in the cited sections 1"),
        Problem("prose_number", "limitations[1]", "'12' appears nowhere in the paper"),
    ]
    retry = retry_digest_schema(facts, problems)
    props = retry["properties"]
    assert props["one_sentence"] == first["properties"]["one_sentence"]  # not named: as before
    item = props["limitations"]["items"]
    options = props["results"]["items"].get("anyOf") or [props["results"]["items"]]
    own = {
        o["properties"]["sections"]["const"][0]: o["properties"]["numbers"].get("items", {}).get("enum", [])
        for o in options
    }
    tag, figures = next((t, f) for t, f in own.items() if f)
    other = next(
        n.text
        for n in facts.everywhere
        if n.counts_in_prose and not facts.holds(tag, n) and not any(n.matches(u) for u in facts.unsectioned)
    )
    finding = next(o for o in options if o["properties"]["sections"]["const"] == [tag])["properties"]["finding"]

    def accepts(schema: dict, text: str) -> bool:
        try:
            jsonschema.validate(text, schema)
        except jsonschema.ValidationError:
            return False
        return True

    assert accepts(finding, f"The method reaches {figures[0]} with GPT-4 as judge in 3 stages.")
    assert accepts(finding, f"It reaches {figures[0]} on MATH (Hendrycks et al., 2021) at level 3.")  # no figures
    assert not accepts(finding, f"The method reaches {other} with GPT-4 as judge.")  # another section's
    assert not accepts(finding, "The method reaches 987654.321 with GPT-4 as judge.")  # nowhere
    assert not accepts(finding, "Aha moment")  # the checker's minimum length
    assert accepts(item, f"Only tested up to {other}.") and not accepts(item, "Only tested up to 987654.321.")
    assert accepts(first["properties"]["limitations"]["items"], "Only tested up to 987654.321.")  # the first is free
    # a heading as a finding (the 0.5B model's, twice): the retry's findings are sentences of words
    heading = "Domain-Specific Pretraining Improves RL Ceiling"
    sentences = retry_digest_schema(facts, [Problem("finding_sentence", "results[1].finding", f"{heading!r} is not")])
    results = sentences["properties"]["results"]["items"]
    worded = (results.get("anyOf") or [results])[0]["properties"]["finding"]
    assert not accepts(worded, heading) and accepts(worded, heading + " by 987654.321 points here.")


def test_the_retry_after_a_cut_off_answer_is_held_to_fewer_items():
    """The 0.5B model's cut-off answers repeat list items and mind-map nodes up to the caps (measured: six
    identical limitations); the retry after one may write fewer, so it closes before llm.max_tokens."""
    import jsonschema

    from papers_digest.checker.paper import read_paper
    from papers_digest.checker.problems import Problem
    from papers_digest.checker.schema import SHORT_ITEMS, SHORT_RESULTS, digest_schema, retry_digest_schema

    facts = read_paper(real_doc("2503.20783"))
    cut = Problem("length", "", "the answer was cut off at the token limit (finish_reason: length)")
    retry, first = retry_digest_schema(facts, [cut]), digest_schema(facts)
    repeated = {
        "label": "R1-Zero",
        "children": [{"label": "Gradients", "children": [{"label": "Gradients"}]} for _ in range(5)],
    }
    fewer = dict(repeated, children=repeated["children"][:SHORT_ITEMS])
    for schema in (first, retry):
        jsonschema.validate(fewer, schema["properties"]["mind_map"])
    jsonschema.validate(repeated, first["properties"]["mind_map"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(repeated, retry["properties"]["mind_map"])
    props = retry["properties"]
    assert props["results"]["maxItems"] == SHORT_RESULTS < first["properties"]["results"]["maxItems"]
    assert props["limitations"]["maxItems"] == props["takeaways"]["maxItems"] == SHORT_ITEMS
    assert props["results"]["minItems"] == 3 and props["problem"] == first["properties"]["problem"]


def test_a_translated_field_is_held_to_its_english_figures_in_order():
    """The translation schema lets a field write its English figures, each once, and no other: the 0.5B
    model dropped "7B" from a method and added "12.1%" to fields that had none."""
    import jsonschema

    from papers_devtools.sim.answers import build_digest
    from papers_digest.checker.schema import translation_schema
    from papers_digest.checker.zh_figures import carried_figures
    from papers_digest.core.models import Digest
    from papers_digest.llm.prompting import digest_messages

    doc = real_doc("2503.20783")
    english = Digest.model_validate(build_digest(digest_messages("system", doc)[1]["content"]))
    schema = translation_schema(english)
    i, with_figures = next((i, r) for i, r in enumerate(english.results) if carried_figures(r.finding))
    finding = schema["properties"]["results"]["prefixItems"][i]["properties"]["finding"]
    figures = carried_figures(with_figures.finding)
    faithful = "结果显示" + "，以及".join(figures) + "。"
    assert jsonschema.Draft202012Validator(finding).is_valid(faithful)
    dropped = "结果显示" + "，以及".join(figures[1:]) + "。"
    assert not jsonschema.Draft202012Validator(finding).is_valid(dropped)
    added = faithful + "另有987654.321。"
    assert not jsonschema.Draft202012Validator(finding).is_valid(added)
    glued = "结果显示perform" + "，以及".join(figures) + "。"  # the checker reads no number in "perform12.1%"
    assert not jsonschema.Draft202012Validator(finding).is_valid(glued)
    texts = [*english.limitations, *english.takeaways]
    items = [*schema["properties"]["limitations"]["prefixItems"], *schema["properties"]["takeaways"]["prefixItems"]]
    bare = next(item for text, item in zip(texts, items, strict=True) if not carried_figures(text))
    assert jsonschema.Draft202012Validator(bare).is_valid("仅在Qwen2.5上测试。")  # a name's digits: writable
    assert not jsonschema.Draft202012Validator(bare).is_valid("仅测试了12.1%的数据。")


def test_a_translated_field_writes_no_number_its_english_field_lacks():
    """Lone digits and years are writable only where the English field has them, at most once each and in
    order: measured on the real engine, the 0.5B model, allowed any lone digit, wrote "结果[1, 2, 3, 4, 5, 6,
    7, 8, 9, 1, 2, …" and then "2000, 2000, …" until the token limit."""
    import jsonschema

    from papers_devtools.sim.answers import build_digest
    from papers_digest.checker.schema import translation_schema
    from papers_digest.core.models import Digest
    from papers_digest.llm.prompting import digest_messages

    english = Digest.model_validate(build_digest(digest_messages("system", real_doc("2503.20783"))[1]["content"]))
    english = english.model_copy(update={"limitations": ["Only tested in 3 stages on AIME 2024, with Qwen2.5."]})
    items = translation_schema(english)["properties"]["limitations"]["prefixItems"]
    limitation = jsonschema.Draft202012Validator(items[0])
    assert limitation.is_valid("仅在AIME 2024上用Qwen2.5分3个阶段测试。") is False  # the English order is 3, 2024
    assert limitation.is_valid("仅分3个阶段在AIME 2024上用Qwen2.5测试。")
    assert limitation.is_valid("仅在AIME上用Qwen2.5测试。")  # a lone digit or a year may be left out
    assert not limitation.is_valid("仅分3个阶段、3个阶段测试。")  # not twice
    assert not limitation.is_valid("结果[1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3]")
    assert not limitation.is_valid("仅在AIME 2000, 2000, 2000上测试。")
