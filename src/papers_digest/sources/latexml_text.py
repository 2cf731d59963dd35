"""LaTeXML markup as text: which elements to skip, inline text with math as TeX, section heading tags."""

from __future__ import annotations

import re

from lxml import etree

# Elements whose content never belongs in the text: arXiv chrome, TOC, media, scripts.
SKIP_TAGS = frozenset(
    {
        "nav", "header", "footer", "script", "style", "noscript", "template", "img", "svg", "object",
        "embed", "iframe", "video", "audio", "canvas", "button", "form", "input", "select", "textarea",
        "head", "title", "meta", "link", "base", "annotation", "annotation-xml",
    }
)  # fmt: skip
# LaTeXML classes to drop. Notes are footnotes/thanks (they would split sentences); ltx_ERROR is an
# undefined command's name (`\cellcolor`); the document title is returned separately.
SKIP_CLASSES = frozenset(
    {
        "ltx_bibliography", "ltx_biblist", "ltx_note", "ltx_authors", "ltx_dates", "ltx_page_logo",
        "ltx_ERROR", "ltx_page_navbar", "ltx_page_header", "ltx_page_footer", "ltx_TOC",
        "ltx_listing_data", "ltx_title_document", "ltx_rdf",
    }
)  # fmt: skip
SKIP_IDS = frozenset({"infobox", "header", "footer"})

BLOCK_TAGS = frozenset(
    {
        "html", "body", "main", "article", "section", "aside", "div", "p", "figure", "figcaption",
        "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "pre", "address", "center", "details",
        "summary", "fieldset", "caption", "hr", "table", "thead", "tbody", "tfoot", "tr", "td", "th",
        "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
EQUATION_CLASSES = frozenset({"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"})

# Section classes that get a marker, with their level (chapters push everything below down one).
SECTION_LEVELS = {
    "ltx_chapter": 1,
    "ltx_section": 1,
    "ltx_appendix": 1,
    "ltx_subsection": 2,
    "ltx_subsubsection": 3,
}
MARKER_TITLE_CLASSES = frozenset(
    {"ltx_title_chapter", "ltx_title_section", "ltx_title_appendix", "ltx_title_subsection",
     "ltx_title_subsubsection"}
)  # fmt: skip

# Inline spans that LaTeXML uses for block-ish things (minipages, \parbox): keep words apart.
SPACED_CLASSES = frozenset({"ltx_p", "ltx_para", "ltx_inline-block", "ltx_minipage", "ltx_td", "ltx_tr"})

SVG_TEXT_MIN_CHARS = 60

# In inline context (inside SVG boxes, table cells) LaTeXML writes paragraphs and lists as spans.
BLOCK_SPAN_CLASSES = frozenset(
    {"ltx_para", "ltx_p", "ltx_item", "ltx_itemize", "ltx_enumerate", "ltx_description", "ltx_theorem",
     "ltx_proof", "ltx_minipage"}
)  # fmt: skip

WS_RE = re.compile(r"\s+")
INVISIBLE_RE = re.compile("[\u2061-\u2064\u200b\ufeff]")
CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
VERSION_RE = re.compile(r"/html/\S*?\d+v(\d+)(?:[/?#]|$)")
TAG_WORD_RE = re.compile(r"^(?:appendix|chapter|section|part)\s+", re.IGNORECASE)
# Numbers printed as plain text at the start of a heading (no ltx_tag span): `3`, `3.2`, `A.1`,
# `Appendix A:`, `IV.`; a lone capital letter only inside an appendix ("A Survey of …" is a title).
NUM_TITLE_RE = re.compile(r"^(\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+(\S.*)$")
APPENDIX_WORD_RE = re.compile(r"^Appendix\s+([A-Z](?:\.\d+)*)[.:]?(?:\s+(\S.*))?$")
ROMAN_TITLE_RE = re.compile(r"^([IVX]+)\.\s+(\S.*)$")
LETTER_TITLE_RE = re.compile(r"^([A-Z])[.:]?\s+(\S.*)$")


def class_set(el: etree._Element) -> set[str]:
    cls = el.get("class")
    return set(cls.split()) if cls else set()


def is_foreign(el: etree._Element) -> bool:
    return isinstance(el.tag, str) and el.tag.lower() == "foreignobject"


def outermost_foreign(box: etree._Element, svg: etree._Element) -> bool:
    for anc in box.iterancestors():
        if anc is svg:
            return True
        if is_foreign(anc):
            return False
    return True


TEX_ESCAPED_RE = re.compile(r"\\([%$&#_])")


def collapse(text: str) -> str:
    return WS_RE.sub(" ", INVISIBLE_RE.sub("", text)).strip()


def skip(el: etree._Element, classes: set[str]) -> bool:
    return el.tag in SKIP_TAGS or not classes.isdisjoint(SKIP_CLASSES) or el.get("id") in SKIP_IDS


def math_text(el: etree._Element) -> str:
    alt = el.get("alttext")
    if alt is None:  # MathML without alttext: prefer the TeX annotation, else the visible text
        tex = el.xpath(".//*[local-name()='annotation'][@encoding='application/x-tex']")
        alt = (tex[0].text or "") if tex else "".join(el.itertext())
    # `43.3\%` is a percent sign escaped for TeX, not math: print it as the paper shows it, so a number
    # quoted from the paper ("43.3%") is found verbatim.
    alt = TEX_ESCAPED_RE.sub(r"\1", alt)
    return f" {alt} " if el.get("display") == "block" else alt


def inline(el: etree._Element, out: list[str]) -> None:
    """Append the text of `el`'s content (not its tail) as one run: math as alttext, notes dropped."""
    if el.text:
        out.append(el.text)
    for child in el:
        tag = child.tag
        if isinstance(tag, str):
            classes = class_set(child)
            if tag == "math":
                out.append(math_text(child))
            elif tag == "br":
                out.append(" ")
            elif not skip(child, classes):
                # Nested tabulars and block-ish spans are flattened with spaces between their parts.
                spaced = tag in BLOCK_TAGS or not classes.isdisjoint(SPACED_CLASSES)
                if spaced:
                    out.append(" ")
                inline(child, out)
                if spaced or "ltx_tag" in classes:
                    out.append(" ")
        if child.tail:
            out.append(child.tail)


def inline_text(el: etree._Element) -> str:
    out: list[str] = []
    inline(el, out)
    return collapse("".join(out))


def normalise_tag(raw: str) -> str:
    tag = TAG_WORD_RE.sub("", collapse(raw))
    return tag.rstrip(".:").strip()


def heading_tag_title(heading: etree._Element, in_appendix: bool) -> tuple[str, str]:
    """Split a section heading into (printed tag, title); tag is "" when the heading has no number."""
    tag = ""
    out: list[str] = []
    if heading.text:
        out.append(heading.text)
    for child in heading:
        if isinstance(child.tag, str):
            classes = class_set(child)
            if not tag and "ltx_tag" in classes:
                tag = normalise_tag(inline_text(child))
            elif child.tag == "math":
                out.append(math_text(child))
            elif child.tag == "br":
                out.append(" ")
            elif not skip(child, classes):
                inline(child, out)
        if child.tail:
            out.append(child.tail)
    title = collapse("".join(out))
    if tag:
        return tag, title
    for pattern in (APPENDIX_WORD_RE, NUM_TITLE_RE, ROMAN_TITLE_RE):
        m = pattern.match(title)
        if m:
            return m.group(1), m.group(2) or ""
    if in_appendix:
        m = LETTER_TITLE_RE.match(title)
        if m:
            return m.group(1), m.group(2)
    return "", title
