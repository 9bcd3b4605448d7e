"""Slide decks (.pptx, python-pptx): each slide's text (shapes, tables, grouped shapes) and its
speaker notes; ``page`` is the slide number and the slide's title heads its heading path."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from app.errors import ExtractionError
from ingest.extract.docx import check_unzipped_size
from ingest.extract.types import Block, ExtractedText

MAX_SLIDES = 2000


def _shape_texts(shapes: Any) -> Iterator[str]:
    for shape in shapes:
        if getattr(shape, "shape_type", None) == 6 and hasattr(shape, "shapes"):  # a group
            yield from _shape_texts(shape.shapes)
        if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
            yield shape.text_frame.text.strip()
        if getattr(shape, "has_table", False):
            for row in shape.table.rows:
                cells = [c.text.strip() for c in row.cells]
                if any(cells):
                    yield " | ".join(cells)


def extract_pptx(content: bytes, filename: str) -> ExtractedText:
    from pptx import Presentation

    check_unzipped_size(content, filename, "pptx")
    try:
        deck = Presentation(io.BytesIO(content))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"{filename} is not a readable .pptx deck ({type(exc).__name__}); "
                              "it may be corrupt or an old .ppt", code="PPTX_CORRUPT") from None
    slides = list(deck.slides)
    if len(slides) > MAX_SLIDES:
        raise ExtractionError(f"{filename} has {len(slides):,} slides; at most {MAX_SLIDES:,}",
                              code="PPTX_TOO_LARGE")
    blocks: list[Block] = []
    first_title = None
    for number, slide in enumerate(slides, start=1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text.strip() if title_shape is not None and \
            title_shape.has_text_frame else ""
        first_title = first_title or title or None
        heading = (title,) if title else ()
        for text in _shape_texts(slide.shapes):
            if text != title:
                blocks.append(Block(text=text, page=number, heading_path=heading))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                blocks.append(Block(text=f"Speaker notes: {notes}", page=number,
                                    heading_path=heading))
        if title and not any(b.page == number for b in blocks):
            blocks.append(Block(text=title, page=number, heading_path=()))
    core_title = (deck.core_properties.title or "").strip()
    return ExtractedText(blocks=blocks, title=core_title or first_title,
                         page_count=len(slides))
