"""E-mail: .eml (the standard library's ``email``) and .msg (``extract-msg``, Outlook's OLE
format). The body — plain text preferred, HTML turned into text — is the document's text, under
a header block (From, To, Cc, Date, Subject) so a search for a sender finds the message; the
headers go into ``canonical_metadata.document`` (``from``, ``to``, ``cc``, ``date``,
``subject``, ``message_id``) for the metadata lane and filters.

Attachments come back as bytes (``ExtractedText.attachments``): the worker registers each as a
Document of its own when the e-mail publishes (ingest/pipeline.py). Bounded: attachments per
message, their total size (within the e-mail's own), and, by the worker, the depth of e-mails
attached to e-mails.
"""

from __future__ import annotations

import datetime
import email
import email.policy
import email.utils
import re
from typing import Any

from app.domain.errors import ExtractionError
from app.domain.subjects import message_ids, normal_subject, thread_key
from ingest.extract.types import Attachment, Block, ExtractedText

MAX_ATTACHMENTS = 50
MAX_HEADER_CHARS = 2000
# Parts inside parts (multipart, message/rfc822): real mail nests a handful; the parser's and
# the standard library's walks recurse, and a message nested ~1,000 deep exhausted them
MAX_MIME_DEPTH = 64


def _html_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    return "\n".join(line.strip() for line in soup.get_text("\n").splitlines() if line.strip())


def _addresses(value: Any) -> list[str]:
    """Header addresses as "Name <address>" (or the address), each once."""
    if not value:
        return []
    pairs = email.utils.getaddresses([str(value)])
    shown = [f"{name} <{addr}>" if name and addr else (addr or name) for name, addr in pairs]
    return [s[:MAX_HEADER_CHARS] for s in dict.fromkeys(s for s in shown if s)]


def _iso_date(value: Any) -> str | None:
    if not value:
        return None
    if isinstance(value, datetime.datetime):  # to the second, as a header writes it
        return value.replace(microsecond=0).isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, tuple) and len(value) >= 6:  # email.utils.parsedate's 9-tuple
        try:
            return datetime.datetime(*value[:6]).isoformat()
        except (TypeError, ValueError):
            return None
    try:
        return email.utils.parsedate_to_datetime(str(value)).isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def thread_of(message_id: str | None, in_reply_to: list[str], references: list[str]
              ) -> str | None:
    """A thread's stable id: its root message's id, hashed — the first of References (RFC 5322
    lists the ancestors from the root), else the parent In-Reply-To names, else the message's
    own. Computed from the message alone, so a reply that arrives before its parent is in the
    parent's thread already."""
    root = (references or in_reply_to or ([message_id] if message_id else []) or [None])[0]
    return thread_key(root) if root else None


def _assemble(filename: str, *, sender: Any, to: Any, cc: Any, date: Any, subject: Any,
              message_id: Any, body: str, attachments: list[Attachment],
              warnings: list[str], in_reply_to: Any = None,
              references: Any = None) -> ExtractedText:
    subject_text = " ".join(str(subject or "").split())[:MAX_HEADER_CHARS] or None
    headers = {"from": _addresses(sender), "to": _addresses(to), "cc": _addresses(cc)}
    iso = _iso_date(date)
    lines = [f"{label}: {', '.join(values)}" for label, values in
             (("From", headers["from"]), ("To", headers["to"]), ("Cc", headers["cc"])) if values]
    if iso:
        lines.append(f"Date: {iso}")
    if subject_text:
        lines.append(f"Subject: {subject_text}")
    if attachments:
        lines.append("Attachments: " + ", ".join(a.filename for a in attachments))
    heading = (subject_text,) if subject_text else ()
    blocks = [Block(text="\n".join(lines), heading_path=heading)] if lines else []
    blocks += [Block(text=p.strip(), heading_path=heading)
               for p in body.replace("\r\n", "\n").split("\n\n") if p.strip()]
    own = (message_ids(message_id) or [None])[0]
    parents, ancestors = message_ids(in_reply_to), message_ids(references)
    senders = email.utils.getaddresses([str(sender or "")])
    extra: dict[str, object] = {k: v for k, v in (
        ("from", headers["from"][0] if headers["from"] else None),
        ("to", headers["to"] or None), ("cc", headers["cc"] or None), ("date", iso),
        ("subject", subject_text),
        ("message_id", str(message_id).strip()[:MAX_HEADER_CHARS] if message_id else None),
        # filterable parts of the headers: addresses folded, names as written
        ("from_address", senders[0][1].strip().lower()[:MAX_HEADER_CHARS]
         if senders and senders[0][1] else None),
        ("from_name", senders[0][0].strip()[:MAX_HEADER_CHARS] if senders and senders[0][0]
         else None),
        ("to_address", [a.lower() for _, a in email.utils.getaddresses(
            [str(to or ""), str(cc or "")]) if a][:100] or None),
        ("in_reply_to", parents[0] if parents else None),
        ("references", ancestors or None),
        ("thread_id", thread_of(own, parents, ancestors)),
        ("thread_subject", normal_subject(subject_text) or None))
        if v}
    extra["has_attachments"] = bool(attachments)
    return ExtractedText(blocks=blocks, title=subject_text, warnings=warnings, extra=extra,
                         attachments=attachments)


def _bounded(attachments: list[Attachment], filename: str, warnings: list[str]
             ) -> list[Attachment]:
    if len(attachments) > MAX_ATTACHMENTS:
        warnings.append(f"{filename} has {len(attachments)} attachments; the first "
                        f"{MAX_ATTACHMENTS} are indexed")
        attachments = attachments[:MAX_ATTACHMENTS]
    return attachments


def _extension(content_type: str) -> str:
    """The extension this service reads a MIME type by (``image/png`` → ``.png``), or
    none."""
    from app.domain.formats import SUPPORTED

    for extension, (_kind, mime) in SUPPORTED.items():
        if mime == content_type:
            return extension
    return {"text/x-markdown": ".md", "image/jpg": ".jpg", "application/x-pdf": ".pdf"}.get(
        content_type, "")


def _part_text(part: Any, filename: str, warnings: list[str]) -> str:
    """A text part's text by its declared charset (8-bit Shift_JIS, ISO-2022-JP …); one
    that declares none, or one it is not written in, by detection (app/domain/charsets.py),
    said in a warning."""
    from app.domain.charsets import decode

    raw = part.get_payload(decode=True)
    if not isinstance(raw, bytes):
        return part.get_content()
    declared = part.get_param("charset")
    decoded = decode(raw, declared if isinstance(declared, str) else None)
    if decoded.warning and (declared or decoded.how in ("detected", "fallback")):
        warnings.append(f"the body of {filename}: {decoded.warning}")
    return decoded.text


HEADER_END = re.compile(rb"\r?\n\r?\n")
CHARSET_PARAM = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I)


def _eight_bit_headers(content: bytes) -> bytes:
    """Headers written in raw 8-bit bytes (a Japanese mailer's Subject in Shift_JIS, never
    RFC 2047-encoded) decoded by the charset the message declares, else detected, and
    re-encoded as RFC 2047 words: Python's parser turns such bytes into "\ufffd"."""
    from email.header import Header

    from app.domain.charsets import decode

    end = HEADER_END.search(content)
    if end is None or max(content[:end.start()], default=0) < 0x80:
        return content
    head = content[:end.start()]
    declared = CHARSET_PARAM.search(content)
    text = decode(head, declared.group(1).decode("ascii") if declared else None).text
    lines = []
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and not line[:1].isspace() and not value.isascii():
            value = " " + Header(value.strip(), "utf-8").encode()
        elif not line.isascii():  # a folded continuation
            value, colon, name = " " + Header(line.strip(), "utf-8").encode(), "", ""
        lines.append(f"{name}{colon}{value}")
    return "\r\n".join(lines).encode("ascii", "replace") + content[end.start():]


def extract_eml(content: bytes, filename: str) -> ExtractedText:
    if content.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in content[:4096]:
        # a whole message saved as UTF-16 or UTF-32 (Windows' "Unicode"): its text first
        from app.domain.charsets import decode

        content = decode(content).text.encode("utf-8")
    content = _eight_bit_headers(content)
    try:
        message = email.message_from_bytes(content, policy=email.policy.default)
    except RecursionError:
        raise ExtractionError(f"{filename} nests its parts too deeply to be read",
                              code="EMAIL_TOO_DEEP") from None
    except Exception as exc:  # noqa: BLE001 - the parser is lenient; this is truly broken
        raise ExtractionError(f"{filename} is not a readable e-mail ({type(exc).__name__})",
                              code="EMAIL_CORRUPT") from None
    warnings: list[str] = []
    headers = {name: _header(message, name, filename, warnings) for name in (
        "From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References")}
    if not (any(headers.values()) or message.get("MIME-Version")
            or message.get("Content-Type")):
        raise ExtractionError(f"{filename} has no e-mail headers (From, To, Subject, Date, "
                              "MIME-Version): it is not an e-mail", code="EMAIL_CORRUPT")
    if _mime_depth(message) > MAX_MIME_DEPTH:
        raise ExtractionError(f"{filename} nests its parts deeper than {MAX_MIME_DEPTH} "
                              "levels (multipart and attached messages inside each other)",
                              code="EMAIL_TOO_DEEP")
    try:
        return _read_message(message, filename, headers, warnings)
    except RecursionError:
        raise ExtractionError(f"{filename} nests its parts too deeply to be read",
                              code="EMAIL_TOO_DEEP") from None


def _header(message: Any, name: str, filename: str, warnings: list[str]) -> Any:
    """A header as the mail library reads it; one it cannot read (a display name that decodes
    to a line break: "address parts cannot contain CR or LF") as its text, with a warning —
    never the whole message lost for one header."""
    try:
        return message.get(name)
    except Exception:  # noqa: BLE001 - any header parser failure: read it as text
        from email.header import decode_header, make_header

        raw = next((v for k, v in message.raw_items() if k.lower() == name.lower()), None)
        if raw is None:
            return None
        try:
            text = str(make_header(decode_header(str(raw))))
        except Exception:  # noqa: BLE001 - undecodable encoded words: the raw text
            text = str(raw)
        warnings.append(f"{filename}: the {name} header could not be read as written; "
                        "read as plain text")
        return " ".join(text.split())


def _mime_depth(message: Any) -> int:
    """How deep parts nest (the message itself 1), walked without recursion."""
    deepest, stack = 0, [(message, 1)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_MIME_DEPTH:
            return deepest
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend((child, depth + 1) for child in payload
                         if hasattr(child, "is_multipart"))
    return deepest


def _read_message(message: Any, filename: str, headers: dict[str, Any],
                  warnings: list[str]) -> ExtractedText:
    """The body, the attachments and the headers of a parsed message."""
    body_part = message.get_body(preferencelist=("plain", "html"))
    if body_part is None and not message.is_multipart() and message.get_content_maintype() \
            == "text":
        body_part = message  # one text part marked as an attachment: it is the message's text
    if body_part is None:  # no text/plain or text/html: the first other text part (text/x-…)
        body_part = next((part for part in message.walk() if not part.is_multipart()
                          and part.get_content_maintype() == "text"
                          and part.get_filename() is None), None)
    body = ""
    if body_part is not None:
        text = _part_text(body_part, filename, warnings)
        body = _html_text(text) if body_part.get_content_type() == "text/html" else text
    attachments: list[Attachment] = []
    parts = [p for p in message.iter_attachments() if p is not body_part] \
        if message.is_multipart() else ([message] if body_part is None else [])
    for n, part in enumerate(parts, start=1):
        # a part without a file name is typed by its Content-Type (text/plain → .txt)
        name = part.get_filename() or f"attachment-{n}{_extension(part.get_content_type())}"
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()
            data = (inner[0] if isinstance(inner, list) else inner).as_bytes()
            name = name if name.lower().endswith(".eml") else f"{name}.eml"
        else:
            data = part.get_payload(decode=True) or b""
        if data:
            attachments.append(Attachment(filename=name, content=data))
    return _assemble(filename, sender=headers["From"], to=headers["To"], cc=headers["Cc"],
                     date=headers["Date"], subject=headers["Subject"],
                     message_id=headers["Message-ID"], in_reply_to=headers["In-Reply-To"],
                     references=headers["References"],
                     body=body, attachments=_bounded(attachments, filename, warnings),
                     warnings=warnings)


# Fields of Outlook items that are not mails (calendar items, contacts), read where present
ITEM_FIELDS = (("Start", "startDate"), ("End", "endDate"), ("Location", "location"),
               ("Name", "displayName"), ("Company", "companyName"), ("Job title", "jobTitle"),
               ("E-mail", "email1EmailAddress"), ("Business phone", "businessTelephoneNumber"),
               ("Mobile phone", "mobileTelephoneNumber"))
MAX_EMBEDDED_BYTES = 50 * 1024 * 1024  # a message attached to a message, re-written as .msg


def _read(item: Any, name: str) -> Any:
    """An extract-msg property, or None where reading it fails: a calendar item's HTML body
    derived from RTF raises UnicodeDecodeError, and one bad property must not cost the item."""
    try:
        return getattr(item, name, None)
    except Exception:  # noqa: BLE001 - extract-msg derives properties lazily, any can raise
        return None


# where an Outlook item keeps its date, in the order read: when the sender submitted it
# (PidTagClientSubmitTime), the transport headers' Date (the sender's own clock, the same
# moment), when it was delivered (PidTagMessageDeliveryTime: a received item without the
# other two), and as a last resort when the item was created (PidTagCreationTime: a draft, a
# note, a file saved without sending — said in a warning, since it may be the day of saving)
MSG_DATE_SOURCES = ("submitted", "header", "delivered", "created")
_MSG_TIME_TAGS = {"submitted": "00390040", "delivered": "0E060040", "created": "30070040"}


def _plausible(value: Any) -> bool:
    """A date that parses and lies between 1971 and 2200: MAPI writes its "no date" as the
    year 1601 or 4501, which are not dates of the item."""
    iso = _iso_date(value)
    return bool(iso) and "1971" <= iso[:4] <= "2200"


def _msg_date(message: Any) -> tuple[Any, str | None]:
    """The item's date and which property held it (``MSG_DATE_SOURCES``), read from the
    MAPI properties themselves: real Outlook files carry them where extract-msg's own
    ``date`` (the headers') is often absent."""
    for source in MSG_DATE_SOURCES:
        if source == "submitted" and _read(message, "isSent") is False:
            continue  # a draft's submit time, where one is left, is not a send
        if source == "header":
            header = _read(message, "header")
            value = header.get("Date") if header is not None else None
        else:
            try:
                value = message.getPropertyVal(_MSG_TIME_TAGS[source])
            except Exception:  # noqa: BLE001 - a malformed property costs only itself
                value = None
        if value and _plausible(value):
            return value, source
    return None, None


def _msg_body(message: Any, filename: str, warnings: list[str]) -> str:
    """Plain text, else the HTML body as text, else the RTF body as text (striprtf)."""
    body = _read(message, "body")
    if isinstance(body, str) and body.strip():
        return body.replace("\x00", "")
    html = _read(message, "htmlBody")
    if html:
        return _html_text(html.decode("utf-8", "replace") if isinstance(html, bytes) else html)
    rtf = _read(message, "rtfBody")
    if rtf:
        from striprtf.striprtf import rtf_to_text

        try:
            return rtf_to_text(rtf.decode("latin-1") if isinstance(rtf, bytes) else rtf)
        except Exception:  # noqa: BLE001 - a hand-rolled RTF parser on untrusted bytes
            warnings.append(f"the RTF body of {filename} could not be read")
    return ""


def _item_lines(message: Any) -> list[str]:
    lines = []
    for label, name in ITEM_FIELDS:
        value = _read(message, name)
        if value:
            text = value.isoformat() if hasattr(value, "isoformat") else str(value)
            lines.append(f"{label}: {' '.join(text.split())[:MAX_HEADER_CHARS]}")
    return lines


def extract_msg(content: bytes, filename: str) -> ExtractedText:
    import extract_msg as outlook

    try:
        message = outlook.openMsg(content)
    except Exception as exc:  # noqa: BLE001 - olefile and extract-msg raise many kinds
        raise ExtractionError(f"{filename} is not a readable Outlook .msg file "
                              f"({type(exc).__name__})", code="MSG_CORRUPT") from None
    warnings: list[str] = []
    try:
        body = _msg_body(message, filename, warnings)
        item = _item_lines(message)
        if item:  # a calendar item or a contact: its fields read as a paragraph of the body
            body = "\n".join(item) + ("\n\n" + body if body.strip() else "")
        attachments = []
        for n, att in enumerate(_read(message, "attachments") or [], start=1):
            data = _read(att, "data")
            name = str(_read(att, "longFilename") or _read(att, "shortFilename")
                       or f"attachment-{n}")
            if isinstance(data, bytes) and data:
                attachments.append(Attachment(filename=name, content=data))
            elif hasattr(data, "exportBytes"):  # a message attached to this one
                embedded = _embedded_msg(data, name, n, filename, warnings)
                if embedded is not None:
                    attachments.append(embedded)
            else:
                warnings.append(f"attachment {name} of {filename} holds nothing readable "
                                "(a link or an empty part): not indexed")
        subject = _read(message, "subject") or _read(message, "displayName")
        header = _read(message, "header")
        date, date_source = _msg_date(message)
        if date_source == "created":
            warnings.append(f"{filename} carries no send, header or delivery date: "
                            "document.date is when the item was created")
        extracted = _assemble(filename, sender=_read(message, "sender"), to=_read(message, "to"),
                              cc=_read(message, "cc"), date=date, subject=subject,
                              message_id=_read(message, "messageId"), body=body,
                              in_reply_to=_read(message, "inReplyTo") or (
                                  header.get("In-Reply-To") if header is not None else None),
                              references=header.get("References") if header is not None else None,
                              attachments=_bounded(attachments, filename, warnings),
                              warnings=warnings)
        if date_source:
            extracted.extra["date_source"] = date_source
        return extracted
    finally:
        message.close()


def _embedded_msg(inner: Any, name: str, n: int, filename: str, warnings: list[str]
                  ) -> Attachment | None:
    """A message attached to a message, written out as a .msg of its own (extract-msg's OLE
    writer), so it becomes a document as an .eml's attached message does."""
    subject = _read(inner, "subject")
    label = name if name != f"attachment-{n}" else (subject or name)
    try:
        data = inner.exportBytes(allowBadEmbed=True)
    except Exception as exc:  # noqa: BLE001 - a broken embedded message
        warnings.append(f"attached message {label} of {filename} could not be read "
                        f"({type(exc).__name__}): not indexed")
        return None
    if len(data) > MAX_EMBEDDED_BYTES:
        warnings.append(f"attached message {label} of {filename} is over "
                        f"{MAX_EMBEDDED_BYTES // 2**20} MiB: not indexed")
        return None
    safe = "".join(c if c.isalnum() or c in " ._-" else "_" for c in label).strip()[:150]
    return Attachment(filename=f"{safe or f'message-{n}'}.msg", content=data)
