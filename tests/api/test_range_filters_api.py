"""Range and negated filters over HTTP (fake models, real engine): on custom numbers and dates,
on the amounts and days found in the text, on reserved keys; every misuse a 422 with a reason."""

from __future__ import annotations

import json

import pytest

from tests.fakes import fake_models
from tests.service import Service, running_service

DOCS = {
    "wire": ("Wire of $10,000.00 on 15 January 2024 to Kestrel.",
             {"amount": 10000, "signed": "2024-01-15", "status": "final"}),
    "fee": ("A fee of $950 was charged on 3 March 2024 to Kestrel.",
            {"amount": 950, "signed": "2024-03-03", "status": "draft"}),
    "lease": ("Lease rent €2,300 from 1 June 2024 for Kestrel's warehouse.",
              {"amount": 2300, "signed": "2024-06-01T09:00:00Z", "status": "final"}),
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("ranges")
    settings = make_settings(tmp)
    settings.search.dense_floor = 0.0  # every document holds the query word: all may answer
    with running_service(tmp, fake_models(), settings=settings) as s:
        for doc_id, (text, custom) in DOCS.items():
            s.ingest(f"{doc_id}.txt", text, document_id=doc_id, metadata=json.dumps(custom))
        yield s


def _ids(svc: Service, filters: dict, scope: str = "content") -> list[str]:
    r = svc.search(query="Kestrel", alpha=1.0, limit=20, filters=filters, scope=scope)
    assert r.status_code == 200, r.text
    return sorted(row["document_version"]["document_id"] for row in r.json()["results"])


@pytest.mark.parametrize("filters, expected", [
    ({"custom.amount": {"gte": 2300}}, ["lease", "wire"]),
    ({"custom.amount": {"gt": 950, "lt": 10000}}, ["lease"]),
    ({"custom.amount": {"lte": 950}}, ["fee"]),
    ({"custom.signed": {"gte": "2024-02-01"}}, ["fee", "lease"]),
    ({"custom.signed": {"lt": "2024-06-01T10:00:00+00:00", "gt": "2024-03-03"}}, ["lease"]),
    ({"entities.monetary_amounts": {"gte": 1000}}, ["lease", "wire"]),
    ({"entities.monetary_amounts": {"gte": 1000, "currency": "USD"}}, ["wire"]),
    ({"entities.dates_times": {"gte": "2024-03-01", "lte": "2024-03-31"}}, ["fee"]),
    ({"custom.status": {"not": "draft"}}, ["lease", "wire"]),
    ({"kind": {"not": ["txt"]}}, []),
    ({"document_id": {"not": ["wire", "fee"]}}, ["lease"]),
    ({"custom.amount": {"gte": 900}, "custom.status": {"not": "final"}}, ["fee"]),
])
def test_ranges_and_negations_narrow_inside_the_engine(svc: Service, filters: dict,
                                                       expected: list[str]) -> None:
    assert _ids(svc, filters) == expected
    echoed = svc.search(query="Kestrel", filters=filters).json()["meta"]["applied_filters"]
    assert set(echoed) == set(filters)


def test_the_metadata_lane_applies_them_the_same_way(svc: Service) -> None:
    r = svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                      headers=svc.auth())
    assert r.status_code == 200
    svc.worker.drain()
    assert _ids(svc, {"custom.amount": {"gte": 2300}}, scope="both") == ["lease", "wire"]
    assert _ids(svc, {"document_id": {"not": "wire"}}, scope="both") == ["fee", "lease"]
    assert _ids(svc, {"custom.signed": {"gte": "2024-02-01"}}, scope="both") == ["fee", "lease"]


@pytest.mark.parametrize("filters, why", [
    ({"custom.amount": {"gte": "lots"}}, "numbers, or dates"),
    ({"custom.amount": {"gte": True}}, None),
    ({"custom.amount": {"between": 1}}, None),
    ({"custom.amount": {}}, None),
    ({"kind": {"gte": 1}}, "not to a reserved key"),
    ({"entities.persons": {"gte": 1}}, "ranges apply to entities.monetary_amounts"),
    ({"entities.monetary_amounts": {"gte": 1, "currency": "DOLLARS"}}, "ISO 4217"),
    ({"entities.dates_times": {"gte": 5}}, "days compare with dates"),
    ({"custom.status": {"gte": 1}}, "a range needs numbers or dates"),
    ({"custom.amount": {"gte": 1, "lte": "2024-01-01"}}, "all of one kind"),
    ({"custom.amount": {"not": {"a": 1}}}, None),
])
def test_a_misused_range_or_negation_is_a_422_with_the_reason(svc: Service, filters: dict,
                                                               why: str | None) -> None:
    r = svc.search(query="Kestrel", filters=filters)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] in ("INVALID_FILTER", "INVALID_REQUEST"), error
    if why:
        assert why in error["message"], error["message"]


def test_facets_count_the_whole_ranked_set_not_the_page(svc: Service) -> None:
    body = svc.search(query="Kestrel", alpha=1.0, limit=1,
                      facets=["kind", "custom.status", "custom.amount"]).json()
    assert len(body["results"]) == 1 and body["meta"]["total"] == 3
    facets = body["meta"]["facets"]
    assert facets["kind"] == [{"value": "txt", "count": 3}]
    assert facets["custom.status"] == [{"value": "final", "count": 2},
                                       {"value": "draft", "count": 1}]
    assert [v["count"] for v in facets["custom.amount"]] == [1, 1, 1]
    narrowed = svc.search(query="Kestrel", alpha=1.0, facets=["custom.status"],
                          filters={"custom.amount": {"gte": 2000}}).json()["meta"]["facets"]
    assert narrowed == {"custom.status": [{"value": "final", "count": 2}]}
    assert svc.search(query="Kestrel").json()["meta"]["facets"] is None


@pytest.mark.parametrize("facets", [["nope.key"], ["custom..x"], ["document_id"]])
def test_a_facet_that_is_no_key_is_a_422(svc: Service, facets: list[str]) -> None:
    r = svc.search(query="Kestrel", facets=facets)
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_FACET"


def test_money_in_a_currency_column_is_filterable_by_range(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The issue's ledger: a cell 48500 under ``Debit (EUR)`` is EUR 48,500; four debits are
    ≥ 24,000 and the filter finds the sheet by them, both sides of the bound."""
    import io

    import openpyxl

    from tests.conftest import make_settings

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Date", "Description", "Debit (EUR)", "Credit (EUR)"])
    for row in (["2024-03-05", "Freight Kestrel", 48500, 0],
                ["2024-03-09", "Kestrel fees", 24000, 0],
                ["2024-04-02", "Kestrel consulting", 31000, 0],
                ["2024-05-01", "Kestrel audit", 26500.5, 0], ["2024-05-03", "Kestrel", 120, 0]):
        sheet.append(row)
    data = io.BytesIO()
    book.save(data)
    settings = make_settings(tmp_path)
    settings.search.dense_floor = 0.0
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        s.ingest("ledger.xlsx", data.getvalue(), document_id="ledger")
        s.ingest("memo.txt", "Kestrel invoiced 48500 crates.", document_id="memo")

        def found(bounds: dict) -> list[str]:
            r = s.search(query="Kestrel", alpha=1.0, filters={
                "kind": "xlsx", "entities.monetary_amounts": bounds})
            assert r.status_code == 200, r.text
            return [row["document_version"]["document_id"] for row in r.json()["results"]]

        assert found({"gte": 20000}) == ["ledger"]
        assert found({"gte": 48500, "currency": "EUR"}) == ["ledger"]
        assert found({"gt": 48500}) == []
        assert found({"gte": 20000, "currency": "USD"}) == []


def test_the_timeline_facet_counts_the_answers_versions_per_month(svc: Service) -> None:
    body = svc.search(query="Kestrel", alpha=1.0, facets=["entities.dates_times:month",
                                                          "entities.dates_times:year"]).json()
    assert body["meta"]["facets"] == {
        "entities.dates_times:month": [{"value": "2024-01", "count": 1},
                                       {"value": "2024-03", "count": 1},
                                       {"value": "2024-06", "count": 1}],
        "entities.dates_times:year": [{"value": "2024", "count": 3}]}
    narrowed = svc.search(query="Kestrel", alpha=1.0, facets=["entities.dates_times:month"],
                          filters={"custom.status": "final"}).json()["meta"]["facets"]
    assert [v["value"] for v in narrowed["entities.dates_times:month"]] == ["2024-01", "2024-06"]
    other = svc.new_client("timeline-other")
    theirs = svc.search(key=other, query="Kestrel", facets=["entities.dates_times:month"])
    assert theirs.json()["meta"]["facets"] == {"entities.dates_times:month": []}
