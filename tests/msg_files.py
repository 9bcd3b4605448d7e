"""Real Outlook .msg files built in code (no binary fixtures): extract-msg's own OLE writer lays
out the compound file; the streams follow [MS-OXMSG] — a property stream of fixed-size values,
``__substg1.0_<tag>`` streams for strings and binaries, ``__attach_version1.0_#n`` storages
for attachments, an embedded message as a ``__substg1.0_3701000D`` storage.

Only what the tests need: message class, subject, bodies (plain, HTML, compressed RTF),
sender and recipients' display, transport headers, submit time, flags, calendar start/end and
location, contact names, attachments by value and embedded messages.
"""

from __future__ import annotations

import datetime as dt
import io
import struct
from dataclasses import dataclass, field

PT_LONG, PT_SYSTIME, PT_UNICODE, PT_BINARY, PT_OBJECT = 0x0003, 0x0040, 0x001F, 0x0102, 0x000D
EPOCH_1601 = dt.datetime(1601, 1, 1, tzinfo=dt.UTC)


def _filetime(moment: dt.datetime) -> int:
    return int((moment - EPOCH_1601).total_seconds() * 10_000_000)


@dataclass
class Msg:
    message_class: str = "IPM.Note"
    subject: str | None = None
    body: str | None = None
    html: bytes | None = None
    rtf: bytes | None = None  # plain RTF: compressed here as Outlook stores it
    sender: str | None = None
    to: str | None = None
    headers: str | None = None  # transport headers, e.g. "Date: …\r\nMessage-ID: …"
    submitted: dt.datetime | None = None  # PR_CLIENT_SUBMIT_TIME
    unsent: bool = False
    strings: dict[int, str] = field(default_factory=dict)  # more PT_UNICODE properties by id
    times: dict[int, dt.datetime] = field(default_factory=dict)  # more PT_SYSTIME by id
    attachments: list[tuple[str, bytes]] = field(default_factory=list)
    embedded: list[Msg] = field(default_factory=list)


def _streams(msg: Msg, prefix: list[str], top: bool) -> list[tuple[list[str], bytes | None]]:
    """(path, data) entries of one message (data None: a storage)."""
    import compressed_rtf

    entries: list[tuple[list[str], bytes | None]] = []
    fixed: list[bytes] = []

    def string(prop: int, text: str) -> None:
        data = text.encode("utf-16-le")  # the size counts the terminator the stream leaves out
        entries.append(([*prefix, f"__substg1.0_{prop:04X}001F"], data))
        fixed.append(struct.pack("<IIII", (prop << 16) | PT_UNICODE, 6, len(data) + 2, 0))

    def binary(prop: int, data: bytes) -> None:
        entries.append(([*prefix, f"__substg1.0_{prop:04X}0102"], data))
        fixed.append(struct.pack("<IIII", (prop << 16) | PT_BINARY, 6, len(data), 0))

    def systime(prop: int, moment: dt.datetime) -> None:
        fixed.append(struct.pack("<IIQ", (prop << 16) | PT_SYSTIME, 6, _filetime(moment)))

    def long(prop: int, value: int) -> None:
        fixed.append(struct.pack("<IIiI", (prop << 16) | PT_LONG, 6, value, 0))

    string(0x001A, msg.message_class)
    for prop, value in ((0x0037, msg.subject), (0x1000, msg.body), (0x0C1A, msg.sender),
                        (0x0E04, msg.to), (0x007D, msg.headers), *msg.strings.items()):
        if value is not None:
            string(prop, value)
    if msg.html is not None:
        binary(0x1013, msg.html)
    if msg.rtf is not None:
        binary(0x1009, compressed_rtf.compress(msg.rtf))
    if msg.submitted is not None:
        systime(0x0039, msg.submitted)
    for prop, moment in msg.times.items():
        systime(prop, moment)
    long(0x0E07, 8 if msg.unsent else 1)  # PR_MESSAGE_FLAGS: MSGFLAG_UNSENT is 8
    n = 0
    for n, (name, data) in enumerate(msg.attachments):
        where = [*prefix, f"__attach_version1.0_#{n:08X}"]
        entries.append((where, None))
        name_data = name.encode("utf-16-le")
        entries += [([*where, "__substg1.0_3707001F"], name_data),
                    ([*where, "__substg1.0_37010102"], data),
                    ([*where, "__properties_version1.0"], b"\0" * 8 + b"".join((
                        struct.pack("<IIII", 0x3707001F, 6, len(name_data) + 2, 0),
                        struct.pack("<IIII", 0x37010102, 6, len(data), 0),
                        struct.pack("<IIiI", 0x37050003, 6, 1, 0))))]
    start = len(msg.attachments)
    for i, inner in enumerate(msg.embedded, start=start):
        where = [*prefix, f"__attach_version1.0_#{i:08X}"]
        entries.append((where, None))
        entries += [([*where, "__properties_version1.0"], b"\0" * 8 + b"".join((
            struct.pack("<IIII", 0x3701000D, 6, 0xFFFFFFFF, 0),
            struct.pack("<IIiI", 0x37050003, 6, 5, 0))))]  # ATTACH_EMBEDDED_MSG
        entries.append(([*where, "__substg1.0_3701000D"], None))
        entries += _streams(inner, [*where, "__substg1.0_3701000D"], top=False)
        n = i
    count = len(msg.attachments) + len(msg.embedded)
    header = (struct.pack("<8sIIII8s", b"\0" * 8, 0, count, 0, count, b"\0" * 8) if top
              else struct.pack("<8sIIII", b"\0" * 8, 0, count, 0, count))
    entries.append(([*prefix, "__properties_version1.0"], header + b"".join(fixed)))
    del n
    return entries


def build_msg(msg: Msg) -> bytes:
    """The bytes of a .msg file holding ``msg``."""
    from extract_msg.ole_writer import OleWriter

    writer = OleWriter()
    writer.addEntry(["__nameid_version1.0"], storage=True)
    for stream in ("__substg1.0_00020102", "__substg1.0_00030102", "__substg1.0_00040102"):
        writer.addEntry(["__nameid_version1.0", stream], data=b"")
    for path, data in _streams(msg, [], top=True):
        if data is None:
            writer.addEntry(path, storage=True)
        else:
            writer.addEntry(path, data=data)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
