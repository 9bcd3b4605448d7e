"""OCR for scanned PDF pages and images: Tesseract where it is installed, RapidOCR (PP-OCRv4 on
onnxruntime, models inside its PyPI wheel) everywhere else, so a fresh machine reads scans after
the README's own set-up. Which engine ran is said in ``quality.ocr_engine``.

Chosen by measurement (docs/BENCHMARKS.md, bench/ocr_quality.py on generated scanned pages):
Tesseract reads them with fewer errors in less time where it exists; RapidOCR is the engine that
installs from a package registry alone.

Bounded, in the niced child like all extraction: pixels per image (a decompression bomb fails
before it is decoded), pages per document, seconds per page (Tesseract is stopped at the bound;
RapidOCR, in-process, fails the page once it has overrun). A document that hits a bound fails
alone with the bound in its reason.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Protocol

from app.domain.errors import ExtractionError
from app.domain.limits import OcrBounds
from ingest.extract.reflow import join_lines, split_items


@dataclass(frozen=True)
class OcrPage:
    text: str
    confidence: float  # mean word confidence, 0..1 (1 when nothing was read)
    rotated: int = 0  # degrees clockwise the page was turned before it was read
    deskewed: float = 0.0  # degrees counter-clockwise it was levelled (ingest/extract/deskew.py)
    # the words read with their boxes on the page as given (0–1, top left), for citations;
    # none where the page was read turned a quarter or more (not mapped back)
    words: tuple[tuple[str, float, float, float, float], ...] = ()


def unlevelled(words: tuple[tuple[str, float, float, float, float], ...], angle: float,
               levelled_size: tuple[int, int], size: tuple[int, int]
               ) -> tuple[tuple[str, float, float, float, float], ...]:
    """Boxes read on a page levelled by ``angle`` degrees counter-clockwise (Pillow's
    ``rotate(expand=True)``: ``levelled_size``) as boxes on the page as it was (``size``):
    each corner turned back about the centres, the box around them."""
    import math

    (lw, lh), (w, h) = levelled_size, size
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))

    def back(x: float, y: float) -> tuple[float, float]:
        dx, dy = x * lw - lw / 2, y * lh - lh / 2
        return ((dx * cos - dy * sin + w / 2) / w, (dx * sin + dy * cos + h / 2) / h)

    out = []
    for text, x0, y0, x1, y1 in words:
        corners = [back(x, y) for x in (x0, x1) for y in (y0, y1)]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        out.append((text, *(min(1.0, max(0.0, v)) for v in (min(xs), min(ys), max(xs),
                                                             max(ys)))))
    return tuple(out)


# Tesseract runs one OpenMP thread: its default (every core) took 43 s wall / 29 s CPU for an
# A4 page at 200 dpi on a busy 2-core box against 20 s / 7 s with one (issue 34)
TESSERACT_ENV = {"OMP_THREAD_LIMIT": "1"}
OSD_ROTATION = re.compile(r"^Rotate:\s*(\d+)", re.MULTILINE)


class OcrEngine(Protocol):
    name: str  # with its version, e.g. "tesseract 5.3.0"

    def read(self, image: Any, timeout_s: float) -> OcrPage: ...


class OcrFailed(ExtractionError):
    code = "OCR_FAILED"


class Tesseract:
    """The ``tesseract`` command (Debian's tesseract-ocr), English, words with confidences
    (TSV), lines and paragraphs as it found them."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        version = (out.stdout or out.stderr).split()[1] if (out.stdout or out.stderr) else "?"
        self.name = f"tesseract {version}"

    def read(self, image: Any, timeout_s: float) -> OcrPage:
        """The page turned upright first, as Tesseract's orientation detection (OSD) says;
        where it proposes a turn, the reading with the better word confidence is kept (OSD
        on a page with little text can be wrong)."""
        from ingest.extract.deskew import levelled, skew_angle

        t0 = time.monotonic()
        png = _png(image)
        turn = self._orientation(png, timeout_s)
        turned = image.rotate(-turn, expand=True) if turn else image
        # a sheet skewed on the glass: levelled first (Tesseract reads 10° as almost nothing)
        skew = skew_angle(turned)
        read_image = levelled(turned, skew) if skew else turned
        read_png = _png(read_image) if skew or turn else png
        upright = _from_tsv(self._run(read_png, timeout_s - (time.monotonic() - t0)),
                            read_image.size)
        words = () if turn else (unlevelled(upright.words, skew, read_image.size, image.size)
                                 if skew else upright.words)
        upright = OcrPage(upright.text, upright.confidence, turn, skew, words)
        if not turn:
            return upright
        as_is = _from_tsv(self._run(png, timeout_s - (time.monotonic() - t0)), image.size)
        return upright if upright.confidence >= as_is.confidence else as_is

    def _orientation(self, png: bytes, timeout_s: float) -> int:
        """Degrees clockwise that make the page upright (0 where OSD cannot tell)."""
        try:
            out = subprocess.run([self.binary, "stdin", "stdout", "--psm", "0"], input=png,
                                 capture_output=True, timeout=timeout_s, env=_env())
        except subprocess.TimeoutExpired:
            raise _timeout(timeout_s) from None
        found = OSD_ROTATION.search(out.stdout.decode("utf-8", errors="replace"))
        return int(found.group(1)) % 360 if out.returncode == 0 and found else 0

    def _run(self, png: bytes, timeout_s: float) -> str:
        if timeout_s <= 0:
            raise _timeout(timeout_s)
        try:
            out = subprocess.run([self.binary, "stdin", "stdout", "-l", "eng", "--psm", "3",
                                  "tsv"], input=png, capture_output=True, timeout=timeout_s,
                                 env=_env())
        except subprocess.TimeoutExpired:
            raise _timeout(timeout_s) from None
        if out.returncode != 0:
            raise OcrFailed(f"tesseract failed: {out.stderr.decode(errors='replace')[:300]}")
        return out.stdout.decode("utf-8", errors="replace")


def _env() -> dict[str, str]:
    import os

    return {**os.environ, **TESSERACT_ENV}


def _png(image: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _from_tsv(tsv: str, size: tuple[int, int] | None = None) -> OcrPage:
    """Tesseract's TSV as lines and paragraphs; with the image's ``size``, each word's box
    too (page-relative)."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    confidences = []
    boxed: list[tuple[str, float, float, float, float]] = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        key = (int(cols[2]), int(cols[3]), int(cols[4]))  # block, paragraph, line
        lines.setdefault(key, []).append(cols[11].strip())
        if float(cols[10]) >= 0:
            confidences.append(float(cols[10]) / 100)
        if size and size[0] > 0 and size[1] > 0:
            left, top, wide, high = (float(c) for c in cols[6:10])
            boxed.append((cols[11].strip(), left / size[0], top / size[1],
                          (left + wide) / size[0], (top + high) / size[1]))
    paragraphs: dict[tuple[int, int], list[str]] = {}
    for (block, par, _line), words in lines.items():
        paragraphs.setdefault((block, par), []).append(" ".join(words))
    text = "\n\n".join(_reflowed(p) for p in paragraphs.values())
    return OcrPage(text, sum(confidences) / len(confidences) if confidences else 1.0,
                   words=tuple(boxed))


def _reflowed(lines: list[str]) -> str:
    """A paragraph's lines joined (ingest/extract/reflow.py), a list item a line of its own."""
    return "\n".join(join_lines([lines[i] for i in group]) for group in split_items(lines))


class RapidOcr:
    """RapidOCR (rapidocr-onnxruntime): text boxes joined into lines top to bottom, left to
    right; a box's own score is its confidence."""

    def __init__(self) -> None:
        from importlib.metadata import version

        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR()
        self.name = f"rapidocr {version('rapidocr-onnxruntime')}"

    def read(self, image: Any, timeout_s: float) -> OcrPage:
        """Its angle classifier turns each line read upside down; a page turned a quarter
        (most text boxes standing on end) is read both quarter turns, the better-confidence
        reading kept."""
        import numpy as np

        t0 = time.monotonic()
        result, _ = self._engine(np.asarray(image.convert("RGB")))
        if time.monotonic() - t0 > timeout_s:
            raise _timeout(timeout_s)
        page = _from_boxes(result or [], image.size)
        if not _on_end(result or []):
            return page
        # on its side, each box is read (the classifier turns it) but lines lose their order:
        # of the two quarter turns, the one read with the better confidence is upright
        best: OcrPage | None = None
        for turn in (90, 270):
            turned, _ = self._engine(np.asarray(image.rotate(-turn, expand=True).convert("RGB")))
            if time.monotonic() - t0 > timeout_s:
                raise _timeout(timeout_s)
            candidate = _from_boxes(turned or [])
            if candidate.text.strip() and (best is None or candidate.confidence > best.confidence):
                best = OcrPage(candidate.text, candidate.confidence, turn)
        return best or page


def _on_end(boxes: list) -> bool:
    """Most text boxes taller than wide: the page lies on its side."""
    shapes = [(max(p[1] for p in b[0]) - min(p[1] for p in b[0]),
               max(p[0] for p in b[0]) - min(p[0] for p in b[0])) for b in boxes]
    return bool(shapes) and sum(h > 1.5 * w for h, w in shapes) * 2 > len(shapes)


def _from_boxes(boxes: list, size: tuple[int, int] | None = None) -> OcrPage:
    """Boxes ([corners, text, score]) as lines: a box whose vertical middle falls within the
    current line's height joins it. Lines as paragraphs: a gap over half a line's height
    between two lines ends one (pdfminer's ``line_margin``, the rule PDF pages are read by).
    With the image's ``size``, each word's box (page-relative): RapidOCR boxes phrases, so a
    box's width is shared among its words by their lengths."""
    boxed = _box_words(boxes, size) if size and size[0] > 0 and size[1] > 0 else ()
    items = sorted(((min(p[1] for p in b[0]), max(p[1] for p in b[0]), min(p[0] for p in b[0]),
                     str(b[1]), float(b[2])) for b in boxes if str(b[1]).strip()))
    lines: list[list[tuple[float, str]]] = []
    extents: list[list[float]] = []  # each line's [top, bottom]
    bottom = float("-inf")
    for top, low, left, text, _score in items:
        if lines and (top + low) / 2 <= bottom:
            lines[-1].append((left, text))
            bottom = max(bottom, low)
            extents[-1][1] = bottom
        else:
            lines.append([(left, text)])
            extents.append([top, low])
            bottom = low
    paragraphs: list[list[str]] = []
    for k, line in enumerate(lines):
        words = " ".join(t for _, t in sorted(line))
        if k and extents[k][0] - extents[k - 1][1] <= LINE_MARGIN * (
                extents[k - 1][1] - extents[k - 1][0]):
            paragraphs[-1].append(words)
        else:
            paragraphs.append([words])
    text = "\n\n".join(_reflowed(p) for p in paragraphs)
    scores = [i[4] for i in items]
    return OcrPage(text, sum(scores) / len(scores) if scores else 1.0, words=boxed)


def _box_words(boxes: list, size: tuple[int, int]
               ) -> tuple[tuple[str, float, float, float, float], ...]:
    w, h = size
    out = []
    for corners, text, _score in ((b[0], str(b[1]), b[2]) for b in boxes):
        x0, x1 = min(p[0] for p in corners), max(p[0] for p in corners)
        y0, y1 = min(p[1] for p in corners) / h, max(p[1] for p in corners) / h
        per_char = (x1 - x0) / max(len(text), 1)
        out.extend((m.group(), (x0 + m.start() * per_char) / w, y0,
                    (x0 + m.end() * per_char) / w, y1) for m in re.finditer(r"\S+", text))
    return tuple(out)


LINE_MARGIN = 0.5  # of a line's height: pdfminer's default line_margin


class OcrTimeout(ExtractionError):
    code = "OCR_TIMEOUT"


def _timeout(seconds: float) -> OcrTimeout:
    return OcrTimeout(f"it took more than {seconds:g} s to read by OCR "
                      "(EVIDENCE_INGEST__OCR_PAGE_SECONDS); save the scan at a lower "
                      "resolution or raise the bound")


@lru_cache(maxsize=4)
def engine_for(choice: str) -> OcrEngine | None:
    """The engine ``choice`` names, once per process; None when OCR is off or not installed."""
    if choice == "off":
        return None
    binary = shutil.which("tesseract")
    if choice in ("auto", "tesseract") and binary:
        return Tesseract(binary)
    if choice == "tesseract":
        return None
    try:
        return RapidOcr()
    except ImportError:
        return None


def open_image_bounded(data: bytes, filename: str, max_pixels: int) -> Any:
    """A PIL image whose size was checked before a pixel was decoded."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # our own bound, below, with a reason a person can act on
    try:
        image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ExtractionError(f"{filename} is not a readable image ({type(exc).__name__}); "
                              "it may be corrupt", code="IMAGE_CORRUPT") from None
    check_pixels(image.size, filename, max_pixels)
    return image


def check_pixels(size: tuple[int, int], filename: str, max_pixels: int) -> None:
    width, height = size
    if width * height > max_pixels:
        raise ExtractionError(
            f"{filename}: an image of {width:,} × {height:,} pixels is over the "
            f"{max_pixels:,}-pixel bound (EVIDENCE_INGEST__OCR_MAX_PIXELS): a decompression "
            "bomb, or a scan to save at a lower resolution", code="IMAGE_TOO_LARGE")


@dataclass
class OcrReport:
    """What OCR did to a document, for ``quality`` and its warnings."""

    engine: str
    pages: list[int]
    low: list[tuple[int, float]]
    rotated: list[tuple[int, int]] = field(default_factory=list)  # (page, degrees clockwise)
    # (page, degrees counter-clockwise) a skewed scan was levelled by before it was read
    deskewed: list[tuple[int, float]] = field(default_factory=list)

    def quality(self) -> dict[str, object]:
        """What ``canonical_metadata.quality`` says of the OCR beyond the engine."""
        said: dict[str, object] = {}
        if self.rotated:
            said["ocr_rotated_pages"] = [{"page": p, "degrees": d} for p, d in self.rotated]
        if self.deskewed:
            said["ocr_deskewed_pages"] = [{"page": p, "degrees": d} for p, d in self.deskewed]
        return said

    def warnings(self, threshold: float) -> list[str]:
        if not self.low:
            return []
        pages = ", ".join(f"{p} ({c:.2f})" for p, c in self.low)
        return [f"page{'s' if len(self.low) > 1 else ''} {pages} read by OCR ({self.engine}) "
                f"with low confidence (mean word confidence under {threshold:g}): check the "
                "text against the scan"]


def require_engine(settings: OcrBounds, filename: str) -> OcrEngine:
    engine = engine_for(settings.engine)
    if engine is None:
        raise ExtractionError(
            f"{filename} needs OCR and no OCR engine is available (EVIDENCE_INGEST__OCR_ENGINE="
            f"{settings.engine}); install Debian's tesseract-ocr or pip's rapidocr-onnxruntime",
            code="OCR_UNAVAILABLE")
    return engine


def read_page(engine: OcrEngine, image: Any, page: int, settings: OcrBounds,
              report: OcrReport, filename: str) -> OcrPage:
    """One page by OCR (its text stripped, its words' boxes), recorded in ``report``; the
    bound's failure names the page."""
    try:
        result = engine.read(image, settings.page_seconds)
    except ExtractionError as exc:
        raise ExtractionError(f"{filename}, page {page}: {exc.message}",
                              code=exc.code) from None
    report.pages.append(page)
    if result.rotated:
        report.rotated.append((page, result.rotated))
    if result.deskewed:
        report.deskewed.append((page, result.deskewed))
    if result.text.strip() and result.confidence < settings.low_confidence:
        report.low.append((page, round(result.confidence, 2)))
    return replace(result, text=result.text.strip())
