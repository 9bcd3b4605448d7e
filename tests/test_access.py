"""Access groups' names, bounds and delegation (app/domain/access.py), both sides of each
bound."""

from __future__ import annotations

import pytest

from app.domain.access import MAX_GROUPS, Access, delegated, parse_groups
from app.domain.errors import BadRequest, Forbidden


def test_names_are_trimmed_folded_deduplicated_and_sorted() -> None:
    assert parse_groups(" Legal, finance ,legal,") == ("finance", "legal")
    assert parse_groups(["hr", "HR"]) == ("hr",)
    assert parse_groups("") == () and parse_groups(None) == () and parse_groups([]) == ()


@pytest.mark.parametrize("name", ["a", "0", "a" * 64, "legal.eu-2_x"])
def test_a_name_inside_the_rule_is_kept(name: str) -> None:
    assert parse_groups([name]) == (name,)


@pytest.mark.parametrize("name", ["a" * 65, "-legal", ".x", "legal team", "légal", "a,b", "",
                                  "*"])
def test_a_name_outside_the_rule_is_422_with_its_code(name: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_groups([name])
    assert refused.value.code == "ACCESS_GROUP_INVALID" and refused.value.http_status == 422


def test_at_most_32_groups() -> None:
    assert len(parse_groups([f"g{i}" for i in range(MAX_GROUPS)])) == MAX_GROUPS
    with pytest.raises(BadRequest) as refused:
        parse_groups([f"g{i}" for i in range(MAX_GROUPS + 1)])
    assert refused.value.code == "ACCESS_GROUPS_TOO_MANY"


def test_what_a_key_sees_and_may_label() -> None:
    admin, legal, nobody = Access(None), Access(("legal",)), Access(())
    assert admin.sees(("hr",)) and admin.sees(())
    assert legal.sees(()) and legal.sees(("finance", "legal")) and not legal.sees(("hr",))
    assert nobody.sees(()) and not nobody.sees(("legal",))
    legal.may_label(("legal",))
    legal.may_label(())
    admin.may_label(("anything",))
    with pytest.raises(Forbidden) as refused:
        legal.may_label(("legal", "hr"))
    assert refused.value.code == "ACCESS_GROUP_NOT_HELD" and refused.value.details == {
        "groups": ["hr"]}


def test_delegation_narrows_and_never_widens() -> None:
    assert delegated(("legal", "hr"), False, None) == ("legal", "hr")  # no header: the key's
    assert delegated(None, False, None) is None
    assert delegated(("legal", "hr"), True, "hr,finance") == ("hr",)
    assert delegated(None, True, "finance") == ("finance",)  # an admin key serving a person
    assert delegated(("legal",), True, "") == ()  # a person without groups
    with pytest.raises(Forbidden) as refused:
        delegated(("legal",), False, "legal")
    assert refused.value.code == "GROUPS_DELEGATION_FORBIDDEN"
    with pytest.raises(BadRequest):
        delegated(("legal",), True, "Legal Team")
