"""Uploads, versions, jobs, deletion and authentication over HTTP (fake models)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from app.registry import clients as reg
from app.registry.database import transaction
from app.store import ChunkFilter
from tests.factories import pdf_bytes, sans_request_id
from tests.fakes import fake_models
from tests.service import Service, running_service

HANDBOOK = "# Handbook\n\n## Leave\n\nEmployees get 25 days of paid vacation.\n"


@pytest.fixture
def svc(tmp_path: Path, db_url: str) -> Service:
    with running_service(tmp_path, fake_models(), db_url=db_url) as service:
        yield service


def _client_id(svc: Service, key: str | None = None) -> str:
    with transaction(svc.runtime.sessions) as s:
        return reg.caller_for_key(s, secret=key or svc.key).id


def test_upload_is_accepted_then_published(svc: Service) -> None:
    r = svc.upload("handbook.md", HANDBOOK, document_id="hb", metadata='{"project": "Apollo"}',
                   source="wiki")
    assert r.status_code == 202
    body = r.json()
    assert body == {"document_id": "hb", "version_id": "v1", "job_id": body["job_id"],
                    "status": "queued", "deduplicated": False, "reverts_to": None}
    assert svc.worker.drain() == 1
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert (job["status"], job["progress"], job["attempts"], job["error"]) == (
        "succeeded", 1.0, 1, None)
    doc = svc.http.get("/documents/hb", headers=svc.auth()).json()
    assert doc["current_version_id"] == "v1" and doc["source"] == "wiki"
    meta = doc["versions"][0]["canonical_metadata"]
    assert meta["schema_version"] == "2"
    assert meta["custom"] == {"project": "Apollo"}
    assert meta["source"]["filename"] == "handbook.md"
    assert meta["document"]["title"] == "Handbook"
    assert meta["quality"] == {"text_extraction": "native", "ocr_used": False, "warnings": []}
    assert meta["classification"]["status"] == "ready"


def test_same_document_id_makes_a_new_version_and_supersedes_the_old(svc: Service) -> None:
    svc.ingest("a.txt", "first text", document_id="doc")
    second = svc.ingest("a.txt", "second text", document_id="doc")
    assert second["version_id"] == "v2"
    doc = svc.http.get("/documents/doc", headers=svc.auth()).json()
    assert [(v["version_id"], v["state"]) for v in doc["versions"]] == [
        ("v1", "superseded"), ("v2", "published")]
    visible = svc.runtime.store.scroll(ChunkFilter(client_id=_client_id(svc)))
    assert {h.payload["version_id"] for h in visible} == {"v2"}


def test_the_same_bytes_again_give_back_the_same_version(svc: Service) -> None:
    first = svc.ingest("a.txt", "same text", document_id="doc")
    again = svc.upload("a.txt", "same text", document_id="doc").json()
    assert again["deduplicated"] is True
    assert (again["version_id"], again["job_id"]) == (first["version_id"], first["job_id"])


def test_a_default_document_id_is_the_file_name_made_unique(svc: Service) -> None:
    ids = [svc.ingest(name, f"notes number {i}")["document_id"] for i, name in enumerate(
        ["notes.txt", "notes.txt", "Q3 Budget (final).TXT", "Über Straße.md", "日本.txt",
         "日本.txt"])]
    assert ids == ["notes.txt", "notes-2.txt", "Q3-Budget-final.txt", "Uber-Strae.md",
                   "document.txt", "document-2.txt"]
    # an id given by hand that looks like a default is respected, and defaults step past it
    svc.ingest("x.txt", "hand made", document_id="notes-3.txt")
    assert svc.ingest("notes.txt", "fourth notes")["document_id"] == "notes-4.txt"


def test_the_document_list_reads_like_a_catalogue(svc: Service) -> None:
    svc.ingest("handbook.md", "# Staff Handbook\n\nLeave is 25 days.", source="wiki")
    svc.ingest("report.pdf", pdf_bytes(["Quarterly revenue grew."]), source="finance")
    svc.ingest("broken.pdf", b"%PDF-1.4 this is not really a pdf", source="finance")
    listing = svc.http.get("/documents", headers=svc.auth()).json()
    assert listing["total"] == 3
    rows = {d["document_id"]: d for d in listing["documents"]}
    handbook = rows["handbook.md"]
    assert {k: handbook[k] for k in ("filename", "title", "kind", "source", "state",
                                     "current_version_id", "latest_version_id", "error",
                                     "version_count")} == {
        "filename": "handbook.md", "title": "Staff Handbook", "kind": "md", "source": "wiki",
        "state": "published", "current_version_id": "v1", "latest_version_id": "v1",
        "error": None, "version_count": 1}
    assert handbook["chunk_count"] == 1 and "versions" not in handbook or \
        handbook["versions"] is None
    broken = rows["broken.pdf"]
    assert (broken["state"], broken["current_version_id"], broken["chunk_count"]) == (
        "failed", None, 0)
    assert "PDF" in broken["error"]

    def ids(**params: object) -> list[str]:
        r = svc.http.get("/documents", params=params, headers=svc.auth())
        assert r.status_code == 200, r.text
        return [d["document_id"] for d in r.json()["documents"]]

    assert ids(kind="pdf") == ["report.pdf", "broken.pdf"]
    assert ids(kind=["md", "pdf"], state="failed") == ["broken.pdf"]
    assert ids(source="finance", sort="document_id") == ["broken.pdf", "report.pdf"]
    assert ids(sort="document_id", order="desc") == ["report.pdf", "handbook.md",
                                                     "broken.pdf"]
    assert ids(sort="created_at", order="desc", limit=1, offset=1) == ["report.pdf"]
    # a failed new version of a published document: listed as failed, still searchable v1
    svc.ingest("report.pdf", b"%PDF-1.4 broken again", document_id="report.pdf")
    report = svc.http.get("/documents/report.pdf", headers=svc.auth()).json()
    assert (report["state"], report["current_version_id"], report["latest_version_id"],
            report["filename"]) == ("failed", "v1", "v2", "report.pdf")
    assert [v["state"] for v in report["versions"]] == ["published", "failed"]


def test_a_docx_is_listed_and_found_under_its_title_style(svc: Service) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Q3 Budget Report", 0)
    d.add_heading("Summary", 1)
    d.add_paragraph("Spending rose in the third quarter.")
    d.add_heading("Accounts", 1)
    d.add_paragraph("ACCT-998877 was closed.")
    buf = io.BytesIO()
    d.save(buf)
    svc.ingest("q3.docx", buf.getvalue(), document_id="q3")
    listed = svc.http.get("/documents/q3", headers=svc.auth()).json()
    assert listed["title"] == "Q3 Budget Report"
    row = svc.search(query="ACCT-998877 closed", alpha=0.0).json()["results"][0]
    assert row["canonical_metadata"]["document"]["title"] == "Q3 Budget Report"
    assert row["content_evidence"]["items"][0]["heading_path"] == ["Q3 Budget Report",
                                                                  "Accounts"]


@pytest.mark.parametrize("query,code", [
    ("kind=pdff", "INVALID_REQUEST"), ("knd=pdf", "UNKNOWN_QUERY_PARAMETER"),
    ("state=gone", "INVALID_REQUEST"), ("sort=size", "INVALID_REQUEST"),
    ("order=up", "INVALID_REQUEST"), ("limit=0", "INVALID_LIMIT")])
def test_the_document_list_refuses_what_it_cannot_honour(svc: Service, query: str,
                                                         code: str) -> None:
    r = svc.http.get(f"/documents?{query}", headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text


def test_unknown_query_parameters_are_refused_on_every_operation(svc: Service) -> None:
    svc.ingest("a.txt", "some text", document_id="a")
    for method, path in (("GET", "/documents/a"), ("GET", "/clients/me"),
                         ("DELETE", "/documents/a"), ("POST", "/search")):
        r = svc.http.request(method, f"{path}?dry_run=1", headers=svc.auth(),
                             json={"query": "x"} if path == "/search" else None)
        assert r.status_code == 422, (path, r.text)
        assert r.json()["error"] == {
            "code": "UNKNOWN_QUERY_PARAMETER",
            "message": r.json()["error"]["message"],
            "details": {"unknown": ["dry_run"], "known": [],
                        "request_id": r.headers["x-request-id"]}}
    assert svc.http.get("/documents/a", headers=svc.auth()).status_code == 200  # not deleted
    assert svc.http.get("/health?verbose=1").status_code == 422


def test_delete_removes_the_document_and_its_points(svc: Service) -> None:
    svc.ingest("a.txt", "text to delete", document_id="gone")
    svc.ingest("b.txt", "text to keep", document_id="kept")
    assert svc.http.delete("/documents/gone", headers=svc.auth()).status_code == 204
    assert svc.http.get("/documents/gone", headers=svc.auth()).json()["error"]["code"] == \
        "DOCUMENT_NOT_FOUND"
    left = svc.runtime.store.scroll(ChunkFilter(client_id=_client_id(svc),
                                                searchable_only=False))
    assert {h.payload["document_id"] for h in left} == {"kept"}


def test_clients_only_see_their_own_documents(svc: Service) -> None:
    svc.ingest("a.txt", "acme text", document_id="acme-doc")
    other = svc.new_client("globex")
    assert svc.http.get("/documents", headers=svc.auth(other)).json()["total"] == 0
    r = svc.http.get("/documents/acme-doc", headers=svc.auth(other))
    assert r.status_code == 404
    assert svc.http.delete("/documents/acme-doc", headers=svc.auth(other)).status_code == 404


@pytest.mark.parametrize("headers,code", [
    ({}, "API_KEY_MISSING"),
    ({"Authorization": "Bearer nope"}, "API_KEY_INVALID"),
    ({"X-API-Key": "nope"}, "API_KEY_INVALID"),
])
def test_missing_or_unknown_key_is_401(svc: Service, headers: dict, code: str) -> None:
    r = svc.http.get("/documents", headers=headers)
    assert r.status_code == 401 and r.json()["error"]["code"] == code


def test_x_api_key_header_works_and_a_revoked_key_is_401(svc: Service) -> None:
    assert svc.http.get("/documents", headers={"X-API-Key": svc.key}).status_code == 200
    with transaction(svc.runtime.sessions) as s:
        assert reg.revoke_key(s, secret_or_prefix=svc.key) == 1
    r = svc.http.get("/documents", headers={"X-API-Key": svc.key})
    assert r.status_code == 401 and r.json()["error"]["code"] == "API_KEY_REVOKED"


def test_suspended_authority_cannot_upload(svc: Service) -> None:
    svc.ingest("kept.txt", "text kept while suspended", document_id="kept")
    with transaction(svc.runtime.sessions) as s:
        reg.set_authority(s, client_id=_client_id(svc), status="suspended")
    # writes need an active authority: upload, delete, discovery (and search, the contract's)
    for r in (svc.http.delete("/documents/kept", headers=svc.auth()),
              svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                            headers=svc.auth()),
              svc.search(query="text")):
        assert r.status_code == 403, r.text
    # reading what it holds does not: a suspended client can still see and export its data
    assert svc.http.get("/documents/kept", headers=svc.auth()).status_code == 200
    assert svc.http.get("/documents", headers=svc.auth()).json()["total"] == 1
    r = svc.upload("a.txt", "text")
    assert r.status_code == 403
    assert sans_request_id(r.json()["error"]) == {"code": "PUBLICATION_AUTHORITY_INACTIVE",
                                 "message": "this client's publication authority is suspended",
                                 "details": {"authority": "suspended"}}


@pytest.mark.parametrize("filename,content,form,status,code", [
    ("a.exe", b"MZ", {}, 415, "UNSUPPORTED_FILE_TYPE"),
    ("a.txt", b"", {}, 422, "EMPTY_FILE"),
    ("a.txt", b"x", {"metadata": "[1, 2]"}, 422, "INVALID_METADATA"),
    ("a.txt", b"x", {"metadata": "{not json"}, 422, "INVALID_METADATA"),
    ("a.txt", b"x", {"document_id": "../etc/passwd"}, 422, "INVALID_DOCUMENT_ID"),
    ("a.txt", b"x", {"document_id": "has space"}, 422, "INVALID_DOCUMENT_ID"),
])
def test_bad_uploads_get_a_clear_4xx_and_register_nothing(
        svc: Service, filename: str, content: bytes, form: dict, status: int, code: str) -> None:
    r = svc.upload(filename, content, **form)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert r.json()["error"]["message"]
    assert svc.http.get("/documents", headers=svc.auth()).json()["total"] == 0


def test_a_file_over_the_size_limit_is_413(tmp_path: Path) -> None:
    from tests.conftest import make_settings

    settings = make_settings(tmp_path, max_upload_bytes=100)
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        r = svc.upload("big.txt", "x" * 101)
        assert r.status_code == 413 and r.json()["error"]["code"] == "FILE_TOO_LARGE"


def test_a_corrupt_file_fails_its_job_and_touches_nothing_else(svc: Service) -> None:
    svc.ingest("keep.txt", "the kept document", document_id="keep")
    bad = svc.ingest("broken.pdf", b"%PDF-1.4 this is not really a pdf", document_id="keep-pdf")
    job = svc.http.get(f"/jobs/{bad['job_id']}", headers=svc.auth()).json()
    assert job["status"] == "failed" and "not a readable PDF" in job["error"]
    assert job["attempts"] == 1  # permanent: not retried
    doc = svc.http.get("/documents/keep-pdf", headers=svc.auth()).json()
    assert doc["versions"][0]["state"] == "failed" and doc["current_version_id"] is None
    kept = svc.http.get("/documents/keep", headers=svc.auth()).json()
    assert kept["versions"][0]["state"] == "published"


def test_a_failed_new_version_leaves_the_published_one_searchable(svc: Service) -> None:
    svc.ingest("doc.pdf", pdf_bytes(["Original budget text."]), document_id="doc")
    svc.ingest("doc.pdf", b"%PDF-1.4 garbage", document_id="doc")
    doc = svc.http.get("/documents/doc", headers=svc.auth()).json()
    assert [(v["version_id"], v["state"]) for v in doc["versions"]] == [
        ("v1", "published"), ("v2", "failed")]
    assert doc["current_version_id"] == "v1"
    visible = svc.runtime.store.scroll(ChunkFilter(client_id=_client_id(svc)))
    assert {h.payload["version_id"] for h in visible} == {"v1"}


def test_unknown_job_is_404_with_the_error_shape(svc: Service) -> None:
    r = svc.http.get("/jobs/nope", headers=svc.auth())
    assert r.status_code == 404
    assert sans_request_id(r.json()) == {"error": {
        "code": "JOB_NOT_FOUND", "message": "no job 'nope'", "details": {}}}


def test_deleting_a_document_while_its_job_runs_leaves_no_points(svc: Service) -> None:
    """The worker notices at its next heartbeat or at publication, and removes what it wrote."""
    body = svc.upload("a.md", "# A\n\n" + "\n\n".join(f"Paragraph {i} text." for i in range(5)),
                      document_id="doomed").json()
    svc.worker.deps.write_batch = 1
    calls = {"n": 0}
    real_upsert = svc.runtime.store.upsert

    def upsert_then_delete(points):  # type: ignore[no-untyped-def]
        real_upsert(points)
        calls["n"] += 1
        if calls["n"] == 1:  # a user deletes the document after the first write
            assert svc.http.delete("/documents/doomed", headers=svc.auth()).status_code == 204

    svc.runtime.store.upsert = upsert_then_delete  # type: ignore[method-assign]
    try:
        svc.worker.drain()
    finally:
        svc.runtime.store.upsert = real_upsert  # type: ignore[method-assign]
    assert svc.runtime.store.count(ChunkFilter(client_id=_client_id(svc),
                                               searchable_only=False)) == 0
    assert svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).status_code == 404


def _five_paragraphs_one_chunk_per_batch(svc: Service, document_id: str) -> dict:
    svc.worker.deps.write_batch = 1
    return svc.upload("a.md", "# A\n\n" + "\n\n".join(f"Paragraph {i} text." for i in range(5)),
                      document_id=document_id).json()


def test_a_job_taken_over_midway_is_not_published_by_its_first_worker(
        svc: Service) -> None:
    """Ownership is checked in the publishing transaction, not only at the last heartbeat."""
    from datetime import timedelta

    from sqlalchemy import update

    from app.registry import jobs
    from app.registry.tables import IngestionJob, utcnow

    body = _five_paragraphs_one_chunk_per_batch(svc, "contested")
    real_upsert = svc.runtime.store.upsert

    def upsert_then_lose_the_lease(points):  # type: ignore[no-untyped-def]
        real_upsert(points)
        with transaction(svc.runtime.sessions) as s:
            s.execute(update(IngestionJob).values(lease_expires_at=utcnow() - timedelta(1)))
        with transaction(svc.runtime.sessions) as s:
            jobs.claim_next(s, worker_id="w2", lease_s=60)

    svc.runtime.store.upsert = upsert_then_lose_the_lease  # type: ignore[method-assign]
    try:
        assert svc.worker.drain() == 1
    finally:
        svc.runtime.store.upsert = real_upsert  # type: ignore[method-assign]
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    # w2's now, not succeeded; the lost attempt was a crash, not an attempt
    assert (job["status"], job["attempts"]) == ("running", 1)
    document = svc.http.get("/documents/contested", headers=svc.auth()).json()
    assert document["current_version_id"] is None
    assert [v["state"] for v in document["versions"]] == ["indexing"]
    assert svc.runtime.store.count(ChunkFilter(client_id=_client_id(svc))) == 0  # none shown


@pytest.mark.parametrize(("heartbeat_s", "renewed"), [(60.0, False), (1e-9, True)])
def test_the_lease_is_renewed_only_when_due(
        svc: Service, monkeypatch: pytest.MonkeyPatch,
        heartbeat_s: float, renewed: bool) -> None:
    from app.registry import jobs

    calls = []
    real = jobs.heartbeat
    monkeypatch.setattr(jobs, "heartbeat", lambda s, **kw: calls.append(kw) or real(s, **kw))
    svc.worker.settings = svc.worker.settings.model_copy(update={"heartbeat_s": heartbeat_s})
    _five_paragraphs_one_chunk_per_batch(svc, "steady")
    assert svc.worker.drain() == 1
    document = svc.http.get("/documents/steady", headers=svc.auth()).json()
    assert document["current_version_id"] == "v1"
    # when due: after extraction, and twice per one-chunk batch: as its chunk is embedded
    # (live progress) and after its write (with the checkpoint)
    chunks = document["versions"][0]["chunk_count"]
    assert len(calls) == (1 + 2 * chunks if renewed else 0)
    if renewed:
        assert calls[1]["stage"] == {"name": "embedding", "unit": "chunks", "done": 1,
                                     "total": chunks}
        assert calls[1]["checkpoint"] is None and calls[2]["checkpoint"] is not None


def test_the_same_bytes_without_a_document_id_give_back_the_same_version(svc: Service) -> None:
    first = svc.ingest("handbook.md", HANDBOOK)
    again = svc.upload("handbook-copy.md", HANDBOOK).json()
    assert again["deduplicated"] is True
    assert (again["document_id"], again["version_id"], again["job_id"]) == (
        first["document_id"], first["version_id"], first["job_id"])
    assert svc.http.get("/documents", headers=svc.auth()).json()["total"] == 1
    other = svc.new_client("other")  # another client's same bytes are its own document
    assert svc.upload("handbook.md", HANDBOOK, key=other).json()["deduplicated"] is False


def test_the_discovery_switch_takes_a_boolean_only(svc: Service) -> None:
    r = svc.http.post("/clients/me/metadata/discovery", json={"enabled": "yes"},
                      headers=svc.auth())
    assert r.status_code == 422 and r.json()["error"]["code"] == "INVALID_REQUEST"


def test_a_running_job_shows_its_stage_in_chunks(svc: Service) -> None:
    svc.worker.settings = svc.worker.settings.model_copy(update={"heartbeat_s": 1e-9})
    body = _five_paragraphs_one_chunk_per_batch(svc, "staged")
    seen = []
    real_upsert = svc.runtime.store.upsert

    def upsert_and_look(points):  # type: ignore[no-untyped-def]
        real_upsert(points)
        job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
        seen.append((job["status"], job["stage"], job["progress"]))

    svc.runtime.store.upsert = upsert_and_look  # type: ignore[method-assign]
    try:
        assert svc.worker.drain() == 1
    finally:
        svc.runtime.store.upsert = real_upsert  # type: ignore[method-assign]
    total = len(seen)
    # each batch's chunk was reported as embedded before its write (0.1 + 0.85 · n / total)
    assert [s[1] for s in seen] == [{"name": "embedding", "unit": "chunks", "done": n,
                                     "total": total} for n in range(1, total + 1)]
    assert all(status == "running" for status, _, _ in seen)
    assert seen[-1][2] == pytest.approx(0.1 + 0.85 * total / total)
    done = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert (done["status"], done["stage"], done["progress"]) == ("succeeded", None, 1.0)


def test_a_claimed_job_says_it_is_extracting_from_the_first_moment(svc: Service) -> None:
    """Issue 53: a job's stage was null for the first ~30 s (until a page was read)."""
    from app.registry import jobs as jobs_registry

    body = svc.upload("stage-zero.md", "# Stage\n\nA short note.").json()
    with svc.runtime.sessions() as s:
        claimed = jobs_registry.claim_next(s, worker_id="looker", lease_s=30)
        s.commit()
    assert claimed is not None and claimed.job_id == body["job_id"]
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert job["status"] == "running"
    assert job["stage"] == {"name": "extracting", "unit": "pages", "done": 0, "total": 0}
    with svc.runtime.sessions() as s:  # give it back for the worker
        from app.registry.tables import IngestionJob

        row = s.get(IngestionJob, body["job_id"])
        row.status, row.worker_id, row.lease_expires_at = "queued", None, None
        s.commit()
    svc.worker.drain()


def test_an_upload_of_an_earlier_versions_bytes_says_it_reverts(svc: Service) -> None:
    """Issue 53: the answer says when a new version brings an older text back."""
    first = svc.ingest("revert.md", "# Revert\n\nFirst text.", document_id="revert")
    assert first["reverts_to"] is None
    second = svc.ingest("revert.md", "# Revert\n\nSecond text.", document_id="revert")
    assert second["version_id"] == "v2" and second["reverts_to"] is None
    back = svc.ingest("revert.md", "# Revert\n\nFirst text.", document_id="revert")
    assert (back["version_id"], back["reverts_to"], back["deduplicated"]) == ("v3", "v1", False)
    same = svc.ingest("revert.md", "# Revert\n\nFirst text.", document_id="revert")
    assert same["deduplicated"] is True and same["reverts_to"] is None  # v3 is current


def test_each_version_names_its_last_job(svc: Service) -> None:
    made = svc.ingest("jobbed.md", "# Jobbed\n\nText.", document_id="jobbed")
    doc = svc.http.get("/documents/jobbed", headers=svc.auth()).json()
    assert doc["versions"][0]["job_id"] == made["job_id"]
