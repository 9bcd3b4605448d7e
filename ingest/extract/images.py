"""Photos and scans (.png, .jpg/.jpeg, .tif/.tiff, multi-page TIFF) read by OCR
(ingest/extract/ocr.py): one page per image frame."""

from __future__ import annotations

from collections.abc import Callable

from app.domain.errors import ExtractionError
from app.domain.limits import OcrBounds
from ingest.extract.ocr import (
    OcrReport,
    check_pixels,
    open_image_bounded,
    read_page,
    require_engine,
)
from ingest.extract.types import Block, ExtractedText

# an extension → the format Pillow names
PIL_FORMATS = {"jpg": "jpeg", "jpeg": "jpeg", "tif": "tiff", "tiff": "tiff", "png": "png"}


def extract_image(content: bytes, filename: str, on_page: Callable[[int, int], None] | None = None,
                  ocr: OcrBounds | None = None) -> ExtractedText:
    from PIL import ImageSequence

    settings = ocr or OcrBounds()
    engine = require_engine(settings, filename)
    image = open_image_bounded(content, filename, settings.max_pixels)
    frames = int(getattr(image, "n_frames", 1) or 1)
    if frames > settings.max_pages:
        raise ExtractionError(f"{filename} has {frames:,} pages; OCR reads at most "
                              f"{settings.max_pages:,} per document "
                              "(EVIDENCE_INGEST__OCR_MAX_PAGES)", code="OCR_TOO_MANY_PAGES")
    report = OcrReport(engine.name, [], [])
    blocks: list[Block] = []
    words: dict[int, list] = {}  # each page's words and boxes, for citations
    try:
        for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
            check_pixels(frame.size, filename, settings.max_pixels)
            read = read_page(engine, frame.convert("RGB"), number, settings, report, filename)
            if read.text:
                blocks.append(Block(text=read.text, page=number))
                words[number] = list(read.words)
            if on_page is not None:
                on_page(number, frames)
    except ExtractionError:
        raise
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow on a truncated or broken file
        raise ExtractionError(f"{filename}: the image could not be decoded "
                              f"({type(exc).__name__}: {exc})", code="IMAGE_CORRUPT") from None
    warnings = report.warnings(settings.low_confidence)
    named = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    actual = (image.format or "").lower()
    if actual and named and PIL_FORMATS.get(named, named) != actual:
        warnings.append(f"the bytes are a {actual.upper()} image, though named .{named}: read "
                        "as what they are")
    if not blocks:
        warnings.append(f"OCR ({engine.name}) found no text in {filename}")
    return ExtractedText(blocks=blocks, page_count=frames, warnings=warnings,
                         quality={"text_extraction": "ocr", "ocr_used": True,
                                  "ocr_engine": engine.name, **report.quality()},
                         page_words=words)
