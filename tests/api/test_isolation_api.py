"""Safe to share: nothing one client sends can break, poison or observe another client.

Each test reproduces a hole found by probing the service as an attacker would (issue 9) and
pins its fix: bounded input at the door, an engine that cannot be poisoned, BM25 statistics per
client, parallel versions, no 500 from input, bodies bounded before the key is checked, data
at rest private and scrubbed on delete.
"""

from __future__ import annotations

import json
import math
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.store import ChunkFilter
from app.store.edge import EdgeStore
from tests.conftest import make_settings
from tests.factories import sans_request_id
from tests.fakes import fake_models
from tests.live import LiveServer, live_server
from tests.service import Service, running_service
from tests.store.test_edge import FailingShard


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    settings = make_settings(tmp_path)
    settings.search.sparse_floor = 0.0  # tiny corpora: read every BM25 score, however small
    with running_service(tmp_path, fake_models(), settings=settings) as service:
        yield service


@pytest.fixture
def live(tmp_path: Path) -> LiveServer:
    with live_server(tmp_path, fake_models(), clients=("acme", "rival")) as server:
        yield server


def nested(levels: int) -> dict:
    value: Any = 1
    for _ in range(levels):
        value = {"x": value}
    return {"d": value}


def error_code(response: httpx.Response) -> str:
    return response.json()["error"]["code"]


# 1-2. Metadata that broke the engine or the answer serialiser is refused at the door.

def test_metadata_nested_125_deep_is_refused_and_every_client_goes_on(svc: Service) -> None:
    rival = svc.new_client("rival")
    r = svc.upload("a.txt", "poison attempt", metadata=json.dumps(nested(125)))
    assert r.status_code == 422 and error_code(r) == "INVALID_METADATA"
    assert "deeper than 8" in r.json()["error"]["message"]
    svc.ingest("b.txt", "ordinary text of the rival", key=rival, document_id="b")
    assert svc.http.get("/documents/b", headers=svc.auth(rival)).json()[
        "current_version_id"] == "v1"
    assert svc.http.delete("/documents/b", headers=svc.auth(rival)).status_code == 204


@pytest.mark.parametrize("metadata", [
    '{"deep": ' + "[" * 500 + "1" + "]" * 500 + "}",
    '{"s": "\\ud800"}',
    '{"d": ' * 5000 + "1" + "}" * 5000,
    '{"n": 1e400}',
    '{"n": NaN}',
    '{"big": 9223372036854775808}',
    '{"a": [1, {"b": 1}]}',  # a value and an object under one key: its job crashed thrice
    '{"a.b": 1}',
])
def test_metadata_the_registry_or_the_answer_cannot_hold_is_422(svc: Service,
                                                                 metadata: str) -> None:
    r = svc.upload("a.txt", "text", metadata=metadata, document_id="doc")
    assert r.status_code == 422 and error_code(r) == "INVALID_METADATA"
    assert svc.http.get("/documents", headers=svc.auth()).json()["total"] == 0


@pytest.mark.parametrize("custom", [{"a": [None, {"b": 1}]},
                                    {"a": [{"b": 1}, {"b": {"c": 2}}]}])
def test_lists_of_objects_of_any_shape_publish(svc: Service, custom: dict) -> None:
    body = svc.ingest("a.txt", "text", metadata=json.dumps(custom), document_id="doc")
    job = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
    assert job["status"] == "succeeded", job["error"]
    doc = svc.http.get("/documents/doc", headers=svc.auth()).json()
    assert doc["versions"][0]["canonical_metadata"]["custom"] == custom
    r = svc.search(query="text", filters={"custom.a.b": 1})
    assert [row["document_version"]["document_id"] for row in r.json()["results"]] == ["doc"]


# 3. BM25 statistics per client.

def sparse_scores(svc: Service, query: str, key: str | None = None) -> dict[str, float]:
    r = svc.search(key=key, query=query, alpha=0, explain=True)
    assert r.status_code == 200, r.text
    return {row["document_version"]["document_id"]:
            row["content_evidence"]["items"][0]["scores"]["sparse"]
            for row in r.json()["results"]}


def test_other_clients_uploads_and_deletions_leave_scores_identical(svc: Service) -> None:
    svc.ingest("a1.txt", "alpha beta", document_id="a1")
    svc.ingest("a2.txt", "alpha gamma", document_id="a2")
    svc.ingest("a3.txt", "delta epsilon", document_id="a3")
    # N = 3 chunks, "alpha" in 2: idf = ln((3 - 2 + 0.5) / (2 + 0.5) + 1) = ln 1.6; tf 1
    before = sparse_scores(svc, "alpha")
    assert before == pytest.approx({"a1": math.log(1.6), "a2": math.log(1.6)}, abs=1e-6)
    rival = svc.new_client("rival")
    for i in range(3):
        svc.ingest(f"r{i}.txt", "alpha alpha alpha " * (i + 1), key=rival, document_id=f"r{i}")
    assert sparse_scores(svc, "alpha") == before  # to the last digit
    for i in range(3):
        assert svc.http.delete(f"/documents/r{i}", headers=svc.auth(rival)).status_code == 204
    assert sparse_scores(svc, "alpha") == before
    # and the rival sees only its own corpus: no chunk left, so no score at all
    assert sparse_scores(svc, "alpha", key=rival) == {}


def test_superseded_and_deleted_versions_never_count(svc: Service) -> None:
    svc.ingest("a1.txt", "alpha beta", document_id="a1")
    svc.ingest("a2.txt", "alpha gamma", document_id="a2")
    svc.ingest("a3.txt", "delta epsilon", document_id="a3")
    svc.ingest("a3.txt", "alpha zeta", document_id="a3")  # v2 supersedes v1
    # N = 3 (v1 of a3 no longer counts), df = 3: ln(0.5 / 3.5 + 1)
    assert sparse_scores(svc, "alpha") == pytest.approx(
        {d: math.log(8 / 7) for d in ("a1", "a2", "a3")}, abs=1e-6)
    assert sparse_scores(svc, "delta") == {}  # only the superseded version held it
    svc.http.delete("/documents/a1", headers=svc.auth())
    # N = 2, df = 2: ln(0.5 / 2.5 + 1)
    assert sparse_scores(svc, "alpha") == pytest.approx(
        {d: math.log(1.2) for d in ("a2", "a3")}, abs=1e-6)


# 4. Parallel versions of one document.

def test_uploads_racing_a_delete_of_their_document_never_answer_500(
        tmp_path: Path, db_url: str) -> None:
    """An upload to a document a DELETE removes meanwhile registers again from scratch and
    makes the document anew: every upload 202 (or 409 if it keeps losing), every DELETE 204
    or 404, never a 500."""
    with live_server(tmp_path, fake_models(), db_url=db_url) as server:
        key = server.keys["acme"]
        codes: list[int] = []
        lock = threading.Lock()

        def upload(i: int) -> None:
            for j in range(6):
                r = httpx.post(f"{server.url}/documents", headers={"X-API-Key": key},
                               files={"file": ("r.txt", f"upload {i}.{j}".encode())},
                               data={"document_id": "rd1"}, timeout=60)
                with lock:
                    codes.append(r.status_code)

        def delete() -> None:
            for _ in range(30):
                r = httpx.delete(f"{server.url}/documents/rd1", headers={"X-API-Key": key},
                                 timeout=60)
                with lock:
                    codes.append(r.status_code)

        threads = [threading.Thread(target=upload, args=(i,)) for i in range(6)]
        threads.append(threading.Thread(target=delete))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert set(codes) <= {202, 204, 404, 409}, sorted(codes)
        assert codes.count(202) >= 30  # nearly every upload went through
        server.worker.drain()  # jobs of deleted versions end quietly
        r = httpx.get(f"{server.url}/documents", headers={"X-API-Key": key})
        assert r.status_code == 200


def _parallel_uploads(url: str, key: str, n: int, form: Any) -> list[httpx.Response]:
    """``n`` uploads at once (``form(i)``: the i-th request's files and data), all 202."""
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def upload(i: int) -> None:
        r = httpx.post(f"{url}/documents", headers={"X-API-Key": key}, timeout=60, **form(i))
        with lock:
            answers.append(r)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in answers) == [202] * n, [
        r.text for r in answers if r.status_code != 202]
    return answers


def test_parallel_same_name_uploads_without_an_id_make_distinct_documents(
        tmp_path: Path, db_url: str) -> None:
    """Each upload's name-made id is its own document: never a version of another's file."""
    with live_server(tmp_path, fake_models(), db_url=db_url) as server:
        key = server.keys["acme"]
        answers = _parallel_uploads(server.url, key, 96, lambda i: {
            "files": {"file": ("same-name.txt", f"file number {i}".encode())}})
        ids = [r.json()["document_id"] for r in answers]
        assert len(set(ids)) == 96 and {r.json()["version_id"] for r in answers} == {"v1"}
        assert set(ids) == {"same-name.txt"} | {f"same-name-{n}.txt" for n in range(2, 97)}


@pytest.mark.parametrize("existing", [False, True])
def test_parallel_uploads_to_one_document_id_each_get_their_own_version(
        tmp_path: Path, db_url: str, existing: bool) -> None:
    with live_server(tmp_path, fake_models(), db_url=db_url) as server:
        key = server.keys["acme"]
        if existing:
            first = httpx.post(f"{server.url}/documents", headers={"X-API-Key": key},
                               files={"file": ("m.txt", b"version zero")},
                               data={"document_id": "memo"})
            assert first.status_code == 202
        answers = _parallel_uploads(server.url, key, 50, lambda i: {
            "files": {"file": ("m.txt", f"version {i + 1}".encode())},
            "data": {"document_id": "memo"}})
        offset = 1 if existing else 0
        assert sorted(int(r.json()["version_id"][1:]) for r in answers) == list(
            range(1 + offset, 51 + offset))
        doc = httpx.get(f"{server.url}/documents/memo", headers={"X-API-Key": key}).json()
        assert doc["version_count"] == 50 + offset


# 5. No 500 from input; an unexpected error keeps the connection usable.

def test_inputs_that_used_to_raise_get_a_4xx(svc: Service) -> None:
    r = svc.http.get("/documents?offset=9223372036854775808", headers=svc.auth())
    assert r.status_code == 422 and error_code(r) == "INVALID_OFFSET"
    r = svc.http.post("/search", headers={**svc.auth(), "content-type": "application/json"},
                      content='{"query": "x", "filters": {"custom.n": 1' + "0" * 400 + "}}")
    assert r.status_code == 422 and error_code(r) == "INVALID_FILTER"
    for filters in ({"custom.n": float("1e308") * 10}, {"document_id": "\ud800"},
                    {"custom.s": ["x"] * 101}):
        body = json.dumps({"query": "x", "filters": filters}, allow_nan=True)
        r = svc.http.post("/search", headers={**svc.auth(), "content-type": "application/json"},
                          content=body)
        assert r.status_code == 422, (filters, r.text)
    r = svc.http.post("/search", headers={**svc.auth(), "content-type": "application/json"},
                      content='{"query": "\\ud800"}')
    assert r.status_code == 422 and error_code(r) == "INVALID_QUERY"


def test_an_unexpected_error_is_answered_in_the_error_shape_on_a_kept_connection(
        live: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.api.routes import documents as route

    def broken(*_a: Any, **_kw: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(route.docs_registry, "list_documents", broken)
    with httpx.Client(base_url=live.url, headers={"X-API-Key": live.keys["acme"]}) as http:
        r = http.get("/documents")
        assert r.status_code == 500
        assert sans_request_id(r.json()) == {"error": {"code": "INTERNAL_ERROR", "message": (
            "an unexpected error occurred; it has been logged"),
            "details": {"type": "RuntimeError"}}}
        assert r.headers.get("connection") != "close"
        assert http.get("/clients/me").status_code == 200  # the same keep-alive connection


# 6. Bodies bounded, and the key checked, before any body is read.

def raw_request(live: LiveServer, head: str) -> str:
    """Send only a request head (no body) and read the answer: proof the body was not read."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(head.encode())
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data.decode(errors="replace")


def test_an_oversized_upload_is_refused_before_it_is_read(live: LiveServer) -> None:
    answer = raw_request(live, "POST /documents HTTP/1.1\r\nHost: x\r\n"
                               "Content-Type: multipart/form-data; boundary=b\r\n"
                               "Content-Length: 209715200\r\n\r\n")
    assert answer.startswith("HTTP/1.1 413") and '"FILE_TOO_LARGE"' in answer


def test_an_unauthenticated_body_is_refused_before_it_is_read(live: LiveServer) -> None:
    for path in ("/search", "/documents"):
        answer = raw_request(live, f"POST {path} HTTP/1.1\r\nHost: x\r\n"
                                   "Content-Type: application/json\r\n"
                                   "Content-Length: 1000000\r\n\r\n")
        assert answer.startswith("HTTP/1.1 401") and '"API_KEY_MISSING"' in answer, answer


def test_a_json_body_over_the_limit_is_cut_off_while_streaming(live: LiveServer) -> None:
    def chunks():  # no Content-Length: chunked transfer, counted as it arrives
        yield b'{"query": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    r = httpx.post(f"{live.url}/search", content=chunks(),
                   headers={"X-API-Key": live.keys["acme"], "content-type": "application/json"})
    assert r.status_code == 413 and error_code(r) == "REQUEST_TOO_LARGE"
    assert sans_request_id(r.json()["error"]["details"]) == {"limit_bytes": 1024 * 1024}
    ok = httpx.post(f"{live.url}/search", json={"query": "x"},
                    headers={"X-API-Key": live.keys["acme"]})
    assert ok.status_code == 200


# 7. Document ids by full match.

def test_a_document_id_with_a_trailing_newline_is_refused(svc: Service) -> None:
    r = svc.upload("a.txt", "text", document_id="memo\n")
    assert r.status_code == 422 and error_code(r) == "INVALID_DOCUMENT_ID"


# 8. Data at rest.

def test_data_directory_registry_and_engine_files_are_private(svc: Service,
                                                               tmp_path: Path) -> None:
    svc.ingest("a.txt", "private text", document_id="a")
    svc.runtime.store.close()  # flushed, so every engine file exists
    data = tmp_path / "data"
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    files = [tmp_path / "registry.db", *[p for p in (tmp_path / "qdrant").rglob("*")]]
    loose = [p for p in files if p.exists() and stat.S_IMODE(p.stat().st_mode)
             & (stat.S_IRWXG | stat.S_IRWXO)]
    assert loose == []
    svc.runtime.store = EdgeStore(tmp_path / "qdrant", dense_model="fake/dense", dense_dim=384)


def test_the_first_key_is_never_logged_in_full(caplog: pytest.LogCaptureFixture,
                                               tmp_path: Path) -> None:
    from app.main import announce_first_key

    announce_first_key("evs_0123456789abcdefSECRET", tmp_path / "initial-api-key.txt")
    assert "evs_012345" in caplog.text and "SECRET" not in caplog.text


def test_deleting_a_document_scrubs_its_text_from_registry_and_engine(tmp_path: Path) -> None:
    with running_service(tmp_path, fake_models(),
                         settings=make_settings(tmp_path, compact_interval_s=0.05)) as svc:
        _deleted_text_is_scrubbed(svc, tmp_path)


def _deleted_text_is_scrubbed(svc: Service, tmp_path: Path) -> None:
    secret = b"CONFIDENTIAL-MERGER-PLAN-7731"
    svc.ingest("keep.txt", "a document that stays", document_id="keep")
    svc.ingest("gone.txt", b"about " + secret, document_id="gone")
    registry = [tmp_path / "registry.db", tmp_path / "registry.db-wal"]
    assert any(p.exists() and secret in p.read_bytes() for p in registry)
    assert svc.http.delete("/documents/gone", headers=svc.auth()).status_code == 204
    assert not any(p.exists() and secret in p.read_bytes() for p in registry)
    time.sleep(0.06)  # compactions are at least compact_interval_s apart
    assert svc.worker.compact_if_due()  # the worker compacts the engine between jobs
    segments = [p for p in (tmp_path / "qdrant").rglob("*")
                if p.is_file() and "wal" not in p.parts]
    assert segments and not any(secret in p.read_bytes() for p in segments)
    assert not svc.worker.compact_if_due()  # nothing deleted since


# 9. Redirects, filenames, content sniffing.

def test_the_host_header_is_never_reflected(svc: Service) -> None:
    r = svc.http.get("/documents/", headers={**svc.auth(), "host": "evil.example"},
                     follow_redirects=False)
    assert r.status_code == 404 and "evil.example" not in str(r.headers)


def test_filenames_are_made_safe_to_display_and_kept_as_uploaded(svc: Service) -> None:
    # (httpx percent-encodes CR, LF and TAB in form filenames; ESC, DEL and U+2028 go raw)
    svc.ingest("re\x1b[2Jport\u2028<b>\x7f.txt", "quarterly numbers", document_id="r")
    version = svc.http.get("/documents/r", headers=svc.auth()).json()["versions"][0]
    assert version["filename"] == "re[2Jport<b>.txt"
    source = version["canonical_metadata"]["source"]
    assert source["filename"] == "re[2Jport<b>.txt"
    assert source["original_filename"] == "re\x1b[2Jport\u2028<b>\x7f.txt"


@pytest.mark.parametrize("filename, content, found", [
    ("tool.md", b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "an ELF executable"),
    ("image.txt", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "a PNG image"),
    # every byte value: no charset reads it as text (UTF-16 without a mark is read: its NULs
    # fall where a charset puts them, tests/api/test_formats_api.py)
    ("notes.txt", bytes(range(256)) * 4, "binary data"),
    ("report.pdf", b"just some text", "not a PDF"),
    ("letter.docx", b"<html>not a zip</html>", "not a DOCX"),
])
def test_bytes_that_contradict_the_extension_are_refused(svc: Service, filename: str,
                                                         content: bytes, found: str) -> None:
    r = svc.upload(filename, content)
    assert r.status_code == 415 and error_code(r) == "FILE_CONTENT_MISMATCH"
    assert found in r.json()["error"]["message"]


# 2 (engine). Should the engine still fail, only the offending job fails.

def test_an_engine_failure_fails_only_the_offending_job(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    budget = {"fail": 0}
    real_open = EdgeStore._open
    monkeypatch.setattr(EdgeStore, "_open", lambda self: FailingShard(real_open(self), budget))
    with running_service(tmp_path, fake_models()) as svc:
        rival = svc.new_client("rival")
        budget["fail"] = 2  # this job's write fails, and fails again after the reopen
        bad = svc.ingest("a.txt", "the offending document", document_id="bad")
        job = svc.http.get(f"/jobs/{bad['job_id']}", headers=svc.auth()).json()
        assert (job["status"], job["attempts"]) == ("failed", 1)
        assert "vector engine refused" in job["error"]
        good = svc.ingest("b.txt", "the rival's document", key=rival, document_id="good")
        job = svc.http.get(f"/jobs/{good['job_id']}", headers=svc.auth(rival)).json()
        assert job["status"] == "succeeded"
        assert svc.runtime.store.count(ChunkFilter(client_id=_client_id(svc, rival))) == 1


def _client_id(svc: Service, key: str) -> str:
    return svc.http.get("/clients/me", headers=svc.auth(key)).json()["id"]


def test_nul_is_refused_where_it_would_be_stored(tmp_path: Path, db_url: str) -> None:
    """PostgreSQL stores no NUL in text or JSON: a NUL in metadata or a source is
    a 422 on every registry, not a 500 on one and a pass on the other. (A file name cannot
    carry one here: the multipart client percent-encodes it.)"""
    with running_service(tmp_path, fake_models(), db_url=db_url) as svc:
        for form, code in (({"metadata": '{"a": "x\\u0000y"}'}, "INVALID_METADATA"),
                           ({"metadata": '{"a\\u0000": 1}'}, "INVALID_METADATA"),
                           ({"source": "wiki\x00"}, "INVALID_SOURCE")):
            r = svc.upload("n.txt", "a note", **form)
            assert r.status_code == 422, (form, r.text)
            assert r.json()["error"]["code"] == code and "NUL" in r.json()["error"]["message"]
        assert svc.upload("n.txt", "a note", metadata='{"a": "fine"}').status_code == 202
