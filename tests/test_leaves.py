"""Typed leaves and how a query matches one (pure)."""

from app.domain.leaves import Leaf, leaves_of, match_leaf, merge_entities, value_type


def test_leaves_are_typed_and_lists_give_one_leaf_each() -> None:
    leaves = leaves_of({"schema_version": "2", "source": {"filename": "a.pdf", "size_bytes": 10},
                        "quality": {"ocr_used": False, "warnings": ["w1", "w2"]},
                        "custom": {"due": "2024-07-01", "nested": {"x": 1.5}, "none": None}},
                       {"account_numbers": ["ACCT-1234"]})
    assert leaves == [
        Leaf("source.filename", "string", "a.pdf"), Leaf("source.size_bytes", "number", 10),
        Leaf("quality.ocr_used", "boolean", False), Leaf("quality.warnings", "string", "w1"),
        Leaf("quality.warnings", "string", "w2"), Leaf("custom.due", "date", "2024-07-01"),
        Leaf("custom.nested.x", "number", 1.5),
        Leaf("entities.account_numbers", "string", "ACCT-1234")]


def test_value_types() -> None:
    assert [value_type(v) for v in (True, 3, 2.5, "x", "2024-02-30", "2024-02-28T10:00:00Z",
                                    None)] == [
        "boolean", "number", "number", "string", "string", "date", None]


def test_match_kinds_and_strengths() -> None:
    def m(query: str, leaf: Leaf) -> tuple[str, float] | None:
        found = match_leaf(query, leaf)
        return (found.match, round(found.score, 2)) if found else None

    assert m("apollo", Leaf("custom.project", "string", "Apollo")) == ("exact", 4.0)
    assert m("Configuracao", Leaf("custom.t", "string", "Configuração")) == ("exact", 4.0)
    assert m("invoice PO-2231", Leaf("custom.po", "string", "PO-2231")) == ("identifier", 4.0)
    assert m("2,024", Leaf("custom.year", "number", 2024)) == ("number", 3.5)
    assert m("2024-07-01", Leaf("custom.due", "date", "2024-07-01T09:00:00Z")) == ("date", 3.5)
    assert m("budget report", Leaf("document.title", "string", "The report on budget")) == (
        "all_words", 2.0)
    assert m("budget review plan", Leaf("document.title", "string", "Budget plan")) == (
        "some_words", 0.67)
    assert m("true", Leaf("quality.ocr_used", "boolean", True)) is None
    assert m("nothing", Leaf("custom.p", "string", "Apollo")) is None


def test_merge_entities_keeps_first_seen_order_without_duplicates() -> None:
    assert merge_entities([{"persons": ["Ada", "Alan"]}, {"persons": ["Alan", "Grace"],
                                                          "locations": ["Paris"]}]) == {
        "persons": ["Ada", "Alan", "Grace"], "locations": ["Paris"]}
