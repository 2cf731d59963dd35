"""Tests for papers_digest.latexml on the recorded arXiv pages in tests/data/arxiv/ (see PROVENANCE.md)."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest

from papers_digest.sources.latexml import ParsedPage, parse_latexml

ROOT = Path(__file__).resolve().parents[1]
# Every recorded page: the test data, the sample day's page, and arXiv's "No HTML" answer the replay serves.
PAGE_FILES = {
    **{p.stem: p for p in (ROOT / "tests" / "data" / "arxiv").glob("*.html")},
    "2503.20783v2": ROOT / "sample" / "arxiv" / "2503.20783v2.html",
    "no_html_2601.17668": ROOT / "devtools" / "src" / "papers_devtools" / "sim" / "data" / "no_html.html",
}
PAGES = ["2601.19139v2", "2512.14946v1", "2508.10395v1", "2503.20783v2"]
MARKER_RE = re.compile(r"^\[§(.+)\]$")


@cache
def raw(name: str) -> bytes:
    return PAGE_FILES[name].read_bytes()


@cache
def parsed(name: str) -> ParsedPage:
    return parse_latexml(raw(name))


def lines(name: str) -> list[str]:
    return parsed(name).text.split("\n")


def starting_with(name: str, prefix: str) -> str:
    """The first line of the page that starts with `prefix` ("" if none)."""
    return next((line for line in lines(name) if line.startswith(prefix)), "")


def section_text(page: ParsedPage, tag: str) -> str:
    """The lines between the marker of `tag` and the next marker."""
    out: list[str] = []
    inside = False
    for line in page.text.split("\n"):
        m = MARKER_RE.match(line)
        if m:
            inside = m.group(1) == tag or m.group(1).startswith(f"{tag} ")
            continue
        if inside:
            out.append(line)
    return "\n".join(out)


# -- sections -----------------------------------------------------------------------------------

EXPECTED_TAGS = {
    # acmart prints "1. ", "2.1. ": the trailing period is dropped.
    "2601.19139v2": [
        "Abstract", "1", "2", "2.1", "2.2", "2.3", "2.4", "3", "3.1", "3.2", "3.3",
        "4", "4.1", "4.2", "4.3", "4.4", "5", "6",
    ],
    "2512.14946v1": [
        "Abstract", "1", "2", "2.1", "2.2", "3", "3.1", "3.2", "4", "4.1", "4.2", "4.3", "4.4",
        "5", "6", "6.1", "6.2", "6.3", "7", "8", "9", "A",
    ],
    # Appendices A1, A2 print as "Appendix A", "Appendix B"; two unnumbered subsections of §5.
    "2508.10395v1": [
        "Abstract", "1", "2", "2.1", "2.2", "2.3", "2.4", "3", "3.1", "3.2", "3.3", "3.3.1", "3.3.2",
        "3.4", "4", "4.1", "4.2", "4.3", "5", "Limitations", "Acknowledgements", "A", "B",
    ],
    # The recorder removed appendices C-F.
    "2503.20783v2": [
        "Abstract", "1", "2", "2.1", "2.2", "2.3", "3", "3.1", "3.2", "3.3", "3.4", "4", "A", "B", "G",
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", PAGES)
def test_section_tags_in_order(name: str) -> None:
    page = parsed(name)
    assert page.kind == "content"
    assert [s.tag for s in page.sections] == EXPECTED_TAGS[name]


@pytest.mark.parametrize("name", PAGES)
def test_markers_match_sections_one_to_one(name: str) -> None:
    page = parsed(name)
    text_lines = page.text.split("\n")
    markers = [line for line in text_lines if MARKER_RE.match(line)]
    expected = [f"[§{s.tag}]" if s.title in ("", s.tag) else f"[§{s.tag} {s.title}]" for s in page.sections]
    assert markers == expected
    for i, line in enumerate(text_lines):
        assert line == line.strip(), f"stray whitespace on line {i}: {line!r}"
        if MARKER_RE.match(line) and i > 0:
            assert text_lines[i - 1] == "", f"no blank line before {line}"
        if line == "":
            assert i > 0 and MARKER_RE.match(text_lines[i + 1]), f"blank line {i} not before a marker"
    assert not re.search(r"[ \t]{2,}", page.text)


def test_levels_and_anchors() -> None:
    by_tag = {s.tag: s for s in parsed("2508.10395v1").sections}
    assert (by_tag["Abstract"].anchor, by_tag["Abstract"].level, by_tag["Abstract"].title) == (
        "abstract",
        0,
        "Abstract",
    )
    assert (by_tag["3"].anchor, by_tag["3"].level) == ("S3", 1)
    assert (by_tag["3.3"].anchor, by_tag["3.3"].level) == ("S3.SS3", 2)
    assert (by_tag["3.3.1"].anchor, by_tag["3.3.1"].level) == ("S3.SS3.SSS1", 3)
    assert by_tag["3.3.1"].title == "Extending XQuant to support GQA"
    assert (by_tag["Limitations"].anchor, by_tag["Limitations"].level) == ("S5.SSx1", 2)
    assert (by_tag["A"].anchor, by_tag["A"].level, by_tag["A"].title) == ("A1", 1, "Prefill for XQuant-CL")
    assert (by_tag["B"].anchor, by_tag["B"].level) == ("A2", 1)


def test_marker_lines_as_printed() -> None:
    text = parsed("2601.19139v2").text
    assert "[§1 Introduction]" in text
    assert "[§2.1 Apple Silicon and Unified Memory]" in text
    assert "[§1. Introduction]" not in text
    assert "\n[§Limitations]\n" in parsed("2508.10395v1").text  # unnumbered: the title is the tag
    assert "[§A Pseudo Code for Algorithm]" in parsed("2512.14946v1").text
    assert "[§3.3.2 Extending XQuant-CL to support GQA]" in parsed("2508.10395v1").text


def test_sample_page_shape() -> None:
    page = parsed("2503.20783v2")
    levels = [s.level for s in page.sections]
    assert levels.count(0) == 1
    assert [s.tag for s in page.sections if s.level == 1 and s.tag.isdigit()] == ["1", "2", "3", "4"]
    assert [s.tag for s in page.sections if s.level == 1 and s.tag.isalpha()] == ["A", "B", "G"]
    assert levels.count(2) == 7
    captions = [line for line in lines("2503.20783v2") if re.match(r"Table \d+: ", line)]
    assert [c.split(":")[0] for c in captions] == ["Table 1", "Table 2", "Table 3", "Table 4", "Table 6"]
    assert page.sections[8].title == "Dr. GRPO: Group Relative Policy Optimization Done Right"


# -- title, abstract, version --------------------------------------------------------------------

TITLES = {
    "2601.19139v2": "Native LLM and MLLM Inference at Scale on Apple Silicon",
    "2512.14946v1": "EvicPress: Joint KV-Cache Compression and Eviction for Efficient LLM Serving",
    "2508.10395v1": "XQuant: Breaking the Memory Wall for LLM Inference with KV Cache Rematerialization",
    "2503.20783v2": "Understanding R1-Zero-Like Training: A Critical Perspective",
}
ABSTRACT_STARTS = {
    "2601.19139v2": "The growing adoption of Apple Silicon for machine learning development has created",
    "2512.14946v1": "Reusing KV cache is essential for high efficiency of Large Language Model (LLM)",
    "2508.10395v1": "Although LLM inference has emerged as a critical workload for many downstream",
    "2503.20783v2": "DeepSeek-R1-Zero has shown that reinforcement learning (RL) at scale can directly",
}


@pytest.mark.parametrize("name", PAGES)
def test_title_and_abstract_first(name: str) -> None:
    page = parsed(name)
    assert page.title == TITLES[name]
    assert page.title not in page.text.split("\n")
    assert page.text.startswith("[§Abstract]\n" + ABSTRACT_STARTS[name])


def test_keywords_kept_under_abstract() -> None:
    abstract = section_text(parsed("2601.19139v2"), "Abstract")
    assert "LLM inference, multimodal LLM, Apple Silicon, MLX, prefix caching, llama.cpp" in abstract


def test_version_from_base_href_then_url() -> None:
    assert parsed("2601.19139v2").version == 2
    assert parsed("2512.14946v1").version == 1
    # The base href wins over a url naming another version.
    assert parse_latexml(raw("2508.10395v1"), url="https://arxiv.org/html/2508.10395v3").version == 1
    # The sample page kept only <article>: no <base href>, so only the url can say.
    assert parsed("2503.20783v2").version is None
    assert parse_latexml(raw("2503.20783v2"), url="https://arxiv.org/html/2503.20783v2").version == 2
    assert parse_latexml(raw("2503.20783v2"), url="https://arxiv.org/html/2503.20783v2#S3").version == 2
    assert parse_latexml(raw("2503.20783v2"), url="https://arxiv.org/html/2503.20783").version is None


def test_str_and_bytes_agree() -> None:
    assert parse_latexml(raw("2601.19139v2").decode("utf-8")) == parsed("2601.19139v2")


# -- what must not be in the text ---------------------------------------------------------------

ABSENT = {
    "2601.19139v2": [
        "The Llama 3 Herd of Models",  # bibliography entry
        "Wayner Barrios",  # authors block
        "Generated on",  # page footer
        "LaTeXML",
    ],
    "2512.14946v1": [
        "It does not mean deleting the KV cache from the system",  # footnote 1
        "Compression ratio is defined as the ratio between compressed KV cache size",  # footnote 2
        "Equal contribution",  # footnotetext directly in the article
        "Shaoting Feng",
    ],
    "2508.10395v1": [
        "Gqa: Training generalized multi-query transformer models",  # bibliography entry
        "\\useunder",  # ltx_ERROR (undefined command)
        "footnotemark",
        "Aditya Tomar",
    ],
    "2503.20783v2": [
        "Back to basics: Revisiting reinforce style optimization",  # bibliography entry
        "Developed with the LLM RL framework Oat",  # footnote
        "Core Contributors",  # \thanks note
        "Zichen Liu",
        "data:text/plain;base64",  # the listing's download link
    ],
}


@pytest.mark.parametrize("name", PAGES)
def test_no_chrome_bibliography_footnotes_or_authors(name: str) -> None:
    text = parsed(name).text
    for needle in ABSENT[name]:
        assert needle not in text, needle
    assert "References" not in [line for line in text.split("\n")]


@pytest.mark.parametrize("name", PAGES)
def test_toc_does_not_repeat_headings(name: str) -> None:
    page = parsed(name)
    # The nav TOC repeats every heading before the article; only the marker may carry it.
    for s in page.sections:
        if s.level > 0 and len(s.title) > 25:
            assert page.text.count(s.title) == 1, s.title


# -- math ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PAGES)
def test_no_invisible_operators(name: str) -> None:
    assert "\u2062" in raw(name).decode("utf-8")  # the MathML does carry them…
    text = parsed(name).text
    assert "\u2061" not in text and "\u2062" not in text  # …the text never does


def test_math_as_alttext() -> None:
    xquant = lines("2508.10395v1")
    # A numbered display equation: one line, alttext then its number.
    assert (
        "\\mathrm{Arithmetic\\ Intensity}=\\frac{\\mathrm{Compute\\ Operations\\ Performed}}"
        "{\\mathrm{Bytes\\ Transfered}}, (1)"
    ) in xquant
    eq3 = r"P=\frac{2\cdot 2\cdot l\cdot d^{2}}{\frac{e}{8}\cdot l\cdot d+2\cdot 12\cdot d^{2}} (3)"
    assert eq3 in xquant
    # Inline math inside a sentence and in a caption.
    assert r"cache the input embedding X, which requires 2\times" in parsed("2508.10395v1").text
    caption = starting_with("2601.19139v2", "Table 2. Multi-turn MLLM latency")
    assert r"(Qwen3-VL-8B (Wang et al., 2024), 1024\times1024 image)" in caption


def test_escaped_percent_in_math_prints_as_the_paper_shows_it() -> None:
    # `<math alttext="43.3\%">`: the number a model quotes from the abstract is "43.3%".
    assert "recipe that achieves 43.3% accuracy on AIME 2024" in parsed("2503.20783v2").text
    assert "\\%" not in parsed("2503.20783v2").text


def test_equation_group_is_one_line() -> None:
    group = [line for line in lines("2508.10395v1") if line.startswith("\\displaystyle[K|V]_{i}")]
    assert len(group) == 1
    assert "\\displaystyle\\qquad\\text{where}\\quad U_{kv}^{T}U_{kv}=I_{2\\frac{d}{g}}" in group[0]


# -- tables, figures, lists, paragraphs ----------------------------------------------------------

TABLE_ROWS = {
    "2601.19139v2": [
        "Model | Ours | vllm-metal (vLLM Project, 2024) | mlx-lm (Apple, 2023) | llama.cpp (Gerganov, 2023) | Speedup",
        "Qwen3-0.6B | 525.5 | 365.8 | 356.2 | 281.5 | 1.87x",
        "Nemotron-30B-A3B (NVIDIA, 2025) | 121.8 | – | 101.6 | 85.1 | 1.43x",
    ],
    "2512.14946v1": [
        "Dataset | Length (mean) | Type of contexts | #Contexts",
        "Samsum | 11586 | Few-shot | 50",
    ],
    "2508.10395v1": [
        "Method | KV | Llama-2-7B | Llama-2-13B",  # colspan header row: just the printed cells
        "Baseline | 1.00 | 5.47 | 7.26 | 4.88 | 6.73",
        "XQuant-CL-2bit | 0.08 | 5.57 | 7.39 | 5.11 | 7.09 | 0.15 | 6.60 | 10.15 | 5.46 | 8.67",
    ],
    "2503.20783v2": [
        "Oat-Zero-7B | 43.3 | 62.7 | 80.0 | 30.1 | 41.0 | 51.4",
        "Adam parameters (\\beta_{1},\\beta_{2}) | (0.9, 0.95)",
        "trl (von Werra et al., 2020) | PPO Loss",  # the ✗ icon column is an SVG: dropped
    ],
}


@pytest.mark.parametrize("name", PAGES)
def test_table_rows(name: str) -> None:
    page_lines = lines(name)
    for row in TABLE_ROWS[name]:
        assert row in page_lines, row


def test_table_caption_precedes_its_rows() -> None:
    page_lines = lines("2512.14946v1")
    i = page_lines.index("Table 2: Dataset Statistics and description.")
    assert page_lines[i + 1] == "Dataset | Mean | Std | Topic"
    assert page_lines[i + 2] == "narrativeqa | 108K | 55K | Long stories (literature, film)."
    assert section_text(parsed("2512.14946v1"), "6.1").startswith("Table 2: Dataset Statistics")


def test_figure_captions_kept() -> None:
    assert "Figure 6: End-to-end workflow of EvicPress." in lines("2512.14946v1")
    assert starting_with("2601.19139v2", "Figure 1. Framework capability comparison.")


def test_list_items_and_paragraph_titles() -> None:
    assert starting_with("2601.19139v2", "• A comprehensive benchmark comparing vllm-mlx")
    # h4 paragraph headings (and theorem names) run into their paragraph instead of becoming markers.
    assert starting_with("2601.19139v2", "Key differentiators. Compared to mlx-lm")
    assert "[§Key differentiators.]" not in parsed("2601.19139v2").text
    assert starting_with("2512.14946v1", "Insight 1 Different contexts have different sensitivities")


def test_citations_stay_as_printed() -> None:
    assert "llama.cpp (Gerganov, 2023) provides highly optimized inference" in parsed("2601.19139v2").text
    # Unresolved citations keep their keys.
    assert "[lmcache, cacheblend, jin2025computeloadkvcache, yang2025kvlinkacceleratinglargelanguage]" in (
        parsed("2512.14946v1").text
    )


def test_text_boxes_drawn_as_svg_are_kept() -> None:
    # tcolorbox content lives in an <svg> foreignObject; it is content, not decoration.
    assert "Overview of takeaways" in lines("2503.20783v2")
    assert starting_with("2503.20783v2", "• (Sec. 2.1) Template is crucial to make base models answer")
    assert starting_with("2503.20783v2", "Template 1 (R1 template). A conversation between User and")


# -- kinds and robustness ------------------------------------------------------------------------


def test_no_html_page() -> None:
    page = parse_latexml(raw("no_html_2601.17668"), url="https://arxiv.org/html/2601.17668")
    assert page.kind == "no_html"
    assert (page.text, page.sections, page.title) == ("", [], None)
    # Detected by the heading, not by the bytes of arXiv's chrome.
    other = "<html><body><main><h1>\n  No HTML for '2402.00001v1'\n</h1><p>Sorry.</p></main></body></html>"
    assert parse_latexml(other).kind == "no_html"


STUB = """<!DOCTYPE html><html lang="en"><head><title>paper</title>
<base href="/html/2401.01234v1/"/></head><body>
<div class="ltx_page_main"><div class="ltx_page_content">
<article class="ltx_document">
<div class="ltx_para" id="p1"><span class="ltx_ERROR undefined">\\includepdf</span>
<p class="ltx_p">See pages 1-last of paper.pdf</p></div>
</article></div>
<footer class="ltx_page_footer"><div class="ltx_page_logo">Generated by LaTeXML</div></footer>
</div></body></html>"""


def test_pdf_only_stub() -> None:
    page = parse_latexml(STUB)
    assert page.kind == "stub"
    assert page.version == 1
    assert page.sections == []


SYNTHETIC = """<html><body>
<nav class="ltx_TOC"><a>1 Method</a></nav>
<div id="infobox">License: CC BY 4.0 arXiv:2601.03590v1 [cs.CV] 07 Jan 2026</div>
<article class="ltx_document">
<h1 class="ltx_title ltx_title_document">A Survey of Tests<span class="ltx_note"><span
 class="ltx_note_content">thanks: funded</span></span></h1>
<section class="ltx_section" id="S1"><h2 class="ltx_title ltx_title_section">3 Method</h2>
<div class="ltx_para"><p class="ltx_p">We use <math alttext="x^{2}"><mi>x</mi><mo>\u2062</mo></math> here<span
 class="ltx_note ltx_role_footnote"><sup class="ltx_note_mark">1</sup><span class="ltx_note_outer">
 <span class="ltx_note_content">a footnote sentence</span></span></span> and there.</p>
<table class="ltx_equation ltx_eqn_table"><tbody><tr class="ltx_equation ltx_eqn_row">
<td class="ltx_eqn_cell"><math alttext="a=b" display="block"><mi>a</mi></math></td>
<td class="ltx_eqn_cell ltx_eqn_eqno"><span class="ltx_tag ltx_tag_equation">(7)</span></td>
</tr></tbody></table>
</div>
<section class="ltx_subsection" id="S1.SS2"><h3 class="ltx_title ltx_title_subsection">3.2 Prefill   cost</h3>
<section class="ltx_paragraph" id="S1.SS2.Px1"><h5 class="ltx_title ltx_title_paragraph">Setup.</h5>
<div class="ltx_para"><p class="ltx_p">Cells <span class="ltx_ERROR undefined">\\cellcolor</span>gray!20
 shown.</p></div>
</section>
<span class="ltx_tabular"><span class="ltx_tr"><span class="ltx_td">a</span><span class="ltx_td">b</span>
</span>
<span class="ltx_tr"><span class="ltx_td">1</span><span class="ltx_td">2</span></span></span>
</section></section>
<section class="ltx_section" id="S2"><h2 class="ltx_title ltx_title_section">A Survey of Baselines</h2>
<p class="ltx_p">Text.</p></section>
<section class="ltx_section" id="S3"><h2 class="ltx_title ltx_title_section">3 Again</h2>
<p class="ltx_p">Duplicate tag body.</p></section>
<section class="ltx_bibliography" id="bib"><ul><li class="ltx_bibitem">Some Reference 2020</li></ul></section>
<figure class="ltx_table" id="A0.T1"><table class="ltx_tabular">
<tr><td rowspan="2">Model</td><td>Acc</td></tr><tr><td><table class="ltx_tabular"><tr><td>nested</td>
<td>cell</td></tr></table></td></tr></table>
<figcaption><span class="ltx_tag ltx_tag_table">Table 9: </span>Outside any section.</figcaption></figure>
<section class="ltx_appendix" id="A1"><h2 class="ltx_title ltx_title_appendix">B Extra results</h2>
<section class="ltx_subsection" id="A1.SS1"><h3 class="ltx_title ltx_title_subsection">B.1 More</h3>
<p class="ltx_p">Appendix text.</p></section></section>
</article></body></html>"""


def test_heading_and_block_rules_on_a_synthetic_page() -> None:
    page = parse_latexml(SYNTHETIC)
    assert page.kind == "content"
    assert page.title == "A Survey of Tests"
    tags = [(s.tag, s.title, s.anchor, s.level) for s in page.sections]
    assert tags == [
        ("3", "Method", "S1", 1),  # number printed as plain text, no tag span
        ("3.2", "Prefill cost", "S1.SS2", 2),
        ("A Survey of Baselines", "A Survey of Baselines", "S2", 1),  # not tag "A"
        ("B", "Extra results", "A1", 1),  # a lone letter counts inside an appendix
        ("B.1", "More", "A1.SS1", 2),
    ]
    assert page.text.split("\n") == [
        "[§3 Method]",
        "We use x^{2} here and there.",
        "a=b (7)",
        "",
        "[§3.2 Prefill cost]",
        "Setup. Cells gray!20 shown.",
        "a | b",
        "1 | 2",
        "",
        "[§A Survey of Baselines]",
        "Text.",
        "3 Again",  # duplicate tag "3": the first keeps it, this heading becomes a plain line
        "Duplicate tag body.",
        "Table 9: Outside any section.",
        "Model | Acc",
        "nested cell",
        "",
        "[§B Extra results]",
        "",
        "[§B.1 More]",
        "Appendix text.",
    ]


def test_not_latexml_or_empty_is_stub() -> None:
    for junk in ["", b"", "   ", "<html>", "<p>just a web page</p>" * 200, "<?xml version='1.0'?><a/>"]:
        page = parse_latexml(junk)
        assert page.kind == "stub"
        assert page.sections == []


@pytest.mark.parametrize("name", [*PAGES, "no_html_2601.17668"])
def test_truncated_page_does_not_raise(name: str) -> None:
    data = raw(name)
    page = parse_latexml(data[: int(len(data) * 0.4)])
    assert page.kind in ("content", "stub", "no_html")
    if page.kind == "content":
        assert page.sections[0].tag == "Abstract"
        markers = [line for line in page.text.split("\n") if MARKER_RE.match(line)]
        assert len(markers) == len(page.sections)


def test_random_bytes_do_not_raise() -> None:
    rnd = random.Random(20250403)
    for _ in range(50):
        blob = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 4000)))
        assert parse_latexml(blob).kind == "stub"
    # Random slices of a real page, with a few bytes flipped: tags left open, broken UTF-8.
    data = bytearray(raw("2508.10395v1"))
    for _ in range(10):
        start = rnd.randrange(len(data))
        chunk = bytearray(data[start : start + rnd.randrange(1, 60_000)])
        for _ in range(20):
            if chunk:
                chunk[rnd.randrange(len(chunk))] = rnd.randrange(256)
        assert isinstance(parse_latexml(bytes(chunk)), ParsedPage)
