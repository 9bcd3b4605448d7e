"""DOCX as Word holds it: the body read from its XML in order — paragraphs, tables (nested
ones in their cell), content controls, text boxes, SmartArt, altChunk parts — under their Title
and Heading styles, then the headers and footers, footnotes, endnotes and comments.

Why from the XML: python-docx's object model stops at the first table with an irregular grid
("no `tc` element at grid_offset=1" lost a whole file), and never reaches nested tables,
block-level content controls (``w:sdt``), text boxes (``w:txbxContent``) or imported parts
(``w:altChunk``). python-docx still opens the package (its parts and relationships); the
walk below reads their XML. One element that cannot be read costs only itself: a warning
names it and the rest is published.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from app.domain.errors import ExtractionError
from ingest.extract.ooxml import (
    C_NS,
    R_NS,
    chart_paragraphs,
    diagram_paragraphs,
    open_mending,
    parse_part,
    readable_package,
)
from ingest.extract.types import Block, ExtractedText

# What a DOCX may unzip to, read from the ZIP directory before anything is inflated: a few
# hundred KB of repeated XML can inflate to gigabytes (a decompression bomb). ZIP members are
# never read past their declared size, so the directory bounds what parsing will see.
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024
MAX_BODY_XML_BYTES = 32 * 1024 * 1024  # word/document.xml: lxml holds it whole as a tree
# an altChunk holds a whole HTML page or e-mail (MHT): read through those extractors, bounded
MAX_ALT_CHUNK_BYTES = 16 * 1024 * 1024
# how deep tables, text boxes and content controls may nest before the rest is skipped with a
# warning (Word itself nests a few levels; a crafted file could nest thousands)
MAX_NESTING = 32

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"


def w(tag: str) -> str:
    return f"{{{W}}}{tag}"


P, TBL, TR, TC, SDT, SDT_CONTENT = w("p"), w("tbl"), w("tr"), w("tc"), w("sdt"), w("sdtContent")
CUSTOM_XML, SMART_TAG, ALT_CHUNK, TXBX = (w("customXml"), w("smartTag"), w("altChunk"),
                                          w("txbxContent"))
T, TAB, BR, CR, NB_HYPHEN = w("t"), w("tab"), w("br"), w("cr"), w("noBreakHyphen")
PTAB, FOOTNOTE, ENDNOTE, COMMENT = w("ptab"), w("footnote"), w("endnote"), w("comment")
MATH_T = "{http://schemas.openxmlformats.org/officeDocument/2006/math}t"
RUBY = w("ruby")
FALLBACK = f"{{{MC}}}Fallback"
DGM_REL_IDS = f"{{{DGM}}}relIds"
C_CHART = f"{{{C_NS}}}chart"
# containers whose children are block-level content as a body's are
BLOCK_WRAPPERS = frozenset({SDT, SDT_CONTENT, CUSTOM_XML, SMART_TAG})
# inside a paragraph: never its own text (moved-from text is shown again where it moved to;
# a text box is read as blocks of its own, after its paragraph; a Fallback repeats its Choice)
SKIPPED_IN_RUNS = frozenset({TXBX, FALLBACK, w("moveFrom"), w("del"), w("pPr"), w("rPr")})
# the separator notes Word keeps in footnotes.xml (ids -1 and 0, or typed)
NOTE_SEPARATORS = frozenset({"separator", "continuationSeparator", "continuationNotice"})


def check_unzipped_size(content: bytes, filename: str, kind: str = "docx") -> None:
    """The Office formats (.docx, .xlsx, .pptx) are ZIPs of XML: bounded by what their
    directory says they unzip to, in all and per part (lxml holds a part whole as a tree)."""
    label = kind.upper()
    try:
        members = zipfile.ZipFile(io.BytesIO(content)).infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise ExtractionError(f"{filename} is not a readable {label} file "
                              f"({type(exc).__name__}); it may be corrupt or an old-format "
                              "Office file", code=f"{label}_CORRUPT") from None
    total = sum(m.file_size for m in members)
    body = max((m.file_size for m in members if m.filename.endswith(".xml")), default=0)
    if total > MAX_UNZIPPED_BYTES or body > MAX_BODY_XML_BYTES:
        raise ExtractionError(
            f"{filename} unzips to {total / 2**20:,.0f} MiB (its largest part to "
            f"{body / 2**20:,.0f} MiB); the limits are {MAX_UNZIPPED_BYTES // 2**20} MiB and "
            f"{MAX_BODY_XML_BYTES // 2**20} MiB: a decompression bomb, or a document to split",
            code=f"{label}_TOO_LARGE")


class _Walker:
    """Reads one part's block-level XML into Blocks, under the heading path it keeps. Every
    warning names an element left out, into the document's one list (``warnings``), shared
    by the walkers of its cells, text boxes and parts: their count is the unread count."""

    def __init__(self, part: Any, styles: dict[str, str], warnings: list[str]) -> None:
        self.part, self.styles, self.warnings = part, styles, warnings
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.styled_title: str | None = None
        self.first_heading: str | None = None
        self._heading_empty = False  # the last heading has had no text under it yet
        self._tables = 0

    # -- blocks ---------------------------------------------------------------------------
    def walk(self, container: Any, depth: int = 0) -> None:
        for child in container:
            self.element(child, depth)

    def element(self, child: Any, depth: int) -> None:
        if depth > MAX_NESTING:
            self._skip("content nested too deep", None)
            return
        tag = child.tag
        try:
            if tag == P:
                self.paragraph(child, depth)
            elif tag == TBL:
                self._tables += 1
                self.table(child, depth)
            elif tag in BLOCK_WRAPPERS:
                self.walk(child, depth + 1)
            elif tag == ALT_CHUNK:
                self.alt_chunk(child)
        except Exception as exc:  # noqa: BLE001 — one element costs only itself
            what = f"table {self._tables}" if tag == TBL else local_name(tag)
            self._skip(what, exc)

    def inner(self) -> _Walker:
        """A walker for a cell or a text box: its own blocks, the document's warnings."""
        return _Walker(self.part, self.styles, self.warnings)

    def _skip(self, what: str, exc: Exception | None) -> None:
        why = f" ({type(exc).__name__}: {str(exc)[:120]})" if exc is not None else ""
        self.warnings.append(f"{what} could not be read and was left out{why}")

    def add(self, text: str) -> None:
        text = text.strip()
        if text:
            self.blocks.append(Block(text=text, heading_path=tuple(h[1] for h in self.headings)))
            self._heading_empty = False

    def paragraph(self, element: Any, depth: int) -> None:
        text = paragraph_text(element)
        style = self.styles.get(paragraph_style(element), "")
        if text.strip() and style == "Title":  # above every Heading: it heads the whole path
            self._flush_empty_heading()
            self.styled_title = self.styled_title or text.strip()
            self.headings = [(0, text.strip())]
            self._heading_empty = True
        elif text.strip() and style.startswith("Heading") and depth == 0:
            self._flush_empty_heading()
            digits = style.removeprefix("Heading").strip()
            level = int(digits) if digits.isdigit() else 1
            self.headings = [h for h in self.headings if h[0] < level] + [(level, text.strip())]
            self.first_heading = self.first_heading or text.strip()
            self._heading_empty = True
        else:
            self.add(text)
        for extra in self.inline_extras(element, depth):
            self.add(extra)

    def _flush_empty_heading(self) -> None:
        """A heading with nothing under it (the next heading follows at once, or the file
        ends) is kept as a block of its own: its words are the document's too."""
        if self._heading_empty and self.headings:
            self.add(self.headings[-1][1])

    def finish(self) -> None:
        self._flush_empty_heading()

    def inline_extras(self, element: Any, depth: int) -> Iterator[str]:
        """Text a paragraph anchors but does not flow: its text boxes (the drawing's, never
        the VML fallback that repeats it), its charts and its SmartArt diagrams."""
        for box in element.iter(TXBX):
            if _inside(box, FALLBACK, element) or _inside(box, TXBX, element):
                continue
            inner = self.inner()
            inner.walk(box, depth + 1)
            yield "\n".join(b.text for b in inner.blocks)
        # a chart (c:chart r:id) or a SmartArt diagram (dgm:relIds r:dm) names its own part
        for tag, attribute, read in ((C_CHART, "id", chart_paragraphs),
                                     (DGM_REL_IDS, "dm", diagram_paragraphs)):
            for reference in element.iter(tag):
                rid = reference.get(f"{{{R_NS}}}{attribute}")
                related = self.part.related_parts.get(rid) if rid else None
                if related is None or _inside(reference, FALLBACK, element):
                    continue
                try:
                    yield "\n".join(read(related.blob))
                except Exception as exc:  # noqa: BLE001 — not the paragraph that anchors it
                    self._skip("a chart" if tag == C_CHART else "a SmartArt diagram", exc)

    def table(self, element: Any, depth: int) -> None:
        """A table one block, a row a line, cells joined by " | "; a table in a cell is that
        cell's text (its rows joined by " / "), whatever the grid says."""
        text = "\n".join(row for row in self.table_rows(element, depth) if row.strip(" |"))
        self.add(text)

    def table_rows(self, element: Any, depth: int) -> Iterator[str]:
        for row in _children(element, TR):
            yield " | ".join("" if merged_below(cell) else self.cell_text(cell, depth)
                             for cell in _children(row, TC))

    def cell_text(self, cell: Any, depth: int) -> str:
        inner = self.inner()
        for child in cell:
            if child.tag == TBL:  # a nested table: its rows on one line of the outer row
                rows = [r for r in inner.table_rows(child, depth + 1) if r.strip(" |")]
                inner.add(" / ".join(rows))
            else:
                inner.element(child, depth + 1)
        return " ".join(b.text.replace("\n", " ") for b in inner.blocks)

    def alt_chunk(self, element: Any) -> None:
        """An imported part (``w:altChunk``): HTML, an MHT web archive or plain text that Word
        shows inline, read through the HTML and text extractors."""
        rid = element.get(f"{{{R_NS}}}id")
        part = self.part.related_parts.get(rid) if rid else None
        if part is None:
            return
        blob = part.blob
        if len(blob) > MAX_ALT_CHUNK_BYTES:
            self._skip(f"an imported part of {len(blob):,} bytes", None)
            return
        content_type = (part.content_type or "").lower()
        name = str(part.partname).lower()
        if "html" in content_type or name.endswith((".htm", ".html", ".xhtml")):
            from ingest.extract.html import extract_html
            texts = [b.text for b in extract_html(blob, name).blocks]
        elif "rfc822" in content_type or name.endswith((".mht", ".mhtml")):
            texts = _mht_texts(blob, name)
        elif content_type.startswith("text/") or name.endswith(".txt"):
            from ingest.extract.types import decode_text
            texts = [decode_text(blob)]
        else:
            self._skip(f"an imported part of type {content_type or 'unknown'}", None)
            return
        for text in texts:
            self.add(text)


def _mht_texts(blob: bytes, name: str) -> list[str]:
    """An MHT (MIME HTML) archive: its HTML part, else its plain-text part, as blocks."""
    import email
    from email import policy

    from ingest.extract.html import extract_html

    message = email.message_from_bytes(blob, policy=policy.default)
    body = message.get_body(preferencelist=("html", "plain"))
    if body is None:
        return []
    raw = body.get_payload(decode=True) or b""
    if body.get_content_type() == "text/html":
        charset = body.get_content_charset()
        return [b.text for b in extract_html(raw, name, declared_charset=charset).blocks]
    return [body.get_content()]


def local_name(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1] if isinstance(tag, str) else "element"


def _children(element: Any, tag: str) -> Iterator[Any]:
    """``element``'s children of ``tag``, looking through content controls and custom XML
    (a row or a cell may sit inside a ``w:sdt``)."""
    for child in element:
        if child.tag == tag:
            yield child
        elif child.tag in BLOCK_WRAPPERS:
            yield from _children(child, tag)


def _inside(node: Any, tag: str, stop: Any) -> bool:
    """Whether ``node`` lies within a ``tag`` element below ``stop``."""
    parent = node.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == tag:
            return True
        parent = parent.getparent()
    return False


def merged_below(cell: Any) -> bool:
    """A cell a vertical merge continues (``w:vMerge`` without ``restart``): Word shows the
    merge's first cell across it, never what the continued cell may still hold."""
    properties = cell.find(w("tcPr"))
    merge = properties.find(w("vMerge")) if properties is not None else None
    return merge is not None and merge.get(w("val"), "continue") != "restart"


def paragraph_style(element: Any) -> str:
    ppr = element.find(w("pPr"))
    style = ppr.find(w("pStyle")) if ppr is not None else None
    return style.get(w("val"), "") if style is not None else ""


def paragraph_text(element: Any) -> str:
    """A paragraph's text as Word shows it: runs in order, inserted text in, deleted and
    moved-from text out, tabs as spaces, line breaks kept; text boxes read apart."""
    parts: list[str] = []
    stack = [iter(element)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        tag = node.tag
        if not isinstance(tag, str) or tag in SKIPPED_IN_RUNS:
            continue
        if tag == RUBY:  # phonetic guide: the base text, its reading after it in brackets
            base, reading = node.find(w("rubyBase")), node.find(w("rt"))
            parts.append(paragraph_text(base) if base is not None else "")
            said = paragraph_text(reading).strip() if reading is not None else ""
            parts.append(f" ({said})" if said else "")
        elif tag in (T, MATH_T):
            parts.append(node.text or "")
        elif tag in (TAB, PTAB):
            parts.append(" ")
        elif tag in (BR, CR):
            parts.append("\n")
        elif tag == NB_HYPHEN:
            parts.append("-")
        else:
            stack.append(iter(node))
    return "".join(parts)


def _style_names(document: Any) -> dict[str, str]:
    names: dict[str, str] = {}
    try:
        for style in document.styles:
            if style.style_id:
                names[style.style_id] = style.name or ""
    except Exception:  # noqa: BLE001 — a broken styles part costs the headings only
        pass
    return names


# the parts read after the body, under the heading that says where their words were, and
# the elements holding their block-level content (None: the part's root itself)
AFTER_BODY = {"header": ("Page header", None), "footer": ("Page footer", None),
              "footnotes": ("Footnotes", FOOTNOTE), "endnotes": ("Endnotes", ENDNOTE),
              "comments": ("Comments", COMMENT)}


def _part_blocks(part: Any, styles: dict[str, str], warnings: list[str], heading: str,
                 tag: str | None) -> list[Block]:
    """A header's or footer's blocks, or each note's or comment's (separators left out)."""
    walker = _Walker(part, styles, warnings)
    walker.headings = [(0, heading)]
    root = parse_part(part.blob)
    for container in ([root] if tag is None else root.iter(tag)):
        if container.get(w("type")) not in NOTE_SEPARATORS:
            walker.walk(container)
    return walker.blocks


def extract_docx(content: bytes, filename: str) -> ExtractedText:
    import docx

    check_unzipped_size(content, filename)
    content, strict = readable_package(content, "docx")
    try:  # warnings: each names an element or part left out
        document, content, warnings = open_mending(
            lambda data: docx.Document(io.BytesIO(data)), content)
    except (zipfile.BadZipFile, KeyError, ValueError, SyntaxError) as exc:  # lxml: XML
        raise ExtractionError(f"{filename} is not a readable DOCX file ({type(exc).__name__}); "
                              "it may be corrupt or an old .doc", code="DOCX_CORRUPT") from None
    styles = _style_names(document)
    body = _Walker(document.part, styles, warnings)
    body.walk(document.element.body)
    body.finish()
    blocks = list(body.blocks)
    # headers and footers, then the notes and comments
    seen: set[str] = set()
    for rel in document.part.rels.values():
        kind = rel.reltype.rsplit("/", 1)[-1]
        if rel.is_external or kind not in AFTER_BODY:
            continue
        try:
            found = _part_blocks(rel.target_part, styles, warnings, *AFTER_BODY[kind])
        except Exception as exc:  # noqa: BLE001 — a broken part costs only itself
            warnings.append(f"the {kind} part could not be read and was left out "
                            f"({type(exc).__name__}: {str(exc)[:120]})")
            continue
        if kind in ("header", "footer"):  # every section repeats its own: each text once
            found = [b for b in found if b.text not in seen]
            seen.update(b.text for b in found)
        blocks += found
    # the Title style first, then the core properties, then the first heading
    try:
        core_title = (document.core_properties.title or "").strip()
    except Exception:  # noqa: BLE001 — unreadable properties cost the title only
        core_title = ""
    title = body.styled_title or core_title or body.first_heading
    extracted = ExtractedText(blocks=blocks, title=title or None, warnings=warnings)
    if warnings:
        extracted.quality["unread_elements"] = len(warnings)
    if strict:
        extracted.quality["ooxml_variant"] = "strict"
    return extracted
