"""The checked-in openapi.json is the spec the server serves: generated clients built from the
file see what they will talk to."""

from __future__ import annotations

from app.cli import spec_text
from tests.conftest import REPO


def test_the_checked_in_spec_is_the_served_spec() -> None:
    checked_in = (REPO / "openapi.json").read_text()
    assert spec_text() + "\n" == checked_in, (
        "the served OpenAPI spec changed: run `evidence openapi` and commit openapi.json")
