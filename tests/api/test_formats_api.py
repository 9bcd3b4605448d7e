"""Real evidence formats over HTTP (fake models, real engine): each published and found first by
a word only it holds, citing its sheet and rows or its slide; bytes that contradict the
extension are refused; corrupt files fail their own job."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import image_bytes, pptx_bytes, scan_image, scanned_pdf, xlsx_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    with running_service(tmp_path_factory.mktemp("formats"), fake_models()) as s:
        s.ingest("notes.txt", "Meeting notes about the budget and the audit.", document_id="n")
        s.ingest("ledger.xlsx", xlsx_bytes({
            "Summary": [["Owner"], ["Jane Doe"]],
            "Payments": [["Date", "Amount", "Counterparty"], ["2024-01-15", 18450, "Kestrel"],
                         ["2024-01-16", 900, "Globex"]]}), document_id="ledger")
        s.ingest("bank.csv", "date,amount,memo\n2024-02-01,10000,wire zephyrine\n",
                 document_id="bank")
        s.ingest("review.pptx", pptx_bytes([("Review", "Revenue grew", None),
                                            ("Risks", "Supplier quixotic", "say marmalade")]),
                 document_id="deck")
        s.ingest("scan.pdf", scanned_pdf(["Cover letter for the lease renewal.",
                                          scan_image(["INVOICE 2024-0117", "Ostrava Freight",
                                                      "Amount due: $18,450.00"])]),
                 document_id="scan")
        s.ingest("receipt.png", image_bytes(scan_image(["Receipt", "Zephyr Cafe espresso"]),
                                            "PNG"), document_id="photo")
        yield s


def _first(svc: Service, word: str, alpha: float = 0.0) -> dict:
    body = svc.search(query=word, alpha=alpha).json()
    assert body["results"], (word, body["meta"])
    return body["results"][0]


def test_a_spreadsheet_row_is_found_with_its_sheet_and_rows(svc: Service) -> None:
    row = _first(svc, "Kestrel")
    assert row["document_version"]["document_id"] == "ledger"
    item = row["content_evidence"]["items"][0]
    assert item["location"] == {"sheet": "Payments", "rows": [2, 3]}
    assert item["text"].startswith("Columns: Date | Amount | Counterparty\n"
                                   "2024-01-15 | 18450 | Kestrel")
    assert item["heading_path"] == ["Payments"] and item["line_start"] is None
    meta = row["canonical_metadata"]
    assert meta["document"]["kind"] == "xlsx" and meta["quality"]["text_extraction"] == "native"


def test_a_csv_row_is_found_with_its_rows(svc: Service) -> None:
    row = _first(svc, "zephyrine")
    assert row["document_version"]["document_id"] == "bank"
    assert row["content_evidence"]["items"][0]["location"] == {"sheet": None, "rows": [2, 2]}


def test_a_slide_and_its_notes_are_found_on_their_page(svc: Service) -> None:
    for word in ("quixotic", "marmalade"):
        row = _first(svc, word)
        assert row["document_version"]["document_id"] == "deck"
        item = row["content_evidence"]["items"][0]
        assert item["page"] == 2 and item["heading_path"] == ["Risks"]
        assert item["location"] is None
    doc = svc.http.get("/documents/deck", headers=svc.auth()).json()
    assert (doc["kind"], doc["title"]) == ("pptx", "Review")


def test_a_scanned_page_and_a_photo_are_found_with_their_page_and_honest_quality(
        svc: Service) -> None:
    row = _first(svc, "Ostrava")
    assert row["document_version"]["document_id"] == "scan"
    assert row["content_evidence"]["items"][0]["page"] == 2
    quality = row["canonical_metadata"]["quality"]
    assert (quality["text_extraction"], quality["ocr_used"]) == ("mixed", True)
    assert quality["ocr_engine"].split()[0] in ("tesseract", "rapidocr")
    photo = _first(svc, "Zephyr")
    assert photo["document_version"]["document_id"] == "photo"
    assert photo["content_evidence"]["items"][0]["page"] == 1
    assert photo["canonical_metadata"]["quality"]["text_extraction"] == "ocr"
    assert photo["canonical_metadata"]["document"]["kind"] == "png"
    # the born-digital neighbour is what it was
    digital = _first(svc, "Kestrel")["canonical_metadata"]["quality"]
    assert (digital["text_extraction"], digital["ocr_used"]) == ("native", False)


@pytest.mark.parametrize("name, content", [
    ("fake.png", b"GIF89a not a png"), ("fake.tif", b"%PDF-1.4"),
    ("fake.xlsx", b"date,amount\n1,2\n"), ("fake.pptx", b"%PDF-1.4 not a deck"),
    ("photo.csv", b"\x89PNG\r\n\x1a\n rest of an image")])
def test_bytes_that_contradict_the_extension_are_refused(svc: Service, name: str,
                                                         content: bytes) -> None:
    r = svc.upload(name, content)
    assert r.status_code == 415 and r.json()["error"]["code"] == "FILE_CONTENT_MISMATCH"


def test_a_corrupt_workbook_fails_its_own_job_with_a_reason(svc: Service) -> None:
    body = svc.ingest("broken.xlsx", b"PK\x03\x04" + b"\x00" * 64, document_id="broken")
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert job["status"] == "failed" and "XLSX" in job["error"]
    assert _first(svc, "Kestrel")["document_version"]["document_id"] == "ledger"


def test_the_kinds_filter_and_listing_know_the_new_kinds(svc: Service) -> None:
    r = svc.http.get("/documents", params={"kind": ["xlsx", "csv", "pptx"],
                                           "state": "published", "sort": "document_id"},
                     headers=svc.auth())
    assert [d["document_id"] for d in r.json()["documents"]] == ["bank", "deck", "ledger"]
    body = svc.search(query="Kestrel", alpha=0.0, filters={"kind": "xlsx"}).json()
    assert [r["document_version"]["document_id"] for r in body["results"]] == ["ledger"]


def test_evidence_ingest_takes_the_new_formats(tmp_path: Path) -> None:
    from app.cli import pick_files

    for name in ("a.xlsx", "b.csv", "c.pptx", "d.exe"):
        (tmp_path / name).write_bytes(b"x")
    files, skipped = pick_files(tmp_path, 10_000)
    assert sorted(p.name for p in files) == ["a.xlsx", "b.csv", "c.pptx"]
    assert [p.name for p, _ in skipped] == ["d.exe"]


def test_random_bytes_named_txt_are_refused_latin1_text_is_not(svc: Service) -> None:
    import random

    noise = random.Random(23).randbytes(20_000).replace(b"\x00", b"\x01")
    r = svc.upload("noise.txt", noise)
    assert r.status_code == 415 and r.json()["error"]["code"] == "FILE_CONTENT_MISMATCH"
    assert "control bytes" in r.json()["error"]["message"]
    latin = "Le café coûte 2,30 € à la gare de Château-Thierry.\n".encode("latin-1", "replace")
    assert svc.upload("cafe.txt", latin * 50).status_code == 202


def _ole(*streams: str) -> bytes:
    """An OLE compound file holding these streams (extract-msg's writer, tests/msg_files.py)."""
    import io

    from extract_msg.ole_writer import OleWriter

    writer = OleWriter()
    for name in streams:
        writer.addEntry([name], data=b"\x04\x00\x04\x00" + b"\x00" * 600)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_password_protected_office_file_fails_its_job_saying_so(svc: Service) -> None:
    """It was a misleading 415 ("not a DOCX (ZIP) document"); an encrypted PDF got its code."""
    for name in ("locked.docx", "locked.xlsx", "locked.pptx"):
        body = svc.ingest(name, _ole("EncryptionInfo", "EncryptedPackage"))
        job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
        assert (job["status"], job["error_code"]) == ("failed", "OFFICE_ENCRYPTED"), job
        assert "password-protected" in job["error"]


def test_an_old_binary_office_file_named_docx_is_a_415_saying_what_it_is(svc: Service) -> None:
    r = svc.upload("old.docx", _ole("WordDocument"))
    assert r.status_code == 415 and r.json()["error"]["code"] == "FILE_CONTENT_MISMATCH"
    assert "old binary Office document" in r.json()["error"]["message"]


def test_utf16_html_with_or_without_its_byte_order_mark_is_read(svc: Service) -> None:
    page = "<html><body><h1>Quarterly</h1><p>Xylophone budget approved.</p></body></html>"
    for encoding, name in (("utf-16", "page16.html"), ("utf-16-be", "page16be.html"),
                           ("utf-16-le", "nomark.html")):
        data = page.encode(encoding)
        if name == "page16be.html":
            data = b"\xfe\xff" + data
        svc.ingest(name, data, document_id=name)
    found = {r["document_version"]["document_id"]: r
             for r in svc.search(query="Xylophone", alpha=0.0).json()["results"]}
    assert set(found) == {"page16.html", "page16be.html", "nomark.html"}
    # without a mark the charset was detected, and the version says so
    assert any("read as utf-16-le (detected)" in w for w in
               found["nomark.html"]["canonical_metadata"]["quality"]["warnings"])
    assert found["page16.html"]["canonical_metadata"]["quality"]["warnings"] == []


def test_a_windows_1251_page_is_found_by_a_russian_query(svc: Service) -> None:
    """Tika's big-preamble.html declares windows-1251 after 4,970 bytes of script: it was read
    as Latin-1 ("Àãåíòñòâî"), so no Russian query found it."""
    page = (Path(__file__).resolve().parents[1] / "fixtures/html/big-preamble.html").read_bytes()
    svc.ingest("big-preamble.html", page, document_id="ru")
    for alpha in (0.0, 0.5):
        row = _first(svc, "Агентство недвижимости", alpha=alpha)
        assert row["document_version"]["document_id"] == "ru"
    assert row["canonical_metadata"]["quality"]["warnings"] == []  # declared: nothing guessed


def test_png_bytes_named_tiff_are_read_as_what_they_are(svc: Service) -> None:
    svc.ingest("misnamed.tiff", image_bytes(scan_image(["Receipt", "Quetzal market fees"]),
                                            "PNG"), document_id="misnamed")
    row = _first(svc, "Quetzal")
    assert row["document_version"]["document_id"] == "misnamed"
    assert any("the bytes are a PNG image, though named .tiff" in w
               for w in row["canonical_metadata"]["quality"]["warnings"])


def test_a_photo_without_words_is_published_without_chunks_saying_so(svc: Service) -> None:
    """Photo attachments became failed documents, cluttering state=failed."""
    from PIL import Image

    blank = image_bytes(Image.new("RGB", (640, 480), (120, 160, 200)), "JPEG")
    body = svc.ingest("holiday.jpg", blank, document_id="holiday")
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert (job["status"], job["error_code"]) == ("succeeded", None)
    document = svc.http.get("/documents/holiday", headers=svc.auth()).json()
    assert (document["state"], document["chunk_count"]) == ("published", 0)
    quality = document["versions"][0]["canonical_metadata"]["quality"]
    assert quality["ocr_used"] is True and any("found no text" in w for w in quality["warnings"])
    failed = svc.http.get("/documents", params={"state": "failed"}, headers=svc.auth()).json()
    assert "holiday" not in [d["document_id"] for d in failed["documents"]]
    assert _first(svc, "Kestrel")["document_version"]["document_id"] == "ledger"  # untouched


def test_a_macro_enabled_deck_is_uploaded_published_and_found_as_a_deck(svc: Service) -> None:
    """Apache POI's SimpleMacro.pptm (tests/fixtures/office_variants): before, the extension
    was a 415."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "office_variants"
    svc.ingest("SimpleMacro.pptm", (fixture / "SimpleMacro.pptm").read_bytes(),
               document_id="macro-deck")
    doc = svc.http.get("/documents/macro-deck", headers=svc.auth()).json()
    assert (doc["kind"], doc["title"], doc["state"]) == (
        "pptx", "This is a macro slideshow", "published")
    assert _first(svc, "subtitle")["document_version"]["document_id"] == "macro-deck"
