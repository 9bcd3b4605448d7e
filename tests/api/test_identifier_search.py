"""Identifiers over HTTP (fake models, real engine): an IBAN, an e-mail address and a phone
number written another way than the document find it — by the entity lane and by filters —
and an IBAN one digit off finds nothing by its value."""

from __future__ import annotations

import pytest

from tests.fakes import fake_models
from tests.service import Service, running_service

VENDOR = ("Vendor: Kestrel Holdings Ltd · IBAN: DE89 3704 0044 0532 0130 00 · "
          "Email: D.Okafor@Northwind.example · Phone: +44 20 7946 0958")
OTHER = "Vendor: Baltic Freight Oy · IBAN: FI21 1234 5600 0007 85 · Phone: +358 9 1234567"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("identifiers")
    settings = make_settings(tmp)
    settings.search.dense_floor = 0.0  # both records may answer "Vendor": filters choose
    with running_service(tmp, fake_models(), settings=settings) as s:
        s.ingest("vendor.txt", VENDOR, document_id="kestrel")
        s.ingest("other.txt", OTHER, document_id="baltic")
        yield s


@pytest.mark.parametrize("query", ["DE89370400440532013000", "de89 3704 0044 0532 0130 00",
                                   "who holds d.okafor@northwind.example", "+442079460958"])
def test_an_identifier_in_another_spelling_finds_its_record_first(svc: Service,
                                                                   query: str) -> None:
    body = svc.search(query=query, alpha=0.0, explain=True).json()
    ids = [r["document_version"]["document_id"] for r in body["results"]]
    assert ids[:1] == ["kestrel"], (query, ids)
    lanes = {c["lane"] for c in body["results"][0]["retrieval_contributions"]}
    assert "entity" in lanes


@pytest.mark.parametrize("key, value, expected", [
    ("entities.account_numbers", "DE89370400440532013000", ["kestrel"]),
    ("entities.account_numbers", "fi2112345600000785", ["baltic"]),
    ("entities.account_numbers", "DE89 3704 0044 0532 0130 01", []),  # checksum off by one
    ("entities.email_addresses", "d.okafor@NORTHWIND.example", ["kestrel"]),
    ("entities.phone_numbers", "+44 (0)20 7946 0958", ["kestrel"]),
    ("entities.phone_numbers", "+44 20 7946 0959", []),
])
def test_entity_filters_match_an_identifier_in_any_spelling(svc: Service, key: str, value: str,
                                                            expected: list[str]) -> None:
    r = svc.search(query="Vendor", alpha=1.0, filters={key: value})
    assert r.status_code == 200, r.text
    assert [row["document_version"]["document_id"] for row in r.json()["results"]] == expected


def test_identifiers_are_facets_in_their_printed_form(svc: Service) -> None:
    body = svc.search(query="Vendor", alpha=1.0, facets=[
        "entities.account_numbers", "entities.email_addresses", "entities.phone_numbers"]).json()
    facets = {k: {v["value"] for v in vs} for k, vs in body["meta"]["facets"].items()}
    assert facets == {
        "entities.account_numbers": {"DE89 3704 0044 0532 0130 00", "FI21 1234 5600 0007 85"},
        "entities.email_addresses": {"D.Okafor@northwind.example"},
        "entities.phone_numbers": {"+44 20 7946 0958", "+358 9 1234567"}}
