"""Turn uploaded bytes into text blocks that keep where they came from (page, lines, headings)."""

from __future__ import annotations

from collections.abc import Callable

from app.domain.errors import ExtractionError
from app.domain.formats import IMAGE_MAGIC, OLE_MAGIC, ZIP_KINDS
from app.domain.limits import OcrBounds
from ingest.extract.types import Block, ExtractedText

__all__ = ["Block", "ExtractedText", "extract"]

IMAGE_KINDS = frozenset(IMAGE_MAGIC)
# (pages done, pages in all): paged formats report as they read
OnPage = Callable[[int, int], None]


def extract(kind: str, content: bytes, filename: str, on_page: OnPage | None = None,
            ocr: OcrBounds | None = None) -> ExtractedText:
    """Extract text; raises ExtractionError (permanent) for empty, corrupt or encrypted files."""
    if not content:
        raise ExtractionError(f"{filename} is empty (0 bytes)", code="EMPTY_FILE")
    if kind in ZIP_KINDS and content.startswith(OLE_MAGIC):
        raise ExtractionError(f"{filename} is password-protected (an encrypted Office "
                              "package): open it with its password, save it without one and "
                              "upload that", code="OFFICE_ENCRYPTED")
    if kind == "pdf":
        from ingest.extract.pdf import extract_pdf as fn
    elif kind == "docx":
        from ingest.extract.docx import extract_docx as fn
    elif kind == "html":
        from ingest.extract.html import extract_html as fn
    elif kind == "md":
        from ingest.extract.text import extract_markdown as fn
    elif kind == "txt":
        from ingest.extract.text import extract_text as fn
    elif kind == "xlsx":
        from ingest.extract.sheets import extract_xlsx as fn
    elif kind == "csv":
        from ingest.extract.sheets import extract_csv as fn
    elif kind == "pptx":
        from ingest.extract.slides import extract_pptx as fn
    elif kind == "eml":
        from ingest.extract.email import extract_eml as fn
    elif kind == "msg":
        from ingest.extract.email import extract_msg as fn
    elif kind in ("png", "jpg", "tiff"):
        from ingest.extract.images import extract_image as fn
    else:
        raise ExtractionError(f"no extractor for kind {kind!r}", code="UNSUPPORTED_FILE_TYPE")
    extracted = (fn(content, filename, on_page=on_page, ocr=ocr)
                 if kind in ("pdf", "png", "jpg", "tiff") else fn(content, filename))
    if kind in IMAGE_KINDS and extracted.quality.get("ocr_used"):
        # a photo without words is still evidence (an e-mail's photo attachments became failed
        # documents): published without chunks, its quality.warnings saying OCR found no text
        return extracted
    if not any(b.text.strip() for b in extracted.blocks):
        why = "; ".join(extracted.warnings)
        raise ExtractionError(f"{filename}: no text could be extracted"
                              + (f"; {why}" if why else ""), code="NO_TEXT")
    return extracted
