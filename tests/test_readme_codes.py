"""Every error code the API and the CLI can answer with is named in the README (one missing
there was found by a user first, issue 47); a failed document's codes are docs/FORMATS.md's
table, checked by tests/ingest/test_failure_codes.py."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = re.compile(r"""\bcode\s*=\s*["']([A-Z][A-Z0-9_]+)["']""")  # code="X", code = "X"
LITERAL = re.compile(r'"([A-Z][A-Z0-9_]{3,})"')


def _codes(folder: str) -> set[str]:
    return {code for path in (ROOT / folder).rglob("*.py")
            for code in CODE.findall(path.read_text(encoding="utf-8"))}


def test_every_code_the_api_and_the_cli_raise_is_in_the_readme() -> None:
    codes = _codes("app")
    # the door and the error handlers name theirs as plain literals (validation, bodies)
    for name in ("app/api/errors.py", "app/api/guard.py"):
        codes |= set(LITERAL.findall((ROOT / name).read_text(encoding="utf-8")))
    assert {"BODY_TOO_DEEP", "WEBHOOK_URL_INVALID", "INVALID_FACET"} <= codes  # it reads them
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sorted(c for c in codes if f"`{c}`" not in readme) == []

