"""Extraction keeps pages, lines and headings, and fails clearly on unreadable files."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest

from app.domain.errors import ExtractionError
from ingest.extract import extract
from tests.factories import pdf_bytes


def test_pdf_keeps_page_numbers_and_warns_about_pages_without_text() -> None:
    result = extract("pdf", pdf_bytes(["First page text.", "", "Third page text."]), "r.pdf")
    assert [(b.page, b.text) for b in result.blocks] == [(1, "First page text."),
                                                         (3, "Third page text.")]
    assert result.page_count == 3
    assert result.warnings == ["page 2 has no text (no text layer, no image)"]


def test_encrypted_pdf_is_a_permanent_clear_failure() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("pdf", pdf_bytes(["secret"], password="pw"), "locked.pdf")
    assert err.value.code == "PDF_ENCRYPTED" and "encrypted" in err.value.message


def test_corrupt_pdf_and_pdf_without_any_text() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("pdf", b"%PDF-1.7 garbage", "bad.pdf")
    assert err.value.code == "PDF_CORRUPT"
    with pytest.raises(ExtractionError, match="no text could be extracted; page 1 has no text"):
        extract("pdf", pdf_bytes([""]), "scan.pdf")


def test_markdown_keeps_heading_path_and_line_numbers() -> None:
    md = (b"# Handbook\n\nIntro line.\n\n## Leave\n\n### Vacation\n\n"
          b"25 days of paid vacation.\nMore.\n")
    result = extract("md", md, "h.md")
    assert result.title == "Handbook"
    assert [(b.text, b.line_start, b.line_end, b.heading_path) for b in result.blocks] == [
        ("Intro line.", 3, 3, ("Handbook",)),
        # a paragraph's wrapped lines joined; its line range still the source's
        ("25 days of paid vacation. More.", 9, 10, ("Handbook", "Leave", "Vacation")),
    ]


def test_text_paragraphs_keep_line_ranges_and_odd_encodings_survive() -> None:
    result = extract("txt", b"one\ntwo\n\n\nthree\n", "a.txt")
    assert [(b.text, b.line_start, b.line_end) for b in result.blocks] == [
        ("one two", 1, 2), ("three", 5, 5)]
    latin = extract("txt", "café crème".encode("latin-1"), "l.txt")
    assert latin.blocks[0].text == "café crème"


def test_html_headings_and_blocks() -> None:
    html = (b"<html><head><title>Notes</title><script>var x</script></head><body>"
            b"<h1>Security</h1><h2>Passwords</h2><p>Rotate them.</p><ul><li>Use a manager"
            b"</li></ul><h2>Keys</h2><table><tr><td>Key A</td></tr></table></body></html>")
    result = extract("html", html, "n.html")
    assert result.title == "Notes"
    assert [(b.text, b.heading_path) for b in result.blocks] == [
        ("Rotate them.", ("Security", "Passwords")), ("Use a manager", ("Security", "Passwords")),
        ("Key A", ("Security", "Keys"))]


def test_docx_headings_paragraphs_and_tables() -> None:
    import docx

    d = docx.Document()
    d.add_heading("Onboarding", 1)
    d.add_paragraph("Meet your mentor.")
    d.add_heading("Accounts", 2)
    table = d.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "ACCT-998877", "savings"
    buf = io.BytesIO()
    d.save(buf)
    result = extract("docx", buf.getvalue(), "o.docx")
    assert result.title == "Onboarding"
    assert [(b.text, b.heading_path) for b in result.blocks] == [
        ("Meet your mentor.", ("Onboarding",)),
        ("ACCT-998877 | savings", ("Onboarding", "Accounts"))]


def _docx(build) -> bytes:  # type: ignore[no-untyped-def]
    import docx

    d = docx.Document()
    build(d)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def test_a_docx_title_comes_from_the_title_style_and_heads_the_heading_path() -> None:
    def build(d) -> None:  # type: ignore[no-untyped-def]
        d.core_properties.title = "draft-7 (from the template)"
        d.add_heading("Q3 Budget Report", 0)  # python-docx: level 0 is the Title style
        d.add_paragraph("Spending rose.")
        d.add_heading("Summary", 1)
        d.add_paragraph("Within plan.")
        d.add_heading("Accounts", 1)
        d.add_paragraph("ACCT-998877 closed.")

    result = extract("docx", _docx(build), "q3.docx")
    assert result.title == "Q3 Budget Report"
    assert [(b.text, b.heading_path) for b in result.blocks] == [
        ("Spending rose.", ("Q3 Budget Report",)),
        ("Within plan.", ("Q3 Budget Report", "Summary")),
        ("ACCT-998877 closed.", ("Q3 Budget Report", "Accounts"))]


def test_a_docx_title_falls_back_to_core_properties_then_the_first_heading() -> None:
    def with_properties(d) -> None:  # type: ignore[no-untyped-def]
        d.core_properties.title = "Lease 2025"
        d.add_heading("Parties", 1)
        d.add_paragraph("Landlord and tenant.")

    def headings_only(d) -> None:  # type: ignore[no-untyped-def]
        d.add_heading("Parties", 1)
        d.add_paragraph("Landlord and tenant.")
        d.add_heading("Term", 1)
        d.add_paragraph("Two years.")

    assert extract("docx", _docx(with_properties), "l.docx").title == "Lease 2025"
    assert extract("docx", _docx(headings_only), "l.docx").title == "Parties"


def test_corrupt_docx_and_empty_files() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("docx", b"PK\x03\x04 not a zip really", "x.docx")
    assert err.value.code == "DOCX_CORRUPT"
    with pytest.raises(ExtractionError, match="empty"):
        extract("txt", b"", "e.txt")
    with pytest.raises(ExtractionError, match="no text"):
        extract("txt", b"   \n\n  ", "blank.txt")


def test_a_docx_that_unzips_past_the_limit_fails_before_it_is_parsed() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", "<w:t>" + "a" * (40 * 1024 * 1024) + "</w:t>")
    bomb = buf.getvalue()
    assert len(bomb) < 100_000  # 40 MiB of text in well under 100 KB
    with pytest.raises(ExtractionError) as err:
        extract("docx", bomb, "bomb.docx")
    assert err.value.code == "DOCX_TOO_LARGE" and "decompression bomb" in err.value.message
    assert err.value.http_status == 422  # permanent: the worker fails it at once


def test_an_html_table_keeps_its_rows_a_row_a_line() -> None:
    """It came out a cell a paragraph ("5\\n\\nBrazil\\n\\n203,049,000"), losing which number
    belonged to which country."""
    html = (b"<html><body><h1>Population</h1><table><caption>Largest countries</caption>"
            b"<thead><tr><th>Rank</th><th>Country</th><th>People</th></tr></thead><tbody>"
            b"<tr><td>5</td><td>Brazil</td><td>203,049,000</td></tr>"
            b"<tr><td>6</td><td><p>Nigeria</p></td><td>229,152,000</td></tr>"
            b"<tr><td colspan=3><table><tr><td>inner</td><td>cell</td></tr></table></td></tr>"
            b"</tbody></table><p>After the table.</p></body></html>")
    result = extract("html", html, "p.html")
    assert [(b.text, b.heading_path) for b in result.blocks] == [
        ("Largest countries\nRank | Country | People\n5 | Brazil | 203,049,000\n"
         "6 | Nigeria | 229,152,000\ninner cell", ("Population",)),
        ("After the table.", ("Population",))]


def test_a_wide_header_is_kept_whole_once_a_narrow_one_only_in_each_chunk() -> None:
    """A header line over WIDE_HEADER_CHARS may be cut where chunks repeat it: it is also a
    row of its own; at or under the bound it is not (every chunk repeats it whole)."""
    from ingest.extract.sheets import WIDE_HEADER_CHARS

    def sheet(width: int) -> Any:
        names = [f"c{i:03d}" for i in range(width)]  # "c000" … : 4 + 3 characters a column
        rows = [",".join(names), ",".join(str(i) for i in range(width))]
        return extract("csv", "\n".join(rows).encode(), "w.csv")

    # "Columns: " + n × 4 characters + (n - 1) × " | ": the widest that fits, and one more
    narrow = max(n for n in range(1, 200) if 9 + 4 * n + 3 * (n - 1) <= WIDE_HEADER_CHARS)
    assert [b.text.split(" | ")[0] for b in sheet(narrow).blocks] == ["0"]
    wide = sheet(narrow + 1).blocks
    assert [b.text.split(" | ")[0] for b in wide] == ["c000", "0"]
    assert all(b.header == wide[0].header for b in wide)


def test_a_workbook_with_one_broken_sheet_publishes_the_others_with_a_warning() -> None:
    """One sheet's XML cut short (a failed save) costs that sheet only: it was XLSX_CORRUPT
    for the whole workbook."""
    import openpyxl

    book = openpyxl.Workbook()
    book.active.title = "Budget"
    book.active.append(["Item", "Amount"])
    book.active.append(["Travel", 1200])
    broken = book.create_sheet("Notes")
    broken.append(["Note"])
    broken.append(["never read"])
    saved = io.BytesIO()
    book.save(saved)
    source = zipfile.ZipFile(io.BytesIO(saved.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as rewritten:
        for member in source.infolist():
            data = source.read(member)
            if member.filename == "xl/worksheets/sheet2.xml":
                data = data[: len(data) // 2]  # cut mid-element: not well-formed
            rewritten.writestr(member, data)
    extracted = extract("xlsx", out.getvalue(), "b.xlsx")
    assert [b.text for b in extracted.blocks] == ["Travel | 1200"]
    assert extracted.blocks[0].sheet == "Budget"
    assert any("sheet 'Notes' could not be read" in w for w in extracted.warnings)
    assert extracted.quality["unread_elements"] == 1
