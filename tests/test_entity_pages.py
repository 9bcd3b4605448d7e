"""Entity pages, pure (app/documents/entity_pages.py): spellings grouped, counts by hand, order, q,
the
cursor both sides of the last page, and versions indexed before mentions were kept."""

from __future__ import annotations

import pytest

from app.documents.entity_pages import (
    VersionEntities,
    cursor_for,
    entity_documents,
    entity_identity,
    entity_list,
    offset_of,
)
from app.domain.errors import BadRequest

ROWS = [
    VersionEntities("mail-1", "v1", "Payment", "m1.eml",
                    {"persons": ["Daniel Okafor", "Maria Lindqvist"],
                     "account_numbers": ["DE89 3704 0044 0532 0130 00"]},
                    {"persons": {"Daniel Okafor": 2, "Maria Lindqvist": 1},
                     "account_numbers": {"DE89 3704 0044 0532 0130 00": 1}}),
    VersionEntities("mail-2", "v3", None, "m2.eml",
                    {"persons": ["Mr. Daniel  Okafor", "DANIEL OKAFOR"],
                     "account_numbers": ["DE89370400440532013000"]},
                    {"persons": {"Mr. Daniel  Okafor": 1, "DANIEL OKAFOR": 3},
                     "account_numbers": {"DE89370400440532013000": 2}}),
    VersionEntities("old", "v1", None, "old.txt", {"persons": ["Maria Lindqvist"]}, None),
]


@pytest.mark.parametrize("group, a, b", [
    ("persons", "Daniel Okafor", "Mr. Daniel  Okafor"),
    ("persons", "daniel okafor", "Dr Daniel Okafor"),
    ("organizations", "The Kestrel Group", "kestrel group"),
    ("account_numbers", "DE89 3704 0044 0532 0130 00", "de89370400440532013000"),
    ("monetary_amounts", "EUR 48,500.00", "48500 EUR"),
    ("dates_times", "2024-06-01", "1 June 2024")])
def test_spellings_of_one_entity_share_an_identity(group: str, a: str, b: str) -> None:
    assert entity_identity(group, a) == entity_identity(group, b)


def test_different_entities_do_not() -> None:
    assert entity_identity("persons", "Daniel Okafor") != entity_identity("persons",
                                                                         "Daniel Okafo")
    assert entity_identity("dates_times", "2024-06-01") != entity_identity("dates_times",
                                                                           "2024-01-06")


def test_the_list_counts_documents_and_mentions_by_hand() -> None:
    items, total = entity_list(ROWS, "persons", q=None, offset=0, limit=10)
    assert total == 2
    # Okafor: 2 documents, 2 + 1 + 3 mentions; Lindqvist: 2 documents, 1 + 1 (no counts kept)
    assert items == [
        {"value": "DANIEL OKAFOR", "documents": 2, "mentions": 6,
         "spellings": ["DANIEL OKAFOR", "Daniel Okafor", "Mr. Daniel  Okafor"]},
        {"value": "Maria Lindqvist", "documents": 2, "mentions": 2,
         "spellings": ["Maria Lindqvist"]}]


def test_q_is_a_part_of_any_spelling_in_any_case() -> None:
    assert [i["value"] for i in entity_list(ROWS, "persons", q="OKAF", offset=0, limit=10)[0]] == [
        "DANIEL OKAFOR"]
    assert entity_list(ROWS, "persons", q="nobody", offset=0, limit=10) == ([], 0)


def test_pages_and_the_cursor_both_sides_of_the_last_page() -> None:
    first, total = entity_list(ROWS, "persons", q=None, offset=0, limit=1)
    second, _ = entity_list(ROWS, "persons", q=None, offset=offset_of(cursor_for(1)), limit=1)
    assert total == 2 and [first[0]["value"], second[0]["value"]] == ["DANIEL OKAFOR",
                                                                      "Maria Lindqvist"]
    assert entity_list(ROWS, "persons", q=None, offset=2, limit=1) == ([], 2)
    assert offset_of(None) == 0 and offset_of(cursor_for(7)) == 7


@pytest.mark.parametrize("cursor", ["nonsense!", "bzotMQ", cursor_for(1) + "x"])
def test_a_cursor_this_service_never_gave_is_a_422(cursor: str) -> None:
    with pytest.raises(BadRequest) as err:
        offset_of(cursor)
    assert err.value.code == "INVALID_CURSOR"


def test_the_documents_naming_an_entity_in_any_spelling() -> None:
    found = entity_documents(ROWS, "account_numbers", "de89 3704 0044 0532 0130 00")
    assert found == [
        {"document_id": "mail-2", "version_id": "v3", "title": None, "filename": "m2.eml",
         "mentions": 2, "spellings": ["DE89370400440532013000"]},
        {"document_id": "mail-1", "version_id": "v1", "title": "Payment", "filename": "m1.eml",
         "mentions": 1, "spellings": ["DE89 3704 0044 0532 0130 00"]}]
    assert entity_documents(ROWS, "persons", "Nobody") == []
