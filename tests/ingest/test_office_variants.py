"""Macro-enabled, template and show variants of Word, PowerPoint and Excel files (.docm .dotx
.dotm .pptm .ppsx .ppsm .potx .potm .xlsm .xltx .xltm) are read as their plain format: real
files saved by Office (tests/fixtures/office_variants/README.md, Apache POI's test data). Before,
the extensions were refused (415) and a template named .docx — Apache POI's stress014.docx —
failed DOCX_CORRUPT: python-docx refuses any main content type but the plain document's,
python-pptx a show's or a template's (a .ppsx was PPTX_CORRUPT)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.uploads import sniff
from app.domain.formats import SUPPORTED
from ingest.extract import extract
from ingest.extract.ooxml import as_main_document

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "office_variants"


@pytest.mark.parametrize("name, first, title", [
    ("SimpleMacro.docm", "This is a macro word processing document", None),
    ("test.dotx", "Test", None),
    ("SimpleMacro.pptm", "subtitle", "This is a macro slideshow"),
    ("testPPT.ppsx", "Rajiv", "Attachment Test"),
    ("SimpleMacro.xlsm", "This is a macro workbook", None),
    ("test.xltx", " |  |  | test", None),
])
def test_a_variant_saved_by_office_is_read_as_its_format(name: str, first: str,
                                                         title: str | None) -> None:
    kind = SUPPORTED[Path(name).suffix][0]
    data = (FIXTURES / name).read_bytes()
    sniff(kind, data, name)  # its bytes are what its name says: no 415
    result = extract(kind, data, name)
    assert result.blocks[0].text == first
    assert result.title == title
    assert result.warnings == []


def test_every_variant_extension_is_its_plain_formats_kind() -> None:
    variants = {".docm": "docx", ".dotx": "docx", ".dotm": "docx", ".xlsm": "xlsx",
                ".xltx": "xlsx", ".xltm": "xlsx", ".pptm": "pptx", ".ppsx": "pptx",
                ".ppsm": "pptx", ".potx": "pptx", ".potm": "pptx"}
    assert {ext: SUPPORTED[ext][0] for ext in variants} == variants
    assert len({SUPPORTED[ext][1] for ext in variants}) == len(variants)  # a MIME type each


def test_a_template_named_docx_is_read() -> None:
    """Apache POI's stress014.docx is a template under a document's name, as a user renames
    one: the extension does not decide what the package is."""
    result = extract("docx", (FIXTURES / "test.dotx").read_bytes(), "renamed.docx")
    assert [b.text for b in result.blocks] == ["Test"]


def test_a_plain_document_is_left_as_it_is() -> None:
    """The other side: a package whose main part is already the plain document's (or that is
    no package) is returned untouched, at no cost beyond reading its content types."""
    plain = (FIXTURES.parent / "docx" / "testWORD_various.docx").read_bytes()
    assert as_main_document(plain, "docx") == (plain, False)
    assert as_main_document(b"not a zip", "pptx") == (b"not a zip", False)
    variant = (FIXTURES / "testPPT.ppsx").read_bytes()
    rewritten, changed = as_main_document(variant, "pptx")
    assert changed and rewritten != variant
