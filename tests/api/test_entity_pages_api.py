"""Entity pages over HTTP with the real models (spaCy finds the people): GET /entities and
GET /entities/{group}/{value}/documents, per client, over current versions only."""

from __future__ import annotations

import pytest

from tests.service import Service, running_service

pytestmark = pytest.mark.integration

MAIL = ("From: Daniel Okafor <d.okafor@northwind.example>\nTo: Maria Lindqvist\n\n"
        "Maria, please wire EUR 48,500.00 to IBAN DE89 3704 0044 0532 0130 00. Daniel Okafor "
        "will confirm on 12 March 2024.")
LEDGER = "Contact: Daniel Okafor · IBAN: DE89370400440532013000 · Debit (EUR): 48500"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, real_models) -> Service:  # type: ignore[no-untyped-def]
    with running_service(tmp_path_factory.mktemp("entity-pages"), real_models,
                         entities=True) as s:
        s.ingest("mail.txt", MAIL, document_id="mail")
        s.ingest("ledger.txt", LEDGER, document_id="ledger")
        s.ingest("memo.txt", "Memo from Priya Natarajan about the audit.", document_id="memo")
        s.ingest("memo.txt", "Memo from Jonathan Reyes about the audit.", document_id="memo")
        yield s


def _get(svc: Service, path: str, key: str | None = None, **params):  # type: ignore[no-untyped-def]
    return svc.http.get(path, params=params, headers=svc.auth(key))


def test_the_people_with_the_documents_naming_them(svc: Service) -> None:
    body = _get(svc, "/entities", group="persons").json()
    people = {i["value"]: (i["documents"], i["mentions"]) for i in body["items"]}
    assert people["Daniel Okafor"][0] == 2  # the mail and the ledger
    assert "Jonathan Reyes" in people  # the memo's current version …
    assert "Priya Natarajan" not in people  # … not its superseded one
    assert body["next_cursor"] is None and body["total"] == len(body["items"])
    assert body["items"][0]["value"] == "Daniel Okafor"  # most documents first


def test_q_narrows_and_the_cursor_pages(svc: Service) -> None:
    body = _get(svc, "/entities", group="persons", q="okafor").json()
    assert [i["value"] for i in body["items"]] == ["Daniel Okafor"]
    first = _get(svc, "/entities", group="persons", limit=1).json()
    assert len(first["items"]) == 1 and first["total"] >= 2 and first["next_cursor"]
    second = _get(svc, "/entities", group="persons", limit=1, cursor=first["next_cursor"]).json()
    assert second["items"][0]["value"] != first["items"][0]["value"]


def test_an_iban_in_any_spelling_lists_both_documents(svc: Service) -> None:
    body = _get(svc, "/entities", group="account_numbers").json()
    [iban] = [i for i in body["items"] if i["value"].startswith("DE89")]
    assert iban["documents"] == 2
    r = _get(svc, "/entities/account_numbers/de89 3704 0044 0532 0130 00/documents")
    assert r.status_code == 200, r.text
    assert {i["document_id"] for i in r.json()["items"]} == {"mail", "ledger"}


def test_amounts_and_dates_by_value(svc: Service) -> None:
    amounts = _get(svc, "/entities", group="monetary_amounts").json()["items"]
    [eur] = [i for i in amounts if i["documents"] == 2]
    assert set(eur["spellings"]) == {"EUR 48,500.00", "EUR 48500"}
    r = _get(svc, "/entities/dates_times/2024-03-12/documents")
    assert [i["document_id"] for i in r.json()["items"]] == ["mail"]


def test_another_client_sees_none_of_it(svc: Service) -> None:
    other = svc.new_client("other")
    assert _get(svc, "/entities", key=other, group="persons").json()["items"] == []
    r = _get(svc, "/entities/persons/Daniel Okafor/documents", key=other)
    assert r.status_code == 404 and r.json()["error"]["code"] == "ENTITY_NOT_FOUND"


@pytest.mark.parametrize("params, code", [
    ({"group": "people"}, 422), ({}, 422), ({"group": "persons", "limit": 0}, 422),
    ({"group": "persons", "limit": 201}, 422), ({"group": "persons", "cursor": "zz!"}, 422),
    ({"group": "persons", "q": "x" * 201}, 422)])
def test_bad_requests_are_422s(svc: Service, params: dict, code: int) -> None:
    r = _get(svc, "/entities", **params)
    assert r.status_code == code, r.text
    assert r.json()["error"]["code"]


def test_no_key_is_a_401(svc: Service) -> None:
    assert svc.http.get("/entities", params={"group": "persons"}).status_code == 401
