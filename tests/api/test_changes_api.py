"""What changed between versions (GET /documents/{id}/changes) over HTTP (fake models, real
engine): a fee raised, a clause added, one removed — each with where it stands; the defaults,
a first version, bad versions, another client."""

from __future__ import annotations

import pytest

from tests.factories import xlsx_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service

V1 = """# Service agreement

## Fees

The annual fee is 12,000 EUR, payable in advance. Invoices are due within 30 days.

## Termination

Either party may terminate with three months' notice. The supplier keeps the deposit.
"""
V2 = """# Service agreement

## Fees

The annual fee is 24,000 EUR, payable in advance. Invoices are due within 30 days.
Late payments carry interest at 5 % a year.

## Termination

Either party may terminate with three months' notice.
"""
V3 = V2 + "\n## Audit\n\nThe buyer may audit the supplier once a year.\n"


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    with running_service(tmp_path_factory.mktemp("changes"), fake_models()) as s:
        for text in (V1, V2, V3):
            s.ingest("contract.md", text, document_id="contract")
        s.ingest("ledger.xlsx", xlsx_bytes({"S": [["Item", "Amount"], ["fee", 12000],
                                                  ["rent", 900]]}), document_id="ledger")
        s.ingest("ledger.xlsx", xlsx_bytes({"S": [["Item", "Amount"], ["fee", 24000],
                                                  ["rent", 900]]}), document_id="ledger")
        yield s


def _changes(svc: Service, document_id: str, key: str | None = None, **params: str):
    return svc.http.get(f"/documents/{document_id}/changes", params=params,
                        headers=svc.auth(key))


def test_the_fee_raised_the_clause_added_and_the_one_removed(svc: Service) -> None:
    body = _changes(svc, "contract", **{"from": "v1", "to": "v2"}).json()
    assert (body["from"], body["to"], body["complete"]) == ("v1", "v2", True)
    found = [(c["kind"], (c["before"] or {}).get("text"), (c["after"] or {}).get("text"))
             for c in body["changes"]]
    assert found == [
        ("changed", "The annual fee is 12,000 EUR, payable in advance.",
         "The annual fee is 24,000 EUR, payable in advance."),
        ("added", None, "Late payments carry interest at 5 % a year."),
        ("removed", "The supplier keeps the deposit.", None)]
    fee = body["changes"][0]
    assert fee["before"]["location"]["heading_path"] == ["Service agreement", "Fees"]
    assert fee["after"]["location"]["line_start"] == 5


def test_by_default_the_current_version_against_its_predecessor(svc: Service) -> None:
    body = _changes(svc, "contract").json()
    assert (body["from"], body["to"]) == ("v2", "v3")
    assert [(c["kind"], c["after"]["text"], c["after"]["location"]["heading_path"])
            for c in body["changes"]] == [
        ("added", "The buyer may audit the supplier once a year.",
         ["Service agreement", "Audit"])]  # a heading is where a passage stands
    first = _changes(svc, "contract", to="v1").json()
    assert first["from"] is None and all(c["kind"] == "added" for c in first["changes"])


def test_a_spreadsheet_cell_changed_cites_its_sheet_and_rows(svc: Service) -> None:
    body = _changes(svc, "ledger").json()
    [change] = body["changes"]
    assert (change["kind"], change["before"]["text"], change["after"]["text"]) == (
        "changed", "fee | 12000", "fee | 24000")
    assert change["after"]["location"]["location"] == {"sheet": "S", "rows": [2, 3]}


@pytest.mark.parametrize("params, status, code", [
    ({"to": "v9"}, 404, "VERSION_NOT_FOUND"), ({"from": "v7"}, 404, "VERSION_NOT_FOUND"),
    ({"to": "latest"}, 422, None)])
def test_versions_that_are_not_there(svc: Service, params: dict, status: int,
                                     code: str | None) -> None:
    r = _changes(svc, "contract", **params)
    assert r.status_code == status, r.text
    if code:
        assert r.json()["error"]["code"] == code


def test_another_client_gets_a_404(svc: Service) -> None:
    other = svc.new_client("changes-other")
    r = _changes(svc, "contract", key=other)
    assert r.status_code == 404 and r.json()["error"]["code"] == "DOCUMENT_NOT_FOUND"


def _rows(svc: Service, query: str, **body) -> list[tuple[str, str, list]]:  # type: ignore[no-untyped-def]
    r = svc.search(query=query, alpha=0.0, changed_only=True, **body)
    assert r.status_code == 200, r.text
    return [(row["document_version"]["document_id"], row["document_version"]["version_id"],
             [(i["change"], i["text"][:30]) for i in row["content_evidence"]["items"]])
            for row in r.json()["results"]]


def test_changed_only_keeps_what_changed_since_the_version_before(svc: Service) -> None:
    # the audit clause is v3's only change
    assert _rows(svc, "audit supplier") == [
        ("contract", "v3", [("added", "The buyer may audit the suppli")])]
    # v3 did not change the fee; the ledger's current version did
    assert [r[0] for r in _rows(svc, "annual fee")] == []
    assert [(d, v, [c for c, _ in items]) for d, v, items in _rows(svc, "fee rent")] == [
        ("ledger", "v2", ["changed"])]
    # every published version: v2 of the contract changed the fee
    everything = _rows(svc, "annual fee", versions="all")
    assert ("contract", "v2") in [(d, v) for d, v, _ in everything]
    assert all(items and all(c in ("added", "changed") for c, _ in items)
               for _, _, items in everything)


def test_without_changed_only_items_carry_no_change(svc: Service) -> None:
    r = svc.search(query="annual fee", alpha=0.0).json()
    assert r["results"] and all(item["change"] is None for row in r["results"]
                                for item in row["content_evidence"]["items"])


def test_a_version_still_queued_is_said_to_be_queued(svc: Service) -> None:
    """Issue 53: a first upload still queued answered "has no published version ''"."""
    r = svc.upload("pending.md", "# Pending\n\nNot indexed yet.", document_id="pending")
    assert r.status_code == 202
    got = _changes(svc, "pending")
    assert got.status_code == 404
    error = got.json()["error"]
    assert error["code"] == "VERSION_NOT_FOUND"
    assert error["message"].startswith("pending has no published version yet: v1 is queued")
    assert "''" not in error["message"] and error["details"]["state"] == "queued"
    named = _changes(svc, "pending", to="v1").json()["error"]
    assert named["message"].startswith("pending v1 is queued to be indexed")
    svc.worker.drain()
