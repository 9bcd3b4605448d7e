"""PDF text with pdfplumber, one block per page so every chunk keeps its page number."""

from __future__ import annotations

import io
from collections.abc import Callable

from app.errors import ExtractionError
from ingest.extract.types import Block, ExtractedText


def extract_pdf(content: bytes, filename: str,
                on_page: Callable[[int, int], None] | None = None) -> ExtractedText:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        pdf = pdfplumber.open(io.BytesIO(content))
    except PdfminerException as exc:
        cause = exc.args[0] if exc.args else exc
        if isinstance(cause, (PDFPasswordIncorrect, PDFEncryptionError)):
            raise ExtractionError(f"{filename} is encrypted (password-protected); upload an "
                                  "unprotected copy", code="PDF_ENCRYPTED") from None
        raise ExtractionError(f"{filename} is not a readable PDF ({type(cause).__name__}); "
                              "the file may be corrupt", code="PDF_CORRUPT") from None
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many kinds on broken files
        raise ExtractionError(f"{filename} is not a readable PDF ({type(exc).__name__})",
                              code="PDF_CORRUPT") from None
    blocks: list[Block] = []
    warnings: list[str] = []
    try:
        with pdf:
            meta = pdf.metadata or {}
            for number, page in enumerate(pdf.pages, start=1):
                text = (page.extract_text() or "").strip()
                if text:
                    blocks.append(Block(text=text, page=number))
                else:
                    warnings.append(f"page {number} has no text layer (scanned image?); "
                                    "OCR is not available, so it is not searchable")
                if on_page is not None:
                    on_page(number, len(pdf.pages))
            page_count = len(pdf.pages)
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise ExtractionError(f"{filename}: the PDF could not be read to the end "
                              f"({type(exc).__name__}: {exc})", code="PDF_CORRUPT") from None
    title = meta.get("Title") if isinstance(meta.get("Title"), str) else None
    if title and title.strip().lower() in ("untitled", "untitled document", "microsoft word"):
        title = None  # placeholders some writers put there
    return ExtractedText(blocks=blocks, title=title or None, page_count=page_count,
                         warnings=warnings,
                         extra={k.lower(): v for k, v in meta.items()
                                if k in ("Author", "Subject") and isinstance(v, str) and v})
