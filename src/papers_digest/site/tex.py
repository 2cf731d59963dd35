"""LaTeX in titles, digests and evidence: MathML for the pages, Unicode text for feeds, email and titles (pure).

Papers' titles and abstracts, the model's digests and the evidence sentences (the paper's own text, with its
math as LaTeX) carry `$…$`, `\\(…\\)`, `\\begin{split}…` and bare macros such as `8 \\times A100`. The pages show
them as MathML, which browsers draw with no script; a feed, an email or a <title> gets Unicode text instead.
A formula that does not convert, or whose MathML is not plain MathML, stays its own text: nothing fails.
"""

from __future__ import annotations

import functools
import logging
import re

from latex2mathml.converter import convert
from lxml import etree
from markupsafe import Markup, escape
from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import LatexWalker, get_default_latex_context_db

# pylatexenc logs a warning for each macro it cannot fill in (and writes "%s"); the text falls back instead.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)

MAX_FORMULA = 2000  # characters: a longer span is not read as a formula (nor is a runaway `$`)
_ENVIRONMENTS = (
    "equation|align|aligned|alignat|split|gather|gathered|multline|cases|array|matrix|pmatrix|bmatrix|vmatrix|"
    "Bmatrix|Vmatrix|smallmatrix|eqnarray"
)
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"  # a braced group, three levels deep
# A macro with its arguments, and the scripts and macros that follow it without a space: `\mathcal{O}`,
# `\times`, `\hat{y}_{t}^{2}`, `\frac{1}{2}`.
_BARE = rf"\\[A-Za-z]+\*?(?:{_GROUP}|\[[^\]\n]{{0,40}}\]|[\^_](?:{_GROUP}|\\[A-Za-z]+|[A-Za-z0-9])|\\[A-Za-z]+\*?)*"
_FORMULA = f"{{1,{MAX_FORMULA}}}?"  # a formula's length, lazily
_SPAN_RE = re.compile(
    rf"\$\$(?P<display>[^$]{_FORMULA})\$\$"
    rf"|\\\[(?P<bracket>.{_FORMULA})\\\]"
    # pandoc's rule, so prices stay prices ("$5 and $10"): no space inside either `$`, no digit after the second
    rf"|(?<![\\$\w])\$(?P<dollar>[^\s$](?:[^$\n]{{0,{MAX_FORMULA}}}?[^\s$\\])?)\$(?!\d)"
    rf"|\\\((?P<paren>.{_FORMULA})\\\)"
    rf"|(?P<environment>\\begin\{{(?P<name>(?:{_ENVIRONMENTS})\*?)\}}.{{0,{MAX_FORMULA}}}?\\end\{{(?P=name)\}})"
    r"|(?P<escaped>\\[%&_#$])"
    r"|(?P<accent>\\['`^\"~=.](?:[A-Za-z]|\{[A-Za-z]\}))"  # R\'enyi; Erd\H{o}s is left as written
    rf"|(?P<bare>{_BARE})",
    re.S,
)
# Macros of running text, not math: their argument is shown as text.
_TEXT_MACROS = frozenset((
    "text", "textbf", "textit", "textsc", "texttt", "textrm", "textsf", "textsl", "textup", "emph", "underline",
    "url", "mbox", "cite", "citep", "citet", "ref", "eqref", "footnote",
))  # fmt: skip
_MATHML = "{http://www.w3.org/1998/Math/MathML}"
_ELEMENTS = frozenset((
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt", "mroot",
    "mstyle", "merror", "mpadded", "mphantom", "mover", "munder", "munderover", "mmultiscripts", "mprescripts",
    "none", "mtable", "mtr", "mtd", "menclose", "semantics", "annotation",
))  # fmt: skip
_ATTRIBUTES = frozenset((
    "display", "displaystyle", "mathvariant", "mathsize", "columnalign", "columnspacing", "rowspacing", "rowalign",
    "columnlines", "rowlines", "frame", "stretchy", "fence", "separator", "lspace", "rspace", "width", "height",
    "depth", "linethickness", "accent", "accentunder", "movablelimits", "symmetric", "largeop", "minsize", "maxsize",
    "form", "notation", "scriptlevel",
))  # fmt: skip
_TO_TEXT = LatexNodes2Text(math_mode="text")
_MACROS = get_default_latex_context_db()  # built once: pylatexenc would build it again for every formula


def tex_markup(text: str) -> Markup:
    """Text with its LaTeX as MathML, the rest escaped: safe to put in a page as it is."""
    if "$" not in text and "\\" not in text:
        return escape(text)
    parts: list[str] = []
    end = 0
    for match in _SPAN_RE.finditer(text):
        parts += [escape(text[end : match.start()]), _span_markup(match)]
        end = match.end()
    parts.append(escape(text[end:]))
    return Markup("".join(parts))


def tex_text(text: str) -> str:
    """Text with its LaTeX as Unicode (`8 \\times A100` -> `8 × A100`), for where markup cannot go."""
    if "$" not in text and "\\" not in text:
        return text
    out = _SPAN_RE.sub(_span_text, text)
    return " ".join(out.split()) if out != text else text


def tex_pieces(text: str) -> list[tuple[str, str]]:
    """Text cut into (kind, source) pieces, as the pages read it: `text`, `formula` (a `$…$`, `\\(…\\)`, display or
    environment, as written), `macro` (a bare macro with its arguments; `text macro` for one
    of running text, as `\\emph{…}`), `escaped` (`\\%`) and `accent` (`R\\'enyi`): what a BibTeX title keeps
    as LaTeX and what it escapes (site/cite.py)."""
    pieces: list[tuple[str, str]] = []
    end = 0
    for match in _SPAN_RE.finditer(text):
        pieces.append(("text", text[end : match.start()]))
        if match["bare"]:
            name = re.match(r"\\([A-Za-z]+)", match.group(0))
            pieces.append(("text macro" if name and name.group(1) in _TEXT_MACROS else "macro", match.group(0)))
        elif match["escaped"] or match["accent"]:
            pieces.append(("escaped" if match["escaped"] else "accent", match.group(0)))
        else:
            pieces.append(("formula", match.group(0)))
        end = match.end()
    pieces.append(("text", text[end:]))
    return [(kind, source) for kind, source in pieces if source]


def _span_markup(match: re.Match[str]) -> str:
    source = match.group(0)
    if match["escaped"]:
        return escape(source[1])
    if match["accent"]:
        return escape(_to_text(source))
    if match["bare"]:
        name = re.match(r"\\([A-Za-z]+)", source)
        if name and name.group(1) in _TEXT_MACROS:
            return escape(_to_text(source))
    formula, display = _formula(match)
    mathml = _mathml(formula, display)
    if mathml is None or (match["bare"] and "<mi>\\" in mathml):  # a macro latex2mathml does not know: as written
        return escape(source)
    return mathml


def _span_text(match: re.Match[str]) -> str:
    source = match.group(0)
    if match["escaped"]:
        return source[1]
    return _to_text(source if match["bare"] or match["accent"] else _formula(match)[0])


def _formula(match: re.Match[str]) -> tuple[str, bool]:
    """The TeX of a span and whether it is shown as a block."""
    for group, display in (("display", True), ("bracket", True), ("dollar", False), ("paren", False)):
        if match[group] is not None:
            return match[group], display
    return match.group(0), bool(match["environment"])


@functools.lru_cache(maxsize=4096)  # a title is on its day page, its paper page and the pages of its areas
def _mathml(formula: str, display: bool) -> str | None:
    """The formula as MathML of the allowed elements and attributes only, or None: latex2mathml writes `\\text{}`
    content and some attributes (`\\href`, `\\style`) as they are, so its output is parsed and checked."""
    try:
        tree = etree.fromstring(convert(formula, display="block" if display else "inline"))
    except Exception:  # latex2mathml raises its own errors, and others, on odd input; and malformed XML
        return None
    for element in tree.iter():
        if not isinstance(element.tag, str) or not element.tag.startswith(_MATHML):
            return None
        if element.tag.removeprefix(_MATHML) not in _ELEMENTS:
            return None
        for name in list(element.attrib):
            if name not in _ATTRIBUTES:
                del element.attrib[name]
    return etree.tostring(tree, encoding="unicode")


@functools.lru_cache(maxsize=4096)
def _to_text(tex: str) -> str:
    try:
        text = _TO_TEXT.nodelist_to_text(LatexWalker(tex, latex_context=_MACROS).get_latex_nodes()[0])
    except Exception:  # pylatexenc's parser errors
        return tex
    return tex if "%s" in text or not text.strip() else " ".join(text.split())
