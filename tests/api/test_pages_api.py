"""Evidence in its place (issue 49): a PDF's cited words carry their boxes on the page, the
page renders with them drawn, the original downloads as an attachment — and another client,
or a key whose groups do not hold the document, gets 404 for all three."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from app.registry import clients as reg
from app.registry.database import transaction
from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service

W, H = 612.0, 792.0  # US Letter, reportlab's default page
FONT, SIZE = "Helvetica", 12
LINE = "The indemnity cap is twelve thousand euros for each claim."
X, Y = 100.0, 400.0  # where LINE is drawn on page 2 (baseline, from the bottom)


def _pdf() -> bytes:
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=(W, H), invariant=1)  # the same bytes every time
    c.setFont(FONT, SIZE)
    c.drawString(72, 720, "Page one speaks of the weather in Ostrava and nothing else.")
    c.showPage()
    c.setFont(FONT, SIZE)
    c.drawString(72, 720, "Page two begins with a heading line about payments.")
    c.drawString(X, Y, LINE)
    c.showPage()
    c.save()
    return out.getvalue()


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    settings = make_settings(tmp_path)
    settings.search.sparse_floor = 0.0  # two documents: every BM25 score counts
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        s.ingest("contract.pdf", _pdf(), document_id="contract")
        s.ingest("note.txt", "A plain note about the indemnity cap.", document_id="note")
        yield s


def _item(svc: Service, key: str | None = None) -> dict:
    body = svc.search(key, query="indemnity cap", alpha=0.0).json()
    row = next(r for r in body["results"] if r["document_version"]["document_id"] == "contract")
    return row["content_evidence"]["items"][0]


def test_the_cited_words_boxes_cover_where_they_were_drawn(svc: Service) -> None:
    item = _item(svc)
    assert item["page"] is not None and [s["text"].lower() for s in item["literal_spans"]] == [
        "indemnity", "cap"]
    [box] = item["boxes"]  # "indemnity cap": two words on one line, one box
    start = X + stringWidth("The ", FONT, SIZE)
    end = X + stringWidth("The indemnity cap", FONT, SIZE)
    assert box["page"] == 2
    assert box["x0"] == pytest.approx(start / W, abs=0.004)
    assert box["x1"] == pytest.approx(end / W, abs=0.004)
    top, bottom = (H - Y - SIZE) / H, (H - Y + 3) / H  # glyphs stand on the baseline
    assert top - 0.01 <= box["y0"] < box["y1"] <= bottom + 0.01
    text_only = svc.search(query="indemnity cap", alpha=0.0).json()["results"]
    note = next(r for r in text_only if r["document_version"]["document_id"] == "note")
    assert note["content_evidence"]["items"][0]["boxes"] is None  # no pages, no boxes


def _png(response) -> Image.Image:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/png"
    return Image.open(io.BytesIO(response.content)).convert("RGB")


def test_the_page_renders_with_the_cited_chunk_drawn(svc: Service) -> None:
    item = _item(svc)
    base = "/documents/contract/versions/v1/pages"
    plain = _png(svc.http.get(f"{base}/2.png", params={"width": 612}, headers=svc.auth()))
    assert plain.size == (612, 792)
    drawn = _png(svc.http.get(f"{base}/2.png", params={"width": 612,
                                                       "highlight": item["chunk_id"]},
                              headers=svc.auth()))
    [box] = item["boxes"]
    x = round((box["x0"] + box["x1"]) / 2 * 612)
    y = round(box["y0"] * 792) - 1  # just above the words: paper, unless highlighted
    r, g, b = drawn.getpixel((x, y))
    assert plain.getpixel((x, y)) == (255, 255, 255) and b < 200 <= r  # yellow over white
    assert plain.getpixel((20, 20)) == drawn.getpixel((20, 20)) == (255, 255, 255)
    missing = svc.http.get(f"{base}/3.png", headers=svc.auth())
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "PAGE_NOT_FOUND")
    too_wide = svc.http.get(f"{base}/1.png", params={"width": 2001}, headers=svc.auth())
    assert too_wide.status_code == 422
    assert _png(svc.http.get(f"{base}/1.png", params={"width": 2000},
                             headers=svc.auth())).size[0] == 2000
    text = svc.http.get("/documents/note/versions/v1/pages/1.png", headers=svc.auth())
    assert (text.status_code, text.json()["error"]["code"]) == (422, "NOT_PAGED")
    foreign = svc.http.get(f"{base}/2.png", params={"highlight": "note:v1:0"},
                           headers=svc.auth())
    assert (foreign.status_code, foreign.json()["error"]["code"]) == (404, "CHUNK_NOT_FOUND")


def test_the_original_downloads_byte_identical_as_an_attachment(svc: Service) -> None:
    r = svc.http.get("/documents/contract/versions/v1/file", headers=svc.auth())
    assert r.status_code == 200 and r.content == _pdf()
    assert r.headers["content-disposition"] == 'attachment; filename="contract.pdf"'
    assert r.headers["x-content-sha256"] == hashlib.sha256(_pdf()).hexdigest()
    assert r.headers["content-type"] == "application/octet-stream"
    hostile = svc.ingest("<script>.html", "<html><body><script>alert(1)</script>x</body></html>",
                         document_id="page")
    r = svc.http.get(f"/documents/{hostile['document_id']}/versions/v1/file",
                     headers=svc.auth())
    assert "attachment" in r.headers["content-disposition"]
    assert "<" not in r.headers["content-disposition"]
    assert r.headers["content-type"] == "application/octet-stream"  # never run as a page
    gone = svc.http.get("/documents/contract/versions/v9/file", headers=svc.auth())
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "VERSION_NOT_FOUND")


def test_another_client_and_a_key_without_the_group_get_404_for_all_three(
        svc: Service) -> None:
    rival = svc.new_client("rival")
    with transaction(svc.runtime.sessions) as s:
        hr = reg.issue_key(s, client_id=reg.get_client(s, name="acme").id, groups=("hr",))
    assert svc.http.patch("/documents/contract", json={"access": ["legal"]},
                          headers=svc.auth()).status_code == 200
    for key in (rival, hr):
        for path in ("/documents/contract/versions/v1/file",
                     "/documents/contract/versions/v1/pages/1.png",
                     "/documents/contract/versions/v1/pages/2.png?highlight=contract:v1:0"):
            r = svc.http.get(path, headers=svc.auth(key))
            assert (r.status_code, r.json()["error"]["code"]) == (404, "DOCUMENT_NOT_FOUND")
        assert all(r["document_version"]["document_id"] != "contract" for r in svc.search(
            key, query="indemnity cap").json()["results"])


SCAN = ["INVOICE 2024-0117", "Kestrel Logistics Ltd", "Amount due: $18,450.00"]


@pytest.mark.parametrize("engine", [pytest.param("tesseract", marks=pytest.mark.skipif(
    __import__("shutil").which("tesseract") is None, reason="Debian's tesseract-ocr is not "
                                                            "installed")), "rapidocr"])
@pytest.mark.parametrize("kind", ["photo", "scanned pdf"])
def test_ocr_words_carry_their_boxes_on_the_right_page(tmp_path: Path, engine: str,
                                                       kind: str) -> None:
    """A photo and a scanned PDF (a page of the scan after a page of text): the cited words'
    box stands where tests/factories.scan_image drew them (x from 150 px, line 2 at
    200 + 90 px of a 1700 × 2200 page, 40 px type), through either OCR engine."""
    from tests.factories import image_bytes, scan_image, scanned_pdf

    settings = make_settings(tmp_path)
    settings.search.sparse_floor = 0.0
    settings.ingest = settings.ingest.model_copy(update={"ocr_engine": engine})
    page = scan_image(SCAN)
    name, content, page_no = (("scan.png", image_bytes(page, "PNG"), 1) if kind == "photo"
                              else ("scan.pdf", scanned_pdf(["A typed cover page.", page]), 2))
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        s.ingest(name, content, document_id="scan")
        body = s.search(query="Kestrel Logistics", alpha=0.0).json()
        item = body["results"][0]["content_evidence"]["items"][0]
        assert item["page"] == page_no
        [box] = item["boxes"]
        assert box["page"] == page_no
        assert box["x0"] == pytest.approx(150 / 1700, abs=0.015)
        assert 200 / 2200 < box["y0"] < box["y1"] < 400 / 2200  # line 2 (290–330 px)
        assert box["y0"] == pytest.approx(300 / 2200, abs=0.012)
        drawn = _png(s.http.get(f"/documents/scan/versions/v1/pages/{page_no}.png",
                                params={"width": 850, "highlight": item["chunk_id"]},
                                headers=s.auth()))
        assert drawn.size == ((850, 1100) if kind == "photo" else (850, 1100))
