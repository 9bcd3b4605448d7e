"""POST /search over HTTP with deterministic fake models: contract shape, errors, rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.registry import clients as reg
from app.registry.database import transaction
from tests.factories import sans_request_id
from tests.fakes import FakeDense, FakeReranker, fake_models
from tests.service import Service, running_service

CONTRACT = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "004_b48837ed2e23a1b8.txt"


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models(reranker=FakeReranker())) as service:
        service.ingest("budget.md", "# Budget\n\nThe budget report for Apollo.\n",
                       document_id="budget", metadata='{"project": "Apollo"}')
        service.ingest("invoice.txt", "Invoice PO-2231 was paid.", document_id="invoice")
        service.ingest("travel.txt", "Travel expenses are reimbursed.", document_id="travel")
        yield service


def test_answer_has_exactly_the_contract_shape(svc: Service) -> None:
    r = svc.search(query="budget report", scope="CONTENT", alpha=0.5)
    assert r.status_code == 200
    body = r.json()
    row = body["results"][0]
    assert set(row) == {"rank", "document_version", "canonical_metadata",
                        "retrieval_contributions", "content_evidence", "metadata_evidence"}
    assert row["rank"] == 1
    ref = row["document_version"]
    assert {k: ref[k] for k in ("document_id", "version_id")} == {"document_id": "budget",
                                                                  "version_id": "v1"}
    # additive (the version timeline): exactly these, and a current version's are these
    assert set(ref) - {"document_id", "version_id"} == {"is_current", "published_at",
                                                         "superseded_at", "superseded_by"}
    assert (ref["is_current"], ref["superseded_at"], ref["superseded_by"]) == (True, None, None)
    assert row["retrieval_contributions"] == [{"lane": "content", "rank": 1}]
    assert row["metadata_evidence"] == {"items": [], "total": 0, "truncated": False}
    assert row["canonical_metadata"]["custom"] == {"project": "Apollo"}
    assert set(row["canonical_metadata"]) == {"schema_version", "source", "document",
                                              "location", "classification", "quality",
                                              "custom"}
    item = row["content_evidence"]["items"][0]
    assert {"chunk_id", "chunk_index", "text", "page", "literal_spans"} <= set(item)
    assert item["chunk_id"] == "budget:v1:0" and item["page"] is None
    assert [s["text"] for s in item["literal_spans"]] == ["budget", "report"]
    assert row["content_evidence"]["total"] == 1 and not row["content_evidence"]["truncated"]
    meta = body["meta"]
    assert {"query", "total", "total_is_lower_bound", "offset", "limit", "has_more",
            "query_time_ms", "retrieval", "applied_filters"} <= set(meta)
    assert meta["query"] == "budget report" and meta["scope"] == "content"
    assert meta["retrieval"] == {"alpha": 0.5, "fusion": "rank", "calibrated": False,
                                 "reranked": False, "reranked_count": 0, "status": "complete",
                                 "lanes": ["dense", "sparse"], "failures": [],
                                 "query_language": "en", "alpha_reason": None}
    assert meta["warnings"] == []  # a complete answer says nothing
    # every stage that ran (app/search/stages.STAGES), the lanes by their own steps
    assert set(meta["timings"]) == {"parse", "plan", "embed", "dense", "sparse", "entity", "fuse",
                                    "rerank", "group", "rank", "window", "evidence", "snippets",
                                    "annotate", "total"}
    assert meta["query_time_ms"] == meta["timings"]["total"]


def test_openapi_schema_of_search_names_every_contract_field(svc: Service) -> None:
    schema = svc.http.get("/openapi.json").json()
    comps = schema["components"]["schemas"]

    def props(name: str) -> set[str]:
        return set(comps[name]["properties"])

    text = CONTRACT.read_text() if CONTRACT.exists() else None
    example_keys = set(re.findall(r'"([a-z_]+)":', text)) if text else set()
    ours = set().union(*(props(n) for n in (
        "EvidenceResult", "ResultRow", "DocumentVersionRef", "Contribution", "ContentEvidence",
        "ContentItem", "MetadataEvidence", "Meta", "RetrievalInfo", "SearchRequest")))
    # canonical_metadata's inner keys are data, not schema
    data_keys = {"schema_version", "source", "filename", "document", "location",
                 "classification", "status", "categories", "quality", "text_extraction",
                 "ocr_used", "warnings", "custom", "project"}
    if text:
        assert example_keys - data_keys <= ours, example_keys - data_keys - ours
    assert props("SearchRequest") == {"query", "scope", "alpha", "rerank", "filters", "offset",
                                      "limit", "explain", "fusion", "versions", "as_of",
                                      "diagnose", "facets", "syntax", "autocut",
                                      "collapse", "changed_only", "sort"}  # additive: 10
    assert schema["paths"]["/search"]["post"]["responses"]["200"]["content"][
        "application/json"]["schema"]["$ref"].endswith("/EvidenceResult")


@pytest.mark.parametrize("body,status,code", [
    ({"query": "x", "sort": "date"}, 422, "INVALID_SORT"),  # a search is ordered by relevance
    ({"query": "", "sort": "size"}, 422, "INVALID_SORT"),
    ({"query": "   \n"}, 422, "INVALID_QUERY"),
    ({"query": "-holiday -leave"}, 422, "INVALID_QUERY"),  # nothing to find but exclusions
    ({"query": "x", "alpha": 1.5}, 422, "INVALID_ALPHA"),
    ({"query": "x", "alpha": -0.1}, 422, "INVALID_ALPHA"),
    ({"query": "x", "scope": "everything"}, 422, "INVALID_SCOPE"),
    ({"query": "x", "limit": 0}, 422, "INVALID_LIMIT"),
    ({"query": "x", "offset": -1}, 422, "INVALID_OFFSET"),
    ({"query": "x", "offset": 150, "limit": 51}, 422, "WINDOW_TOO_LARGE"),
    ({"query": "x", "colour": "red"}, 422, "UNKNOWN_FIELD"),
    ({"scope": "content"}, 422, "INVALID_QUERY"),
    ({"query": "x", "filters": {"nope.project": "Apollo"}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"custom..project": "Apollo"}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"document.page_count": "3"}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"custom.project": {"a": 1}}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"custom.project": []}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"kind": "exe"}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"document_id": 12}}, 422, "INVALID_FILTER"),
    ({"query": "x", "filters": {"entities.colors": "red"}}, 422, "UNKNOWN_ENTITY_GROUP"),
    ({"query": "x", "filters": {"custom.abc\n": 1}}, 422, "INVALID_FILTER"),
    ({"query": "x", "alpha": True}, 422, "INVALID_ALPHA"),        # strict: never 1.0
    ({"query": "x", "alpha": "0.5"}, 422, "INVALID_ALPHA"),       # strict: never 0.5
    ({"query": "x", "rerank": "yes"}, 422, "INVALID_REQUEST"),
    ({"query": "x", "limit": 10.5}, 422, "INVALID_LIMIT"),
    ({"query": "x", "limit": "10"}, 422, "INVALID_LIMIT"),       # strict: never 10
    ({"query": "x", "scope": "metadata"}, 409, "METADATA_DISCOVERY_NOT_READY"),
    ({"query": "x", "scope": "Both"}, 409, "METADATA_DISCOVERY_NOT_READY"),
])
def test_every_bad_request_gets_its_code(svc: Service, body: dict, status: int,
                                         code: str) -> None:
    r = svc.search(**body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"]


def test_an_integer_written_with_a_zero_fraction_is_an_integer(svc: Service) -> None:
    """JSON Schema's integer (what the spec promises) holds 10.0: schemathesis sends it."""
    r = svc.search(query="x", limit=10.0, offset=0.0)
    assert r.status_code == 200, r.text
    assert (r.json()["meta"]["limit"], r.json()["meta"]["offset"]) == (10, 0)


def test_a_typo_gets_the_nearest_keys_once_the_catalog_is_complete(svc: Service) -> None:
    r = svc.search(query="x", filters={"entities.acount_numbers": "ACCT-1"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "UNKNOWN_ENTITY_GROUP"
    assert error["details"]["nearest"][0] == "entities.account_numbers"
    # discovery off: the client's keys are not all known, so an unseen key cannot be refused
    assert svc.search(query="x", filters={"custom.projct": "Apollo"}).status_code == 200
    r = svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                      headers=svc.auth())
    assert r.status_code == 200
    svc.worker.drain()
    r = svc.search(query="x", filters={"custom.projct": "Apollo"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "UNKNOWN_FILTER_KEY"
    assert error["details"]["nearest"][0] == "custom.project"
    assert "did you mean custom.project" in error["message"]
    assert svc.search(query="x", filters={"custom.project": "Apollo"}).status_code == 200
    assert svc.search(query="x", filters={"document.page_count": 3}).status_code == 200


def test_window_of_exactly_200_is_allowed(svc: Service) -> None:
    assert svc.search(query="x", offset=190, limit=10).status_code == 200


def test_409_carries_readiness_details(svc: Service) -> None:
    details = sans_request_id(svc.search(query="x", scope="both").json()["error"]["details"])
    assert details == {"scope": "both", "state": "disabled", "progress": 0.0,
                       "indexed_versions": 0, "published_versions": 3}


def test_422_names_the_offending_key(svc: Service) -> None:
    error = svc.search(query="x", filters={"document.page_count": "3"}).json()["error"]
    assert sans_request_id(error["details"]) == {"key": "document.page_count"}
    assert error["message"] == "filter 'document.page_count': holds number values, not string"


def test_auth_401_and_403(svc: Service) -> None:
    r = svc.http.post("/search", json={"query": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "API_KEY_MISSING"
    with transaction(svc.runtime.sessions) as s:
        client = reg.caller_for_key(s, secret=svc.key)
        reg.set_authority(s, client_id=client.id, status="revoked")
    r = svc.search(query="budget")
    assert r.status_code == 403
    assert r.json()["error"]["code"] == "PUBLICATION_AUTHORITY_INACTIVE"


def test_another_clients_documents_never_appear_or_count(svc: Service) -> None:
    other = svc.new_client("globex")
    svc.ingest("b.md", "# Budget\n\nbudget report budget report", document_id="theirs",
               key=other)
    mine = svc.search(query="budget report", alpha=0.0).json()
    assert {r["document_version"]["document_id"] for r in mine["results"]} == {"budget"}
    assert mine["meta"]["total"] == 1
    theirs = svc.search(key=other, query="budget report", alpha=0.0).json()
    assert {r["document_version"]["document_id"] for r in theirs["results"]} == {"theirs"}


def test_superseded_versions_never_appear(svc: Service) -> None:
    svc.ingest("invoice.txt", "Invoice PO-9999 replaces the old one.", document_id="invoice")
    body = svc.search(query="PO-2231", alpha=0.0).json()
    assert body["results"] == [] and body["meta"]["total"] == 0
    found = svc.search(query="PO-9999", alpha=0.0).json()["results"]
    assert [(r["document_version"]["document_id"], r["document_version"]["version_id"])
            for r in found] == [("invoice", "v2")]


def test_filters_narrow_without_changing_rank_and_are_echoed(svc: Service) -> None:
    body = svc.search(query="budget invoice travel", alpha=0.0,
                      filters={"document_id": ["travel", "invoice"], "kind": "txt"}).json()
    assert {r["document_version"]["document_id"] for r in body["results"]} == {"travel",
                                                                                "invoice"}
    assert body["meta"]["applied_filters"] == {"document_id": ["invoice", "travel"],
                                               "kind": ["txt"]}
    empty = svc.search(query="budget", filters={"document_id": "nope"}).json()
    assert empty["results"] == [] and empty["meta"]["total"] == 0
    assert empty["meta"]["warnings"] == ["no published document version matches these filters"]


def test_pagination_counts_versions(svc: Service) -> None:
    page1 = svc.search(query="budget invoice travel", alpha=0.0, limit=2).json()
    page2 = svc.search(query="budget invoice travel", alpha=0.0, limit=2, offset=2).json()
    assert page1["meta"]["total"] == 3 and page1["meta"]["has_more"] is True
    assert [r["rank"] for r in page1["results"]] == [1, 2]
    assert [r["rank"] for r in page2["results"]] == [3]
    assert page2["meta"]["has_more"] is False
    ids = [r["document_version"]["document_id"] for r in page1["results"] + page2["results"]]
    assert len(set(ids)) == 3


def test_explain_gives_each_items_score_parts(svc: Service) -> None:
    body = svc.search(query="PO-2231 invoice", alpha=0.5, explain=True).json()
    scores = body["results"][0]["content_evidence"]["items"][0]["scores"]
    assert scores["sparse_rank"] == 1 and scores["sparse"] > 0
    assert scores["dense_rank"] == 1 and 0 < scores["dense"] <= 1
    # PO-2231 is an id the query names: the entity lane ranks the invoice's chunk first too
    assert scores["entity_rank"] == 1
    assert scores["fused"] == pytest.approx(0.5 / 3 + 0.5 / 3 + 1.0 / 3)  # k = 2: 1/(2 + 1)
    assert scores["rerank"] is None
    lanes = body["results"][0]["retrieval_contributions"]
    assert lanes == [{"lane": "content", "rank": 1}, {"lane": "entity", "rank": 1}]
    plain = svc.search(query="invoice paid", alpha=0.5, explain=True).json()["results"][0]
    assert plain["content_evidence"]["items"][0]["scores"]["entity_rank"] is None
    assert plain["retrieval_contributions"] == [{"lane": "content", "rank": 1}]


def test_rerank_reports_what_it_scored(svc: Service) -> None:
    body = svc.search(query="travel expenses invoice", alpha=0.0, rerank=True,
                      explain=True).json()
    retrieval = body["meta"]["retrieval"]
    assert retrieval["reranked"] is True and retrieval["reranked_count"] == 2
    assert body["results"][0]["document_version"]["document_id"] == "travel"
    assert body["results"][0]["content_evidence"]["items"][0]["scores"]["rerank"] == 2.0


def test_rerank_without_a_reranker_says_so(tmp_path: Path) -> None:
    with running_service(tmp_path, fake_models()) as svc:
        svc.ingest("a.txt", "budget", document_id="a")
        body = svc.search(query="budget", rerank=True).json()
        assert body["meta"]["retrieval"]["reranked"] is False
        assert "no reranker is installed" in body["meta"]["warnings"][0]
        assert body["meta"]["retrieval"]["status"] == "partial"
        assert body["meta"]["retrieval"]["failures"] == [
            {"lane": "rerank", "code": "RERANKER_UNAVAILABLE",
             "message": "no reranker is installed: results in the fused order"}]


@pytest.mark.parametrize("query", [
    '"budget" AND (report OR -travel)', "budget:report^2 ~ *?", "💸 budget 📈",
    "x" * 2000, "SELECT * FROM chunks; --", "\\u0000 \x00 budget", "a b c",
])
def test_query_syntax_never_breaks_a_search(svc: Service, query: str) -> None:
    r = svc.search(query=query)
    assert r.status_code == 200, r.text


def _corpus(svc: Service) -> None:
    # BM25's IDF needs a few documents: alone, a term's IDF is ln(1 + 0.5/1.5) = 0.29 and no
    # chunk passes the 1.0 floor.
    svc.ingest("a.txt", "Invoice PO-2231 was paid.", document_id="a")
    svc.ingest("b.txt", "Travel expenses are reimbursed.", document_id="b")
    svc.ingest("c.txt", "Sick leave is unlimited.", document_id="c")


def test_slow_embedding_model_degrades_to_keywords_with_a_warning(tmp_path: Path) -> None:
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.embed_timeout_s = 0.05
    with running_service(tmp_path, fake_models(dense=FakeDense(delay_s=0.5)),
                         settings=settings) as svc:
        _corpus(svc)
        body = svc.search(query="PO-2231").json()
        assert [r["document_version"]["document_id"] for r in body["results"]] == ["a"]
        assert body["meta"]["warnings"] == [
            "embedding model did not answer within 0.05 s: results by keywords only"]
        # a program reads the same: partial, the dense lane failed, only BM25 answered
        retrieval = body["meta"]["retrieval"]
        assert (retrieval["status"], retrieval["lanes"], retrieval["alpha"]) == (
            "partial", ["sparse", "entity"], 0.5)  # the id PO-2231: the entity lane ran
        assert retrieval["failures"] == [{
            "lane": "dense", "code": "EMBEDDING_TIMEOUT",
            "message": "embedding model did not answer within 0.05 s: results by keywords only"}]
        r = svc.search(query="PO-2231", alpha=1.0)
        assert r.status_code == 503
        assert r.json()["error"]["code"] == "EMBEDDING_MODEL_UNAVAILABLE"


def test_no_embedding_model_keyword_search_still_works(tmp_path: Path) -> None:
    with running_service(tmp_path, fake_models(no_dense=True)) as svc:
        _corpus(svc)
        assert svc.search(query="PO-2231", alpha=0.0).json()["meta"]["warnings"] == []
        hybrid = svc.search(query="PO-2231").json()
        assert hybrid["results"][0]["document_version"]["document_id"] == "a"
        assert "results by keywords only" in hybrid["meta"]["warnings"][0]
        assert [f["code"] for f in hybrid["meta"]["retrieval"]["failures"]] == [
            "EMBEDDING_MODEL_UNAVAILABLE"]
        keywords = svc.search(query="PO-2231", alpha=0.0).json()["meta"]["retrieval"]
        assert (keywords["status"], keywords["lanes"]) == ("complete", ["sparse", "entity"])
        assert svc.search(query="PO-2231", alpha=1).status_code == 503


def test_empty_index_warns(tmp_path: Path) -> None:
    with running_service(tmp_path, fake_models()) as svc:
        body = svc.search(query="anything").json()
        assert body["results"] == [] and body["meta"]["total"] == 0
        assert body["meta"]["warnings"][0].startswith("nothing is indexed yet")


def test_what_the_floors_removed_is_explains_not_a_warning(tmp_path: Path) -> None:
    with running_service(tmp_path, fake_models()) as svc:
        svc.ingest("a.txt", "budget report for apollo", document_id="a")
        # one document, the fakes' client-only IDF: ln(1 + 0.5 / 1.5) = 0.29, under the floor
        body = svc.search(query="budget", alpha=0).json()
        assert body["results"] == []
        assert body["meta"]["warnings"] == []  # floors removing weak candidates is no fault
        assert body["meta"]["retrieval"]["status"] == "complete"
        assert body["meta"]["lanes"] is None  # the counts are explain's
        explained = svc.search(query="budget", alpha=0, explain=True).json()["meta"]["lanes"]
        assert explained == [{"lane": "sparse", "floor": 1.0, "floor_from": "fixed",
                              "chance": None, "sentence_scored": None, "fetched": 1, "kept": 0,
                              "removed_by_floor": 1, "depth": explained[0]["depth"]}]
        both = svc.search(query="budget", alpha=0.5, explain=True).json()["meta"]["lanes"]
        assert [(lane["lane"], lane["removed_by_floor"]) for lane in both] == [
            ("sparse", 1), ("dense", both[1]["fetched"] - both[1]["kept"])]


def test_the_spec_declares_the_key_schemes_and_the_one_error_shape(svc: Service) -> None:
    spec = svc.http.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"] == {
        "HTTPBearer": {"type": "http", "scheme": "bearer",
                       "description": "Authorization: Bearer <API key>"},
        "APIKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key",
                         "description": "The API key"}}
    assert "HTTPValidationError" not in str(spec)  # FastAPI's 422 shape is never ours
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            if path in ("/health", "/healthz", "/readyz", "/metrics"):
                assert "security" not in op
                continue
            assert op["security"] == [{"HTTPBearer": []}, {"APIKeyHeader": []}], (path, method)
            assert not [p for p in op.get("parameters", []) if p["in"] == "header"]
            for status in ("401", "422", "500"):
                assert op["responses"][status]["content"]["application/json"]["schema"][
                    "$ref"].endswith("/ErrorResponse"), (path, method, status)
    assert set(spec["components"]["schemas"]["ErrorBody"]["properties"]) == {
        "code", "message", "details"}


def test_the_spec_types_metadata_filters_and_health_and_carries_the_contract_example(
        svc: Service) -> None:
    spec = svc.http.get("/openapi.json").json()
    comps = spec["components"]["schemas"]
    canonical = comps["CanonicalMetadata"]["properties"]
    assert set(canonical) == {"schema_version", "source", "document", "location",
                              "classification", "quality", "custom"}
    assert canonical["custom"] == {"additionalProperties": True, "type": "object",
                                   "title": "Custom"}
    assert {"filename", "sha256", "mime_type"} <= set(comps["SourceMetadata"]["properties"])
    row = comps["ResultRow"]["properties"]["canonical_metadata"]
    assert row == {"$ref": "#/components/schemas/CanonicalMetadata"}
    # an object or null (nullable: a generated client passes a plain dict through)
    obj, null = comps["SearchRequest"]["properties"]["filters"]["anyOf"]
    assert (obj["type"], null) == ("object", {"type": "null"})
    filters = obj["additionalProperties"]
    scalar = [{"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}]
    assert filters["anyOf"] == [*scalar, {"type": "array", "items": {"anyOf": scalar}},
                                {"$ref": "#/components/schemas/FilterRange"},
                                {"$ref": "#/components/schemas/FilterNot"}]
    assert set(comps["FilterRange"]["properties"]) == {"gte", "gt", "lte", "lt", "currency"}
    assert set(comps["FilterNot"]["properties"]) == {"not"}
    health = spec["paths"]["/health"]["get"]["responses"]["200"]["content"]
    assert health["application/json"]["schema"] == {"$ref": "#/components/schemas/Health"}
    assert comps["Health"]["properties"]["vector_store"]["enum"] == ["qdrant-edge",
                                                                    "qdrant-server"]
    assert comps["SearchRequest"]["examples"] == [
        {"query": "budget report", "scope": "content", "alpha": 0.5}]
    example = comps["EvidenceResult"]["examples"][0]
    assert example["results"][0]["document_version"] == {"document_id": "doc-123",
                                                         "version_id": "v2"}
    # the example is a valid response: it parses as the model the server answers with
    from app.api.schemas import EvidenceResult
    parsed = EvidenceResult.model_validate(example)
    assert parsed.model_dump(mode="json", exclude_unset=True) == example


def test_canonical_metadata_leaves_absent_keys_out_and_passes_unknown_ones_through(
        svc: Service) -> None:
    svc.ingest("notes.txt", "plain words about budgets", document_id="n")
    meta = svc.http.get("/documents/n", headers=svc.auth()).json()["versions"][0][
        "canonical_metadata"]
    assert "original_filename" not in meta["source"]  # absent, not null
    assert "page_count" not in meta["document"] and "author" not in meta["document"]
    from app.api.schemas import CanonicalMetadata
    older = {"schema_version": "2", "source": {"filename": "a", "legacy": 1}, "future": {}}
    assert CanonicalMetadata.model_validate(older).model_dump()["source"] == {
        "filename": "a", "legacy": 1}


def test_dbsf_fusion_end_to_end_per_request_and_as_the_default(tmp_path: Path) -> None:
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.score_fusion_floors = False
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        svc.ingest("a.txt", "budget report for apollo", document_id="a")
        svc.ingest("b.txt", "holiday rota for the spring", document_id="b")
        # rank fusion keeps the floors: BM25's IDF on two documents is under 1.0
        ranked = svc.search(query="budget", alpha=0).json()
        assert ranked["results"] == [] and ranked["meta"]["retrieval"]["fusion"] == "rank"
        answer = svc.search(query="budget", alpha=0, fusion="dbsf", explain=True)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["meta"]["retrieval"]["fusion"] == "dbsf"
        assert [r["document_version"]["document_id"] for r in body["results"]] == ["a"]
        scores = body["results"][0]["content_evidence"]["items"][0]["scores"]
        assert scores["sparse_scaled"] == 0.5 and scores["dense_scaled"] is None  # one hit
        assert scores["fused"] == 0.5  # (1 − alpha) · 0.5
        assert body["meta"]["lanes"] == [{"lane": "sparse", "floor": None, "floor_from": None,
                                          "chance": None, "sentence_scored": None, "fetched": 1,
                                          "kept": 1, "removed_by_floor": 0,
                                          "depth": body["meta"]["lanes"][0]["depth"]}]
        bad = svc.search(query="budget", fusion="borda")
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "INVALID_FUSION"

    settings = make_settings(tmp_path / "default")
    settings.search.fusion = "dbsf"
    with running_service(tmp_path / "default", fake_models(), settings=settings) as svc:
        svc.ingest("a.txt", "budget report for apollo", document_id="a")
        meta = svc.search(query="budget report apollo").json()["meta"]
        assert meta["retrieval"]["fusion"] == "dbsf"
        assert svc.search(query="budget", fusion="rank").json()["meta"]["retrieval"][
            "fusion"] == "rank"


def test_unparsable_bodies_get_their_own_codes_and_405_says_what_is_allowed(
        svc: Service) -> None:
    json_headers = {**svc.auth(), "Content-Type": "application/json"}
    r = svc.http.post("/search", content=b'{"query": "\xff\xfe"}', headers=json_headers)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "INVALID_JSON")
    r = svc.http.post("/search", content=b"[" * 100_000 + b"]" * 100_000, headers=json_headers)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "BODY_TOO_DEEP")
    r = svc.http.put("/search", json={"query": "a"}, headers=svc.auth())
    assert (r.status_code, r.headers["Allow"]) == (405, "POST")
    assert r.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    # every method of the path, across routes (Starlette named only the first route's)
    r = svc.http.request("OPTIONS", "/documents", headers=svc.auth())
    assert (r.status_code, r.headers["Allow"]) == (405, "GET, POST")
    r = svc.http.put("/documents/x", headers=svc.auth())
    assert (r.status_code, r.headers["Allow"]) == (405, "DELETE, GET, PATCH")


def test_an_empty_answer_says_why_in_words_that_are_true(tmp_path: Path) -> None:
    """Issue 38: as_of with no filters never blames filters; filters that match only a
    superseded version say so; filters that match nothing say that."""
    with running_service(tmp_path, fake_models()) as svc:
        svc.ingest("fees.txt", "The annual fee is 12,000 EUR.", document_id="fees")
        svc.ingest("fees.txt", "The annual fee is 24,000 EUR.", document_id="fees")

        def warnings(**body: object) -> list[str]:
            answer = svc.search(query="annual fee", **body).json()
            assert answer["results"] == [] or not answer["meta"]["warnings"], answer
            return answer["meta"]["warnings"]

        before = warnings(as_of="2000-01-01T00:00:00Z")
        assert len(before) == 1 and "current at as_of" in before[0]
        assert "filters" not in before[0]
        assert warnings(filters={"version_id": "v1"}) == [
            "only superseded versions match these filters: versions: all or as_of shows them"]
        assert warnings(filters={"document_id": "nope"}) == [
            "no published document version matches these filters"]
        assert warnings(filters={"version_id": "v1"}, versions="all") == []  # found
        assert warnings() == []


def test_words_found_in_the_title_or_a_heading_are_marked(tmp_path: Path) -> None:
    """Issue 53: a security notice found for "termination fee notice period" held none of
    those words in its text, and nothing said why it was found."""
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.sparse_floor = 0.0
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        s.ingest("notice.md", "# Security notice\n\n## Termination fee\n\nBadges are returned "
                 "at the gate on the last working day.", document_id="notice")
        body = s.search(query="termination fee notice period", alpha=0.0).json()
        [item] = body["results"][0]["content_evidence"]["items"]
        assert item["literal_spans"] == []  # none of the words in the text itself
        assert item["context_matches"] == [
            {"where": "title", "text": "Security notice",
             "spans": [{"start": 9, "end": 15, "text": "notice"}]},
            {"where": "heading", "text": "Termination fee",
             "spans": [{"start": 0, "end": 11, "text": "Termination"},
                       {"start": 12, "end": 15, "text": "fee"}]}]
