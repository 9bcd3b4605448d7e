"""Garbage text layers: the word share tells letter salad from prose in the languages the list
covers, refuses to judge what it cannot (short, other scripts), and PDF extraction OCRs a
garbled layer over an image or keeps it with a warning."""

from __future__ import annotations

import random
import string

import pytest

from app.domain.limits import OcrBounds
from ingest.extract import extract
from ingest.extract.ocr import OcrPage
from ingest.extract.wordshare import GARBLED_SHARE, garbled, word_share
from tests.factories import scan_image, scanned_pdf

ENGLISH = ("The board met on the fifth of March to review the annual accounts. Operating "
           "expenses rose by twelve per cent, mainly because of staff costs and rents. ")
FRENCH = ("Le conseil d'administration s'est réuni le cinq mars pour examiner les comptes de "
          "l'exercice. Les dépenses de fonctionnement ont augmenté de douze pour cent. ")


def _salad(seed: int, words: int = 60) -> str:
    rnd = random.Random(seed)
    return " ".join("".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(3, 8)))
                    for _ in range(words))


def test_prose_is_words_and_salad_is_not() -> None:
    assert word_share(ENGLISH * 2) > 0.8 and garbled(ENGLISH * 2) is None
    assert word_share(FRENCH * 3) > 2 * GARBLED_SHARE  # another language, still words
    for seed in range(5):
        assert garbled(_salad(seed)) is not None


def test_what_cannot_be_judged_is_not() -> None:
    assert word_share("x" * 199) is None and word_share("xqzv " * 50) is not None  # 200 chars
    assert word_share("Совет директоров собрался пятого марта, чтобы рассмотреть отчёт. " * 4
                      ) is None  # Cyrillic: an English list cannot judge it


def _layer_pdf(text: str, image: object | None = None) -> bytes:
    """A page whose text layer is ``text`` (drawn in lines), over ``image`` if given."""
    import io

    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=(612, 792))
    if image is not None:
        c.drawImage(ImageReader(image), 0, 0, width=612, height=792)
    words = text.split()
    for line in range(0, len(words), 10):
        c.drawString(40, 740 - line * 2, " ".join(words[line:line + 10]))
    c.showPage()
    c.save()
    return buffer.getvalue()


def test_a_garbled_layer_without_an_image_is_kept_with_a_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ingest.extract import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "read_page", lambda *a, **k: pytest.fail("OCR ran"))
    result = extract("pdf", _layer_pdf(_salad(1)), "garbage.pdf",
                     ocr=OcrBounds(engine="rapidocr"))
    assert result.blocks and result.quality["garbled_text_pages"] == [1]
    assert "page(s) 1 (" in result.warnings[-1] and "hardly words" in result.warnings[-1]
    clean = extract("pdf", _layer_pdf(ENGLISH * 3), "clean.pdf", ocr=OcrBounds(engine="rapidocr"))
    assert "garbled_text_pages" not in clean.quality and not clean.warnings


@pytest.mark.parametrize("ocr_reads, kept", [(ENGLISH * 3, "ocr"), ("", "layer")])
def test_a_garbled_layer_over_an_image_is_ocred_and_the_better_reading_kept(
        monkeypatch: pytest.MonkeyPatch, ocr_reads: str, kept: str) -> None:
    from ingest.extract import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "read_page", lambda *a, **k: OcrPage(ocr_reads, 1.0))
    layer = _salad(2)
    result = extract("pdf", _layer_pdf(layer, scan_image(["a scan"], size=(200, 150))),
                     "scan.pdf", ocr=OcrBounds(engine="rapidocr"))
    (block,) = result.blocks
    if kept == "ocr":
        assert block.text == ocr_reads and "garbled_text_pages" not in result.quality
    else:
        assert block.text.split() == layer.split()
        assert result.quality["garbled_text_pages"] == [1]


def test_a_scan_with_no_layer_is_not_called_garbled(monkeypatch: pytest.MonkeyPatch) -> None:
    from ingest.extract import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "read_page",
                        lambda *a, **k: OcrPage("Kestrel Logistics invoice", 1.0))
    pdf = scanned_pdf([scan_image(["Kestrel Logistics invoice"], size=(400, 300))])
    result = extract("pdf", pdf, "scan.pdf", ocr=OcrBounds(engine="rapidocr"))
    assert "garbled_text_pages" not in result.quality
    assert [b.text for b in result.blocks] == ["Kestrel Logistics invoice"]
