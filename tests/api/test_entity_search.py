"""Entity-aware search with the real models: amounts, days and ids written another way than
the document find it first, with look-alike numbers present (tests/search/entity_queries.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.search.entity_queries import DOCUMENTS, QUERIES
from tests.service import Service, running_service

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, real_models) -> Service:  # type: ignore[no-untyped-def]
    with running_service(tmp_path_factory.mktemp("entities"), real_models,
                         entities=True) as s:
        for doc_id, text in DOCUMENTS.items():
            s.ingest(f"{doc_id}.txt", text, document_id=doc_id)
        yield s


@pytest.mark.parametrize("query, expected, shape", QUERIES)
def test_an_entity_written_another_way_finds_its_document_first(
        svc: Service, query: str, expected: str, shape: str) -> None:
    body = svc.search(query=query, explain=True).json()
    ids = [r["document_version"]["document_id"] for r in body["results"]]
    assert ids and ids[0] == expected, (query, shape, ids)
    lanes = {c["lane"]: c["rank"] for c in body["results"][0]["retrieval_contributions"]}
    assert lanes.get("entity") == 1, (query, lanes)
    assert "entity" in body["meta"]["retrieval"]["lanes"]


def test_a_look_alike_number_is_no_entity(svc: Service) -> None:
    body = svc.search(query="10000 crates", explain=True).json()
    assert body["results"][0]["document_version"]["document_id"] == "count"
    assert "entity" not in body["meta"]["retrieval"]["lanes"]


def test_stored_chunks_carry_their_entities_in_one_form(svc: Service, tmp_path: Path) -> None:
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.store import ChunkFilter

    with transaction(svc.runtime.sessions) as s:
        client_id = reg.caller_for_key(s, secret=svc.key).id
    [wire] = svc.runtime.store.scroll(ChunkFilter(client_id, document_ids=("wire",)))
    assert {"money:USD:10000.00", "date:2024-01-15", "id:acct998877",
            "id:txn2024001"} <= set(wire.payload["entity_keys"])
    [count] = svc.runtime.store.scroll(ChunkFilter(client_id, document_ids=("count",)))
    assert not [k for k in count.payload["entity_keys"] if k.startswith("money:")]


def test_entity_facets_count_the_versions_holding_each_value(svc: Service) -> None:
    body = svc.search(query="account paid", alpha=0.0, limit=1,
                      facets=["entities.account_numbers"]).json()
    counts = {v["value"]: v["count"] for v in body["meta"]["facets"]["entities.account_numbers"]}
    assert counts == {"ACCT-998877": 1, "ACCT-998870": 1}


def test_alpha_one_is_the_dense_lane_alone_even_for_an_id(svc: Service) -> None:
    """The contract: alpha 1 is dense-only retrieval, so no entity (or BM25) contribution."""
    body = svc.search(query="ACCT 998877", alpha=1.0, explain=True).json()
    assert body["meta"]["retrieval"]["lanes"] == ["dense"]
    for row in body["results"]:
        assert "entity" not in {c["lane"] for c in row["retrieval_contributions"]}
        for item in row["content_evidence"]["items"]:
            assert item["scores"].get("entity_rank") is None


@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.5])
def test_an_amount_with_no_word_in_common_is_found_by_words_side_alphas(
        svc: Service, alpha: float) -> None:
    """ "10000 dollars" shares no word with "$10,000.00": the entity lane finds it by the value,
    at alpha 0 too (it sits on the words side, weighted 1 - alpha)."""
    body = svc.search(query="10000 dollars", alpha=alpha, explain=True).json()
    ids = [r["document_version"]["document_id"] for r in body["results"]]
    assert ids and ids[0] == "wire", (alpha, ids)
    assert "entity" in body["meta"]["retrieval"]["lanes"]


def test_why_not_answers_for_a_query_naming_an_amount(svc: Service) -> None:
    """It was a 500: the diagnosis refused the lane name "entity". The MCP tool, the CLI's
    --why and the console all read this same answer."""
    r = svc.search(query="10000 dollars", diagnose=["wire", "count", "nothing"])
    assert r.status_code == 200, r.text
    found = {d["document_id"]: d for d in r.json()["meta"]["diagnostics"]}
    assert found["wire"]["status"] == "SHOWN" and found["nothing"]["status"] == "NOT_FOUND"
    r = svc.search(query="10000 dollars", limit=1, diagnose=list(DOCUMENTS))
    assert r.status_code == 200, r.text
    looked = [lane for d in r.json()["meta"]["diagnostics"] for lane in d.get("lanes") or []]
    assert "entity" in {lane["lane"] for lane in looked}


def test_every_lane_the_search_runs_is_a_lane_every_answer_may_name() -> None:
    from typing import get_args

    from app.api.schemas import ContentLane, LaneDiagnosis, LaneExplain
    from app.search.pipeline import STEPS
    from app.search.service import LANE_ORDER

    assert set(get_args(ContentLane)) == set(LANE_ORDER) == {
        s for s in STEPS if s in ("dense", "sparse", "entity")}
    for model in (LaneDiagnosis, LaneExplain):
        assert set(model.model_json_schema()["properties"]["lane"]["enum"]) == set(LANE_ORDER)
