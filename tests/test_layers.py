"""The arrows between layers (docs/ARCHITECTURE.md) as import-linter contracts in
pyproject.toml, function-level imports included: the CLI shares services with the HTTP
layer rather than importing route modules; ingestion does not import search; the registry
is below search, the services and both doors; a document's rows do not import its
duplicates (the import circle issue 53 item 15 found)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept(capsys) -> None:  # type: ignore[no-untyped-def]
    from importlinter.cli import lint_imports

    here = os.getcwd()
    os.chdir(ROOT)  # the contracts are read from the project's pyproject.toml
    try:
        code = lint_imports(no_cache=True)
    finally:
        os.chdir(here)
    report = capsys.readouterr().out
    assert code == 0, report
    assert report.count("KEPT") == 4
