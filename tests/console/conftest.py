"""A failing console test says what the page looked like: the page of its Watched fixture
(test_console.py) is screenshot at the failure, full length, and the file named in the test's
report (folder: EVIDENCE_CONSOLE_FAILURES, else the test's own temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    pages = [v.page for v in funcargs.values() if hasattr(v, "page") and hasattr(v, "context")]
    if not pages:
        return
    folder = Path(os.environ.get("EVIDENCE_CONSOLE_FAILURES")
                  or funcargs.get("tmp_path") or item.config.rootpath / ".console-failures")
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / f"{item.name.replace('/', '_')[:120]}.png"
    try:
        pages[0].screenshot(path=str(shot), full_page=True)
        said = f"the page at the failure: {shot} (url {pages[0].url})"
    except Exception as exc:  # noqa: BLE001 - a closed page: say so, never mask the failure
        said = f"no screenshot ({type(exc).__name__}: {exc})"
    report.sections.append(("console screenshot", said))
