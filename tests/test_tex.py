"""LaTeX in titles, digests and evidence: MathML on the pages, Unicode in feeds and email, never a crash (pure)."""

from __future__ import annotations

import random

import lxml.html
import pytest

from papers_digest.site.tex import tex_markup, tex_text

MATHML = "http://www.w3.org/1998/Math/MathML"


def maths(markup: str) -> list[lxml.html.HtmlElement]:
    return lxml.html.fragment_fromstring(markup, create_parent="p").xpath("//math")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (r"Trained on 8 \times A100 GPUs", "Trained on 8 × A100 GPUs"),  # a bare macro, as LaTeXML's text has it
        (r"loss $\mathcal{L} = x^2$ drops", "loss ℒ = x^2 drops"),
        (r"in \(O(n^2)\) time", "in O(n^2) time"),
        (r"Code LLMs with \textsc{AIEV-Instruct}", "Code LLMs with AIEV-Instruct"),
        (r"a 43.3\% gain", "a 43.3% gain"),
        (r"R\'enyi entropy", "Rényi entropy"),
    ],
)  # fmt: skip
def test_latex_becomes_unicode_text_for_feeds_email_and_titles(text, shown):
    assert tex_text(text) == shown


def test_formulas_become_mathml_and_the_rest_stays_text():
    markup = tex_markup(
        r"Trained on 8 \times A100 GPUs; loss $\mathcal{L}$ and \begin{split} a &= b \\ c &= d \end{split}"
    )
    found = maths(markup)
    assert [m.get("display") for m in found] == ["inline", "inline", "block"]
    assert found[0].text_content() == "×" and found[1].text_content() == "ℒ"
    assert found[2].xpath("count(.//mtr)") == 2  # the split environment's two rows
    assert markup.startswith("Trained on 8 <math") and "\\times" not in markup and "\\begin" not in markup
    assert f'xmlns="{MATHML}"' in markup


@pytest.mark.parametrize(
    "text",
    [
        "costs $5 and $10 a month",  # prices are not math
        "US$5, or 5 $ each",
        r"an escaped \$ sign and 50\% more",
        "no LaTeX at all <b>bold</b> & more",
        r"an unknown macro \ours stays as written",
        r"$x^{$ is broken",
    ],
)
def test_what_is_not_a_formula_stays_as_written_and_escaped(text):
    markup = tex_markup(text)
    assert maths(markup) == []
    assert lxml.html.fragment_fromstring(markup, create_parent="p").text_content() == text.replace("\\$", "$").replace(
        "\\%", "%"
    )


@pytest.mark.parametrize(
    "text",
    [
        r"\text{</math><script>alert(1)</script>}",
        r"$\text{<img src=x onerror=alert(1)/>}$",
        r"$\href{javascript:alert(1)}{x}$ and $\style{color:red}{y}$ and $\class{c}{z}$",
        r"\textbf{<script>alert(2)</script>}",
    ],
)
def test_markup_in_a_formula_is_never_markup(text):
    root = lxml.html.fragment_fromstring(tex_markup(text), create_parent="p")
    assert (
        root.xpath("//script | //img | //*[@href] | //*[@style] | //*[@class] | //*[starts-with(name(@*), 'on')]") == []
    )
    assert all(e.tag in ("p", "math") or e.getparent().tag != "p" for e in root.iter())


def test_nothing_raises_whatever_the_text():
    """Formulas cut anywhere, unbalanced braces, stray dollars and backslashes: a page is always rendered."""
    pieces = [r"\frac{", "}", "{", "$", "$$", r"\(", r"\)", r"\begin{cases}", r"\end{split}", r"\times", "^", "_",
              r"\\", "&", "x", " ", r"\text{", "%", r"\left(", r"\right", "é", "中"]  # fmt: skip
    rng = random.Random(39)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        assert isinstance(tex_text(text), str)
        lxml.html.fragment_fromstring(str(tex_markup(text)) or "x", create_parent="p")  # well-formed enough to parse


def test_a_runaway_dollar_is_not_read_as_one_long_formula():
    text = "$" + "a" * 5000 + "$"
    assert maths(tex_markup(text)) == [] and tex_text(text) == text
