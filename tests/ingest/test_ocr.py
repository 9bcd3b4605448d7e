"""OCR of scans and photos, with pages generated in code: both engines, quality telling the
truth, born-digital pages never OCRed, and every bound failing the document alone with a reason."""

from __future__ import annotations

import shutil

import pytest

from app.domain.errors import ExtractionError
from app.domain.limits import OcrBounds
from ingest.extract import extract
from ingest.extract.ocr import OcrPage, _from_boxes, _from_tsv, engine_for
from tests.factories import image_bytes, scan_image, scanned_pdf

INVOICE = ["INVOICE 2024-0117", "Kestrel Logistics Ltd", "Amount due: $18,450.00",
           "Reference TXN-2024-001"]
ENGINES = [pytest.param("tesseract", marks=pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="Debian's tesseract-ocr is not installed")),
    "rapidocr"]


def test_tesseract_words_become_lines_and_paragraphs_with_their_confidence() -> None:
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tl\tt\tw\th\tconf\ttext"
    rows = [("5", 1, 1, 1, "96", "Amount"), ("5", 1, 1, 1, "90", "due"),
            ("5", 1, 1, 2, "50", "$18,450.00"), ("4", 1, 1, 2, "-1", ""),
            ("5", 2, 1, 1, "80", "Kestrel")]
    tsv = "\n".join([head] + [f"{lv}\t1\t{b}\t{p}\t{ln}\t1\t0\t0\t0\t0\t{c}\t{t}"
                              for lv, b, p, ln, c, t in rows])
    page = _from_tsv(tsv)
    # a paragraph's lines joined (ingest/extract/reflow.py): the amount stays with its label
    assert page.text == "Amount due $18,450.00\n\nKestrel"
    assert page.confidence == pytest.approx((0.96 + 0.90 + 0.50 + 0.80) / 4)


def test_rapidocr_boxes_on_one_height_join_left_to_right() -> None:
    def box(x: int, y: int, text: str, score: float) -> list:
        return [[[x, y], [x + 100, y], [x + 100, y + 40], [x, y + 40]], text, score]

    page = _from_boxes([box(300, 102, "due:", 0.9), box(100, 100, "Amount", 0.8),
                        box(100, 200, "Kestrel", 0.7)])
    # 60 px between the lines, over half a line's 40: two paragraphs
    assert page.text == "Amount due:\n\nKestrel"
    assert page.confidence == pytest.approx(0.8)
    # 19 px, under half a line: one paragraph, its lines joined; 21 px: two
    near = _from_boxes([box(100, 100, "Pay to IBAN IE70", 0.9), box(100, 159, "BOFI 9000", 0.9)])
    assert near.text == "Pay to IBAN IE70 BOFI 9000"
    far = _from_boxes([box(100, 100, "Pay to IBAN IE70", 0.9), box(100, 161, "BOFI 9000", 0.9)])
    assert far.text == "Pay to IBAN IE70\n\nBOFI 9000"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_scanned_photo_is_read_line_by_line_and_says_which_engine_ran(engine: str) -> None:
    content = image_bytes(scan_image(INVOICE), "PNG")
    result = extract("png", content, "scan.png", ocr=OcrBounds(engine=engine))
    text = " ".join(b.text for b in result.blocks)
    for word in ("Kestrel", "$18,450.00", "TXN-2024-001"):
        assert word in text, (engine, text)
    assert result.quality == {"text_extraction": "ocr", "ocr_used": True,
                              "ocr_engine": engine_for(engine).name}  # type: ignore[union-attr]
    assert [b.page for b in result.blocks] == [1]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_multi_page_tiff_and_a_jpeg_keep_their_pages(engine: str) -> None:
    pages = [scan_image(["Page one: warehouse lease"]), scan_image(["Page two: Globex payroll"])]
    tiff = image_bytes(pages[0], "TIFF", save_all=True, append_images=pages[1:])
    result = extract("tiff", tiff, "scan.tif", ocr=OcrBounds(engine=engine))
    assert result.page_count == 2
    assert [("lease" in b.text, "payroll" in b.text, b.page) for b in result.blocks] == [
        (True, False, 1), (False, True, 2)]
    jpeg = image_bytes(scan_image(["Receipt from Zephyr Cafe"]).convert("RGB"), "JPEG")
    assert "Zephyr" in extract("jpg", jpeg, "r.jpg", ocr=OcrBounds(engine=engine)).blocks[0].text


@pytest.mark.parametrize("engine", ENGINES)
def test_a_pdf_reads_its_text_layer_and_ocrs_only_its_scanned_pages(engine: str) -> None:
    pdf = scanned_pdf(["Board minutes: the audit committee met on the fifth of March.",
                       scan_image(INVOICE)])
    result = extract("pdf", pdf, "mixed.pdf", ocr=OcrBounds(engine=engine))
    assert [b.page for b in result.blocks] == [1, 2]
    assert result.blocks[0].text.startswith("Board minutes")
    assert "Kestrel" in result.blocks[1].text
    assert result.quality["text_extraction"] == "mixed" and result.quality["ocr_used"] is True
    only_scans = extract("pdf", scanned_pdf([scan_image(INVOICE)]), "scan.pdf",
                         ocr=OcrBounds(engine=engine))
    assert only_scans.quality["text_extraction"] == "ocr"


def test_a_born_digital_pdf_is_never_ocred(monkeypatch: pytest.MonkeyPatch) -> None:
    from ingest.extract import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "read_page", lambda *a, **k: pytest.fail("OCR ran"))
    pdf = scanned_pdf(["The quarterly budget report shows a deficit in the Apollo project.",
                       "Annex B"])
    result = extract("pdf", pdf, "digital.pdf", ocr=OcrBounds(engine="rapidocr"))
    assert result.quality == {"text_extraction": "native", "ocr_used": False}


def test_which_pages_ocr_reads() -> None:
    from ingest.extract.pdf import needs_ocr

    sentence = "The quarterly budget report shows a deficit."
    assert not needs_ocr(sentence, has_image=True)  # a text layer over a figure
    assert not needs_ocr("Annex B", has_image=False)  # a short born-digital page
    assert not needs_ocr("", has_image=False)  # a blank page: nothing to read
    assert needs_ocr("", has_image=True)  # a scan
    assert needs_ocr("  7  ", has_image=True)  # a scan with a page number in its layer
    assert needs_ocr("(cid:12)(cid:7)(cid:44)(cid:9)(cid:3)(cid:18)", has_image=False)


def test_low_confidence_pages_are_named_in_a_warning() -> None:
    blurred = scan_image(INVOICE, blur=3.2)
    result = extract("png", image_bytes(blurred, "PNG"), "blurred.png",
                     ocr=OcrBounds(engine="rapidocr", low_confidence=0.999))
    assert result.warnings and result.warnings[0].startswith("page 1 (0.")
    assert "low confidence" in result.warnings[0]


def test_a_decompression_bomb_fails_before_it_is_decoded() -> None:
    from PIL import Image

    bomb = image_bytes(Image.new("1", (30_000, 30_000), 1), "PNG")  # ~100 KB, 900 M pixels
    assert len(bomb) < 2_000_000
    with pytest.raises(ExtractionError) as err:
        extract("png", bomb, "bomb.png", ocr=OcrBounds(engine="rapidocr"))
    assert err.value.code == "IMAGE_TOO_LARGE" and "30,000 × 30,000" in err.value.message


def test_too_many_pages_and_a_slow_page_fail_with_the_bound(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    pages = [scan_image([f"page {i}"], size=(400, 300)) for i in range(3)]
    tiff = image_bytes(pages[0], "TIFF", save_all=True, append_images=pages[1:])
    with pytest.raises(ExtractionError) as err:
        extract("tiff", tiff, "long.tif", ocr=OcrBounds(engine="rapidocr", max_pages=2))
    assert err.value.code == "OCR_TOO_MANY_PAGES" and "at most 2" in err.value.message
    with pytest.raises(ExtractionError) as err:
        extract("pdf", scanned_pdf(pages), "long.pdf",
                ocr=OcrBounds(engine="rapidocr", max_pages=2))
    assert err.value.code == "OCR_TOO_MANY_PAGES"
    with pytest.raises(ExtractionError) as err:
        extract("png", image_bytes(scan_image(INVOICE), "PNG"), "slow.png",
                ocr=OcrBounds(engine="rapidocr", page_seconds=1e-6))
    assert err.value.code == "OCR_TIMEOUT" and "slow.png, page 1" in err.value.message


def test_a_corrupt_image_and_ocr_off_fail_with_a_reason() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("png", b"\x89PNG\r\n\x1a\n broken", "broken.png", ocr=OcrBounds(engine="rapidocr"))
    assert err.value.code == "IMAGE_CORRUPT"
    with pytest.raises(ExtractionError) as err:
        extract("png", image_bytes(scan_image(INVOICE), "PNG"), "scan.png",
                ocr=OcrBounds(engine="off"))
    assert err.value.code == "OCR_UNAVAILABLE" and "rapidocr-onnxruntime" in err.value.message
    with pytest.raises(ExtractionError) as err:  # a scan with OCR off: nothing to index
        extract("pdf", scanned_pdf([scan_image(INVOICE)]), "scan.pdf",
                ocr=OcrBounds(engine="off"))
    assert "no OCR engine is available (EVIDENCE_INGEST__OCR_ENGINE=off)" in err.value.message


@pytest.mark.parametrize("scans, refused", [(2, False), (3, True)])
def test_scanned_pages_over_the_bound_are_refused_before_any_ocr(
        monkeypatch: pytest.MonkeyPatch, scans: int, refused: bool) -> None:
    """max_pages 2: a PDF of 3 scans (and a born-digital page) fails before its first page is
    OCRed; one of 2 scans is read."""
    from ingest.extract import pdf as pdf_module

    read: list[int] = []
    monkeypatch.setattr(pdf_module, "read_page",
                        lambda _e, _img, number, *a, **k: read.append(number)
                        or OcrPage(f"p{number}", 1.0))
    pages: list[object] = ["A born-digital cover page about the quarterly audit."]
    pages += [scan_image([f"page {i}"], size=(200, 150)) for i in range(scans)]
    bounds = OcrBounds(engine="rapidocr", max_pages=2)
    if refused:
        with pytest.raises(ExtractionError) as err:
            extract("pdf", scanned_pdf(pages), "long.pdf", ocr=bounds)
        assert err.value.code == "OCR_TOO_MANY_PAGES" and "more than 2 pages" in err.value.message
        assert read == []  # refused up front
    else:
        result = extract("pdf", scanned_pdf(pages), "ok.pdf", ocr=bounds)
        assert read == [2, 3] and [b.page for b in result.blocks] == [1, 2, 3]


def test_only_pages_with_images_and_no_font_count_as_scans() -> None:
    import io

    import pdfplumber

    from ingest.extract.pdf import image_only

    pdf = scanned_pdf(["text", scan_image(["scan"], size=(200, 150))])
    with pdfplumber.open(io.BytesIO(pdf)) as opened:
        assert [image_only(p) for p in opened.pages] == [False, True]


def _rotated_page(degrees: int):  # type: ignore[no-untyped-def]
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1400, 500), 255)
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 40)
    except OSError:
        font = ImageFont.load_default(size=40)
    for i, line in enumerate(("The quick brown fox jumps over the lazy dog.",
                              "Invoices are paid within thirty days of receipt.",
                              "Kestrel Holdings signed the lease in March.")):
        draw.text((40, 60 + i * 120), line, fill=0, font=font)
    return image.rotate(degrees, expand=True)  # counter-clockwise: upright is that clockwise


@pytest.mark.parametrize("degrees, turn", [(0, 0), (180, 180), (90, 90), (270, 270)])
def test_tesseract_reads_a_turned_page_upright_and_says_so(degrees: int, turn: int) -> None:
    import shutil

    from ingest.extract.ocr import Tesseract

    if not shutil.which("tesseract"):
        pytest.skip("Tesseract is not installed (apt-get install -y tesseract-ocr)")
    page = Tesseract(shutil.which("tesseract")).read(_rotated_page(degrees), 60)
    assert "Kestrel Holdings signed the lease" in page.text
    assert page.text.index("quick brown fox") < page.text.index("Kestrel")  # lines in order
    assert page.rotated == turn


def test_tesseract_runs_one_openmp_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil
    import subprocess

    from ingest.extract import ocr

    if not shutil.which("tesseract"):
        pytest.skip("Tesseract is not installed (apt-get install -y tesseract-ocr)")
    seen: list[str | None] = []
    real = subprocess.run

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("input") is not None:
            seen.append((kwargs.get("env") or {}).get("OMP_THREAD_LIMIT"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ocr.subprocess, "run", spy)
    ocr.Tesseract(shutil.which("tesseract")).read(_rotated_page(0), 60)
    assert seen and set(seen) == {"1"}  # orientation and reading alike


@pytest.mark.parametrize("degrees", [90, 270])
def test_rapidocr_reads_a_page_on_its_side(degrees: int) -> None:
    from ingest.extract.ocr import RapidOcr

    page = RapidOcr().read(_rotated_page(degrees), 60)
    assert "Kestrel Holdings signed the lease" in page.text
    assert page.rotated == degrees
    assert page.text.index("quick brown fox") < page.text.index("Kestrel")  # lines in order


def test_an_upside_down_scan_says_which_page_was_turned_in_quality() -> None:
    import io

    buf = io.BytesIO()
    _rotated_page(180).save(buf, format="PNG")
    result = extract("png", buf.getvalue(), "upside-down.png")
    assert "Kestrel Holdings signed the lease" in result.blocks[0].text
    if result.quality["ocr_engine"].startswith("tesseract"):  # RapidOCR turns each line itself
        assert result.quality["ocr_rotated_pages"] == [{"page": 1, "degrees": 180}]
