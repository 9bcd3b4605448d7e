"""Bytes to text by the charset the file declares, else by the one it shows.

The order (as browsers and mail readers decide): a byte-order mark; the charset the file or
its container declares (an HTML ``<meta charset>``, an e-mail part's ``charset=``); UTF-8 when
the bytes are valid UTF-8; else detection by charset-normalizer (UTF-16/32 without a mark,
windows-1251, cp866, Shift_JIS …); Latin-1 only as the last resort, which never fails. Every
charset that was guessed rather than declared says so in a warning, so an analyst reading
mojibake knows why.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# (mark, codec): UTF-32's marks first, since UTF-32LE's starts as UTF-16LE's does
BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"))
# detection reads at most this much (charset-normalizer samples it); the whole file is then
# decoded with what it found
DETECT_BYTES = 1024 * 1024
# WHATWG Encoding: labels that mean windows-1252 on the web (a page "in ISO-8859-1" with
# curly quotes is windows-1252), and UTF-16 declared in a page readable as ASCII is UTF-8
WEB_ALIASES = {"iso-8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252",
               "us-ascii": "cp1252", "ascii": "cp1252", "iso8859-1": "cp1252",
               "utf-16": "utf-8", "utf-16le": "utf-8", "utf-16be": "utf-8"}
# <meta charset="…"> or <meta http-equiv="Content-Type" content="…; charset=…">, and an XML
# declaration's encoding="…": looked for in the first 64 KB (a long script can come first:
# Tika's big-preamble.html declares windows-1251 after 4,970 bytes)
# a detected charset whose reading is over 5 % control characters or replacements was a
# guess at binary data (NUL-laden bytes read as "UTF-32")
MAX_JUNK_SHARE = 0.05
# NULs in over a tenth of the bytes: a wide encoding (or binary), not UTF-8 (_wide)
WIDE_NUL_SHARE = 0.1
# ISO-2022-JP's switches to JIS X 0208 (ESC $ B, ESC $ @): Japanese mail's 7-bit charset
ISO_2022_JP = re.compile(rb"\x1b\$[B@]")
# chaos and coherence within this of the best guess: as good a reading (detect)
TIE = 0.02
# below this, charset-normalizer found no language in what it decoded (detect)
MIN_COHERENCE = 0.05
HTML_PRESCAN_BYTES = 64 * 1024
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]{1,40})""", re.I)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})""")


@dataclass(frozen=True)
class Decoded:
    text: str
    charset: str  # the codec the text was read with
    how: str  # bom | declared | utf-8 | detected | fallback
    warning: str | None = None


def codec_name(label: str | None) -> str | None:
    """Python's codec for a charset label (None for an unknown one)."""
    if not label:
        return None
    try:
        return codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None


def html_declared_charset(content: bytes) -> str | None:
    """The charset an HTML page declares in its head (meta charset, http-equiv) or its XML
    declaration; the label as written."""
    head = content[:HTML_PRESCAN_BYTES]
    found = _XML_ENCODING.match(head.lstrip()) or _META_CHARSET.search(head)
    return found.group(1).decode("ascii") if found else None


def _wide(sample: bytes) -> bool:
    """NULs throughout (over ``WIDE_NUL_SHARE`` of the bytes): UTF-16 or UTF-32 without a
    mark (ASCII letters in UTF-16 are half NULs), or binary — never UTF-8 text with a stray
    NUL, which is still read as UTF-8."""
    return sample.count(0) > WIDE_NUL_SHARE * max(len(sample), 1)


def _bom(content: bytes) -> tuple[bytes, str] | None:
    return next(((mark, codec) for mark, codec in BOMS if content.startswith(mark)), None)


def detect(content: bytes) -> str | None:
    """charset-normalizer's best guess for bytes that are not UTF-8 (None: no text found).

    Where it has no evidence of a language (coherence 0: a few accented letters, "café
    crème", decode as well in a dozen code pages), windows-1252 is taken where it reads the
    bytes: the most common 8-bit charset, and what this reader assumed before detection; so
    it is where windows-1252 reads as well as the best guess (within ``TIE``).
    """
    from charset_normalizer import from_bytes

    matches = from_bytes(content[:DETECT_BYTES])
    best = matches.best()
    if best is None:
        return None
    if _wide(content[:DETECT_BYTES]):  # NULs throughout: the wide encoding it found stands
        return codec_name(best.encoding)
    if best.coherence < MIN_COHERENCE:
        try:
            content[:DETECT_BYTES].decode("cp1252")
            return "cp1252"
        except UnicodeDecodeError:  # bytes windows-1252 leaves undefined: the guess stands
            pass
    # among code pages it finds as good (Portuguese "não" reads as well in windows-1250's
    # "năo" to it), the most common one wins: windows-1252
    western = next((m for m in matches if m.encoding == "cp1252"), None)
    if western is not None and western.chaos <= best.chaos + TIE \
            and western.coherence >= best.coherence - TIE:
        return "cp1252"
    return codec_name(best.encoding)


def decode(content: bytes, declared: str | None = None, *, web: bool = False) -> Decoded:
    """``content`` as text, by mark, declaration, UTF-8, detection, then Latin-1 (see the
    module's docstring). ``web``: labels read as browsers read them (WEB_ALIASES)."""
    bom = _bom(content)
    if bom is not None:
        mark, codec = bom
        body = content[len(mark):]
        try:
            return Decoded(body.decode(codec), codec, "bom")
        except UnicodeDecodeError:
            return Decoded(body.decode(codec, errors="replace"), codec, "bom",
                           f"the text starts with a {codec.upper()} byte-order mark but does "
                           "not decode as that throughout: the bytes that do not were replaced")
    warning = None
    if declared:
        label = declared.strip().lower()
        codec = codec_name(WEB_ALIASES.get(label, label) if web else label)
        if codec is None:
            warning = f"the declared charset {declared!r} is unknown"
        else:
            try:
                return Decoded(content.decode(codec), codec, "declared")
            except UnicodeDecodeError:
                warning = f"the text does not decode as its declared charset {declared!r}"
    if ISO_2022_JP.search(content[:DETECT_BYTES]):  # 7-bit, so valid UTF-8 too: its escapes
        try:
            return Decoded(content.decode("iso2022_jp"), "iso2022_jp", "detected",
                           "no charset was declared: read as ISO-2022-JP (its escapes)")
        except UnicodeDecodeError:
            pass
    if not _wide(content[:DETECT_BYTES]):  # UTF-16/32 without a mark is valid UTF-8 too
        try:
            return Decoded(content.decode("utf-8"), "utf-8", "utf-8", warning)
        except UnicodeDecodeError:
            pass
    found = detect(content)
    if found is not None:
        said = f"no charset was declared: read as {found} (detected)"
        return Decoded(content.decode(found, errors="replace"), found, "detected",
                       f"{warning}; {said}" if warning else said)
    said = "the charset could not be found: read as Latin-1"
    return Decoded(content.decode("latin-1"), "latin-1", "fallback",
                   f"{warning}; {said}" if warning else said)


def looks_like_text(head: bytes) -> bool:
    """Whether a file's first bytes are text in some charset: a mark, UTF-8 (a character cut
    at the sample's end allowed), or a charset charset-normalizer finds (UTF-16 without a
    mark, Shift_JIS, windows-1251 …)."""
    if _bom(head) is not None:
        return True
    if not _wide(head):  # NULs throughout: UTF-16 or UTF-32 without a mark, or binary
        try:
            head.decode("utf-8")
            return True
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 3:
                return True
    found = detect(head)
    if found is None:
        return False
    text = head.decode(found, errors="replace")
    # what a detector calls text must read as text: few control characters or replacements
    junk = sum(1 for ch in text if (ch < " " and ch not in "\t\n\r\f") or ch == "\ufffd")
    return junk <= MAX_JUNK_SHARE * max(len(text), 1)
