"""Metadata discovery, exact filters on metadata and scopes metadata | both, over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.factories import sans_request_id
from tests.fakes import fake_models
from tests.service import Service, running_service


def _enable(svc: Service, key: str | None = None) -> dict:
    r = svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                      headers=svc.auth(key))
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture
def svc(tmp_path: Path, db_url: str) -> Service:
    with running_service(tmp_path, fake_models(), db_url=db_url) as service:
        docs = [
            ("apollo.md", "# Apollo plan\n\nLaunch window and budget details.",
             {"project": "Apollo", "year": 2024, "confidential": True, "code": "12",
              "tags": ["space", "launch"], "due": "2024-07-01"}),
            ("gemini.md", "# Gemini notes\n\nBudget review for the next quarter.",
             {"project": "Gemini", "year": 12, "confidential": False, "code": "PO-2231"}),
            ("mercury.md", "# Mercury\n\nApollo budget report with a deficit.",
             {"project": "Mercury", "year": 2023}),
        ]
        for name, text, custom in docs:
            service.ingest(name, text, document_id=name.split(".")[0],
                           metadata=json.dumps(custom))
        yield service


def _ids(body: dict) -> list[str]:
    return [r["document_version"]["document_id"] for r in body["results"]]


def _filtered(svc: Service, filters: dict) -> list[str]:
    # dense lane: on three documents every BM25 IDF is under the 1.0 floor
    r = svc.search(query="budget", alpha=1.0, filters=filters, limit=50)
    assert r.status_code == 200, r.text
    return sorted(_ids(r.json()))


def test_filters_are_exact_and_type_sensitive(svc: Service) -> None:
    assert _filtered(svc, {"custom.project": "Apollo"}) == ["apollo"]
    assert _filtered(svc, {"custom.project": "apollo"}) == []  # strings compare as stored
    assert _filtered(svc, {"custom.code": "12"}) == ["apollo"]  # the string "12" …
    assert _filtered(svc, {"custom.year": 12}) == ["gemini"]  # … is not the number 12
    assert _filtered(svc, {"custom.year": 2024.0}) == ["apollo"]  # 2024 equals 2024.0
    assert _filtered(svc, {"custom.confidential": True}) == ["apollo"]
    assert _filtered(svc, {"custom.confidential": False}) == ["gemini"]
    assert _filtered(svc, {"custom.tags": "launch"}) == ["apollo"]  # any element of a list
    assert _filtered(svc, {"custom.due": "2024-07-01"}) == ["apollo"]
    assert _filtered(svc, {"source.filename": "mercury.md"}) == ["mercury"]


def test_a_list_is_any_of_and_keys_combine_with_and(svc: Service) -> None:
    assert _filtered(svc, {"custom.project": ["Apollo", "Mercury"]}) == ["apollo", "mercury"]
    assert _filtered(svc, {"custom.year": [2023, 12]}) == ["gemini", "mercury"]
    assert _filtered(svc, {"custom.project": ["Apollo", "Mercury"],
                           "custom.year": 2023}) == ["mercury"]
    assert _filtered(svc, {"custom.project": "Apollo", "document_id": "gemini"}) == []


def test_filters_never_change_rank_and_are_echoed(svc: Service) -> None:
    unfiltered = _ids(svc.search(query="budget apollo", alpha=1.0).json())
    body = svc.search(query="budget apollo", alpha=1.0,
                      filters={"custom.project": ["Mercury", "Apollo"]}).json()
    assert _ids(body) == [d for d in unfiltered if d in ("apollo", "mercury")]
    assert body["meta"]["applied_filters"] == {"custom.project": ["Mercury", "Apollo"]}


def test_a_value_of_a_type_the_key_never_holds_is_422_once_discovered(svc: Service) -> None:
    assert svc.search(query="x", filters={"custom.project": 5}).status_code == 200
    _enable(svc)
    svc.worker.drain()
    r = svc.search(query="x", filters={"custom.project": 5})
    assert r.status_code == 422
    assert sans_request_id(r.json()["error"]["details"]) == {"key": "custom.project"}
    assert "holds string values, not number" in r.json()["error"]["message"]


def test_readiness_goes_disabled_discovering_ready(svc: Service) -> None:
    r = svc.search(query="Apollo", scope="metadata")
    assert r.status_code == 409
    assert r.json()["error"]["details"]["state"] == "disabled"
    state = _enable(svc)
    assert (state["state"], state["progress"], state["published_versions"]) == (
        "discovering", 0.0, 3)
    r = svc.search(query="Apollo", scope="both")
    assert r.status_code == 409 and r.json()["error"]["details"]["state"] == "discovering"
    svc.worker.drain()
    catalog = svc.http.get("/clients/me/metadata", headers=svc.auth()).json()
    assert (catalog["state"], catalog["progress"]) == ("ready", 1.0)
    keys = {(k["key"], k["type"]): k["count"] for k in catalog["keys"]}
    assert keys[("custom.project", "string")] == 3
    assert keys[("custom.year", "number")] == 3
    assert keys[("custom.confidential", "boolean")] == 2
    assert keys[("custom.due", "date")] == 1
    assert svc.search(query="Apollo", scope="metadata").status_code == 200


def test_discovery_keeps_up_with_new_and_superseded_versions(svc: Service) -> None:
    _enable(svc)
    svc.worker.drain()
    svc.ingest("apollo.md", "# Apollo plan\n\nA new version.", document_id="apollo",
               metadata=json.dumps({"project": "Artemis"}))
    state = svc.http.get("/clients/me/metadata", headers=svc.auth()).json()
    assert state["state"] == "ready" and state["published_versions"] == 3
    assert _ids(svc.search(query="Artemis", scope="metadata").json()) == ["apollo"]
    old = svc.search(query="Apollo", scope="metadata").json()
    assert ("apollo", "v1") not in {(r["document_version"]["document_id"],
                                     r["document_version"]["version_id"])
                                    for r in old["results"]}


def test_a_project_only_in_custom_metadata_is_found_by_scope_metadata(svc: Service) -> None:
    _enable(svc)
    svc.worker.drain()
    body = svc.search(query="gemini", scope="metadata").json()
    assert _ids(body)[0] == "gemini"
    row = body["results"][0]
    assert row["retrieval_contributions"] == [{"lane": "metadata", "rank": 1}]
    assert row["content_evidence"] == {"items": [], "total": 0, "truncated": False}
    item = row["metadata_evidence"]["items"][0]
    assert (item["key"], item["value"], item["match"]) == ("custom.project", "Gemini", "exact")
    assert item["spans"] == [{"start": 0, "end": 6, "text": "Gemini"}]


def test_match_kinds_rank_exact_over_all_words_over_some(svc: Service) -> None:
    _enable(svc)
    svc.worker.drain()
    exact = svc.search(query="PO-2231", scope="metadata").json()
    assert _ids(exact) == ["gemini"]
    assert exact["results"][0]["metadata_evidence"]["items"][0]["match"] == "exact"
    number = svc.search(query="2023", scope="metadata").json()
    assert _ids(number)[0] == "mercury"
    assert number["results"][0]["metadata_evidence"]["items"][0]["match"] == "number"
    words = svc.search(query="apollo plan", scope="metadata").json()
    assert _ids(words)[0] == "apollo"  # document.title "Apollo plan": all words
    assert words["results"][0]["metadata_evidence"]["items"][0]["match"] == "exact"


def test_scope_both_ranks_a_version_found_by_both_lanes_first(svc: Service) -> None:
    _enable(svc)
    svc.worker.drain()
    body = svc.search(query="Apollo", scope="both", alpha=1.0).json()
    first = body["results"][0]
    assert first["document_version"]["document_id"] == "apollo"
    assert {c["lane"] for c in first["retrieval_contributions"]} == {"content", "metadata"}
    assert first["content_evidence"]["items"] and first["metadata_evidence"]["items"]
    assert body["meta"]["total"] == len({r["document_version"]["document_id"]
                                         for r in body["results"]})
    assert "metadata" in body["meta"]["timings"]


def test_disabling_discovery_makes_the_scope_409_again(svc: Service) -> None:
    _enable(svc)
    svc.worker.drain()
    svc.http.post("/clients/me/metadata/discovery", json={"enabled": False},
                  headers=svc.auth())
    r = svc.search(query="Apollo", scope="metadata")
    assert r.status_code == 409 and r.json()["error"]["details"]["state"] == "disabled"


def test_another_clients_metadata_never_appears(svc: Service) -> None:
    other = svc.new_client("globex")
    svc.ingest("x.md", "# Apollo\n\nTheirs.", document_id="theirs", key=other,
               metadata=json.dumps({"project": "Apollo"}))
    _enable(svc)
    _enable(svc, other)
    svc.worker.drain()
    assert "theirs" not in _ids(svc.search(query="Apollo", scope="metadata").json())
    assert _ids(svc.search(key=other, query="Apollo", scope="metadata").json()) == ["theirs"]


def test_a_key_that_can_be_stored_can_be_filtered_and_one_that_cannot_is_refused(
        svc: Service) -> None:
    svc.ingest("size.md", "# Size\n\nBudget of the large edition.", document_id="size",
               metadata=json.dumps({"größe": "XL", "日付": {"q-1": 2024}}))
    assert _filtered(svc, {"custom.größe": "XL"}) == ["size"]
    assert _filtered(svc, {"custom.日付.q-1": 2024}) == ["size"]
    for key in ("a b", "a[0]", "a.b"):
        r = svc.upload("bad.md", "text", metadata=json.dumps({key: 1}))
        assert r.status_code == 422, r.text
        assert r.json()["error"]["code"] == "INVALID_METADATA"
