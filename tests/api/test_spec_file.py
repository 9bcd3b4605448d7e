"""The checked-in openapi.json is the spec the server serves: generated clients built from the
file see what they will talk to."""

from __future__ import annotations

from app.cli import spec_text
from tests.conftest import REPO


def test_the_checked_in_spec_is_the_served_spec() -> None:
    checked_in = (REPO / "openapi.json").read_text()
    assert spec_text() + "\n" == checked_in, (
        "the served OpenAPI spec changed: run `evidence openapi` and commit openapi.json")


def test_every_bound_is_a_json_schema_keyword() -> None:
    """pydantic writes a constraint it cannot place as its own name ("ge": 0): a generated
    client or schemathesis then ignores the bound (autocut's did, until this test)."""
    import json

    def keys(node: object) -> set[str]:
        """Every keyword used, not the names of properties (a range has a property "lt")."""
        if isinstance(node, dict):
            named = node.get("properties") or {}
            inner = [v for k, v in node.items() if k != "properties"] + list(named.values())
            return (set(node) - {"properties"} | {"properties"} if named else set(node)) | {
                k for v in inner for k in keys(v)}
        if isinstance(node, list):
            return {k for v in node for k in keys(v)}
        return set()

    schemas = json.loads((REPO / "openapi.json").read_text())["components"]["schemas"]
    assert not keys(schemas) & {"ge", "gt", "le", "lt", "max_length", "min_length"}
