"""E-mail extraction (.eml built in code; .msg built in code too, tests/msg_files.py): body,
as metadata, attachments handed on as files."""

from __future__ import annotations

import datetime as dt
from email import message_from_bytes, policy

import pytest

from app.domain.errors import ExtractionError
from ingest.extract import extract
from tests.factories import eml_bytes, pdf_bytes
from tests.msg_files import Msg, build_msg


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
                            "message_id": result.extra["message_id"],
                            # the headers' filterable parts, and the message's own thread
                            "from_address": "jane@acme.example", "from_name": "Jane Doe",
                            "to_address": ["raj@globex.example", "ops@acme.example",
                                           "audit@acme.example"],
                            "has_attachments": False,
                            "thread_id": result.extra["thread_id"],
                            "thread_subject": "wire for invoice 7781"}
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


SENT = dt.datetime(2024, 1, 15, 9, 30, tzinfo=dt.UTC)


def test_an_outlook_message_has_its_date_body_and_attachments() -> None:
    """A real .msg (tests/msg_files.py): the submit time is the date — the bug read
    extract-msg's ``parsedDate`` 9-tuple first and got no date for any .msg."""
    data = build_msg(Msg(subject="Statement", sender="Jane Doe <jane@acme.example>",
                         headers="To: raj@globex.example\r\nMessage-ID: <1@acme.example>\r\n"
                                 "Date: Mon, 15 Jan 2024 09:30:00 +0000\r\n",
                         html=b"<p>Statement attached.</p>", submitted=SENT,
                         attachments=[("statement.csv", b"date,amount\n2024-01-15,10000\n")]))
    result = extract("msg", data, "statement.msg")
    assert result.title == "Statement"
    assert result.extra["date"] == "2024-01-15T09:30:00+00:00"
    assert result.extra["from"] == "Jane Doe <jane@acme.example>"
    assert "Date: 2024-01-15T09:30:00+00:00" in result.blocks[0].text
    assert "Statement attached." in [b.text for b in result.blocks]
    assert [a.filename for a in result.attachments] == ["statement.csv"]
    assert result.warnings == []


@pytest.mark.parametrize("headers, submitted, unsent, date", [
    ("Date: Tue, 16 Jan 2024 10:00:00 +0100\r\n", None, False,
     "2024-01-16T10:00:00+01:00"),  # no submit time: the header's date
    (None, SENT, True, None),  # a draft (unsent) has no send date and no header
    (None, None, False, None),
])
def test_a_messages_date_comes_from_what_it_has(headers: str | None,
                                                submitted: dt.datetime | None, unsent: bool,
                                                date: str | None) -> None:
    data = build_msg(Msg(subject="x", body="Body.", headers=headers, submitted=submitted,
                         unsent=unsent))
    assert extract("msg", data, "x.msg").extra.get("date") == date


def test_a_calendar_item_with_only_an_rtf_body_reads_its_fields_and_text() -> None:
    data = build_msg(Msg(message_class="IPM.Appointment", subject="Kestrel audit review",
                         rtf=rb"{\rtf1\ansi\pard Review the Kestrel audit findings.\par}",
                         times={0x0060: dt.datetime(2024, 3, 12, 14, 0, tzinfo=dt.UTC),
                                0x0061: dt.datetime(2024, 3, 12, 15, 0, tzinfo=dt.UTC)}))
    result = extract("msg", data, "review.msg")
    text = "\n".join(b.text for b in result.blocks)
    assert result.title == "Kestrel audit review"
    assert "Start: 2024-03-12T14:00:00+00:00" in text and "End: 2024-03-12T15:00:00+00:00" in text
    assert "Review the Kestrel audit findings." in text


def test_a_property_that_fails_to_read_costs_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outlook calendar items and contacts failed whole: the HTML body extract-msg derives from
    RTF raised UnicodeDecodeError. Now that property is absent and the RTF is read."""
    from extract_msg.msg_classes.message_base import MessageBase

    def broken(self):  # type: ignore[no-untyped-def]
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    monkeypatch.setattr(MessageBase, "htmlBody", property(broken))
    data = build_msg(Msg(message_class="IPM.Appointment", subject="Board call",
                         rtf=rb"{\rtf1\ansi\pard Agenda: the Q2 accounts.\par}"))
    result = extract("msg", data, "call.msg")
    assert "Agenda: the Q2 accounts." in "\n".join(b.text for b in result.blocks)


def test_a_contact_reads_as_its_fields() -> None:
    data = build_msg(Msg(message_class="IPM.Contact", strings={0x3001: "Daniel Okafor",
                                                               0x3A16: "Northwind Traders"}))
    result = extract("msg", data, "okafor.msg")
    text = "\n".join(b.text for b in result.blocks)
    assert result.title == "Daniel Okafor"
    assert "Name: Daniel Okafor" in text and "Company: Northwind Traders" in text


def test_a_message_attached_to_a_message_becomes_a_msg_of_its_own() -> None:
    """It was dropped with a warning; inside an .eml it was indexed. Now both are."""
    inner = Msg(subject="Original invoice", body="Invoice INV-4471 for EUR 18,450.",
                submitted=dt.datetime(2024, 1, 10, 8, 0, tzinfo=dt.UTC))
    data = build_msg(Msg(subject="Fwd: invoice", body="See the attached message.",
                         submitted=SENT, embedded=[inner]))
    result = extract("msg", data, "fwd.msg")
    assert result.warnings == []
    [attached] = result.attachments
    assert attached.filename == "Original invoice.msg"
    again = extract("msg", attached.content, attached.filename)
    assert again.title == "Original invoice"
    assert again.extra["date"] == "2024-01-10T08:00:00+00:00"
    assert "Invoice INV-4471 for EUR 18,450." in [b.text for b in again.blocks]


def test_a_corrupt_msg_is_msg_corrupt() -> None:
    with pytest.raises(ExtractionError) as err:
        extract("msg", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1 truncated", "broken.msg")
    assert err.value.code == "MSG_CORRUPT"


def test_parts_without_a_name_are_typed_by_their_content_type() -> None:
    """They were skipped as "unsupported file type '(none)'"."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["Subject"] = "jane@acme.example", "Scans"
    message.set_content("Two files without names.")
    message.add_attachment(b"Ledger note: Kestrel paid.", maintype="text", subtype="plain")
    message.add_attachment(pdf_bytes(["A PDF without a name."]), maintype="application",
                           subtype="pdf")
    message.add_attachment(b"\x00\x01", maintype="application", subtype="x-unknown")
    result = extract("eml", message.as_bytes(), "scans.eml")
    assert [a.filename for a in result.attachments] == [
        "attachment-1.txt", "attachment-2.pdf", "attachment-3"]  # the last: not read, said so


def test_a_single_part_message_whose_text_is_an_attachment_keeps_its_text() -> None:
    """A message whose only part is a base64 text "attachment" lost its text without a word."""
    raw = (b"From: jane@acme.example\r\nSubject: Report\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n"
           b"Content-Disposition: attachment; filename=report.txt\r\n\r\n"
           + __import__("base64").b64encode("Quarterly report: revenue grew.".encode()) + b"\r\n")
    result = extract("eml", raw, "report.eml")
    assert "Quarterly report: revenue grew." in [b.text for b in result.blocks]
    assert result.attachments == []


def test_a_single_part_message_that_is_a_file_becomes_its_attachment() -> None:
    raw = (b"From: jane@acme.example\r\nSubject: Scan\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
           b"Content-Disposition: attachment; filename=scan.pdf\r\n\r\n"
           + __import__("base64").b64encode(pdf_bytes(["Scanned contract."])) + b"\r\n")
    result = extract("eml", raw, "scan.eml")
    assert [a.filename for a in result.attachments] == ["scan.pdf"]


def test_a_mime_message_without_addresses_is_still_an_email() -> None:
    """CPython's own MIME test messages have no From or Subject: they were EMAIL_CORRUPT."""
    raw = (b"Content-Type: multipart/mixed; boundary=ABCDE\r\n\r\n--ABCDE\r\n"
           b"Content-Type: text/x-one\r\n\r\nBlah one\r\n--ABCDE\r\n"
           b"Content-Type: text/x-two\r\n\r\nBlah two\r\n--ABCDE--\r\n")
    result = extract("eml", raw, "mime.eml")
    assert "Blah one" in [b.text for b in result.blocks]
    assert [a.filename for a in result.attachments] == ["attachment-1"]  # the other part


def test_headers_in_raw_8bit_bytes_are_read_by_the_declared_charset() -> None:
    """A Japanese mailer's Subject in raw Shift_JIS bytes (never RFC 2047-encoded) came out
    as replacement characters; it is read by the charset the message declares."""
    from ingest.extract import extract

    raw = (b"From: a@example.com\r\nTo: b@example.com\r\nSubject: "
           + "会議の議事録".encode("shift_jis")
           + b"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=Shift_JIS\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\n"
           + "本日の会議の議事録です。".encode("shift_jis"))
    extracted = extract("eml", raw, "m.eml")
    assert extracted.title == "会議の議事録"
    assert [b.text for b in extracted.blocks][1] == "本日の会議の議事録です。"
    ascii_only = b"From: a@example.com\r\nSubject: plain\r\n\r\nbody"
    assert extract("eml", ascii_only, "p.eml").title == "plain"  # untouched


def test_a_header_the_mail_library_cannot_read_is_read_as_text_not_a_failed_message() -> None:
    """A From whose display name decodes to a line break made the standard library raise
    ("address parts cannot contain CR or LF") and the whole message fail: now that header is
    read as its text, line break folded, with a warning naming it; the rest as always."""
    from ingest.extract.email import extract_eml

    raw = (b"From: =?utf-8?q?Evil=0AName?= <evil@example.org>\r\nTo: a@example.org\r\n"
           b"Subject: Budget\r\n\r\nThe budget is EUR 12,000.\r\n")
    read = extract_eml(raw, "odd.eml")
    assert read.extra["from"] == "Evil Name <evil@example.org>"
    assert read.extra["from_address"] == "evil@example.org"
    assert read.warnings == ["odd.eml: the From header could not be read as written; read as "
                             "plain text"]
    assert [b.text for b in read.blocks][-1] == "The budget is EUR 12,000."


def _nested(levels: int, kind: str) -> bytes:
    inner = (b"From: a@example.org\r\nSubject: deep\r\nContent-Type: text/plain\r\n\r\n"
             b"hello deep\r\n")
    for i in range(levels):
        if kind == "message":
            inner = (b"From: a@example.org\r\nSubject: level\r\nMIME-Version: 1.0\r\n"
                     b"Content-Type: message/rfc822\r\n\r\n" + inner)
        else:
            b = f"b{i}".encode()
            inner = (b'Content-Type: multipart/mixed; boundary="' + b + b'"\r\n\r\n--' + b
                     + b"\r\n" + inner + b"\r\n--" + b + b"--\r\n")
    return b"From: a@example.org\r\nSubject: top\r\nMIME-Version: 1.0\r\n" + inner


@pytest.mark.parametrize("kind", ["multipart", "message"])
def test_parts_nested_past_the_bound_fail_with_their_own_code(kind: str) -> None:
    """63 levels inside the message (64 with it) are read; one more, or a thousand (where
    the standard library's own walk ran out of stack: RecursionError, a generic failure),
    is EMAIL_TOO_DEEP with the reason."""
    from ingest.extract.email import MAX_MIME_DEPTH, extract_eml

    assert MAX_MIME_DEPTH == 64
    assert extract_eml(_nested(63, kind), "ok.eml").title == "top"
    for levels in (64, 1000):
        with pytest.raises(ExtractionError) as deep:
            extract_eml(_nested(levels, kind), "deep.eml")
        assert deep.value.code == "EMAIL_TOO_DEEP", (levels, deep.value)
