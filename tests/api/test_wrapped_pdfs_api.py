"""PDFs wrapped as a word processor wraps them, over HTTP (fake models, real engine): a
three-version contract whose changes list exactly the real ones, each once, amounts whole,
however its lines were re-wrapped; ``changed_only`` answering with the changed sentence and
not the unchanged clause beside it; an IBAN and a phone number wrapped over two lines found by
search, filter and entity page in every document naming them (issue 44's "done when")."""

from __future__ import annotations

import pytest

from tests.factories import wrapped_pdf
from tests.fakes import fake_models
from tests.service import Service, running_service

TITLE = ["Service Agreement"]
FEE_V1 = ["1. Fees. The monthly fee is EUR 12,000.00 (twelve thousand euros), payable in",
          "advance to the supplier's account IBAN IE70",
          "BOFI 9000 1712 3456 78."]
FEE_V2 = ["1. Fees. The monthly fee is EUR 14,000.00 (fourteen thousand",  # re-wrapped too
          "euros), payable in advance to the supplier's account IBAN IE70 BOFI 9000",
          "1712 3456 78."]
AUDIT = ["2. Audit. The buyer may audit the records of the supplier once a year."]
EXCLUSIVE = ["2. Exclusivity. The supplier shall not serve competing retailers."]
NOTICE_90 = ["3. Termination. Either party may terminate this agreement with ninety days",
             "notice in writing."]
NOTICE_90_REWRAPPED = ["3. Termination. Either party may terminate this agreement",
                       "with ninety days notice in writing."]
NOTICE_60 = ["3. Termination. Either party may terminate this agreement with sixty days",
             "notice in writing."]
V1 = [TITLE, FEE_V1, AUDIT, NOTICE_90]
V2 = [TITLE, FEE_V2, EXCLUSIVE, NOTICE_90_REWRAPPED]
V3 = [TITLE, FEE_V2, EXCLUSIVE, NOTICE_60]
STATEMENT = [["Statement of account, March"],
             ["Your balance of EUR 2,310.00 is due. Please transfer it to IBAN IE70",
              "BOFI 9000 1712 3456 78 or call our team on +49",
              "40 555 0199 with any question."]]
OTHER = [["Minutes of the board"], ["The board met and approved the budget for the year."]]


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("wrapped")
    settings = make_settings(tmp)
    settings.search.dense_floor = 0.0  # filters and identifiers choose, not the fake vectors
    with running_service(tmp, fake_models(), settings=settings) as s:
        for version in (V1, V2, V3):
            s.ingest("contract.pdf", wrapped_pdf(version), document_id="contract")
        s.ingest("statement.pdf", wrapped_pdf(STATEMENT), document_id="statement")
        s.ingest("minutes.pdf", wrapped_pdf(OTHER), document_id="minutes")
        yield s


def _changes(svc: Service, **params: str) -> list[tuple]:
    r = svc.http.get("/documents/contract/changes", params=params, headers=svc.auth())
    assert r.status_code == 200, r.text
    return [(c["kind"], (c["before"] or {}).get("text"), (c["after"] or {}).get("text"))
            for c in r.json()["changes"]]


def test_the_changes_are_the_real_ones_each_once_amounts_whole(svc: Service) -> None:
    assert _changes(svc, **{"from": "v1", "to": "v2"}) == [
        ("changed", "1. Fees. The monthly fee is EUR 12,000.00 (twelve thousand euros), "
                    "payable in advance to the supplier's account IBAN IE70 BOFI 9000 1712 "
                    "3456 78.",
         "1. Fees. The monthly fee is EUR 14,000.00 (fourteen thousand euros), payable in "
         "advance to the supplier's account IBAN IE70 BOFI 9000 1712 3456 78."),
        ("removed", "2. Audit. The buyer may audit the records of the supplier once a year.",
         None),
        ("added", None, "2. Exclusivity. The supplier shall not serve competing retailers.")]
    # the notice period changed; nothing else, though v2's lines were wrapped otherwise
    assert _changes(svc) == [
        ("changed", "3. Termination. Either party may terminate this agreement with ninety "
                    "days notice in writing.",
         "3. Termination. Either party may terminate this agreement with sixty days notice "
         "in writing.")]


def test_a_changed_item_marks_the_changed_words_and_says_where_it_stands(svc: Service) -> None:
    r = svc.http.get("/documents/contract/changes", params={"from": "v1", "to": "v2"},
                     headers=svc.auth()).json()
    fee = r["changes"][0]
    assert [fee["before"]["text"][a:b] for a, b in fee["before"]["marks"]] == [
        "12,000.00 (twelve"]
    assert [fee["after"]["text"][a:b] for a, b in fee["after"]["marks"]] == [
        "14,000.00 (fourteen"]
    assert fee["after"]["location"]["page"] == 1
    assert (fee["after"]["location"]["line_start"], fee["after"]["location"]["line_end"]) == (
        1, 7)  # the chunk's lines on the page: the whole short contract
    assert r["changes"][1]["before"].get("marks") is None
    assert "span" not in r["changes"][1]["before"]


def _changed_rows(svc: Service, query: str) -> dict[tuple[str, str], list[tuple]]:
    r = svc.search(query=query, alpha=0.0, changed_only=True, versions="all")
    assert r.status_code == 200, r.text
    return {(row["document_version"]["document_id"], row["document_version"]["version_id"]):
            [(i["change"], i["snippet"]["text"]) for i in row["content_evidence"]["items"]]
            for row in r.json()["results"]}


def test_changed_only_answers_with_the_changed_sentence_not_the_clause_beside_it(
        svc: Service) -> None:
    rows = _changed_rows(svc, "monthly fee termination")
    # v1 has no predecessor; v2 changed the fee (its termination clause only re-wrapped);
    # v3 changed the notice period (its fee is v2's)
    assert rows == {
        ("contract", "v2"): [("changed", "1. Fees. The monthly fee is EUR 14,000.00 (fourteen "
                                         "thousand euros), payable in advance to the "
                                         "supplier's account IBAN IE70 BOFI 9000 1712 3456 "
                                         "78.")],
        ("contract", "v3"): [("changed", "3. Termination. Either party may terminate this "
                                         "agreement with sixty days notice in writing.")]}
    # the fee changed in v2 only; the exclusivity clause was added by v2 and kept by v3
    assert _changed_rows(svc, "monthly fee") == {("contract", "v2"): rows[("contract", "v2")]}
    assert _changed_rows(svc, "competing retailers") == {("contract", "v2"): [
        ("added", "2. Exclusivity. The supplier shall not serve competing retailers.")]}


IBAN = "IE70 BOFI 9000 1712 3456 78"


@pytest.mark.parametrize("query", [IBAN, "IE70BOFI90001712345678", "+49405550199"])
def test_a_wrapped_identifier_is_found_by_search_in_every_document(svc: Service,
                                                                   query: str) -> None:
    body = svc.search(query=query, alpha=0.0).json()
    ids = {r["document_version"]["document_id"] for r in body["results"]}
    expected = {"statement"} if query.startswith("+49") else {"contract", "statement"}
    assert expected <= ids and "minutes" not in ids


@pytest.mark.parametrize("key, value, expected", [
    ("entities.account_numbers", "ie70bofi90001712345678", {"contract", "statement"}),
    ("entities.phone_numbers", "+49 (0)40 555 0199", {"statement"}),
    ("entities.phone_numbers", "+49 40 555 0198", set()),  # one digit off: both sides
])
def test_a_wrapped_identifier_is_found_by_filter(svc: Service, key: str, value: str,
                                                 expected: set[str]) -> None:
    r = svc.search(query="agreement statement minutes", alpha=0.0, filters={key: value})
    assert r.status_code == 200, r.text
    assert {row["document_version"]["document_id"] for row in r.json()["results"]} == expected


def test_a_wrapped_iban_has_its_entity_page_with_both_documents(svc: Service) -> None:
    r = svc.http.get(f"/entities/account_numbers/{IBAN}/documents", headers=svc.auth())
    assert r.status_code == 200, r.text
    assert {i["document_id"] for i in r.json()["items"]} == {"contract", "statement"}



def test_each_chunk_keeps_its_sentences_as_found_once_at_ingestion(svc: Service) -> None:
    from sqlalchemy import select

    from app.domain.sentences import split
    from app.registry.tables import Document
    from app.store import ChunkFilter

    with svc.runtime.sessions() as session:
        client_id = session.scalars(select(Document.client_id).where(
            Document.document_id == "contract")).one()
    hits = svc.runtime.store.scroll(ChunkFilter(client_id=client_id, searchable_only=False,
                                                document_ids=("contract",)))
    assert len(hits) == 3  # a chunk a version
    for hit in hits:
        text, spans = hit.payload["text"], hit.payload["sentence_spans"]
        assert spans == [x for span in split(text) for x in span]
        assert [text[a:b] for a, b in zip(spans[::2], spans[1::2], strict=True)][:2] == [
            "Service Agreement",
            text[text.index("1. Fees."):text.index("78.") + 3]]  # the IBAN inside, whole


def test_a_collection_with_chunks_stored_before_sentences_were_kept_is_told(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """app/main.chunks_without_sentences: false for chunks ingested now, true once a chunk
    written the old way (no ``sentence_spans``) is what the engine holds first."""
    from sqlalchemy import select

    from app.main import chunks_without_sentences
    from app.registry.tables import Client
    from app.store import ChunkFilter, ChunkPoint
    from app.store.base import SEARCHABLE, point_id

    with running_service(tmp_path_factory.mktemp("old"), fake_models()) as s:
        assert chunks_without_sentences(s.runtime) is False  # nothing stored
        s.ingest("note.txt", "A note that is long enough to be a sentence.", document_id="n")
        assert chunks_without_sentences(s.runtime) is False
        with s.runtime.sessions() as session:
            client_id = session.scalars(select(Client.id)).first()
        [hit] = s.runtime.store.scroll(ChunkFilter(client_id=client_id))
        old = {k: v for k, v in hit.payload.items() if k != "sentence_spans"}
        s.runtime.store.upsert([ChunkPoint(
            id=point_id(client_id, "n", old["version_id"], 0), dense=[0.1] * 384,
            sparse=s.runtime.models.sparse.embed_documents(["note"])[0],
            payload={**old, "visibility": SEARCHABLE})])
        assert chunks_without_sentences(s.runtime) is True
