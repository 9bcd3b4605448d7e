"""Failure codes (ingest/failures.py): every code an extractor or the pipeline raises is in the
table, the table in docs/FORMATS.md is the code's own, and each exception maps to its code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.domain.errors import ExtractionError, StoreRejected
from ingest.failures import FAILURE_CODES, code_table, error_code

ROOT = Path(__file__).resolve().parents[2]


def _raised_codes() -> set[str]:
    """Codes written in ingest/: ``code="X"`` arguments and ``code = "X"`` class attributes
    (an f-string code, ``f"{label}_TOO_LARGE"``, is spelled out below)."""
    found: set[str] = set()
    for path in (ROOT / "ingest").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(
                    node.value, ast.Constant) and isinstance(node.value.value, str):
                found.add(node.value.value)
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "code" for t in node.targets) and \
                    isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                found.add(node.value.value)
    return found | {"DOCX_TOO_LARGE", "XLSX_TOO_LARGE", "PPTX_TOO_LARGE"}


def test_every_code_an_extractor_raises_is_in_the_table() -> None:
    raised = _raised_codes()
    assert len(raised) > 15
    assert raised - set(FAILURE_CODES) == set()


def test_formats_md_holds_the_codes_own_table() -> None:
    text = (ROOT / "docs" / "FORMATS.md").read_text()
    start = text.index("<!-- failure codes: python -m ingest.failures -->\n") + len(
        "<!-- failure codes: python -m ingest.failures -->\n")
    assert text[start:text.index("\n<!-- end of failure codes -->")] == code_table()


@pytest.mark.parametrize("exc, gave_up, code", [
    (ExtractionError("x", code="OCR_TIMEOUT"), False, "OCR_TIMEOUT"),
    (ExtractionError("x"), False, "EXTRACTION_FAILED"),
    (StoreRejected("x"), True, "RETRIES_EXHAUSTED"),  # a service code no job table names
    (ValueError("x"), False, "PROCESSING_FAILED"), (MemoryError(), False, "OUT_OF_MEMORY"),
    (OSError(28, "full"), True, "RETRIES_EXHAUSTED")])
def test_each_failure_has_its_code(exc: BaseException, gave_up: bool, code: str) -> None:
    assert error_code(exc, gave_up=gave_up) == code
