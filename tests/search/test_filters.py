"""Filter keys: a typo's suggestions name each key once, and the spec's key pattern says what
the parser takes."""

from __future__ import annotations

import re

import pytest

from app.domain.errors import BadRequest
from app.search.filters import FILTER_KEY_PATTERN, parse_filters


def test_an_unknown_keys_suggestions_are_unique() -> None:
    """document.subject is a standard key and one discovery saw: suggested once."""
    with pytest.raises(BadRequest) as err:
        parse_filters({"document.subjct": "x"}, client_id="c", catalog_complete=True,
                      key_types={"document.subject": {"string"}})
    assert err.value.code == "UNKNOWN_FILTER_KEY"
    nearest = err.value.details["nearest"]
    assert nearest[0] == "document.subject" and len(nearest) == len(set(nearest))


@pytest.mark.parametrize("key, taken", [
    ("document_id", True), ("custom.project", True), ("custom.größe", True),
    ("entities.persons", True), ("entities.persons.x", False), ("entities.colors", False),
    ("custom", False), ("x-schemathesis-additional", False), ("document.from", True)])
def test_the_specs_key_pattern_agrees_with_the_parser(key: str, taken: bool) -> None:
    assert bool(re.match(FILTER_KEY_PATTERN, key)) is taken
    try:
        parse_filters({key: "v"}, client_id="c")
        parsed = True
    except BadRequest:
        parsed = False
    assert parsed is taken
