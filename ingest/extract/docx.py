"""DOCX with python-docx: paragraphs and tables in body order, under their Heading styles."""

from __future__ import annotations

import io
import zipfile

from app.errors import ExtractionError
from ingest.extract.types import Block, ExtractedText


def extract_docx(content: bytes, filename: str) -> ExtractedText:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(content))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"{filename} is not a readable DOCX file ({type(exc).__name__}); "
                              "it may be corrupt or an old .doc", code="DOCX_CORRUPT") from None
    headings: list[tuple[int, str]] = []
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            style = (item.style.name if item.style is not None else "") or ""
            if not text:
                continue
            if style.startswith("Heading") or style == "Title":
                digits = style.removeprefix("Heading").strip()
                level = int(digits) if digits.isdigit() else 1
                headings = [h for h in headings if h[0] < level] + [(level, text)]
                continue
            blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
        elif isinstance(item, Table):
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in item.rows]
            text = "\n".join(r for r in rows if r.strip(" |"))
            if text:
                blocks.append(Block(text=text, heading_path=tuple(h[1] for h in headings)))
    title = document.core_properties.title or (headings[0][1] if headings else None)
    return ExtractedText(blocks=blocks, title=title or None)
