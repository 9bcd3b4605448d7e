"""An e-mail with attachments over HTTP (fake models, real engine): each attachment its own
document naming its e-mail, found by its own words; the e-mail lists them; its next version
gives them next versions and drops the ones it no longer has; deleting it deletes them."""

from __future__ import annotations

from email import message_from_bytes, policy
from pathlib import Path

import pytest

from tests.factories import eml_bytes, pdf_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service

INNER = message_from_bytes(eml_bytes("Original quote", "Quote from Ostrava Freight.",
                                     attachments=[("quote.txt", b"Quote: 4 pallets, tamarind.")]),
                           policy=policy.default)


def _mail(version: int) -> bytes:
    attachments = [("invoice.pdf", pdf_bytes([f"Invoice 7781 from Globex, version {version}.",
                                             "Pay to account ACCT-998877 by zanzibar wire."]))]
    if version == 1:
        attachments += [("ledger.csv", b"date,amount\n2024-01-15,18450 quokka\n"),
                        ("setup.exe", b"MZ\x90\x00 an executable"), ("fwd", INNER)]
    return eml_bytes("Invoice 7781 and the ledger", "Jane here: invoice attached.",
                     attachments=attachments)


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models()) as s:
        s.ingest("note.txt", "An unrelated note about the warehouse.", document_id="note")
        s.ingest("mail.eml", _mail(1), document_id="mail", metadata='{"case": "A-17"}')
        for _ in range(4):  # attachments, then the attachment's attachment
            s.worker.drain()
        yield s


def _doc(svc: Service, document_id: str) -> dict:
    r = svc.http.get(f"/documents/{document_id}", headers=svc.auth())
    assert r.status_code == 200, (document_id, r.text)
    return r.json()


def _first(svc: Service, query: str) -> dict:
    body = svc.search(query=query, alpha=0.0).json()
    assert body["results"], query
    return body["results"][0]


def test_each_attachment_is_its_own_document_naming_its_email(svc: Service) -> None:
    row = _first(svc, "zanzibar")
    pdf_id = row["document_version"]["document_id"]
    assert pdf_id == "mail--1-invoice.pdf"
    source = row["canonical_metadata"]["source"]
    assert source["attached_to"] == {"document_id": "mail", "version_id": "v1",
                                     "filename": "mail.eml", "depth": 1}
    assert row["canonical_metadata"]["custom"] == {"case": "A-17"}  # the e-mail's labels
    assert row["content_evidence"]["items"][0]["page"] == 2
    assert _first(svc, "quokka")["document_version"]["document_id"] == "mail--2-ledger.csv"
    nested = _first(svc, "tamarind")  # an e-mail attached to the e-mail, and its attachment
    assert nested["canonical_metadata"]["source"]["attached_to"]["depth"] == 2
    assert _doc(svc, "mail--4-fwd.eml")["state"] == "published"


def test_the_email_lists_its_attachments_and_says_what_it_skipped(svc: Service) -> None:
    row = _first(svc, "Jane invoice attached")
    assert row["document_version"]["document_id"] == "mail"
    document = row["canonical_metadata"]["document"]
    assert (document["kind"], document["subject"], document["from"]) == (
        "eml", "Invoice 7781 and the ledger", "Jane Doe <jane@acme.example>")
    assert [a["document_id"] for a in document["attachments"]] == [
        "mail--1-invoice.pdf", "mail--2-ledger.csv", "mail--4-fwd.eml"]
    warnings = row["canonical_metadata"]["quality"]["warnings"]
    assert any(w.startswith("attachment setup.exe is not indexed") for w in warnings)
    by_sender = svc.search(query="invoice", alpha=0.0,
                           filters={"document.from": "Jane Doe <jane@acme.example>"}).json()
    assert [r["document_version"]["document_id"] for r in by_sender["results"]] == ["mail"]


def test_a_new_version_of_the_email_versions_its_attachments_and_drops_the_gone(
        svc: Service) -> None:
    svc.ingest("mail.eml", _mail(2), document_id="mail")
    svc.worker.drain()
    assert _doc(svc, "mail")["current_version_id"] == "v2"
    invoice = _doc(svc, "mail--1-invoice.pdf")
    assert invoice["current_version_id"] == "v2"
    row = _first(svc, "zanzibar")
    assert row["document_version"]["version_id"] == "v2"
    assert row["canonical_metadata"]["source"]["attached_to"]["version_id"] == "v2"
    for gone in ("mail--2-ledger.csv", "mail--4-fwd.eml"):
        assert svc.http.get(f"/documents/{gone}", headers=svc.auth()).status_code == 404
    assert not svc.search(query="quokka", alpha=0.0).json()["results"]


def test_deleting_the_email_deletes_its_attachments_and_theirs(svc: Service) -> None:
    assert svc.http.delete("/documents/mail", headers=svc.auth()).status_code == 204
    listing = svc.http.get("/documents", headers=svc.auth()).json()
    assert [d["document_id"] for d in listing["documents"]] == ["note"]
    for word in ("zanzibar", "quokka", "tamarind"):
        assert not svc.search(query=word, alpha=0.0).json()["results"], word
