"""The extractor's output: blocks of text with their page, lines and heading path."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Block:
    """A run of text that belongs to one page and one section."""

    text: str
    page: int | None = None
    line_start: int | None = None  # 1-based, text and Markdown; a table's row numbers
    line_end: int | None = None
    heading_path: tuple[str, ...] = ()
    # A table row (spreadsheet, CSV): chunks pack whole rows, never split one, and cite the
    # rows (line_start … line_end) of ``sheet`` (None: a CSV's only table)
    row: bool = False
    sheet: str | None = None
    # a table row's header line ("Columns: Date | Amount"), set once at the head of each chunk
    header: str | None = None


@dataclass(frozen=True)
class Attachment:
    """A file inside a document (an e-mail's attachment): it becomes a Document of its own."""

    filename: str
    content: bytes = field(repr=False)


@dataclass
class ExtractedText:
    blocks: list[Block]
    title: str | None = None
    page_count: int | None = None
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)
    # canonical_metadata.quality as extraction found it: text_extraction native | ocr | mixed,
    # ocr_used, and ocr_engine when OCR ran
    quality: dict[str, object] = field(default_factory=lambda: {
        "text_extraction": "native", "ocr_used": False})
    attachments: list[Attachment] = field(default_factory=list)
    # a paged document's words with their boxes, by page (app/documents/boxes.py): where
    # a citation's words stand (a PDF's text layer)
    page_words: dict[int, list[tuple[str, float, float, float, float]]] = field(
        default_factory=dict)


def decode_text(content: bytes, warnings: list[str] | None = None,
                declared: str | None = None, *, web: bool = False) -> str:
    """Text by its byte-order mark, declared charset, UTF-8, else the detected charset
    (app/domain/charsets.py); a guess is said in ``warnings``."""
    from app.domain.charsets import decode

    decoded = decode(content, declared, web=web)
    if decoded.warning and warnings is not None:
        warnings.append(decoded.warning)
    return decoded.text
