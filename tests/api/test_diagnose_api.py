"""Why not? Every diagnosis status reached for real, over HTTP (fake models: a hashed bag of
words, so scores follow shared words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service

QUERY = "apple banana cherry"


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models()) as service:
        service.ingest("fruit.txt", "apple banana cherry smoothie", document_id="fruit")
        service.ingest("salad.txt", "apple banana cherry salad bowl", document_id="salad")
        service.ingest("cars.txt", "engine wheels brakes gearbox", document_id="cars")
        yield service


def _diagnose(svc: Service, *ids: str, **body: object) -> dict[str, dict]:
    r = svc.search(query=QUERY, alpha=1.0, diagnose=list(ids), **body)
    assert r.status_code == 200, r.text
    meta = r.json()["meta"]
    assert "diagnose" in meta["timings"]
    return {d["document_id"]: d for d in meta["diagnostics"]}


def test_shown_outside_the_window_and_never_changing_the_answer(svc: Service) -> None:
    plain = svc.search(query=QUERY, alpha=1.0, limit=1).json()
    asked = svc.search(query=QUERY, alpha=1.0, limit=1, diagnose=["fruit", "salad"]).json()
    assert asked["results"] == plain["results"] and asked["meta"]["total"] == \
        plain["meta"]["total"]
    found = {d["document_id"]: d for d in asked["meta"]["diagnostics"]}
    first = plain["results"][0]["document_version"]["document_id"]
    second = "salad" if first == "fruit" else "fruit"
    assert (found[first]["status"], found[first]["rank"]) == ("SHOWN", 1)
    assert (found[second]["status"], found[second]["rank"]) == ("OUTSIDE_WINDOW", 2)
    assert "another offset" in found[second]["message"]
    assert plain["meta"].get("diagnostics") is None


def test_below_the_floor_names_the_lane_the_score_and_the_floor(svc: Service) -> None:
    found = _diagnose(svc, "cars")["cars"]
    assert found["status"] == "BELOW_FLOOR" and found["version_id"] == "v1"
    [dense] = found["lanes"]
    assert dense["lane"] == "dense" and dense["chunk_id"] == "cars:v1:0"
    assert dense["passed"] is False and dense["score"] < dense["floor"] == 0.26
    assert f"under the floor {dense['floor']:.3g}" in found["message"]
    assert dense["rank"] == 3  # within the lane's depth: ranked among every chunk


def test_no_lane_finds_a_document_without_the_words(svc: Service) -> None:
    found = svc.search(query=QUERY, alpha=0.0, diagnose=["cars"]).json()["meta"][
        "diagnostics"][0]
    assert found["status"] == "NOT_RETRIEVED"
    assert found["lanes"] == [{"lane": "sparse", "chunk_id": None, "score": None,
                               "rank": None, "beyond": None, "floor": 1.0, "passed": False}]
    assert "none of the query's words occur in it" in found["message"]


def test_filtered_out_names_the_keys_and_the_documents_values(svc: Service) -> None:
    found = _diagnose(svc, "fruit", filters={"kind": "pdf", "source": ["wiki"]})["fruit"]
    assert found["status"] == "FILTERED_OUT"
    assert found["filters"] == {"kind": ["txt"], "source": []}
    assert found["message"] == "excluded by the filter on kind, source"


def test_versions_publication_and_other_clients(svc: Service) -> None:
    svc.ingest("fruit.txt", "engine wheels brakes gearbox", document_id="fruit")  # v2
    other = svc.new_client("globex")
    svc.ingest("secret.txt", "apple banana cherry secret", key=other, document_id="secret")
    svc.upload("queued.txt", "apple banana cherry pie", document_id="queued")  # not drained
    found = _diagnose(svc, "fruit", "queued", "secret", "nowhere", "fruit")
    assert list(found) == ["fruit", "queued", "secret", "nowhere"]  # once each, in order
    assert found["fruit"]["status"] == "NOT_CURRENT" and found["fruit"]["version_id"] == "v2"
    assert "superseded version v1 matches" in found["fruit"]["message"]
    assert found["queued"]["status"] == "NOT_PUBLISHED"
    assert found["queued"]["message"] == ("no version of it is published yet: the latest is "
                                          "queued (job queued)")
    for missing in ("secret", "nowhere"):  # another client's id answers as a missing one
        assert found[missing] == {"document_id": missing, "version_id": None,
                                  "status": "NOT_FOUND", "rank": None, "lanes": [],
                                  "filters": {}, "message": f"there is no document "
                                                            f"'{missing}' for this client"}
    past = _diagnose(svc, "salad", as_of="2000-01-01T00:00:00Z")["salad"]
    assert past["status"] == "NOT_CURRENT"
    assert past["message"].startswith("no version of it was current at 2000-01-01T00:00:00")
    every = _diagnose(svc, "fruit", versions="all")["fruit"]
    assert (every["status"], every["version_id"]) == ("SHOWN", "v1")


def test_beyond_the_depth_of_the_lane_is_not_retrieved(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    settings.search.candidate_ceiling = 50
    settings.search.dense_floor = 0.0
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        for i in range(55):
            svc.ingest(f"n{i}.txt", f"apple banana cherry number{i}", document_id=f"n{i}")
        svc.ingest("far.txt", "apple zebra yak xylophone quartz", document_id="far")
        found = _diagnose(svc, "far")["far"]
        assert found["status"] == "NOT_RETRIEVED"
        [dense] = found["lanes"]
        assert dense["passed"] is True and dense["rank"] is None and dense["beyond"] == 50
        assert "dense lane beyond rank 50" in found["message"]


def test_diagnose_is_bounded(svc: Service) -> None:
    r = svc.search(query=QUERY, diagnose=[f"d{i}" for i in range(11)])
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_DIAGNOSE"


def test_the_metadata_scope_says_its_lane_matched_nothing(svc: Service) -> None:
    svc.http.post("/clients/me/metadata/discovery", json={"enabled": True}, headers=svc.auth())
    svc.worker.drain()
    body = svc.search(query="zeppelin", scope="metadata", diagnose=["cars"]).json()
    assert body["meta"]["diagnostics"] == [{
        "document_id": "cars", "version_id": "v1", "status": "NOT_RETRIEVED", "rank": None,
        "lanes": [], "filters": {}, "message": "the metadata lane matched none of its values"}]
