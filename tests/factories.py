"""Test inputs made in one place: PDFs (reportlab, optionally encrypted with pypdf) and a
client with its API key."""

from __future__ import annotations

import io

from sqlalchemy.orm import Session, sessionmaker

from app.registry import clients as reg
from app.registry.database import transaction


def pdf_bytes(pages: list[str], password: str | None = None) -> bytes:
    """One line of text per page; an empty string makes a page without a text layer."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for text in pages:
        if text:
            c.drawString(72, 720, text)
        c.showPage()
    c.save()
    data = buf.getvalue()
    if password:
        from pypdf import PdfReader, PdfWriter

        writer = PdfWriter()
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
        writer.encrypt(password)
        out = io.BytesIO()
        writer.write(out)
        data = out.getvalue()
    return data


def client_with_key(sessions: sessionmaker[Session], name: str) -> tuple[str, str]:
    """(client id, API key) of a new client with an active publication authority."""
    with transaction(sessions) as s:
        client, key = reg.create_client(s, name=name)
        return client.id, key


def sans_request_id(value: dict) -> dict:
    """An error body, its ``error`` or its ``details`` without the per-request id, for exact
    comparisons (the id is asserted where it is the subject: tests/api/test_observe.py)."""
    if "error" in value:
        return {**value, "error": sans_request_id(value["error"])}
    if "details" in value:
        return {**value, "details": sans_request_id(value["details"])}
    return {k: v for k, v in value.items() if k != "request_id"}


def xlsx_bytes(sheets: dict[str, list[list[object]]], title: str | None = None) -> bytes:
    """A workbook: {sheet name: rows}, the first row its header."""
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    if title:
        book.properties.title = title
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def pptx_bytes(slides: list[tuple[str, str, str | None]]) -> bytes:
    """A deck: (title, body, speaker notes or None) a slide."""
    from pptx import Presentation

    deck = Presentation()
    for title, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    buf = io.BytesIO()
    deck.save(buf)
    return buf.getvalue()
