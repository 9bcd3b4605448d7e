"""E-mail extraction (.eml built in code; .msg through extract-msg's interface): body, headers
as metadata, attachments handed on as files."""

from __future__ import annotations

import datetime as dt
from email import message_from_bytes, policy

import pytest

from app.errors import ExtractionError
from ingest.extract import extract
from tests.factories import eml_bytes, pdf_bytes


def test_an_email_reads_its_plain_body_under_its_headers_and_keeps_them_as_metadata() -> None:
    content = eml_bytes("Wire for invoice 7781", "Please wire $10,000 today.\n\nThanks, Jane",
                        html="<p>HTML version, <b>not</b> used</p>")
    result = extract("eml", content, "wire.eml")
    assert result.title == "Wire for invoice 7781"
    assert [b.text for b in result.blocks] == [
        "From: Jane Doe <jane@acme.example>\n"
        "To: Raj Patel <raj@globex.example>, ops@acme.example\nCc: audit@acme.example\n"
        "Date: 2024-01-15T09:30:00+00:00\nSubject: Wire for invoice 7781",
        "Please wire $10,000 today.", "Thanks, Jane"]
    assert {b.heading_path for b in result.blocks} == {("Wire for invoice 7781",)}
    assert result.extra == {"from": "Jane Doe <jane@acme.example>",
                            "to": ["Raj Patel <raj@globex.example>", "ops@acme.example"],
                            "cc": ["audit@acme.example"], "date": "2024-01-15T09:30:00+00:00",
                            "subject": "Wire for invoice 7781",
                            "message_id": result.extra["message_id"]}
    assert str(result.extra["message_id"]).endswith("@acme.example>")


def test_an_html_only_email_is_read_as_text() -> None:
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["Subject"] = "a@b.example", "Board pack"
    message.set_content("<html><body><h1>Agenda</h1><p>Approve the audit firm.</p>"
                        "<script>alert(1)</script></body></html>", subtype="html")
    result = extract("eml", message.as_bytes(), "pack.eml")
    assert "Agenda\nApprove the audit firm." in [b.text for b in result.blocks]
    assert not any("alert" in b.text for b in result.blocks)


def test_attachments_come_back_as_files_an_attached_email_as_eml() -> None:
    inner = message_from_bytes(eml_bytes("Original invoice", "See the PDF."),
                               policy=policy.default)
    pdf = pdf_bytes(["Invoice 7781 from Globex."])
    content = eml_bytes("Fwd: invoice", "Forwarding.", attachments=[
        ("invoice.pdf", pdf), ("original", inner)])
    result = extract("eml", content, "fwd.eml")
    assert [(a.filename, a.content[:5]) for a in result.attachments] == [
        ("invoice.pdf", b"%PDF-"), ("original.eml", result.attachments[1].content[:5])]
    assert b"Subject: Original invoice" in result.attachments[1].content
    assert "Attachments: invoice.pdf, original.eml" in result.blocks[0].text


def test_bytes_without_email_headers_are_no_email() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("eml", b"just some words\nwith lines", "x.eml")
    assert err.value.code == "EMAIL_CORRUPT"


def test_an_outlook_message_reads_through_extract_msg(monkeypatch: pytest.MonkeyPatch) -> None:
    """No library on a registry writes .msg files, so the parsed message is extract-msg's
    interface filled by hand; a corrupt file goes through the real parser."""
    import extract_msg

    class Att:
        longFilename, data = "statement.csv", b"date,amount\n2024-01-15,10000\n"

    class Embedded:
        longFilename, data = "meeting", object()

    class Msg:
        sender, to, cc = "Jane Doe <jane@acme.example>", "raj@globex.example", None
        parsedDate, date = dt.datetime(2024, 1, 15, 9, 30, tzinfo=dt.UTC), None
        subject, messageId = "Statement", "<1@acme.example>"
        body, htmlBody, attachments = "", b"<p>Statement attached.</p>", [Att(), Embedded()]

        def close(self) -> None:
            pass

    monkeypatch.setattr(extract_msg, "openMsg", lambda data: Msg())
    result = extract("msg", b"\xd0\xcf\x11\xe0 whatever", "statement.msg")
    assert result.title == "Statement" and result.extra["date"] == "2024-01-15T09:30:00+00:00"
    assert "Statement attached." in [b.text for b in result.blocks]
    assert [a.filename for a in result.attachments] == ["statement.csv"]
    assert result.warnings == ["attachment meeting of statement.msg is an embedded item that "
                               "is not indexed"]
    monkeypatch.undo()
    with pytest.raises(ExtractionError) as err:
        extract("msg", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1 truncated", "broken.msg")
    assert err.value.code == "MSG_CORRUPT"
