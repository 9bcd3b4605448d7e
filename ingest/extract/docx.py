"""DOCX with python-docx: paragraphs and tables in body order, under their Title and Heading
styles (the Title heads every heading path)."""

from __future__ import annotations

import io
import zipfile

from app.domain.errors import ExtractionError
from ingest.extract.types import Block, ExtractedText

# What a DOCX may unzip to, read from the ZIP directory before anything is inflated: a few
# hundred KB of repeated XML can inflate to gigabytes (a decompression bomb). ZIP members are
# never read past their declared size, so the directory bounds what parsing will see.
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024
MAX_BODY_XML_BYTES = 32 * 1024 * 1024  # word/document.xml: lxml holds it whole as a tree


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


def extract_docx(content: bytes, filename: str) -> ExtractedText:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    check_unzipped_size(content, filename)
    try:
        document = docx.Document(io.BytesIO(content))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"{filename} is not a readable DOCX file ({type(exc).__name__}); "
                              "it may be corrupt or an old .doc", code="DOCX_CORRUPT") from None
    headings: list[tuple[int, str]] = []
    styled_title = first_heading = None
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            style = (item.style.name if item.style is not None else "") or ""
            if not text:
                continue
            if style == "Title":  # above every Heading: it heads the whole path
                styled_title = styled_title or text
                headings = [(0, text)]
                continue
            if style.startswith("Heading"):
                digits = style.removeprefix("Heading").strip()
                level = int(digits) if digits.isdigit() else 1
                headings = [h for h in headings if h[0] < level] + [(level, text)]
                first_heading = first_heading or text
                continue
            blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
        elif isinstance(item, Table):
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in item.rows]
            text = "\n".join(r for r in rows if r.strip(" |"))
            if text:
                blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
    # the Title style first, then the core properties, then the first heading
    title = styled_title or (document.core_properties.title or "").strip() or first_heading
    return ExtractedText(blocks=blocks, title=title or None)
