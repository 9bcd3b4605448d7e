"""Simple query syntax: phrases and exclusions read safely (a dash inside a token is no
exclusion, an unclosed quote is a character), and over HTTP each leaves exactly the versions
it should, saying so in meta."""

from __future__ import annotations

import pytest

from app.search.query_syntax import ParsedQuery, holds_phrase, parse_query
from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.mark.parametrize("query, parsed", [
    ('fees "termination fee"', ParsedQuery("fees termination fee", ("termination fee",))),
    ('"Überweisung  Nr."', ParsedQuery("Überweisung Nr.", ("uberweisung nr",))),
    ("reimbursement -holiday", ParsedQuery("reimbursement", (), ("holiday",))),
    ("PO-2231 invoice", ParsedQuery("PO-2231 invoice")),           # inside a token: no
    ("TXN-2024-001 -draft", ParsedQuery("TXN-2024-001", (), ("draft",))),
    ("a - b", ParsedQuery("a - b")),                               # a lone dash: nothing
    ('"unclosed quote', ParsedQuery('"unclosed quote')),           # a character
    ('"" empty', ParsedQuery("empty")),
    ("-holiday", ParsedQuery("", (), ("holiday",))),              # nothing left to find
])
def test_the_syntax_on_both_sides_of_each_rule(query: str, parsed: ParsedQuery) -> None:
    assert parse_query(query) == parsed


def test_a_phrase_matches_word_for_word_whatever_separates_them() -> None:
    assert holds_phrase("The Termination-Fee is due.", "termination fee")
    assert not holds_phrase("termination of the fee", "termination fee")
    assert not holds_phrase("determination fee", "termination fee")  # whole words


DOCUMENTS = {
    "handbook": "You get 25 days of paid holiday a year. Travel reimbursement is paid monthly.",
    "expenses": "Reimbursement of travel costs is made within 30 days of the claim.",
    "contract": "Either party may end the contract with notice. The paid fees are not refunded.",
    "invoice": "Invoice PO-2231 for project Apollo: the fees are due in 30 days.",
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    tmp = tmp_path_factory.mktemp("syntax")
    settings = make_settings(tmp)
    settings.search.sparse_floor = 0.0  # a tiny corpus: every BM25 score counts
    with running_service(tmp, fake_models(), settings=settings) as service:
        for doc_id, text in DOCUMENTS.items():
            service.ingest(f"{doc_id}.txt", text, document_id=doc_id)
        yield service


def _found(svc: Service, **body: object) -> tuple[list[str], dict]:
    answer = svc.search(**body).json()
    return [r["document_version"]["document_id"] for r in answer["results"]], answer


def test_a_phrase_leaves_exactly_the_versions_citing_it(svc: Service) -> None:
    ids, answer = _found(svc, query='"paid holiday"', alpha=0.0)
    assert ids == ["handbook"]
    assert "paid holiday" in answer["results"][0]["content_evidence"]["items"][0]["text"]
    assert answer["meta"]["query_syntax"]["phrases"] == ["paid holiday"]
    assert answer["meta"]["query_syntax"]["removed_by_phrases"] >= 1  # "paid fees" was found


def test_an_exclusion_leaves_out_every_version_holding_the_word(svc: Service) -> None:
    ids, answer = _found(svc, query="reimbursement -holiday", alpha=0.0)
    assert "expenses" in ids and "handbook" not in ids
    assert answer["meta"]["query_syntax"]["exclusions"] == ["holiday"]
    assert answer["meta"]["query_syntax"]["removed_by_exclusions"] == 1
    assert _found(svc, query="PO-2231", alpha=0.0)[0][0] == "invoice"  # no exclusion


def test_syntax_off_reads_every_character_as_plain_words(svc: Service) -> None:
    ids, answer = _found(svc, query="reimbursement -holiday", alpha=0.0, syntax=False)
    assert "handbook" in ids and answer["meta"].get("query_syntax") is None
    plain = _found(svc, query="fees refunded", alpha=0.0)[1]
    assert plain["meta"].get("query_syntax") is None  # no syntax in the query: nothing said
