"""Slide decks (.pptx, python-pptx): each slide's text (shapes, tables, grouped shapes, charts'
titles, series and categories) and its speaker notes; ``page`` is the slide number and the
slide's title heads its heading path."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from app.domain.errors import ExtractionError
from ingest.extract.docx import check_unzipped_size
from ingest.extract.ooxml import (
    chart_paragraphs,
    diagram_paragraphs,
    open_mending,
    readable_package,
)
from ingest.extract.types import Block, ExtractedText

MAX_SLIDES = 2000


def _shape_texts(shapes: Any, warnings: list[str], where: str) -> Iterator[str]:
    """Each shape's text (groups opened, tables a row a line, charts by their series); a
    shape that cannot be read costs only itself, named in ``warnings``."""
    for shape in shapes:
        try:
            texts = list(_one_shape(shape, warnings, where))
        except Exception as exc:  # noqa: BLE001 — python-pptx raises many kinds on odd parts
            name = getattr(shape, "name", "") or "a shape"
            warnings.append(f"{where}: {name!r} could not be read and was left out "
                            f"({type(exc).__name__}: {str(exc)[:120]})")
            continue
        yield from texts


def _one_shape(shape: Any, warnings: list[str], where: str) -> Iterator[str]:
    if getattr(shape, "shape_type", None) == 6 and hasattr(shape, "shapes"):  # a group
        yield from _shape_texts(shape.shapes, warnings, where)
    if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
        yield shape.text_frame.text.strip()
    if getattr(shape, "has_table", False):
        for row in shape.table.rows:
            cells = [c.text.strip() for c in row.cells]
            if any(cells):
                yield " | ".join(cells)
    if getattr(shape, "has_chart", False):
        try:
            text = chart_text(shape.chart)
        except NotImplementedError:  # a chart type python-pptx has no class for (area3D, …):
            text = "\n".join(chart_paragraphs(shape.chart_part.blob))  # its cached values
        if text:
            yield text


def chart_text(chart: Any) -> str:
    """A chart's words and numbers: its title, then each series with its values by category
    ("Revenue: Q1 10.5 · Q2 12"), so a deck of charts alone is found by what they show."""
    lines = []
    try:
        if chart.has_title and chart.chart_title.has_text_frame:
            lines.append(chart.chart_title.text_frame.text.strip())
        plot = chart.plots[0] if len(chart.plots) else None
        categories = [str(c) for c in plot.categories] if plot is not None else []
        for plot in chart.plots:
            for series in plot.series:
                values = list(series.values)
                pairs = [f"{c} {_number(v)}" if c else _number(v)
                         for c, v in zip(categories or [""] * len(values), values, strict=False)
                         if v is not None]
                lines.append(f"{series.name}: " + " · ".join(pairs) if pairs else series.name)
    except (KeyError, ValueError, AttributeError, IndexError, TypeError):
        pass  # a chart part python-pptx cannot read: what was read so far stands
    return "\n".join(line for line in lines if line and line.strip())


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _diagram_texts(slide: Any, warnings: list[str], where: str) -> list[str]:
    """A slide's SmartArt text: each diagram's data part (python-pptx's shapes stop at the
    graphic frame that holds it)."""
    texts = []
    for rel in slide.part.rels.values():
        if rel.is_external or not rel.reltype.endswith("/diagramData"):
            continue
        try:
            paragraphs = diagram_paragraphs(rel.target_part.blob)
        except Exception as exc:  # noqa: BLE001 — a broken diagram costs only itself
            warnings.append(f"{where}: a SmartArt diagram ({rel.target_part.partname}) could "
                            f"not be read and was left out ({type(exc).__name__}: "
                            f"{str(exc)[:120]})")
            continue
        if paragraphs:
            texts.append("\n".join(paragraphs))
    return texts


def _master_texts(slide: Any, seen: set[str], warnings: list[str], number: int) -> list[str]:
    """What a slide shows from its layout and master that is not a placeholder's prompt
    ("Text that I added to the master slide", a logo's caption): each layout and master
    once per deck, cited at the first slide that shows it."""
    texts: list[str] = []
    try:
        layout = slide.slide_layout
        holders = (layout, layout.slide_master)
    except Exception:  # noqa: BLE001 — a slide without a readable layout shows nothing more
        return texts
    for holder in holders:
        name = str(holder.part.partname)
        if name in seen:
            continue
        seen.add(name)
        own = [shape for shape in holder.shapes if not shape.is_placeholder]
        texts += _shape_texts(own, warnings, f"slide {number}'s {name.rsplit('/', 1)[-1]}")
    return texts


def extract_pptx(content: bytes, filename: str) -> ExtractedText:
    from pptx import Presentation

    check_unzipped_size(content, filename, "pptx")
    content, strict = readable_package(content, "pptx")
    try:
        deck, content, warnings = open_mending(lambda data: Presentation(io.BytesIO(data)),
                                               content)
    except (zipfile.BadZipFile, KeyError, ValueError, SyntaxError) as exc:  # lxml: XML
        raise ExtractionError(f"{filename} is not a readable .pptx deck ({type(exc).__name__}); "
                              "it may be corrupt or an old .ppt", code="PPTX_CORRUPT") from None
    slides = list(deck.slides)
    if len(slides) > MAX_SLIDES:
        raise ExtractionError(f"{filename} has {len(slides):,} slides; at most {MAX_SLIDES:,}",
                              code="PPTX_TOO_LARGE")
    blocks: list[Block] = []
    seen_masters: set[str] = set()
    first_title = None
    for number, slide in enumerate(slides, start=1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text.strip() if title_shape is not None and \
            title_shape.has_text_frame else ""
        first_title = first_title or title or None
        heading = (title,) if title else ()
        for text in _shape_texts(slide.shapes, warnings, f"slide {number}"):
            if text != title:
                blocks.append(Block(text=text, page=number, heading_path=heading))
        for text in _diagram_texts(slide, warnings, f"slide {number}"):
            blocks.append(Block(text=text, page=number, heading_path=heading))
        for text in _master_texts(slide, seen_masters, warnings, number):
            blocks.append(Block(text=text, page=number, heading_path=("Slide master",)))
        if slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame  # None: notes without a body
            notes = frame.text.strip() if frame is not None else ""
            if notes:
                blocks.append(Block(text=f"Speaker notes: {notes}", page=number,
                                    heading_path=heading))
        if title and not any(b.page == number for b in blocks):
            blocks.append(Block(text=title, page=number, heading_path=()))
    core_title = (deck.core_properties.title or "").strip()
    extracted = ExtractedText(blocks=blocks, title=core_title or first_title,
                              page_count=len(slides), warnings=warnings)
    if strict:
        extracted.quality["ooxml_variant"] = "strict"
    if warnings:  # each names a shape left out
        extracted.quality["unread_elements"] = len(warnings)
    return extracted
