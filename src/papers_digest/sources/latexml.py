"""Parse an arXiv HTML page (LaTeXML output) into plain text with `[§tag title]` section markers."""

from __future__ import annotations

from typing import Literal

from lxml import etree
from pydantic import BaseModel, Field

from papers_digest.core.models import Section
from papers_digest.sources.latexml_text import (
    BLOCK_SPAN_CLASSES,
    BLOCK_TAGS,
    CONTROL_RE,
    EQUATION_CLASSES,
    HEADINGS,
    MARKER_TITLE_CLASSES,
    SECTION_LEVELS,
    SPACED_CLASSES,
    SVG_TEXT_MIN_CHARS,
    VERSION_RE,
    class_set,
    collapse,
    heading_tag_title,
    inline_text,
    is_foreign,
    math_text,
    outermost_foreign,
    skip,
)

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
    unsectioned: list[str] = Field(default_factory=list)  # lines outside every section (see _Walker)


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
        self.in_sections = 0  # depth of <section> elements around the current position
        self.body_chars = 0  # characters of text outside the abstract, for the stub rule
        # Lines LaTeXML placed outside every section and the abstract (floats before section 1, keywords):
        # they stand in the text where they are, and belong to no section (docs/checker.md, "The rules").
        self.unsectioned: list[str] = []

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
            self.emit(collapse("".join(self.buf)))
            self.buf = []

    def emit(self, line: str) -> None:
        if line:
            self.lines.append(line)
            if not self.in_abstract:
                self.body_chars += len(line)
                if not self.in_sections and self.sections:
                    self.unsectioned.append(line)

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
                self.element(child, tag, class_set(child), chapter)
            if child.tail:
                self.append(child.tail)

    def element(self, el: etree._Element, tag: str, classes: set[str], chapter: bool) -> None:
        if tag == "math":
            self.append(math_text(el))
        elif tag == "br":
            self.append(" ")
        elif tag == "svg":
            self.picture(el)
        elif skip(el, classes):
            return
        elif "ltx_abstract" in classes:
            self.abstract(el)
        elif tag == "section" and not classes.isdisjoint(SECTION_LEVELS):
            self.section(el, classes, chapter)
        elif tag in HEADINGS:
            if "ltx_title_abstract" not in classes:
                self.prefix(inline_text(el))
        elif not classes.isdisjoint(EQUATION_CLASSES):
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
                self.emit(inline_text(cap))
            for child in el:
                if isinstance(child.tag, str) and child.tag != "figcaption":
                    self.element(child, child.tag, class_set(child), chapter)
                if child.tail:
                    self.append(child.tail)
            self.soft_break()
        elif tag in BLOCK_TAGS or not classes.isdisjoint(BLOCK_SPAN_CLASSES):
            self.soft_break()
            self.walk(el, chapter)
            self.soft_break()
        else:
            spaced = not classes.isdisjoint(SPACED_CLASSES)
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
        boxes = [e for e in el.iter() if is_foreign(e) and outermost_foreign(e, el)]
        if not any(len(inline_text(box)) >= SVG_TEXT_MIN_CHARS for box in boxes):
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
        level = max(lvl for cls, lvl in SECTION_LEVELS.items() if cls in classes)
        if chapter:
            level = min(level + 1, 3)
        in_appendix = "ltx_appendix" in classes or any(
            "ltx_appendix" in class_set(a) for a in el.iterancestors("section")
        )
        heading = next(
            (c for c in el if c.tag in HEADINGS and not class_set(c).isdisjoint(MARKER_TITLE_CLASSES)),
            None,
        )
        self.flush()
        if heading is not None:
            tag, title = heading_tag_title(heading, in_appendix)
            tag = tag or title  # unnumbered: "Acknowledgments" is its own tag
            # Tags are unique per page: a later duplicate keeps its content under the previous
            # marker, with its heading as a plain line so nothing is lost.
            if not self.marker(tag, title, el.get("id"), level):
                self.emit(title if title == tag else f"{tag} {title}")
        self.in_sections += 1
        if el.text:
            self.append(el.text)
        for child in el:
            if child is not heading and isinstance(child.tag, str):
                self.element(child, child.tag, class_set(child), chapter or "ltx_chapter" in classes)
            if child.tail:
                self.append(child.tail)
        self.flush()
        self.in_sections -= 1
        self.flush()

    def equation(self, el: etree._Element) -> str:
        """A display equation (or aligned group) on one line: alttexts, then each row's number."""
        parts: list[str] = []
        for row in el.iter("tr"):
            number = ""
            for cell in row:
                if not isinstance(cell.tag, str):
                    continue
                if "ltx_eqn_eqno" in class_set(cell):
                    number = inline_text(cell)
                else:
                    parts.append(inline_text(cell))
            if number:
                parts.append(number)
        if not parts:  # not a table after all (broken HTML): keep whatever text it has
            parts.append(inline_text(el))
        return collapse(" ".join(parts))

    def tabular(self, el: etree._Element) -> None:
        """One line per row, cells joined by " | "; nested tabulars are flattened inside their cell."""
        is_table = el.tag == "table"
        for row in el.iter("tr" if is_table else "span"):
            if not is_table and "ltx_tr" not in class_set(row):
                continue
            if self._owner(row, is_table) is not el:
                continue  # a row of a nested tabular
            cells = [
                inline_text(c)
                for c in row
                if isinstance(c.tag, str)
                and (c.tag in ("td", "th") or "ltx_td" in class_set(c))
                and not skip(c, class_set(c))
            ]
            while cells and not cells[-1]:  # trailing empty cells (icons, spacing) carry nothing
                cells.pop()
            if cells:
                self.emit(collapse(" | ".join(cells)))

    @staticmethod
    def _owner(row: etree._Element, is_table: bool) -> etree._Element | None:
        for anc in row.iterancestors():
            if (is_table and anc.tag == "table") or (not is_table and "ltx_tabular" in class_set(anc)):
                return anc
        return None


def _to_utf8(html: str | bytes) -> bytes:
    # arXiv serves UTF-8; decoding ourselves keeps a stray bad byte from stopping libxml2, and
    # dropping control characters keeps random input parseable.
    text = html.decode("utf-8", errors="replace") if isinstance(html, bytes) else html
    return CONTROL_RE.sub("", text).encode("utf-8", errors="replace")


def _parse_tree(html: str | bytes) -> etree._Element | None:
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True, recover=True)
    try:
        return etree.fromstring(_to_utf8(html), parser)
    except (etree.LxmlError, ValueError):
        return None


def _version(root: etree._Element | None, url: str | None) -> int | None:
    hrefs = list(root.xpath("//base/@href")) if root is not None else []
    for href in [*hrefs, url or ""]:
        m = VERSION_RE.search(str(href))
        if m:
            return int(m.group(1))
    return None


def _is_no_html(root: etree._Element) -> bool:
    return any(inline_text(h1).startswith("No HTML for") for h1 in root.iter("h1"))


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
    title = (inline_text(titles[0]) or None) if titles else None

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
    return ParsedPage(
        kind=kind,
        title=title,
        version=version,
        text="\n".join(walker.lines),
        sections=walker.sections,
        unsectioned=walker.unsectioned,
    )
