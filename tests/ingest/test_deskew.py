"""A scan's skew, found by the projection profile and levelled before Tesseract reads it
(ingest/extract/deskew.py), on a real scan (tests/fixtures/scans/README.md)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from ingest.extract.deskew import MIN_SKEW, levelled, skew_angle

SCANS = Path(__file__).resolve().parents[1] / "fixtures" / "scans"


def _scan(angle: float, side: int = 1275) -> Image.Image:
    page = Image.open(SCANS / "linn.png").convert("L")
    page = page.resize((side, int(side * page.height / page.width)))
    return page.rotate(angle, expand=True, fillcolor=255)


@pytest.mark.parametrize("turned, found", [
    (0.0, 0.0), (MIN_SKEW / 2, 0.0),           # level, or under the bound: left as it is
    (-3.0, 3.0), (10.0, -10.0), (-15.0, 15.0),  # skewed: the angle that levels it
])
def test_the_skew_of_a_real_scan_is_found_within_a_fifth_of_a_degree(turned: float,
                                                                      found: float) -> None:
    assert skew_angle(_scan(turned)) == pytest.approx(found, abs=0.2)


def test_a_blank_page_has_no_skew_and_levelling_uncovers_white() -> None:
    assert skew_angle(Image.new("L", (800, 1000), 255)) == 0.0
    corners = levelled(Image.new("1", (100, 100), 0), 10.0)  # a black bilevel page
    assert corners.mode == "L" and corners.getpixel((0, 0)) == 255


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed "
                    "(apt-get install -y tesseract-ocr)")
def test_tesseract_reads_a_page_turned_ten_degrees_as_a_level_one() -> None:
    from app.domain.limits import OcrBounds
    from ingest.extract import extract

    reference = set(re.findall(r"[a-z]{4,}", (SCANS / "linn.txt").read_text().lower()))
    buffer = io.BytesIO()
    _scan(10.0, side=2550).save(buffer, "PNG")
    extracted = extract("png", buffer.getvalue(), "askew.png", ocr=OcrBounds(engine="tesseract"))
    read = set(re.findall(r"[a-z]{4,}", " ".join(b.text for b in extracted.blocks).lower()))
    assert len(reference & read) >= 0.95 * len(reference)  # 98 of 267 before it was levelled
    assert extracted.quality["ocr_deskewed_pages"] == [{"page": 1, "degrees": -10.0}]
