"""Parse an arXiv HTML page (LaTeXML output) into plain text with `[§tag title]` section markers."""

from __future__ import annotations

import re
from typing import Literal

from lxml import etree
from pydantic import BaseModel

from papers_digest.models import Section

ParsedKind = Literal["content", "no_html", "stub"]

# A 200 page with no numbered/unnumbered section and fewer characters than this outside the abstract
# is a stub (e.g. LaTeX that only includes a PDF: "See pages 1-last of paper.pdf"), not a paper.
STUB_MAX_BODY_CHARS = 1500


class ParsedPage(BaseModel):
    """What `parse_latexml` found in one page."""

    kind: ParsedKind
    title: str | None
    version: int | None
    text: str
    sections: list[Section]


# Elements whose content never belongs in the text: arXiv chrome, TOC, media, scripts.
_SKIP_TAGS = frozenset(
    {
        "nav", "header", "footer", "script", "style", "noscript", "template", "img", "svg", "object",
        "embed", "iframe", "video", "audio", "canvas", "button", "form", "input", "select", "textarea",
        "head", "title", "meta", "link", "base", "annotation", "annotation-xml",
    }
)  # fmt: skip
# LaTeXML classes to drop. Notes are footnotes/thanks (they would split sentences); ltx_ERROR is an
# undefined command's name (`\cellcolor`); the document title is returned separately.
_SKIP_CLASSES = frozenset(
    {
        "ltx_bibliography", "ltx_biblist", "ltx_note", "ltx_authors", "ltx_dates", "ltx_page_logo",
        "ltx_ERROR", "ltx_page_navbar", "ltx_page_header", "ltx_page_footer", "ltx_TOC",
        "ltx_listing_data", "ltx_title_document", "ltx_rdf",
    }
)  # fmt: skip
_SKIP_IDS = frozenset({"infobox", "header", "footer"})

_BLOCK_TAGS = frozenset(
    {
        "html", "body", "main", "article", "section", "aside", "div", "p", "figure", "figcaption",
        "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "pre", "address", "center", "details",
        "summary", "fieldset", "caption", "hr", "table", "thead", "tbody", "tfoot", "tr", "td", "th",
        "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_EQUATION_CLASSES = frozenset({"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"})

# Section classes that get a marker, with their level (chapters push everything below down one).
_SECTION_LEVELS = {
    "ltx_chapter": 1,
    "ltx_section": 1,
    "ltx_appendix": 1,
    "ltx_subsection": 2,
    "ltx_subsubsection": 3,
}
_MARKER_TITLE_CLASSES = frozenset(
    {"ltx_title_chapter", "ltx_title_section", "ltx_title_appendix", "ltx_title_subsection",
     "ltx_title_subsubsection"}
)  # fmt: skip

# Inline spans that LaTeXML uses for block-ish things (minipages, \parbox): keep words apart.
_SPACED_CLASSES = frozenset({"ltx_p", "ltx_para", "ltx_inline-block", "ltx_minipage", "ltx_td", "ltx_tr"})

_SVG_TEXT_MIN_CHARS = 60

# In inline context (inside SVG boxes, table cells) LaTeXML writes paragraphs and lists as spans.
_BLOCK_SPAN_CLASSES = frozenset(
    {"ltx_para", "ltx_p", "ltx_item", "ltx_itemize", "ltx_enumerate", "ltx_description", "ltx_theorem",
     "ltx_proof", "ltx_minipage"}
)  # fmt: skip

_WS_RE = re.compile(r"\s+")
_INVISIBLE_RE = re.compile("[\u2061-\u2064\u200b\ufeff]")
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_VERSION_RE = re.compile(r"/html/\S*?\d+v(\d+)(?:[/?#]|$)")
_TAG_WORD_RE = re.compile(r"^(?:appendix|chapter|section|part)\s+", re.IGNORECASE)
# Numbers printed as plain text at the start of a heading (no ltx_tag span): `3`, `3.2`, `A.1`,
# `Appendix A:`, `IV.`; a lone capital letter only inside an appendix ("A Survey of …" is a title).
_NUM_TITLE_RE = re.compile(r"^(\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+(\S.*)$")
_APPENDIX_WORD_RE = re.compile(r"^Appendix\s+([A-Z](?:\.\d+)*)[.:]?(?:\s+(\S.*))?$")
_ROMAN_TITLE_RE = re.compile(r"^([IVX]+)\.\s+(\S.*)$")
_LETTER_TITLE_RE = re.compile(r"^([A-Z])[.:]?\s+(\S.*)$")


def _classes(el: etree._Element) -> set[str]:
    cls = el.get("class")
    return set(cls.split()) if cls else set()


def _is_foreign(el: etree._Element) -> bool:
    return isinstance(el.tag, str) and el.tag.lower() == "foreignobject"


def _outermost_foreign(box: etree._Element, svg: etree._Element) -> bool:
    for anc in box.iterancestors():
        if anc is svg:
            return True
        if _is_foreign(anc):
            return False
    return True


_TEX_ESCAPED_RE = re.compile(r"\\([%$&#_])")


def _collapse(text: str) -> str:
    return _WS_RE.sub(" ", _INVISIBLE_RE.sub("", text)).strip()


def _skip(el: etree._Element, classes: set[str]) -> bool:
    return el.tag in _SKIP_TAGS or not classes.isdisjoint(_SKIP_CLASSES) or el.get("id") in _SKIP_IDS


def _math_text(el: etree._Element) -> str:
    alt = el.get("alttext")
    if alt is None:  # MathML without alttext: prefer the TeX annotation, else the visible text
        tex = el.xpath(".//*[local-name()='annotation'][@encoding='application/x-tex']")
        alt = (tex[0].text or "") if tex else "".join(el.itertext())
    # `43.3\%` is a percent sign escaped for TeX, not math: print it as the paper shows it, so a number
    # quoted from the paper ("43.3%") is found verbatim.
    alt = _TEX_ESCAPED_RE.sub(r"\1", alt)
    return f" {alt} " if el.get("display") == "block" else alt


def _inline(el: etree._Element, out: list[str]) -> None:
    """Append the text of `el`'s content (not its tail) as one run: math as alttext, notes dropped."""
    if el.text:
        out.append(el.text)
    for child in el:
        tag = child.tag
        if isinstance(tag, str):
            classes = _classes(child)
            if tag == "math":
                out.append(_math_text(child))
            elif tag == "br":
                out.append(" ")
            elif not _skip(child, classes):
                # Nested tabulars and block-ish spans are flattened with spaces between their parts.
                spaced = tag in _BLOCK_TAGS or not classes.isdisjoint(_SPACED_CLASSES)
                if spaced:
                    out.append(" ")
                _inline(child, out)
                if spaced or "ltx_tag" in classes:
                    out.append(" ")
        if child.tail:
            out.append(child.tail)


def _inline_text(el: etree._Element) -> str:
    out: list[str] = []
    _inline(el, out)
    return _collapse("".join(out))


def _normalise_tag(raw: str) -> str:
    tag = _TAG_WORD_RE.sub("", _collapse(raw))
    return tag.rstrip(".:").strip()


def _heading_tag_title(heading: etree._Element, in_appendix: bool) -> tuple[str, str]:
    """Split a section heading into (printed tag, title); tag is "" when the heading has no number."""
    tag = ""
    out: list[str] = []
    if heading.text:
        out.append(heading.text)
    for child in heading:
        if isinstance(child.tag, str):
            classes = _classes(child)
            if not tag and "ltx_tag" in classes:
                tag = _normalise_tag(_inline_text(child))
            elif child.tag == "math":
                out.append(_math_text(child))
            elif child.tag == "br":
                out.append(" ")
            elif not _skip(child, classes):
                _inline(child, out)
        if child.tail:
            out.append(child.tail)
    title = _collapse("".join(out))
    if tag:
        return tag, title
    for pattern in (_APPENDIX_WORD_RE, _NUM_TITLE_RE, _ROMAN_TITLE_RE):
        m = pattern.match(title)
        if m:
            return m.group(1), m.group(2) or ""
    if in_appendix:
        m = _LETTER_TITLE_RE.match(title)
        if m:
            return m.group(1), m.group(2)
    return "", title


class _Walker:
    """Walks the article in document order and emits one line per block, with section markers."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.sections: list[Section] = []
        self.seen_tags: set[str] = set()
        self.buf: list[str] = []
        # True right after a run-in prefix (paragraph title, list bullet): the next paragraph joins it.
        self.glue = False
        self.in_abstract = 0
        self.body_chars = 0  # characters of text outside the abstract, for the stub rule

    # -- output ------------------------------------------------------------------------------
    def append(self, text: str) -> None:
        self.buf.append(text)
        if self.glue and not text.isspace():
            self.glue = False

    def soft_break(self) -> None:
        if not self.glue:
            self.flush()

    def flush(self) -> None:
        self.glue = False
        if self.buf:
            self.emit(_collapse("".join(self.buf)))
            self.buf = []

    def emit(self, line: str) -> None:
        if line:
            self.lines.append(line)
            if not self.in_abstract:
                self.body_chars += len(line)

    def marker(self, tag: str, title: str, anchor: str | None, level: int) -> bool:
        """Emit a marker line; returns False for a duplicate tag (the first one keeps the tag)."""
        self.flush()
        if not tag or tag in self.seen_tags:
            return False
        self.seen_tags.add(tag)
        self.sections.append(Section(tag=tag, title=title, anchor=anchor, level=level))
        label = tag if not title or title == tag else f"{tag} {title}"
        if self.lines:
            self.lines.append("")
        self.lines.append(f"[§{label}]")
        return True

    def prefix(self, text: str) -> None:
        """A run-in title (paragraph heading, theorem name): it starts the next paragraph's line."""
        self.flush()
        if text:
            self.append(text + " ")
            self.glue = True

    # -- walking -----------------------------------------------------------------------------
    def walk(self, el: etree._Element, chapter: bool = False) -> None:
        """Walk `el`'s content (its text and children, not its tail)."""
        if el.text:
            self.append(el.text)
        for child in el:
            tag = child.tag
            if isinstance(tag, str):
                self.element(child, tag, _classes(child), chapter)
            if child.tail:
                self.append(child.tail)

    def element(self, el: etree._Element, tag: str, classes: set[str], chapter: bool) -> None:
        if tag == "math":
            self.append(_math_text(el))
        elif tag == "br":
            self.append(" ")
        elif tag == "svg":
            self.picture(el)
        elif _skip(el, classes):
            return
        elif "ltx_abstract" in classes:
            self.abstract(el)
        elif tag == "section" and not classes.isdisjoint(_SECTION_LEVELS):
            self.section(el, classes, chapter)
        elif tag in _HEADINGS:
            if "ltx_title_abstract" not in classes:
                self.prefix(_inline_text(el))
        elif not classes.isdisjoint(_EQUATION_CLASSES):
            self.flush()
            self.emit(self.equation(el))
        elif "ltx_tabular" in classes or tag == "table":
            self.flush()
            self.tabular(el)
        elif tag == "figure":
            self.soft_break()
            # Captions first, so that a table's rows follow its "Table 2: …" line.
            captions = [c for c in el if c.tag == "figcaption"]
            for cap in captions:
                self.flush()
                self.emit(_inline_text(cap))
            for child in el:
                if isinstance(child.tag, str) and child.tag != "figcaption":
                    self.element(child, child.tag, _classes(child), chapter)
                if child.tail:
                    self.append(child.tail)
            self.soft_break()
        elif tag in _BLOCK_TAGS or not classes.isdisjoint(_BLOCK_SPAN_CLASSES):
            self.soft_break()
            self.walk(el, chapter)
            self.soft_break()
        else:
            spaced = not classes.isdisjoint(_SPACED_CLASSES)
            if spaced:
                self.append(" ")
            self.walk(el, chapter)
            if "ltx_tag" in classes:  # list bullets and listing line numbers run into the text
                self.append(" ")
                if "ltx_tag_item" in classes:
                    self.glue = True
            elif spaced:
                self.append(" ")

    def picture(self, el: etree._Element) -> None:
        """Keep the text of boxes drawn as SVG (tcolorbox: takeaways, prompt templates), not diagrams.

        Icons and plots have no foreignObject; diagram labels are short, so an SVG only counts as a
        text box when one of its foreignObjects holds a sentence-sized run of text.
        """
        boxes = [e for e in el.iter() if _is_foreign(e) and _outermost_foreign(e, el)]
        if not any(len(_inline_text(box)) >= _SVG_TEXT_MIN_CHARS for box in boxes):
            return
        for box in boxes:
            self.flush()
            self.walk(box)
            self.flush()

    def abstract(self, el: etree._Element) -> None:
        self.flush()
        self.in_abstract += 1
        self.marker("Abstract", "Abstract", "abstract", 0)
        self.walk(el)
        self.flush()
        self.in_abstract -= 1

    def section(self, el: etree._Element, classes: set[str], chapter: bool) -> None:
        level = max(lvl for cls, lvl in _SECTION_LEVELS.items() if cls in classes)
        if chapter:
            level = min(level + 1, 3)
        in_appendix = "ltx_appendix" in classes or any(
            "ltx_appendix" in _classes(a) for a in el.iterancestors("section")
        )
        heading = next(
            (c for c in el if c.tag in _HEADINGS and not _classes(c).isdisjoint(_MARKER_TITLE_CLASSES)),
            None,
        )
        self.flush()
        if heading is not None:
            tag, title = _heading_tag_title(heading, in_appendix)
            tag = tag or title  # unnumbered: "Acknowledgments" is its own tag
            # Tags are unique per page: a later duplicate keeps its content under the previous
            # marker, with its heading as a plain line so nothing is lost.
            if not self.marker(tag, title, el.get("id"), level):
                self.emit(title if title == tag else f"{tag} {title}")
        if el.text:
            self.append(el.text)
        for child in el:
            if child is not heading and isinstance(child.tag, str):
                self.element(child, child.tag, _classes(child), chapter or "ltx_chapter" in classes)
            if child.tail:
                self.append(child.tail)
        self.flush()

    def equation(self, el: etree._Element) -> str:
        """A display equation (or aligned group) on one line: alttexts, then each row's number."""
        parts: list[str] = []
        for row in el.iter("tr"):
            number = ""
            for cell in row:
                if not isinstance(cell.tag, str):
                    continue
                if "ltx_eqn_eqno" in _classes(cell):
                    number = _inline_text(cell)
                else:
                    parts.append(_inline_text(cell))
            if number:
                parts.append(number)
        if not parts:  # not a table after all (broken HTML): keep whatever text it has
            parts.append(_inline_text(el))
        return _collapse(" ".join(parts))

    def tabular(self, el: etree._Element) -> None:
        """One line per row, cells joined by " | "; nested tabulars are flattened inside their cell."""
        is_table = el.tag == "table"
        for row in el.iter("tr" if is_table else "span"):
            if not is_table and "ltx_tr" not in _classes(row):
                continue
            if self._owner(row, is_table) is not el:
                continue  # a row of a nested tabular
            cells = [
                _inline_text(c)
                for c in row
                if isinstance(c.tag, str)
                and (c.tag in ("td", "th") or "ltx_td" in _classes(c))
                and not _skip(c, _classes(c))
            ]
            while cells and not cells[-1]:  # trailing empty cells (icons, spacing) carry nothing
                cells.pop()
            if cells:
                self.emit(_collapse(" | ".join(cells)))

    @staticmethod
    def _owner(row: etree._Element, is_table: bool) -> etree._Element | None:
        for anc in row.iterancestors():
            if (is_table and anc.tag == "table") or (not is_table and "ltx_tabular" in _classes(anc)):
                return anc
        return None


def _to_utf8(html: str | bytes) -> bytes:
    # arXiv serves UTF-8; decoding ourselves keeps a stray bad byte from stopping libxml2, and
    # dropping control characters keeps random input parseable.
    text = html.decode("utf-8", errors="replace") if isinstance(html, bytes) else html
    return _CONTROL_RE.sub("", text).encode("utf-8", errors="replace")


def _parse_tree(html: str | bytes) -> etree._Element | None:
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True, recover=True)
    try:
        return etree.fromstring(_to_utf8(html), parser)
    except (etree.LxmlError, ValueError):
        return None


def _version(root: etree._Element | None, url: str | None) -> int | None:
    hrefs = list(root.xpath("//base/@href")) if root is not None else []
    for href in [*hrefs, url or ""]:
        m = _VERSION_RE.search(str(href))
        if m:
            return int(m.group(1))
    return None


def _is_no_html(root: etree._Element) -> bool:
    return any(_inline_text(h1).startswith("No HTML for") for h1 in root.iter("h1"))


def parse_latexml(html: str | bytes, url: str | None = None) -> ParsedPage:
    """Turn an arXiv HTML page into text with section markers; never raises on broken input."""
    root = _parse_tree(html)
    version = _version(root, url)
    if root is None:
        return ParsedPage(kind="stub", title=None, version=version, text="", sections=[])
    if _is_no_html(root):
        return ParsedPage(kind="no_html", title=None, version=version, text="", sections=[])

    articles = root.xpath("//article[contains(concat(' ', normalize-space(@class), ' '), ' ltx_document ')]")
    if articles:
        content = articles[0]
    else:
        bodies = root.xpath("//body")
        content = bodies[0] if bodies else root
        if not content.xpath(".//*[contains(@class, 'ltx_')][1]"):  # not LaTeXML at all
            return ParsedPage(kind="stub", title=None, version=version, text="", sections=[])

    titles = root.xpath("//h1[contains(concat(' ', normalize-space(@class), ' '), ' ltx_title_document ')]")
    title = (_inline_text(titles[0]) or None) if titles else None

    walker = _Walker()
    try:
        walker.walk(content)
        walker.flush()
    except RecursionError:  # absurdly deep nesting; libxml2 caps depth, so this is a last resort
        return ParsedPage(kind="stub", title=title, version=version, text="", sections=[])

    body_sections = [s for s in walker.sections if s.level > 0]
    kind: ParsedKind = "content"
    if not body_sections and walker.body_chars < STUB_MAX_BODY_CHARS:
        kind = "stub"
    return ParsedPage(kind=kind, title=title, version=version, text="\n".join(walker.lines), sections=walker.sections)
