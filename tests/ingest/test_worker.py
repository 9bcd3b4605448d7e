"""The worker's turns and checkpoints: a large document gives the worker to another client's
small one and resumes where it stopped; a crash resumes from the last checkpoint too."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import pytest

from app.domain.errors import ExtractionError
from app.registry.database import transaction
from app.registry.tables import Document, DocumentVersion, IngestionJob
from app.store import ChunkFilter
from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service

# six paragraphs of ~450 words: six chunks of the 512-token budget (fake whitespace tokens)
LARGE = "\n\n".join(" ".join(f"p{p}w{i}" for i in range(450)) for p in range(6))


class Interrupted(BaseException):
    """Stands in for the process dying: no `except Exception` in the worker catches it."""


@pytest.fixture
def svc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Service:
    # one chunk per batch: six batches
    settings = make_settings(tmp_path, slice_s=0.0, heartbeat_s=1e-9, write_batch=1)
    with running_service(tmp_path, fake_models(), settings=settings) as service:
        yield service


def count_embeddings(svc: Service, monkeypatch: pytest.MonkeyPatch,
                     die_on_call: int | None = None) -> list[int]:
    calls: list[int] = []
    embedder = svc.worker.deps.processor
    real = embedder.embed

    def counted(texts: Any, raw: Any, on_progress: Any = None, known_persons: Any = (),
                language: str = "en") -> Any:
        calls.append(len(texts))
        if die_on_call is not None and len(calls) == die_on_call:
            raise Interrupted
        return real(texts, raw, on_progress, known_persons, language)

    monkeypatch.setattr(embedder, "embed", counted)
    return calls


def job(svc: Service, job_id: str) -> IngestionJob:
    with transaction(svc.runtime.sessions) as s:
        found = s.get(IngestionJob, job_id)
        assert found is not None
        s.expunge(found)
        return found


def test_another_clients_small_document_is_published_while_a_large_one_indexes(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_embeddings(svc, monkeypatch)
    rival = svc.new_client("rival")
    large = svc.upload("large.txt", LARGE, document_id="large").json()
    small = svc.upload("small.txt", "a short note", key=rival, document_id="small").json()

    assert svc.worker.run_once()  # the large one: one batch, then its turn is over
    given_back = job(svc, large["job_id"])
    assert (given_back.status, given_back.attempts) == ("queued", 0)
    assert given_back.checkpoint is not None and given_back.checkpoint["next_chunk"] == 1
    assert svc.worker.run_once()  # the rival's, served before the large one's next slice
    assert job(svc, small["job_id"]).status == "succeeded"
    assert job(svc, large["job_id"]).status == "queued"

    svc.worker.drain()
    done = job(svc, large["job_id"])
    assert (done.status, done.attempts, done.checkpoint) == ("succeeded", 1, None)
    assert sum(calls) == 6 + 1  # every chunk embedded once, the small one's too
    doc = svc.http.get("/documents/large", headers=svc.auth()).json()
    assert doc["versions"][0]["chunk_count"] == 6


def test_a_crash_resumes_from_the_last_checkpoint_without_redoing_batches(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_embeddings(svc, monkeypatch, die_on_call=4)
    body = svc.upload("large.txt", LARGE, document_id="large").json()
    with pytest.raises(Interrupted):
        svc.worker.run_once()  # three batches written and checkpointed, then "killed"
    assert job(svc, body["job_id"]).status == "running"
    assert svc.worker.recover() == 1  # the embedded engine: no other worker can hold it
    svc.worker.drain()
    assert calls == [1, 1, 1, 1, 1, 1, 1]  # the 4th died; the 4th to 6th done once after
    assert job(svc, body["job_id"]).status == "succeeded"
    client_id = svc.http.get("/clients/me", headers=svc.auth()).json()["id"]
    assert svc.runtime.store.count(ChunkFilter(client_id, searchable_only=False)) == 6

    # the resumed version's BM25 counts and entities equal a fresh ingestion's
    svc.ingest("large.txt", LARGE, document_id="copy")  # same name: the title is embedded too
    with transaction(svc.runtime.sessions) as s:
        resumed, fresh = (s.query(DocumentVersion).join(Document)
                          .filter(Document.document_id == name).one()
                          for name in ("large", "copy"))
        assert resumed.term_df == fresh.term_df and resumed.entities == fresh.entities


@pytest.mark.parametrize("error, transient, code", [
    (ValueError("unbalanced table in the file"), False, "PROCESSING_FAILED"),  # its own data
    (TimeoutError("regular-expression match exceeded its 5.0 s time limit"), False,
     "PROCESSING_FAILED"),
    (MemoryError(), False, "OUT_OF_MEMORY"),
    (ExtractionError("locked", code="PDF_ENCRYPTED"), False,
     "PDF_ENCRYPTED"),
    (__import__("sqlalchemy").exc.OperationalError("SELECT 1", {}, Exception("gone")), True,
     "RETRIES_EXHAUSTED"),
    (OSError(28, "No space left on device"), True, "RETRIES_EXHAUSTED"),
])
def test_failures_that_would_repeat_fail_at_once_and_passing_ones_are_retried(
        svc: Service, monkeypatch: pytest.MonkeyPatch, error: BaseException,
        transient: bool, code: str) -> None:
    def broken(*_a: Any, **_kw: Any) -> Any:
        raise error

    monkeypatch.setattr(svc.worker.deps.processor, "prepare", broken)
    body = svc.upload("a.txt", "some text", document_id="a").json()
    svc.worker.run_once()
    failed = job(svc, body["job_id"])
    assert failed.error_code == code  # while queued again too: the last attempt's
    if transient:
        assert (failed.status, failed.attempts) == ("queued", 1)  # backoff, then again
    else:
        assert (failed.status, failed.attempts) == ("failed", 1)
        assert ("not retried" in failed.error or "more memory" in failed.error
                or failed.error == "locked")
        # the code is on the job, on the document and on its failed version, over HTTP
        answer = svc.http.get(f"/jobs/{body['job_id']}", headers=svc.auth()).json()
        assert (answer["status"], answer["error_code"]) == ("failed", code)
        document = svc.http.get("/documents/a", headers=svc.auth()).json()
        assert document["error_code"] == code
        assert (document["versions"][0]["error_code"], document["versions"][0]["error"]) == (
            code, failed.error)
        listed = svc.http.get("/documents", params={"state": "failed"},
                              headers=svc.auth()).json()["documents"]
        assert [(d["document_id"], d["error_code"]) for d in listed] == [("a", code)]


def test_a_long_extraction_is_kept_so_a_resumed_job_does_not_read_the_file_again(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    processor = svc.worker.deps.processor
    real = processor.prepare
    read: list[str] = []

    def slow(kind: str, content: bytes, filename: str, on_progress: Any = None,
             detach: Any = None) -> Any:
        read.append(filename)
        prepared = real(kind, content, filename, on_progress)
        return replace(prepared, seconds={**prepared.seconds, "extract": 30.0})  # a scan's OCR

    monkeypatch.setattr(processor, "prepare", slow)
    rival = svc.new_client("rival")
    large = svc.upload("large.txt", LARGE, document_id="large").json()
    svc.upload("small.txt", "a short note", key=rival, document_id="small")
    assert svc.worker.run_once()  # one batch, then the rival's turn
    kept = job(svc, large["job_id"]).checkpoint
    assert kept is not None and kept["next_chunk"] == 1 and len(kept["prepared"]["chunks"]) == 6
    svc.worker.drain()
    assert read == ["large.txt", "small.txt"]  # the large file was read once
    done = job(svc, large["job_id"])
    assert (done.status, done.checkpoint) == ("succeeded", None)
    assert svc.http.get("/documents/large", headers=svc.auth()).json()[
        "versions"][0]["chunk_count"] == 6


class SlowReads:
    """The fake models' in-process work, except that ``slow.txt`` is read in a thread until
    the test releases it — and can be detached while it is read, as a child's extraction is
    (ingest/processing.py's ChildProcess; tests/ingest/test_processing.py runs that one)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.release, self.reads = inner, threading.Event(), []
        self.pending: Any = None

    def release_idle(self, idle_s: float) -> list[str]:
        return self.inner.release_idle(idle_s)

    def prepare(self, kind: str, content: bytes, filename: str, on_progress: Any = None,
                detach: Any = None) -> Any:
        self.reads.append(filename)
        if filename != "slow.txt":
            return self.inner.prepare(kind, content, filename, on_progress)
        self.pending = pending = _FakePending()

        def read() -> None:
            self.release.wait(30)
            pending.outcome.set_result(self.inner.prepare(kind, content, filename))

        threading.Thread(target=read, daemon=True).start()
        return self.resume(pending, on_progress, detach)

    def resume(self, pending: Any, on_progress: Any = None, detach: Any = None) -> Any:
        from ingest.processing import ExtractionDetached

        started = time.monotonic()
        while True:
            try:
                return pending.outcome.result(timeout=0.01)
            except FutureTimeout:
                pass
            if detach is not None and detach(time.monotonic() - started):
                raise ExtractionDetached(pending)

    def embed(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.embed(*args, **kwargs)

    def close(self) -> None:
        self.inner.close()


class _FakePending:
    def __init__(self) -> None:
        self.outcome: Future = Future()
        self.cancelled = False

    def pages(self) -> tuple[int, int]:
        return 3, 10

    def cancel(self) -> None:
        self.cancelled = True


@pytest.fixture
def slow_svc(tmp_path: Path) -> Any:
    settings = make_settings(tmp_path, extract_slice_s=0.0, heartbeat_s=0.05)
    with running_service(tmp_path, fake_models(), settings=settings) as service:
        service.worker.deps.processor = SlowReads(service.worker.deps.processor)
        yield service
        service.worker.close()


def _wait_for(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_slow_extraction_is_parked_while_another_clients_file_is_published(slow_svc) -> None:
    """The slow file's job stays this worker's (running, its lease renewed with the pages
    read) while the rival's one-line file is published; then it resumes, read once."""
    svc, reads = slow_svc, slow_svc.worker.deps.processor
    rival = svc.new_client("rival")
    slow = svc.upload("slow.txt", "the slow file's text", document_id="slow").json()
    small = svc.upload("small.txt", "a one-line note", key=rival, document_id="small").json()
    assert svc.worker.run_once()  # the slow file is claimed first, then parked
    parked = job(svc, slow["job_id"])
    assert (parked.status, parked.worker_id) == ("running", "test-worker")
    assert job(svc, small["job_id"]).status == "queued"
    _wait_for(lambda: job(svc, slow["job_id"]).lease_expires_at > parked.lease_expires_at)
    assert job(svc, slow["job_id"]).stage == {"name": "extracting", "unit": "pages",
                                              "done": 3, "total": 10}
    assert svc.worker.run_once()  # the rival's turn, while the slow file is still read
    assert job(svc, small["job_id"]).status == "succeeded"
    assert job(svc, slow["job_id"]).status == "running"
    assert svc.search(key=rival, query="note").json()["results"]
    reads.release.set()
    _wait_for(reads.pending.outcome.done)
    assert svc.worker.run_once()  # resumed, not read again
    assert job(svc, slow["job_id"]).status == "succeeded"
    assert reads.reads == ["slow.txt", "small.txt"]
    assert [r["document_version"]["document_id"]
            for r in svc.search(query="slow file").json()["results"]] == [
        "slow"]


def test_a_slow_extraction_with_no_one_waiting_keeps_the_worker(slow_svc) -> None:
    svc, reads = slow_svc, slow_svc.worker.deps.processor
    slow = svc.upload("slow.txt", "the slow file's text", document_id="slow").json()
    threading.Timer(0.3, reads.release.set).start()
    assert svc.worker.run_once()
    assert job(svc, slow["job_id"]).status == "succeeded"  # waited on, never parked


def test_a_parked_jobs_extraction_stops_when_its_document_is_deleted(slow_svc) -> None:
    svc, reads = slow_svc, slow_svc.worker.deps.processor
    rival = svc.new_client("rival")
    svc.upload("slow.txt", "the slow file's text", document_id="slow")
    svc.upload("small.txt", "a one-line note", key=rival, document_id="small")
    assert svc.worker.run_once()  # parked
    assert svc.http.delete("/documents/slow", headers=svc.auth()).status_code == 204
    _wait_for(lambda: reads.pending.cancelled)  # the keeper found it gone and stopped it
    reads.release.set()
    svc.worker.drain()
    assert svc.http.get("/documents/slow", headers=svc.auth()).status_code == 404
    assert svc.worker._parked == {}  # noqa: SLF001


def test_a_failing_compaction_does_not_stop_the_jobs(svc: Service,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from app.domain.errors import StoreRejected

    store = svc.worker.deps.store
    tried: list[int] = []

    def broken() -> bool:
        tried.append(1)
        raise StoreRejected("the vector engine could not compact: tracker_journal.dat is "
                            "shorter than expected")

    monkeypatch.setattr(store, "delete_pending_compaction", lambda: True)
    monkeypatch.setattr(store, "compact", broken)
    body = svc.upload("a.txt", "some text", document_id="a").json()
    assert svc.worker.run_once()
    assert tried == [1] and job(svc, body["job_id"]).status == "succeeded"
    svc.worker.run_once()
    assert tried == [1]  # not again before the interval


def test_a_version_deleted_while_discovery_catches_up_is_passed_over(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """The catch-up read a version, its document was deleted before the leaves were written
    (the foreign key then refuses them): the batch is done again from scratch, without it,
    instead of the error ending the worker's turn."""
    from app.registry import discovery

    svc.ingest("a.txt", "alpha text", document_id="a", custom_metadata='{"team": "x"}')
    svc.ingest("b.txt", "beta text", document_id="b", custom_metadata='{"team": "y"}')
    assert svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                         headers=svc.auth()).status_code == 200
    real, deleted = discovery.index_version, []

    def deleted_meanwhile(session: Any, *, client_id: str, version: Any) -> int:
        if not deleted:
            deleted.append(svc.http.delete("/documents/a", headers=svc.auth()).status_code)
        return real(session, client_id=client_id, version=version)

    monkeypatch.setattr(discovery, "index_version", deleted_meanwhile)
    svc.worker.drain()
    assert deleted == [204]
    state = svc.http.get("/clients/me", headers=svc.auth()).json()["metadata_discovery"]
    assert (state["state"], state["indexed_versions"], state["published_versions"]) == (
        "ready", 1, 1)


def test_a_document_deleted_between_claim_and_load_ends_its_job_quietly(
        svc: Service, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """No traceback: the job finds its document gone and stops (it went with the document)."""
    import ingest.pipeline as pipeline

    body = svc.upload("a.txt", "some text", document_id="a").json()
    real_load = pipeline.load

    def deleted_first(deps: Any, claimed: Any) -> Any:
        assert svc.http.delete("/documents/a", headers=svc.auth()).status_code == 204
        return real_load(deps, claimed)

    monkeypatch.setattr(pipeline, "load", deleted_first)
    with caplog.at_level("INFO"):
        assert svc.worker.run_once()
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    assert any("deleted meanwhile" in r.getMessage() for r in caplog.records)
    with transaction(svc.runtime.sessions) as s:
        assert s.get(IngestionJob, body["job_id"]) is None


def test_an_idle_worker_releases_its_children_and_a_busy_one_does_not(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []
    monkeypatch.setattr(svc.worker.deps.processor, "release_idle",
                        lambda idle_s: asked.append(idle_s) or [])
    svc.upload("idle.txt", "a note", document_id="idle")
    assert svc.worker.run_once() is True and asked == []  # a job: nothing released
    assert svc.worker.run_once() is False and asked == [svc.worker.settings.child_idle_s]
    monkeypatch.setattr(svc.worker.settings, "child_idle_s", 0.0)  # 0: never
    assert svc.worker.run_once() is False and len(asked) == 1


def test_a_batch_is_sized_to_embed_in_about_a_second() -> None:
    """The turn is given up between batches: a batch is sized from the last one's seconds to
    take about BATCH_SECONDS, never more than write_batch nor fewer than MIN_BATCH chunks."""
    from ingest.pipeline import BATCH_SECONDS, MIN_BATCH, next_batch_size

    assert (BATCH_SECONDS, MIN_BATCH) == (1.0, 4)
    assert next_batch_size(64, 1.0, 64) == 64  # on time: as it was
    assert next_batch_size(64, 2.0, 64) == 32  # twice as slow: half as many
    assert next_batch_size(64, 24.0, 64) == 4 == next_batch_size(64, 15.9, 64)  # the floor
    assert next_batch_size(64, 12.8, 64) == 5
    assert next_batch_size(8, 0.1, 64) == 64 and next_batch_size(8, 0.2, 64) == 40  # capped
    assert next_batch_size(1, 0.0, 1) == 1 and next_batch_size(1, 0.0, 64) == 64  # no /0
    assert next_batch_size(1, 30.0, 2) == 2  # write_batch under MIN_BATCH: write_batch


def test_a_parked_job_whose_reading_ended_waits_for_a_client_running_fewer(slow_svc) -> None:
    """A parked job's ended extraction goes before new claims — except before the job of a
    client running fewer jobs, which is claimed first (the other order cost a note 15 s)."""
    svc, reads = slow_svc, slow_svc.worker.deps.processor
    rival = svc.new_client("rival")
    slow = svc.upload("slow.txt", "the slow file's text", document_id="slow").json()
    svc.upload("small.txt", "a one-line note", key=rival, document_id="small")
    assert svc.worker.run_once()  # the slow file claimed, then parked for the rival
    assert svc.worker.run_once()  # the rival's note
    reads.release.set()
    _wait_for(reads.pending.outcome.done)
    later = svc.upload("later.txt", "another note", key=rival, document_id="later").json()
    assert svc.worker.run_once()  # the rival runs none, the parked file's client one: rival
    assert job(svc, later["job_id"]).status == "succeeded"
    assert job(svc, slow["job_id"]).status == "running"
    assert svc.worker.run_once()  # now the parked file, not read again
    assert job(svc, slow["job_id"]).status == "succeeded"
    assert reads.reads == ["slow.txt", "small.txt", "later.txt"]
