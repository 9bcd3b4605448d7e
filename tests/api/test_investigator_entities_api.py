"""Issue 51's entities end to end with the real models (spaCy, MiniLM, BM25): a company's
three spellings are one entity, an e-mail's header names are persons, a phone in 00 form is a
phone, the amount facet counts one amount once, and a bare amount finds its document first."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from tests.service import Service, running_service

pytestmark = pytest.mark.integration


def _mail() -> bytes:
    message = EmailMessage()
    message["From"] = "Marta Lindqvist <marta.lindqvist@harborview.example>"
    message["To"] = ("Daniel Okafor <d.okafor@kestrel.example>, "
                     "Accounts Payable <ap@kestrel.example>")
    message["Subject"] = "Deposit for the warehouse lease"
    message["Date"] = "Tue, 12 Mar 2024 09:14:00 +0000"
    message["Message-ID"] = "<hv-2231@harborview.example>"
    message.set_content("Daniel, the deposit of EUR 24,000.00 is due to HARBOR VIEW PROPERTIES, "
                        "L.L.C. this week. Call me on 0035315550142 if anything is unclear.\n\n"
                        "Regards, Marta Lindqvist")
    return bytes(message)


DOCS = {
    "agreement.txt": "Supply agreement between Harbor View Properties LLC (the Supplier) and "
                     "Kestrel Holdings Ltd (the Buyer): a deposit of EUR 24,000 is payable in "
                     "advance; the goods are listed in Annex A.",
    "ledger.txt": "Payment run: Kestrel Holdings paid 24.000 EUR to Harbor View Properties on "
                  "28 March 2024 for the warehouse deposit.",
    "invoice-7.txt": "Invoice 7 from Harbor View Properties: the survey of the warehouse, "
                     "£1,250.00 due within 30 days.",
    # near the words of the queries, none holding their amounts
    "invoice-8.txt": "Invoice 8: survey of the warehouse roof, £1,205.00 due on receipt.",
    "invoice-9.txt": "Invoice 9: warehouse deposit terms; deposit payments in EUR are due in "
                     "advance, 1250 crates delivered.",
    "policy.txt": "Deposit policy: every warehouse deposit in EUR is paid in advance and "
                  "refunded at the end of the lease.",
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, real_models) -> Service:  # type: ignore[no-untyped-def]
    with running_service(tmp_path_factory.mktemp("investigator"), real_models,
                         entities=True) as s:
        s.ingest("deposit.eml", _mail(), document_id="mail")
        for name, text in DOCS.items():
            s.ingest(name, text, document_id=name.removesuffix(".txt"))
        yield s


def _entities(svc: Service, group: str) -> dict[str, dict]:
    r = svc.http.get("/entities", params={"group": group, "limit": 200}, headers=svc.auth())
    assert r.status_code == 200, r.text
    return {i["value"]: i for i in r.json()["items"]}


def test_three_spellings_of_a_company_are_one_entity(svc: Service) -> None:
    companies = _entities(svc, "organizations")
    harbor = [e for e in companies.values() if "harbor view properties" in e["value"].lower()]
    assert len(harbor) == 1, companies
    assert set(harbor[0]["spellings"]) >= {"Harbor View Properties LLC",
                                           "HARBOR VIEW PROPERTIES, L.L.C."}
    assert harbor[0]["documents"] >= 3  # the mail, the agreement, the ledger (at least)
    assert not [v for v in companies if v.strip(".").upper() in ("L.L.C", "LLC", "LTD")]
    r = svc.http.get("/entities/organizations/Harbor View Properties/documents",
                     headers=svc.auth())
    assert r.status_code == 200 and {"mail", "agreement"} <= {
        d["document_id"] for d in r.json()["items"]}


def test_header_names_are_persons_and_roles_are_not(svc: Service) -> None:
    persons = _entities(svc, "persons")
    assert {"Marta Lindqvist", "Daniel Okafor"} <= set(persons)
    assert not {"Supplier", "Buyer", "Annex A", "Accounts Payable"} & set(persons)
    organizations = _entities(svc, "organizations")
    assert "Marta Lindqvist" not in organizations and "Daniel Okafor" not in organizations


def test_a_phone_in_00_form_is_a_phone(svc: Service) -> None:
    phones = _entities(svc, "phone_numbers")
    assert "+353 1 555 0142" in phones
    r = svc.search(query="", filters={"entities.phone_numbers": "+353 1 555 0142"})
    assert [x["document_version"]["document_id"] for x in r.json()["results"]] == ["mail"]


def test_the_amount_facet_counts_one_amount_once(svc: Service) -> None:
    r = svc.search(query="", facets=["entities.monetary_amounts"], limit=20)
    amounts = r.json()["meta"]["facets"]["entities.monetary_amounts"]
    eur = [a for a in amounts if "24" in a["value"] and ("EUR" in a["value"])]
    assert len(eur) == 1 and eur[0]["count"] == 3, amounts  # mail, agreement, ledger


@pytest.mark.parametrize("query, holder", [("£1250", "invoice-7"), ("24.000 EUR", "ledger"),
                                            ("EUR 24000", "mail")])
def test_a_bare_amount_finds_the_documents_holding_it_first(svc: Service, query: str,
                                                            holder: str) -> None:
    r = svc.search(query=query, limit=10)
    ids = [x["document_version"]["document_id"] for x in r.json()["results"]]
    holding = {"invoice-7"} if holder == "invoice-7" else {"mail", "agreement", "ledger"}
    assert set(ids[:len(holding)]) == holding, ids
    assert holder in ids[:len(holding)]
