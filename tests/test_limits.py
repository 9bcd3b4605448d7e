"""Bounds on client values (app/domain/limits.py): each refusal with its code, each bound exact."""

from __future__ import annotations

import pytest

from app.documents.uploads import parse_metadata_field
from app.domain.errors import BadRequest
from app.domain.limits import (
    MetadataLimits,
    check_metadata,
    check_scalar,
    display_text,
    is_valid_utf8,
    strict_json_loads,
)

LIMITS = MetadataLimits(depth=3, keys=5, key_chars=4, string_chars=6, total_bytes=50)


def nested(levels: int) -> dict:
    value: object = 1
    for _ in range(levels):
        value = {"x": value}
    return value  # type: ignore[return-value]


def refused(custom: dict) -> str:
    with pytest.raises(BadRequest) as caught:
        check_metadata(custom, LIMITS)
    assert caught.value.code == "INVALID_METADATA"
    return caught.value.message


def test_depth_is_counted_from_inside_custom() -> None:
    assert check_metadata(nested(3), LIMITS) == nested(3)  # {"x": {"x": {"x": 1}}}
    assert "deeper than 3" in refused(nested(4))
    assert check_metadata({"a": [1, 2]}, LIMITS)  # a list counts as a level
    assert "deeper" in refused({"a": {"b": [{"c": 1}]}})


def test_keys_and_list_items_count_together() -> None:
    assert check_metadata({"a": [1, 2, 3, 4]}, LIMITS)  # 1 key + 4 items = 5
    assert "more than 5" in refused({"a": [1, 2, 3, 4], "b": 1})


def test_keys_strings_and_total_size() -> None:
    assert "at most 4" in refused({"abcde": 1})
    assert "'.'" in refused({"a.b": 1})
    assert "control" in refused({"a\nb": 1})
    assert "control" in refused({"ab\n": 1})  # a trailing newline too: matched whole
    for unfilterable in ("a b", "a[0]", "a]", "$x", "a/b"):  # no filter could name them
        assert "letters, digits" in refused({unfilterable: 1})
    assert check_metadata({"ü": 1, "a-b": 2, "x_1": 3, "日付": 4}, LIMITS)
    assert "at most 6" in refused({"a": "1234567"})
    assert "bytes as JSON" in refused({"a": "123456", "b": "123456", "c": "123456",
                                       "d": "123456"})  # {"a":"123456",…} is 53 bytes


def test_a_list_holds_values_or_objects_not_both_nor_lists() -> None:
    assert check_metadata({"a": [None, {"b": 1}]}, LIMITS)
    assert "not both" in refused({"a": [1, {"b": 1}]})
    assert "no lists" in refused({"a": [[1]]})


@pytest.mark.parametrize("value, ok", [
    (2**63 - 1, True), (-(2**63), True), (2**63, False), (-(2**63) - 1, False),
    (1.5, True), (float("inf"), False), (float("nan"), False), ("\ud800", False),
    ("ok", True), (True, True), (None, True), ([1], False)])
def test_scalars_fit_the_registry_and_the_engine(value: object, ok: bool) -> None:
    if ok:
        check_scalar(value, where="v", code="X", max_chars=10)
    else:
        with pytest.raises(BadRequest):
            check_scalar(value, where="v", code="X", max_chars=10)


def test_the_metadata_field_parser_refuses_what_json_loads_would_let_through() -> None:
    limits = MetadataLimits()
    for raw in ('{"a": NaN}', '{"a": Infinity}', '{"a": 1e400}', '{"s": "\\ud800"}',
                '{"d": ' * 5000 + "1" + "}" * 5000, "[1]", "{"):
        with pytest.raises(BadRequest) as caught:
            parse_metadata_field(raw, limits)
        assert caught.value.code == "INVALID_METADATA", raw[:40]
    assert parse_metadata_field('{"project": "Apollo"}', limits) == {"project": "Apollo"}
    assert parse_metadata_field("  ", limits) == {}
    assert parse_metadata_field("null", limits) == {}  # the spec's nullable, sent as JSON


def test_strict_json_and_utf8_and_display_helpers() -> None:
    with pytest.raises(ValueError):
        strict_json_loads("NaN")
    assert is_valid_utf8("é") and not is_valid_utf8("a\udfffb")
    assert display_text("re\r\nport\x00<b>.md\u2028") == "report<b>.md"
    assert display_text("x" * 300) == "x" * 255
