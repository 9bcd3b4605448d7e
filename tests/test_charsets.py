"""Bytes to text (app/domain/charsets.py): mark, declaration, UTF-8, detection, Latin-1 — each
step on both sides of where it decides."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from app.domain.charsets import MAX_JUNK_SHARE, decode, html_declared_charset, looks_like_text

TEXT = "Grüße aus Köln: 12,50 € — «très bien»"


@pytest.mark.parametrize("mark, codec", [
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"), (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
])
def test_a_byte_order_mark_decides_utf32_before_utf16(mark: bytes, codec: str) -> None:
    decoded = decode(mark + TEXT.encode(codec))
    assert (decoded.text, decoded.charset, decoded.how, decoded.warning) == (
        TEXT, codec, "bom", None)


def test_a_declared_charset_is_taken_and_one_the_bytes_contradict_is_said() -> None:
    cyrillic = "Агентство недвижимости".encode("cp1251")
    assert decode(cyrillic, "windows-1251").text == "Агентство недвижимости"
    assert decode(cyrillic, "windows-1251").warning is None
    wrong = decode("naïve".encode("utf-8"), "ascii")  # declared ASCII, written in UTF-8
    assert wrong.text == "naïve" and "does not decode as its declared charset" in wrong.warning
    unknown = decode(b"plain", "x-no-such-charset")
    assert unknown.text == "plain" and "unknown" in unknown.warning


def test_web_labels_read_as_browsers_read_them() -> None:
    quotes = "“quoted”".encode("cp1252")  # bytes 0x93/0x94: undefined in ISO-8859-1 proper
    assert decode(quotes, "iso-8859-1", web=True).text == "“quoted”"


def test_utf8_without_a_declaration_says_nothing_other_bytes_are_detected_and_said() -> None:
    assert decode(TEXT.encode("utf-8")).warning is None
    utf16 = decode(("This is a test document. " * 4).encode("utf-16-be"))  # no mark: NULs
    assert utf16.charset == "utf-16-be" and "(detected)" in utf16.warning
    assert decode("こんにちは、今日は".encode("iso-2022-jp")).text == "こんにちは、今日は"


@pytest.mark.parametrize("text", ["café crème", "Über Größe"])
def test_a_few_accented_letters_are_windows_1252(text: str) -> None:
    """No language to go on: the most common 8-bit code page, not cp1006 or cp864."""
    assert decode(text.encode("cp1252")).text == text


def test_windows_1252_wins_a_tie_with_windows_1250() -> None:
    fixture = Path(__file__).resolve().parent / "fixtures/text/multi-language.txt"
    decoded = decode(fixture.read_bytes())
    assert decoded.charset == "cp1252" and "não" in decoded.text and "năo" not in decoded.text


def test_html_declares_its_charset_in_meta_or_in_an_xml_declaration() -> None:
    assert html_declared_charset(b'<html><head><meta charset="koi8-r">') == "koi8-r"
    assert html_declared_charset(b'<meta http-equiv="Content-Type" '
                                 b'content="text/html; charset=Shift_JIS">') == "Shift_JIS"
    assert html_declared_charset(b'<?xml version="1.0" encoding="ISO-8859-2"?><html>') == \
        "ISO-8859-2"
    assert html_declared_charset(b"<html><body>no declaration</body></html>") is None
    late = b"<script>" + b"x" * 70_000 + b'</script><meta charset="koi8-r">'
    assert html_declared_charset(late) is None  # past the 64 KB prescan


def test_text_in_any_charset_looks_like_text_binary_does_not() -> None:
    for text in ("Привет, как дела? Это русский текст." * 3,):
        assert looks_like_text(text.encode("cp1251"))
    assert looks_like_text(("メールです。今日は良い天気ですね。" * 5).encode("shift_jis"))
    assert looks_like_text(("utf-16 text without a mark " * 5).encode("utf-16-le"))
    assert not looks_like_text(bytes(range(256)) * 4)
    assert not looks_like_text(b"\x7fELF\x02\x01\x01" + b"\x00" * 200)
    # a detector's guess at NUL-laden binary reads as control characters: over MAX_JUNK_SHARE
    from app.domain.charsets import detect

    binary = b"\x00\x01\x02hello\x00\x00\x00\x10" * 100
    guessed = detect(binary)
    assert guessed is not None and not looks_like_text(binary)
    junk = sum(ch < " " for ch in binary.decode(guessed, errors="replace"))
    assert junk > MAX_JUNK_SHARE * len(binary.decode(guessed, errors="replace"))


def test_a_stray_nul_in_utf8_text_is_still_utf8_nuls_throughout_are_wide() -> None:
    """Over WIDE_NUL_SHARE of NULs: UTF-16/32 without a mark; one NUL in UTF-8 text (a bad
    export) must not turn "Grüße" into windows-1252 mojibake."""
    from app.domain.charsets import WIDE_NUL_SHARE

    stray = "Grüße\x00 aus Köln".encode()
    assert stray.count(0) <= WIDE_NUL_SHARE * len(stray)
    assert decode(stray).text == "Grüße\x00 aus Köln" and decode(stray).charset == "utf-8"
    wide = "Grüße aus Köln".encode("utf-16-le")
    assert wide.count(0) > WIDE_NUL_SHARE * len(wide)
    assert decode(wide).text == "Grüße aus Köln"
