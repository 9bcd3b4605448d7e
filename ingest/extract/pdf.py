"""PDF text with pdfplumber, one block per page so every chunk keeps its page number."""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from app.documents.boxes import page_words
from app.domain.errors import ExtractionError
from app.domain.limits import OcrBounds
from ingest.extract.columns import page_paragraphs
from ingest.extract.ocr import OcrReport, engine_for, read_page
from ingest.extract.types import Block, ExtractedText
from ingest.extract.wordshare import garbled, word_share

# A page's text layer is readable when most of it is letters, digits, spaces or common
# punctuation (pdfminer writes "(cid:12)" for glyphs it cannot map); on a page that holds an
# image, fewer than MIN_TEXT_CHARS of it (a stamp, a page number) does not make it text
MIN_TEXT_CHARS = 20
MIN_READABLE_SHARE = 0.6


def readable(text: str) -> bool:
    """Whether a text layer says something, rather than nothing or glyph garbage."""
    stripped = text.strip()
    if not stripped:
        return False
    garbage = stripped.count("(cid:") * 8 + stripped.count("\ufffd")
    share = sum(1 for ch in stripped if ch.isalnum() or ch.isspace() or ch in ".,;:-'\"()$%€£/")
    return (share - garbage) / len(stripped) >= MIN_READABLE_SHARE


def needs_ocr(text: str, has_image: bool) -> bool:
    """A page is read by OCR when it shows an image and its text layer is missing, short or
    garbage, or its text layer is garbage; a born-digital page (readable text, or no image)
    never is."""
    if readable(text):
        return has_image and len(text.strip()) < MIN_TEXT_CHARS
    return has_image or bool(text.strip())


# pdfminer writes a glyph it cannot map to a character as "(cid:N)": a number, never a word,
# so never indexed; a ligature glyph ("ﬁ", "ﬀ") is its letters, as poppler writes it, or
# "efficient" spelled "eﬃcient" is found by no query
CID = re.compile(r"\(cid:\d+\)")
LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}


# Chinese and Japanese are written without spaces: pdfminer puts one between the glyphs of
# vertical text ("す べ て が"), which no query for "すべてが" matches
CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK_GAP = re.compile(f"(?<=[{CJK}]) (?=[{CJK}])")


def clean_glyphs(text: str) -> str:
    """A text layer's words as written: ligatures spelled out, unmapped glyphs dropped, no
    space between two Chinese or Japanese characters."""
    return CJK_GAP.sub("", CID.sub("", text).translate(LIGATURES))


# the operators that show text (Tj, TJ, and ' or " after a string): a page without any has no
# text layer, whatever fonts it declares or empty text objects it opens (reportlab opens one)
SHOWS_TEXT = re.compile(rb"(?<![A-Za-z0-9])T[jJ](?![A-Za-z0-9])|[)\]]\s*['\"]")


def image_only(page: Any) -> bool:
    """Whether a page is certainly a scan, without laying it out: it places image XObjects
    (no form XObjects, whose insides are not looked into) and its content streams never show
    text, so it has no text layer at all. Only decompression and a byte search: a
    fraction of what reading the page costs."""
    from pdfminer.pdftypes import resolve1

    resources = resolve1(page.page_obj.resources) or {}
    objects = resolve1(resources.get("XObject")) if isinstance(resources, dict) else None
    if not isinstance(objects, dict) or not objects:
        return False
    for ref in objects.values():
        subtype = getattr(resolve1(ref), "attrs", {}).get("Subtype")
        if getattr(subtype, "name", subtype) != "Image":
            return False
    for stream in page.page_obj.contents or []:
        data = resolve1(stream)
        if data is None or SHOWS_TEXT.search(data.get_data()):
            return False
    return True


def _check_ocr_pages(pdf: Any, filename: str, settings: OcrBounds) -> None:
    """Refuse a PDF with more scanned pages than OCR reads before its first page is OCRed
    (a 2,000-page scan used to OCR 300 pages, ~6 minutes, before it failed)."""
    scans = 0
    for page in pdf.pages:
        try:
            scans += image_only(page)
        except Exception:  # noqa: BLE001 — a page pdfminer cannot read is no scan to count
            pass
        if scans > settings.max_pages:
            break
    if scans > settings.max_pages:
        raise ExtractionError(
            f"{filename} has more than {settings.max_pages:,} pages without a text layer "
            f"(counted before any was read); OCR reads at most "
            f"{settings.max_pages:,} per document (EVIDENCE_INGEST__OCR_MAX_PAGES): split the "
            "scan", code="OCR_TOO_MANY_PAGES")


def _render(page: Any, settings: OcrBounds) -> Any:
    """The page as an image at the OCR resolution, lowered to stay within the pixel bound."""
    dpi = settings.dpi
    pixels = (float(page.width) / 72 * dpi) * (float(page.height) / 72 * dpi)
    if pixels > settings.max_pixels:
        dpi = int(dpi * (settings.max_pixels / pixels) ** 0.5)
    return page.to_image(resolution=max(dpi, 36)).original


# a page whose layout analysis kept less than this share of the characters PDFium reads is
# read by PDFium instead: a reading that lost half the page is worse than one without
# paragraphs. Chosen by that principle, then checked: of 1,051 pages of 127 public PDFs,
# 910 keep ≥ 0.9 and 10 under 0.5, 4 fall in [0.5, 0.7) (docs/BENCHMARKS.md)
KEPT_SHARE = 0.5


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalnum())


class PdfiumPages:
    """The second reader, for a page pdfminer cannot interpret (a colour space without its
    component count, a broken font program): PDFium (pypdfium2, already pdfplumber's page
    renderer) reads the page's text as poppler would, line by line, without pdfminer's
    paragraphs. A page neither reads is left out with a warning; the file is still published.
    """

    def __init__(self, content: bytes, filename: str, warnings: list[str]) -> None:
        self.content, self.filename, self.warnings = content, filename, warnings
        self.read: list[int] = []  # pages PDFium read
        self.unread = 0  # pages neither reader could read
        self.page_count: int | None = None
        self._document: Any = None

    def _open(self) -> Any:
        if self._document is None:
            import pypdfium2

            self._document = pypdfium2.PdfDocument(self.content)
            self.page_count = len(self._document)
        return self._document

    def _text(self, number: int) -> str:
        page = self._open()[number - 1]
        try:
            textpage = page.get_textpage()
            try:
                return str(textpage.get_text_range())
            finally:
                textpage.close()
        finally:
            page.close()

    def page(self, number: int, cause: Exception) -> list[Block]:
        why = f"{type(cause).__name__}: {str(cause)[:160]}"
        try:
            text = self._text(number)
        except Exception as exc:  # noqa: BLE001
            self.unread += 1
            self.warnings.append(f"page {number} could not be read ({why}; PDFium: "
                                 f"{type(exc).__name__}) and was left out")
            return []
        self.warnings.append(f"page {number} could not be laid out ({why}): its text was read "
                             "line by line by PDFium, without paragraphs or columns")
        return self._lines(number, text)

    def _lines(self, number: int, text: str) -> list[Block]:
        """PDFium's reading of a page as one block of its lines (cited 1 … n)."""
        self.read.append(number)
        lines = [clean_glyphs(line.strip()) for line in text.splitlines() if line.strip()]
        return ([Block(text="\n".join(lines), page=number, line_start=1, line_end=len(lines))]
                if lines else [])

    def unless_lost(self, number: int, text: str) -> list[Block] | None:
        """PDFium's reading of a page where pdfminer's layout kept under half the characters
        PDFium reads (text placed at negative coordinates, outside the crop box pdfplumber
        keeps); None where pdfminer's reading is whole enough to keep its paragraphs."""
        try:
            other = self._text(number)
        except Exception:  # noqa: BLE001 — no second reading: the first stands
            return None
        found, whole = _letters(text), _letters(other)
        if whole < MIN_TEXT_CHARS or found >= KEPT_SHARE * whole:
            return None
        self.warnings.append(f"page {number}: the layout analysis kept {found:,} of the "
                             f"{whole:,} characters PDFium reads; the page was read line by "
                             "line by PDFium, without paragraphs or columns")
        return self._lines(number, other)

    def rest(self, done: int, cause: Exception) -> list[Block]:
        """The pages after ``done`` by PDFium, when pdfminer could not walk the document's
        pages any further (its page tree, not one page, is what it could not read)."""
        try:
            count = len(self._open())
        except Exception:  # noqa: BLE001 — neither reader opens it: the caller's PDF_CORRUPT
            return []
        blocks: list[Block] = []
        for number in range(done + 1, count + 1):
            blocks += self.page(number, cause)
        return blocks

    def close(self) -> None:
        if self._document is not None:
            self._document.close()


def extract_pdf(content: bytes, filename: str,
                on_page: Callable[[int, int], None] | None = None,
                ocr: OcrBounds | None = None) -> ExtractedText:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        # pdfminer's layout analysis groups a paragraph's lines (ingest/extract/reflow.py);
        # boxes_flow None: no box ordering (columns.py orders them, column by column)
        pdf = pdfplumber.open(io.BytesIO(content), laparams={"boxes_flow": None})
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
    settings = ocr or OcrBounds()
    engine = engine_for(settings.engine)
    report = OcrReport(engine.name if engine else "", [], [])
    native = 0
    garbled_pages: list[tuple[int, float]] = []  # (page, word share) of layers kept garbled
    fallback = PdfiumPages(content, filename, warnings)
    pages_done = 0
    words: dict[int, list] = {}  # each text page's words and boxes, for citations

    def read_page_text(number: int, page: Any) -> int:
        """One page's blocks (its text layer, else OCR); 1 when its own layer was kept."""
        paragraphs = page_paragraphs(page)  # columns read one by one, lines joined
        text = "\n".join(p.text for p in paragraphs).strip()
        has_image = bool(page.images)
        share = garbled(text)  # a layer of letters but hardly any words
        if share is not None and not (has_image and engine is not None):
            garbled_pages.append((number, share))  # kept, with a warning
            share = None
        layer = [Block(text=clean_glyphs(p.text), page=number, line_start=p.line_start,
                       line_end=p.line_end) for p in paragraphs]
        if share is None and not needs_ocr(text, has_image):  # never OCRed
            if not text:
                warnings.append(f"page {number} has no text (no text layer, no image)")
                return 0
            blocks.extend(fallback.unless_lost(number, text) or layer)
            words[number] = page_words(page.extract_words(), page.width, page.height)
            return 1
        if engine is None:
            blocks.extend(layer if text else [])
            warnings.append(f"page {number} has no usable text layer (scanned image?); no OCR "
                            "engine is available (EVIDENCE_INGEST__OCR_ENGINE="
                            f"{settings.engine}), so it is not searchable")
            return 0
        if len(report.pages) >= settings.max_pages:
            raise ExtractionError(
                f"{filename} has more than {settings.max_pages:,} pages without a text layer; "
                "OCR reads at most that many per document (EVIDENCE_INGEST__OCR_MAX_PAGES): "
                "split the scan", code="OCR_TOO_MANY_PAGES")
        ocr = read_page(engine, _render(page, settings), number, settings, report, filename)
        read: str | None = ocr.text
        if share is not None and (word_share(read or "") or 0.0) <= share:
            garbled_pages.append((number, share))  # OCR read no better
            read = None
        if read:
            words[number] = list(ocr.words)  # the rendered page is the whole page
        if read or text:
            blocks.append(Block(text=read or clean_glyphs(text), page=number))
        return 0

    try:
        with pdf:
            meta = pdf.metadata or {}
            if on_page is not None:  # the page count, before the first (perhaps slow) page
                on_page(0, len(pdf.pages))
            if engine is not None:
                _check_ocr_pages(pdf, filename, settings)
            for number, page in enumerate(pdf.pages, start=1):
                try:
                    native += read_page_text(number, page)
                except ExtractionError:
                    raise
                except Exception as exc:  # noqa: BLE001 — one page costs only itself
                    blocks += fallback.page(number, exc)
                pages_done = number
                if on_page is not None:
                    on_page(number, len(pdf.pages))
            page_count = len(pdf.pages)
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 — pdfminer could not walk the document itself
        blocks += fallback.rest(pages_done, exc)  # the pages it did not reach, by PDFium
        page_count, meta = fallback.page_count, {}
        if not blocks:
            raise ExtractionError(f"{filename}: the PDF could not be read to the end "
                                  f"({type(exc).__name__}: {exc})", code="PDF_CORRUPT") from None
    finally:
        fallback.close()
    title = meta.get("Title") if isinstance(meta.get("Title"), str) else None
    if title and title.strip().lower() in ("untitled", "untitled document", "microsoft word"):
        title = None  # placeholders some writers put there
    quality: dict[str, object] = {"text_extraction": "native", "ocr_used": False}
    if fallback.unread:
        quality["unread_elements"] = fallback.unread
    if fallback.read:
        quality["pages_read_by_pdfium"] = fallback.read
    if report.pages:
        quality = {"text_extraction": "mixed" if native else "ocr", "ocr_used": True,
                   "ocr_engine": report.engine, **report.quality()}
        warnings.extend(report.warnings(settings.low_confidence))
    if garbled_pages:
        quality["garbled_text_pages"] = [n for n, _ in garbled_pages]
        shown = ", ".join(f"{n} ({share:.0%})" for n, share in garbled_pages[:10])
        warnings.append(
            f"the text layer of page(s) {shown}{' …' if len(garbled_pages) > 10 else ''} is "
            "hardly words (share of known words in brackets): garbage from a broken font or a "
            "scanner's failed OCR, or a language English word lists barely cover; indexed as "
            "it is" + ("" if engine is not None else
                       " (no OCR engine to read the pages' images instead)"))
    return ExtractedText(blocks=blocks, title=title or None, page_count=page_count,
                         warnings=warnings, quality=quality,
                         extra={k.lower(): v for k, v in meta.items()
                                if k in ("Author", "Subject") and isinstance(v, str) and v},
                         page_words=words)
