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


def wrapped_pdf(paragraphs: list[list[str]], leading: float = 14.0,
                gap: float = 14.0) -> bytes:
    """One page of paragraphs written line by line as a word processor wraps them (each
    inner list a paragraph's lines, ``leading`` apart; ``gap`` more between paragraphs)."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    y = 740.0
    for lines in paragraphs:
        for line in lines:
            c.drawString(72, y, line)
            y -= leading
        y -= gap
    c.showPage()
    c.save()
    return buf.getvalue()


def slow_pdf(operators: int = 400_000, text: str | None = None) -> bytes:
    """One page of many tiny path operators: small compressed, slow to parse (pdfminer reads
    every one: ~40-90 µs each here), like the issue's 46 KB PDF that took 74 s; with ``text``,
    a line of it in Helvetica on that page, so the file is worth indexing once read."""
    import zlib

    shown = (b"BT /F1 12 Tf 72 720 Td (%s) Tj ET\n" % text.encode("latin-1")) if text else b""
    stream = zlib.compress(shown + b"0 0 m 1 1 l S\n" * operators)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
               b" /Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream
               + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


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


def scan_image(lines: list[str], size: tuple[int, int] = (1700, 2200), blur: float = 1.0,
               angle: float = 0.8, mode: str = "L"):  # type: ignore[no-untyped-def]
    """A page as a scanner makes it: black text on white at ~200 dpi, slightly rotated and
    blurred."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.truetype("DejaVuSans.ttf", 40)
    except OSError:
        font = ImageFont.load_default(size=40)
    for i, line in enumerate(lines):
        draw.text((150, 200 + i * 90), line, fill=0, font=font)
    image = image.rotate(angle, fillcolor=255).filter(ImageFilter.GaussianBlur(blur))
    return image.convert(mode)


def image_bytes(image, fmt: str, **save: object) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    image.save(buf, format=fmt, **save)
    return buf.getvalue()


def scanned_pdf(pages: list[object]) -> bytes:
    """A PDF whose pages are images (a scan: no text layer) or, for a str, born-digital text."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    for page in pages:
        if isinstance(page, str):
            c.drawString(72, 720, page)
        else:
            c.drawImage(ImageReader(page), 0, 0, width=612, height=792)
        c.showPage()
    c.save()
    return buf.getvalue()


def eml_bytes(subject: str, body: str, *, html: str | None = None,
              attachments: list[tuple[str, bytes | object]] = (),  # type: ignore[assignment]
              sender: str = "Jane Doe <jane@acme.example>",
              to: str = "Raj Patel <raj@globex.example>, ops@acme.example",
              cc: str | None = "audit@acme.example",
              date: str = "Mon, 15 Jan 2024 09:30:00 +0000") -> bytes:
    """An e-mail as a mail client writes it; an attachment given as an EmailMessage is
    attached as a message (an e-mail inside an e-mail)."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"], message["Subject"], message["Date"] = (
        sender, to, subject, date)
    if cc:
        message["Cc"] = cc
    message["Message-ID"] = f"<{abs(hash(subject)) % 10**8}@acme.example>"
    message.set_content(body)
    if html is not None:
        message.add_alternative(html, subtype="html")
    for name, content in attachments:
        if isinstance(content, EmailMessage):
            message.add_attachment(content, filename=name)
        else:
            maintype, subtype = ("application", "octet-stream")
            message.add_attachment(content, maintype=maintype, subtype=subtype, filename=name)
    return message.as_bytes()
