"""A stored version's page as a PNG (issue 49): a PDF page rendered by PDFium (pypdfium2,
which pdfplumber already installs), an image file as it is (a TIFF's frames are its pages),
scaled to a bounded width, with boxes drawn where a citation asks for them.

Boxes are page-relative (0–1, origin top left), as evidence items carry them, so drawing
needs no knowledge of the PDF's points or the image's pixels. Rendered pages are cached
(bytes, by version, page, width and boxes): a reader paging back and forth renders once.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.errors import BadRequest, NotFound

PAGED_KINDS = frozenset({"pdf", "png", "jpg", "tiff"})
MAX_WIDTH, DEFAULT_WIDTH, MIN_WIDTH = 2000, 1000, 100
MAX_PIXELS = 2000 * 4000  # a page far taller than wide still ends somewhere
CACHED_PAGES = 64
HIGHLIGHT = (255, 213, 0, 90)  # translucent yellow over the words
OUTLINE = (214, 120, 0, 255)


@dataclass(frozen=True)
class Box:
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


_cache: OrderedDict[tuple, bytes] = OrderedDict()
_lock = threading.Lock()


def page_count(kind: str, content: bytes) -> int:
    """How many pages the stored file has (a PDF's, a TIFF's frames; an image: one)."""
    if kind == "pdf":
        import pypdfium2

        document = pypdfium2.PdfDocument(content)
        try:
            return len(document)
        finally:
            document.close()
    from PIL import Image

    with Image.open(io.BytesIO(content)) as image:
        return int(getattr(image, "n_frames", 1))


def render_page(*, key: tuple, kind: str, content: bytes, page: int, width: int,
                boxes: Sequence[Box] = ()) -> bytes:
    """The page (1-based) as PNG bytes ``width`` pixels wide with ``boxes`` (of that page)
    drawn; 404 ``PAGE_NOT_FOUND`` for a page the file does not have, 422 for a kind without
    pages. ``key`` names the stored file (version pk and sha256) for the cache."""
    if kind not in PAGED_KINDS:
        raise BadRequest(f"a {kind} document has no pages to show; its evidence cites lines "
                         "or rows", code="NOT_PAGED")
    width = max(MIN_WIDTH, min(MAX_WIDTH, width))
    drawn = tuple(b for b in boxes if b.page == page)
    cache_key = (*key, page, width, drawn)
    with _lock:
        if cache_key in _cache:
            _cache.move_to_end(cache_key)
            return _cache[cache_key]
    try:
        count = page_count(kind, content)
        if not 1 <= page <= count:
            raise NotFound(f"page {page} does not exist: the file has {count} page(s)",
                           code="PAGE_NOT_FOUND", details={"pages": count})
        image = (_pdf_page(content, page, width) if kind == "pdf"
                 else _image_page(content, page, width))
        png = _png(_highlighted(image, drawn))
    except NotFound:
        raise
    except Exception as exc:  # noqa: BLE001 - PDFium and Pillow fail in many ways on bad files
        raise BadRequest(f"the stored file cannot be drawn ({type(exc).__name__}); its text "
                         "was indexed as extraction read it", code="PAGE_UNREADABLE") from None
    with _lock:
        _cache[cache_key] = png
        while len(_cache) > CACHED_PAGES:
            _cache.popitem(last=False)
    return png


def _pdf_page(content: bytes, page: int, width: int):  # type: ignore[no-untyped-def]
    import pypdfium2

    document = pypdfium2.PdfDocument(content)
    try:
        pdf_page = document[page - 1]
        points_wide, points_high = pdf_page.get_size()
        scale = min(width / max(points_wide, 1.0),
                    (MAX_PIXELS / max(points_wide * points_high, 1.0)) ** 0.5)
        return pdf_page.render(scale=scale).to_pil().convert("RGB")
    finally:
        document.close()


def _image_page(content: bytes, page: int, width: int):  # type: ignore[no-untyped-def]
    from PIL import Image

    with Image.open(io.BytesIO(content)) as image:
        image.seek(page - 1)
        frame = image.convert("RGB")  # as OCR read it (the boxes are on these pixels)
    height = max(1, round(frame.height * width / max(frame.width, 1)))
    if width * height > MAX_PIXELS:
        height = MAX_PIXELS // width
    return frame.resize((width, height))


def _highlighted(image, boxes: Sequence[Box]):  # type: ignore[no-untyped-def]
    if not boxes:
        return image
    from PIL import Image, ImageDraw

    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    w, h = image.size
    for b in boxes:
        shape = (b.x0 * w - 2, b.y0 * h - 2, b.x1 * w + 2, b.y1 * h + 2)
        draw.rectangle(shape, fill=HIGHLIGHT, outline=OUTLINE, width=2)
    return Image.alpha_composite(image.convert("RGBA"), layer).convert("RGB")


def _png(image) -> bytes:  # type: ignore[no-untyped-def]
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def chunk_highlight(session: Any, *, client_id: str, chunk_id: str) -> list[Box]:
    """A chunk's words (``doc:v1:3``) as the boxes to draw, a box a line (its words kept at
    ingestion, app/documents/boxes.py; none where it has none)."""
    from app.documents.boxes import cited_boxes
    from app.registry import documents as docs_registry

    document_id, version_id, index = chunk_id.rsplit(":", 2)
    key = (document_id, version_id, int(index))
    words = docs_registry.chunk_boxes(session, client_id=client_id, chunks=[key]).get(key, [])
    return [Box(**b) for b in cited_boxes(words, [(0, 1 << 30)])]  # type: ignore[arg-type]

