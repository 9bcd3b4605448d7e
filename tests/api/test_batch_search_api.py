"""Batch search over HTTP (issue 51): a list of names as a job, its hits exported as CSV and
JSON lines; its bounds, isolation between clients and keys, and a batch taken over after its
runner died. Fake models, the real engine; the runner driven by the test."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from app.domain.errors import BadRequest
from app.registry.tables import SearchBatch
from app.search.batches import BatchRunner, read_query_list
from tests.fakes import fake_models
from tests.service import Service, running_service

DOCS = {
    "harbor": "Harbor View Properties LLC received EUR 24,000 from Kestrel Holdings.",
    "ledger": "Kestrel Holdings ledger: rent paid to Marta Lindqvist in March.",
    "memo": "Memo on the audit of Bramble Logistics and its invoices.",
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("batch")
    settings = make_settings(tmp)
    settings.search.sparse_floor = 0.0  # fake models: any shared word is a hit (alpha 0)
    settings.batch.max_queries = 300
    settings.batch.max_active_per_client = 2
    with running_service(tmp, fake_models(), settings=settings) as s:
        for doc_id, text in DOCS.items():
            s.ingest(f"{doc_id}.txt", text, document_id=doc_id)
        yield s


def _runner(svc: Service) -> BatchRunner:
    return svc.http.app.state.batch_runner  # type: ignore[no-any-return,attr-defined]


def _upload(svc: Service, data: bytes, filename: str = "names.csv", key: str | None = None,
            **options: object):  # type: ignore[no-untyped-def]
    return svc.http.post("/searches/batch/upload", files={"file": (filename, data)},
                         data={"options": json.dumps(options)} if options else {},
                         headers=svc.auth(key))


def _finish(svc: Service, batch_id: str, key: str | None = None) -> dict:
    _runner(svc).run_until_idle()
    r = svc.http.get(f"/searches/batch/{batch_id}", headers=svc.auth(key))
    assert r.status_code == 200, r.text
    return r.json()


def test_a_csv_of_200_names_runs_as_a_job_and_exports_csv_and_json_lines(svc: Service) -> None:
    names = ["Kestrel Holdings", "Harbor View Properties", "Bramble Logistics"] + [
        f"Nobody{i:03d} Zzyzx" for i in range(197)]
    text = "name,query\r\n" + "".join(f"n{i},\"{q}\"\r\n" for i, q in enumerate(names))
    r = _upload(svc, text.encode(), limit=5, alpha=0.0)
    assert r.status_code == 202, r.text
    created = r.json()
    assert created["total"] == 200 and created["done"] == 1  # the first searched at once
    assert created["status"] in ("queued", "running")
    assert r.headers["location"] == f"/searches/batch/{created['batch_id']}"
    status = _finish(svc, created["batch_id"])
    assert status["status"] == "done" and status["done"] == 200 and status["progress"] == 1.0
    assert status["failed_queries"] == 0

    got = svc.http.get(f"/searches/batch/{created['batch_id']}/results?format=csv",
                       headers=svc.auth())
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    assert got.headers["x-evidence-batch-status"] == "done"
    rows = list(csv.DictReader(io.StringIO(got.text)))
    assert list(rows[0])[:11] == ["query_index", "name", "query", "rank", "document_id",
                                  "version_id", "filename", "page", "chunk_id", "snippet",
                                  "score"]
    kestrel = [r for r in rows if r["query"] == "Kestrel Holdings"]
    assert sorted(r["document_id"] for r in kestrel) == ["harbor", "ledger"]
    assert all(r["name"] == "n0" and r["filename"].endswith(".txt") and r["snippet"]
               for r in kestrel)
    assert [r["rank"] for r in kestrel] == ["1", "2"]
    nobody = [r for r in rows if r["name"] == "n150"]
    assert len(nobody) == 1 and nobody[0]["rank"] == ""  # every query is in the export
    assert len({r["query_index"] for r in rows}) == 200

    lines = svc.http.get(f"/searches/batch/{created['batch_id']}/results",
                         headers=svc.auth()).text.splitlines()
    assert len(lines) == 200
    first = json.loads(lines[0])
    assert first["query"] == "Kestrel Holdings" and first["status"] == "ok"
    assert first["total"] == 2 and [h["document_id"] for h in first["hits"]] == [
        r["document_id"] for r in kestrel]
    assert json.loads(lines[150])["hits"] == [] and json.loads(lines[150])["total"] == 0


def test_a_json_batch_searches_each_query_as_post_search_would(svc: Service) -> None:
    body = {"queries": ["Bramble", {"query": "Kestrel", "name": "k"}], "alpha": 0.0,
            "filters": {"document_id": ["ledger", "memo"]}}
    r = svc.http.post("/searches/batch", json=body, headers=svc.auth())
    assert r.status_code == 202, r.text
    _finish(svc, r.json()["batch_id"])
    lines = [json.loads(x) for x in svc.http.get(
        f"/searches/batch/{r.json()['batch_id']}/results", headers=svc.auth()).text.splitlines()]
    for line in lines:
        alone = svc.search(query=line["query"], alpha=0.0, filters=body["filters"]).json()
        assert [h["document_id"] for h in line["hits"]] == [
            x["document_version"]["document_id"] for x in alone["results"]]
    assert lines[1]["name"] == "k" and [h["document_id"] for h in lines[1]["hits"]] == ["ledger"]


def test_a_text_list_is_one_query_a_line_commas_and_all() -> None:
    got = read_query_list("\ufeffHarbor View Properties, L.L.C.\n\n  Kestrel \n".encode(),
                          max_queries=10, max_chars=100)
    assert got == [{"query": "Harbor View Properties, L.L.C.", "name": None},
                   {"query": "Kestrel", "name": None}]
    with pytest.raises(BadRequest) as error:
        read_query_list(b"\xff\xfe", max_queries=10, max_chars=100)
    assert error.value.code == "INVALID_QUERY_LIST"


@pytest.mark.parametrize("data, code", [
    (b"", "BATCH_EMPTY"),
    (b"query\n\n", "BATCH_EMPTY"),
    ("\n".join(f"q{i}" for i in range(301)).encode(), "BATCH_TOO_LARGE"),
    (b"x" * 5000, "INVALID_QUERY_LIST"),
])
def test_a_list_out_of_bounds_is_refused_with_its_code(svc: Service, data: bytes,
                                                       code: str) -> None:
    r = _upload(svc, data, filename="list.txt")
    assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text


def test_a_shared_body_the_search_refuses_is_refused_before_any_batch(svc: Service) -> None:
    before = svc.http.get("/searches/batch", headers=svc.auth()).json()["items"]
    r = svc.http.post("/searches/batch", json={"queries": ["a"], "filters": {"kind": "exe"}},
                      headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_FILTER"
    r = svc.http.post("/searches/batch", json={"queries": ["a"], "scope": "metadata"},
                      headers=svc.auth())
    assert r.status_code == 409 and r.json()["error"]["code"] == "METADATA_DISCOVERY_NOT_READY"
    r = svc.http.post("/searches/batch", json={"queries": ["a"], "limit": 51},
                      headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == "BATCH_RESULTS_LIMIT"
    assert "EVIDENCE_BATCH__MAX_RESULTS" in r.json()["error"]["message"]
    r = svc.http.post("/searches/batch", content=b'{"queries": ["ok", "\\ud800"]}',
                      headers={**svc.auth(), "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_QUERY_LIST"
    r = svc.http.post("/searches/batch/upload", files={"file": ("l.txt", b"Kestrel")},
                      data={"options": "{not json"}, headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_BATCH_OPTIONS"
    r = svc.http.post("/searches/batch", json={"queries": []}, headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_QUERY_LIST"
    assert svc.http.get("/searches/batch", headers=svc.auth()).json()["items"] == before


def test_a_query_the_search_refuses_fails_alone(svc: Service) -> None:
    r = svc.http.post("/searches/batch", json={"queries": ["-only -exclusions", "Kestrel"],
                                               "alpha": 0.0},
                      headers=svc.auth())
    assert r.status_code == 202, r.text
    status = _finish(svc, r.json()["batch_id"])
    assert status["status"] == "done" and status["failed_queries"] == 1
    lines = [json.loads(x) for x in svc.http.get(
        f"/searches/batch/{status['batch_id']}/results", headers=svc.auth()).text.splitlines()]
    assert lines[0]["status"] == "failed" and lines[0]["error"]["code"] == "INVALID_QUERY"
    assert lines[1]["status"] == "ok" and lines[1]["hits"]


def test_too_many_active_batches_is_a_409_until_one_ends(svc: Service) -> None:
    made = [svc.http.post("/searches/batch", json={"queries": ["a", "b"]},
                          headers=svc.auth()) for _ in range(3)]
    assert [r.status_code for r in made] == [202, 202, 409]
    assert made[2].json()["error"]["code"] == "BATCH_LIMIT_REACHED"
    assert svc.http.delete(f"/searches/batch/{made[0].json()['batch_id']}",
                           headers=svc.auth()).status_code == 204
    assert svc.http.get(f"/searches/batch/{made[0].json()['batch_id']}",
                        headers=svc.auth()).json()["error"]["code"] == "BATCH_NOT_FOUND"
    _runner(svc).run_until_idle()
    assert svc.http.post("/searches/batch", json={"queries": ["a"]},
                         headers=svc.auth()).status_code == 202


def test_another_client_never_sees_a_batch_or_its_hits(svc: Service) -> None:
    r = svc.http.post("/searches/batch", json={"queries": ["Kestrel"]}, headers=svc.auth())
    batch_id = r.json()["batch_id"]
    other = svc.new_client("other-batch")
    for path in (f"/searches/batch/{batch_id}", f"/searches/batch/{batch_id}/results"):
        got = svc.http.get(path, headers=svc.auth(other))
        assert got.status_code == 404 and got.json()["error"]["code"] == "BATCH_NOT_FOUND"
    assert svc.http.get("/searches/batch", headers=svc.auth(other)).json()["items"] == []
    theirs = svc.http.post("/searches/batch", json={"queries": ["Kestrel"]},
                           headers=svc.auth(other))
    assert theirs.status_code == 202  # their own collection is empty: no hit of ours
    _finish(svc, theirs.json()["batch_id"], key=other)
    line = json.loads(svc.http.get(f"/searches/batch/{theirs.json()['batch_id']}/results",
                                   headers=svc.auth(other)).text)
    assert line["hits"] == [] and line["total"] == 0


def test_a_group_key_batch_sees_what_the_key_sees(svc: Service) -> None:
    assert svc.http.patch("/documents/ledger", json={"access": ["finance"]},
                          headers=svc.auth()).status_code == 200
    try:
        key = svc.http.post("/clients/me/keys", json={"groups": ["legal"]},
                            headers=svc.auth()).json()["key"]
        r = svc.http.post("/searches/batch", json={"queries": ["Kestrel"], "alpha": 0.0},
                          headers=svc.auth(key))
        assert r.status_code == 202, r.text
        _finish(svc, r.json()["batch_id"], key=key)
        line = json.loads(svc.http.get(f"/searches/batch/{r.json()['batch_id']}/results",
                                       headers=svc.auth(key)).text)
        assert [h["document_id"] for h in line["hits"]] == ["harbor"]  # not the ledger
        admin = svc.http.get("/searches/batch", headers=svc.auth()).json()["items"]
        assert r.json()["batch_id"] in [b["batch_id"] for b in admin]
        mine = svc.http.get("/searches/batch", headers=svc.auth(key)).json()["items"]
        assert [b["batch_id"] for b in mine] == [r.json()["batch_id"]]
    finally:
        svc.http.patch("/documents/ledger", json={"access": []}, headers=svc.auth())


def test_a_dead_runners_batch_is_taken_over_where_it_stopped(svc: Service) -> None:
    r = svc.http.post("/searches/batch", json={"queries": ["Kestrel", "Bramble", "Harbor"]},
                      headers=svc.auth())
    batch_id = r.json()["batch_id"]
    first = _runner(svc)
    assert first.step(rest=False)  # query 1, then this "process" dies holding the lease
    with svc.runtime.sessions() as s:
        assert s.query(SearchBatch).filter_by(batch_id=batch_id).one().done == 2
    second = BatchRunner(svc.runtime.sessions, first.service, first.settings, first.render)
    assert not second.step(rest=False)  # its lease still runs: nothing for this one to take
    with svc.runtime.sessions() as s:
        assert s.query(SearchBatch).filter_by(batch_id=batch_id).one().done == 2
        s.execute(update(SearchBatch).where(SearchBatch.batch_id == batch_id).values(
            lease_until=datetime.now(UTC) - timedelta(seconds=1)))
        s.commit()
    second.run_until_idle()
    status = svc.http.get(f"/searches/batch/{batch_id}", headers=svc.auth()).json()
    assert status["status"] == "done" and status["done"] == 3
    lines = svc.http.get(f"/searches/batch/{batch_id}/results", headers=svc.auth()).text
    assert [json.loads(x)["query_index"] for x in lines.splitlines()] == [0, 1, 2]


def test_a_cell_that_would_run_in_a_spreadsheet_is_kept_as_text(svc: Service) -> None:
    r = svc.http.post("/searches/batch", json={"queries": [
        {"query": "Kestrel", "name": "=HYPERLINK(\"http://x\")"}], "alpha": 0.0},
        headers=svc.auth())
    _finish(svc, r.json()["batch_id"])
    rows = list(csv.DictReader(io.StringIO(svc.http.get(
        f"/searches/batch/{r.json()['batch_id']}/results?format=csv",
        headers=svc.auth()).text)))
    assert rows[0]["name"] == "'=HYPERLINK(\"http://x\")"


def test_the_upload_path_is_no_batch_id(svc: Service) -> None:
    r = svc.http.get("/searches/batch/upload", headers=svc.auth())
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
