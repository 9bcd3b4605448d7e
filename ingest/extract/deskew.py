"""A scan's skew — the few degrees a sheet was turned on the glass — found by the projection
profile (Postl's method): text lines are level when the rows of ink, summed across the page,
vary most (dark line, white gap, dark line). Tesseract reads a page turned 10° as almost
nothing (98 of 267 words of OCRmyPDF's linn.png; 0 at 15°), and its orientation detection
only knows quarter turns, so the page is levelled before it is read.

Why by hand: the method is twenty lines of numpy over Pillow's rotation; the libraries that
package it (deskew, OpenCV) would add a large dependency for one function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_SKEW = 20.0  # degrees either way: beyond it a page is turned, not skewed (OSD's job)
COARSE_STEP, FINE_STEP = 1.0, 0.2
MIN_SKEW = 1.0  # under a degree Tesseract reads as well: the page is left as it is
WORK_SIDE = 1000  # pixels: the profile needs lines, not letters, so a smaller copy is measured
MIN_INK_SHARE = 0.002  # a page this empty has no lines to level


def _score(ink: Any, angle: float) -> float:
    """How sharply rows of ink alternate with white at ``angle``: the sum of squared
    differences between neighbouring rows' ink (largest when lines are level)."""
    rows = np.asarray(ink.rotate(angle, resample=0, expand=False, fillcolor=0),
                      dtype=np.float32).sum(axis=1)
    return float(np.square(np.diff(rows)).sum())


def skew_angle(image: Any) -> float:
    """Degrees counter-clockwise (Pillow's ``rotate``) that level the page's text lines; 0.0
    where the page is level, blank, or its best angle is no better than none."""
    from PIL import Image

    gray = image.convert("L")
    scale = WORK_SIDE / max(gray.size)
    if scale < 1:
        gray = gray.resize((max(1, int(gray.width * scale)), max(1, int(gray.height * scale))),
                           Image.Resampling.BILINEAR)
    pixels = np.asarray(gray, dtype=np.uint8)
    ink = pixels < min(128, int(pixels.mean()) - 1)  # darker than the page: ink
    if ink.mean() < MIN_INK_SHARE:
        return 0.0
    ink_image = Image.fromarray((ink * 255).astype(np.uint8))
    level = _score(ink_image, 0.0)
    coarse = np.arange(-MAX_SKEW, MAX_SKEW + COARSE_STEP / 2, COARSE_STEP)
    best = max(coarse, key=lambda a: _score(ink_image, float(a)))
    fine = np.arange(best - COARSE_STEP, best + COARSE_STEP + FINE_STEP / 2, FINE_STEP)
    best = max(fine, key=lambda a: _score(ink_image, float(a)))
    if abs(best) < MIN_SKEW or _score(ink_image, float(best)) <= level:
        return 0.0
    return round(float(best), 1)


def levelled(image: Any, angle: float) -> Any:
    """The page turned by ``angle`` degrees counter-clockwise, the corners it uncovers white."""
    if image.mode not in ("L", "RGB"):  # a palette or bilevel scan: grey, so white is 255
        image = image.convert("L")
    fill = 255 if image.mode == "L" else (255, 255, 255)
    return image.rotate(angle, resample=3, expand=True, fillcolor=fill)
