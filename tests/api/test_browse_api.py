"""Browsing by filters (issue 51): an empty query (or ``*``) lists every visible version under
the filters, in a stated order, paged like a search, with facets; words that never occur in a
document do not hide it (the March ledger never says "payment")."""

from __future__ import annotations

import json

import pytest

from tests.fakes import fake_models
from tests.service import Service, running_service

DOCS = {
    # the ledger holds March days and no word of the query "payment"
    "ledger": ("Ledger entries: 4 March 2024 office rent; 28 March 2024 courier.", {}),
    "invoice": ("Payment of EUR 1,200 due on 15 January 2024 to Kestrel.", {}),
    "memo": ("Payment reminder sent on 12 March 2024.", {"team": "audit"}),
    "notes": ("Meeting notes with no day in them.", {"team": "audit"}),
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("browse")
    with running_service(tmp, fake_models(), settings=make_settings(tmp)) as s:
        for doc_id, (text, custom) in DOCS.items():  # published in this order
            s.ingest(f"{doc_id}.txt", text, document_id=doc_id, metadata=json.dumps(custom))
        yield s


MARCH = {"entities.dates_times": {"gte": "2024-03-01", "lte": "2024-03-31"}}


def _ids(r) -> list[str]:  # type: ignore[no-untyped-def]
    assert r.status_code == 200, r.text
    return [row["document_version"]["document_id"] for row in r.json()["results"]]


def test_an_empty_query_with_a_march_range_lists_the_march_ledger(svc: Service) -> None:
    worded = _ids(svc.search(query="payment", filters=MARCH, limit=20))
    assert "ledger" not in worded  # what the issue saw: the words hide it
    r = svc.search(query="", filters=MARCH, limit=20)
    assert sorted(_ids(r)) == ["ledger", "memo"]
    body = r.json()
    assert body["meta"]["total"] == 2 and body["meta"]["total_is_lower_bound"] is False
    ledger = next(x for x in body["results"] if x["document_version"]["document_id"] == "ledger")
    item = ledger["content_evidence"]["items"][0]
    assert item["chunk_index"] == 0 and "4 March 2024" in item["text"]
    assert item["literal_spans"] == []  # no word was asked
    assert ledger["retrieval_contributions"] == [{"lane": "content", "rank": ledger["rank"]}]
    assert _ids(svc.search(query="*", filters=MARCH, limit=20)) == _ids(r)


def test_the_default_order_is_newest_first_and_others_are_stated(svc: Service) -> None:
    # no document here has its own date: publication order decides, newest first
    assert _ids(svc.search(query="", limit=20)) == ["notes", "memo", "invoice", "ledger"]
    assert _ids(svc.search(query="", sort="updated_at", limit=20)) == [
        "notes", "memo", "invoice", "ledger"]
    assert _ids(svc.search(query="*", sort="document_id", limit=20)) == [
        "invoice", "ledger", "memo", "notes"]


def test_a_browse_pages_and_counts_facets_over_every_version(svc: Service) -> None:
    first = svc.search(query="", sort="document_id", limit=2, offset=0).json()
    second = svc.search(query="", sort="document_id", limit=2, offset=2).json()
    assert [r["rank"] for r in first["results"] + second["results"]] == [1, 2, 3, 4]
    assert first["meta"]["has_more"] is True and second["meta"]["has_more"] is False
    r = svc.search(query="", filters={"custom.team": "audit"}, facets=["custom.team"],
                   sort="document_id")
    assert _ids(r) == ["memo", "notes"]
    assert r.json()["meta"]["facets"]["custom.team"] == [{"value": "audit", "count": 2}]


def test_browse_misuse_is_a_422_with_its_code(svc: Service) -> None:
    r = svc.search(query="payment", sort="date")
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_SORT"
    r = svc.search(query="", changed_only=True)
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_BROWSE"
    r = svc.search(query="", autocut=True, rerank=True)  # nothing to weigh: said, not refused
    assert r.status_code == 200 and "rerank and autocut ignored" in r.json()["meta"]["warnings"][0]
    r = svc.search(query="   ")  # whitespace alone is still no query
    assert r.status_code == 422
    r = svc.search(query="", sort="size")
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_SORT"
