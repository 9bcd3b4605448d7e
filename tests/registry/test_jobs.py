"""Job claiming, leases, retries and failure on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import select, update

from app.registry import clients as reg
from app.registry import documents as docs
from app.registry import jobs
from app.registry.database import transaction
from app.registry.tables import DocumentVersion, IngestionJob, utcnow


def _queue(sessions, n: int = 1, max_attempts: int = 3) -> list[str]:  # type: ignore[no-untyped-def]
    with transaction(sessions) as s:
        client, _ = reg.create_client(s, name="c")
        ids = []
        for i in range(n):
            up = docs.register_upload(
                s, client_id=client.id, document_id=f"d{i}", kind="txt", filename="a.txt",
                mime_type="text/plain", content=b"x", sha256=f"{i:064d}",
                canonical_metadata={}, source=None, path=None, max_attempts=max_attempts)
            ids.append(up.job.id)
    return ids


def test_claim_takes_a_queued_job_once_and_marks_the_version_indexing(sessions) -> None:
    (job_id,) = _queue(sessions)
    with transaction(sessions) as s:
        claimed = jobs.claim_next(s, worker_id="w1", lease_s=60)
    assert claimed is not None and claimed.job_id == job_id and claimed.attempt == 1
    with transaction(sessions) as s:
        assert jobs.claim_next(s, worker_id="w2", lease_s=60) is None
        assert s.get(DocumentVersion, claimed.version_pk).state == "indexing"


def test_concurrent_workers_never_claim_the_same_job(sessions) -> None:
    _queue(sessions, n=12)
    claimed: list[str] = []
    lock = threading.Lock()

    def work(name: str) -> None:
        while True:
            with transaction(sessions) as s:
                job = jobs.claim_next(s, worker_id=name, lease_s=60)
            if job is None:
                return
            with lock:
                claimed.append(job.job_id)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(claimed) == 12 and len(set(claimed)) == 12


def test_a_dead_workers_job_is_claimed_again_after_its_lease(sessions) -> None:
    (job_id,) = _queue(sessions)
    with transaction(sessions) as s:
        jobs.claim_next(s, worker_id="dead", lease_s=60)
    with transaction(sessions) as s:
        assert jobs.claim_next(s, worker_id="w2", lease_s=60) is None
        s.execute(update(IngestionJob).values(lease_expires_at=utcnow() - timedelta(seconds=1)))
    with transaction(sessions) as s:
        again = jobs.claim_next(s, worker_id="w2", lease_s=60)
    # the dead worker's attempt is given back and counted as a crash instead
    assert again is not None and again.job_id == job_id and again.attempt == 1
    with transaction(sessions) as s:
        assert s.get(IngestionJob, job_id).crashes == 1
    with transaction(sessions) as s:  # the dead worker's heartbeat no longer holds it
        assert not jobs.heartbeat(s, job_id=job_id, worker_id="dead", lease_s=60, progress=0.5)
        assert jobs.heartbeat(s, job_id=job_id, worker_id="w2", lease_s=60, progress=0.5)


def test_retry_backs_off_exponentially_then_fails_with_the_reason(sessions) -> None:
    (job_id,) = _queue(sessions, max_attempts=2)
    with transaction(sessions) as s:
        jobs.claim_next(s, worker_id="w", lease_s=60)
    before = utcnow()
    with transaction(sessions) as s:
        assert jobs.retry_later(s, job_id=job_id, reason="db blip", backoff_base_s=30)
    with transaction(sessions) as s:
        job = s.get(IngestionJob, job_id)
        assert job.status == "queued" and job.error == "db blip"
        assert job.next_attempt_at >= before + timedelta(seconds=29)
        assert jobs.claim_next(s, worker_id="w", lease_s=60) is None  # not due yet
        job.next_attempt_at = utcnow()
    with transaction(sessions) as s:
        assert jobs.claim_next(s, worker_id="w", lease_s=60).attempt == 2
    with transaction(sessions) as s:
        assert not jobs.retry_later(s, job_id=job_id, reason="db blip", backoff_base_s=30)
    with transaction(sessions) as s:
        job = s.get(IngestionJob, job_id)
        assert job.status == "failed" and "gave up after 2 attempts" in job.error
        assert s.get(DocumentVersion, job.version_pk).state == "failed"


def _die_holding(sessions, worker_id: str, max_crashes: int) -> jobs.ClaimedJob | None:  # type: ignore[no-untyped-def]
    """Claim the due job as ``worker_id``, then let its lease run out as a dead worker's."""
    with transaction(sessions) as s:
        claimed = jobs.claim_next(s, worker_id=worker_id, lease_s=60, max_crashes=max_crashes)
        s.flush()
        s.execute(update(IngestionJob).values(lease_expires_at=utcnow() - timedelta(seconds=1)))
    return claimed


def test_a_crash_is_not_an_attempt_but_crashes_are_bounded(sessions) -> None:
    """max_attempts 1 and three worker deaths: each death's attempt is given back (the job is
    claimed again as attempt 1) until the crashes pass max_crashes = 2: then it fails, saying
    so. One crash fewer and it would have been claimed again."""
    (job_id,) = _queue(sessions, max_attempts=1)
    claims = [_die_holding(sessions, f"dead{n}", max_crashes=2) for n in range(3)]
    assert [c.attempt for c in claims if c is not None] == [1, 1, 1]
    with transaction(sessions) as s:
        assert s.get(IngestionJob, job_id).crashes == 2 and s.get(
            IngestionJob, job_id).status == "running"
        assert jobs.claim_next(s, worker_id="w", lease_s=60, max_crashes=2) is None
    with transaction(sessions) as s:
        job = s.get(IngestionJob, job_id)
        assert job.status == "failed" and job.error.startswith("WORKER_CRASHED")
        assert "3 times" in job.error and "lease expired" in job.error


def test_jobs_taken_back_at_start_are_not_attempts_and_fail_past_the_crash_bound(
        sessions) -> None:
    first, second = _queue(sessions, n=2, max_attempts=1)
    with transaction(sessions) as s:
        jobs.claim_next(s, worker_id="dead", lease_s=60)
        jobs.claim_next(s, worker_id="dead", lease_s=60)
        s.get(IngestionJob, second).crashes = 1
    with transaction(sessions) as s:
        assert jobs.release_orphans(s, max_crashes=1) == 2
    with transaction(sessions) as s:
        kept, failed = s.get(IngestionJob, first), s.get(IngestionJob, second)
        assert (kept.status, kept.attempts, kept.crashes) == ("queued", 0, 1)
        assert failed.status == "failed" and "taken back at start" in failed.error
        assert jobs.claim_next(s, worker_id="w", lease_s=60).attempt == 1


def test_an_older_version_finishing_late_never_becomes_current(sessions) -> None:
    with transaction(sessions) as s:
        client, _ = reg.create_client(s, name="c")
        kwargs = dict(client_id=client.id, document_id="d", kind="txt", filename="a.txt",
                      mime_type="text/plain", canonical_metadata={}, source=None, path=None,
                      max_attempts=3)
        v1 = docs.register_upload(s, content=b"1", sha256="1" * 64, **kwargs).version
        v2 = docs.register_upload(s, content=b"2", sha256="2" * 64, **kwargs).version
        assert docs.mark_published(s, version=v2, chunk_count=1, canonical_metadata={}) == (
            True, None)
        assert docs.mark_published(s, version=v1, chunk_count=1, canonical_metadata={}) == (
            False, None)
        assert (v1.state, v2.state) == ("superseded", "published")


def test_a_client_holding_a_worker_waits_for_a_second_while_another_client_waits(
        sessions) -> None:  # type: ignore[no-untyped-def]
    """A's first job was claimed long ago and still runs; B was served since (so A is the
    client served longest ago, which alone would give A the free worker too). A second
    worker takes B's waiting job: the fewest running jobs go first. With B's done and none
    of its own left, A's next job is taken."""
    with transaction(sessions) as s:
        a, _ = reg.create_client(s, name="a")
        b, _ = reg.create_client(s, name="b")

        def upload(client_id: str, name: str) -> str:
            return docs.register_upload(
                s, client_id=client_id, document_id=name, kind="txt", filename="a.txt",
                mime_type="text/plain", content=name.encode(), sha256=f"{hash(name) & 0xfff:064d}",
                canonical_metadata={}, source=None, path=None, max_attempts=3).job.id

        a1, a2, b1 = upload(a.id, "a1"), upload(a.id, "a2"), upload(b.id, "b1")
        b0 = upload(b.id, "b0")
        long_ago, lately = utcnow() - timedelta(minutes=30), utcnow() - timedelta(minutes=5)
        s.execute(update(IngestionJob).where(IngestionJob.id == a1).values(
            status="running", started_at=long_ago, worker_id="w1",
            lease_expires_at=utcnow() + timedelta(minutes=5), attempts=1))
        s.execute(update(IngestionJob).where(IngestionJob.id == b0).values(
            status="succeeded", started_at=lately, finished_at=lately, attempts=1))
    with transaction(sessions) as s:
        assert jobs.claim_next(s, worker_id="w2", lease_s=60).job_id == b1
    with transaction(sessions) as s:  # b1 finished; only A waits: A's second job goes
        s.execute(update(IngestionJob).where(IngestionJob.id == b1).values(status="succeeded"))
    with transaction(sessions) as s:
        assert jobs.claim_next(s, worker_id="w2", lease_s=60).job_id == a2


def test_a_clients_light_jobs_go_before_its_heavy_ones_declared_at_upload(sessions) -> None:  # type: ignore[no-untyped-def]
    """Within a client: a job declaring HEAVY_BYTES or more (its bytes, or what an Office
    file's directory says it unzips to) waits for the client's light jobs, however much
    older it is; one byte under the bound is light; heavy ones keep their upload order."""
    import io
    import zipfile

    from app.domain.formats import HEAVY_BYTES

    def docx(unzipped: int) -> bytes:  # a few KB that declares ``unzipped`` bytes of XML
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("word/document.xml", b"<" + b"a" * (unzipped - 2) + b">")
        return out.getvalue()

    with transaction(sessions) as s:
        client, _ = reg.create_client(s, name="c")

        def upload(name: str, kind: str, content: bytes) -> str:
            return docs.register_upload(
                s, client_id=client.id, document_id=name, kind=kind, filename=f"{name}.{kind}",
                mime_type="application/octet-stream", content=content,
                sha256=f"{hash(name) & 0xffff:064d}", canonical_metadata={}, source=None,
                path=None, max_attempts=3).job.id

        big_pdf = upload("big", "pdf", b"%PDF" + b" " * HEAVY_BYTES)
        bomb = upload("bomb", "docx", docx(HEAVY_BYTES))
        edge = upload("edge", "docx", docx(HEAVY_BYTES - 1))
        note = upload("note", "txt", b"a line")
        declared = dict(s.execute(select(IngestionJob.id, IngestionJob.declared_bytes)).all())
    assert declared[bomb] == HEAVY_BYTES and declared[edge] == HEAVY_BYTES - 1
    assert declared[big_pdf] == HEAVY_BYTES + 4 and declared[note] == 6
    order = []
    for _ in range(4):
        with transaction(sessions) as s:
            claimed = jobs.claim_next(s, worker_id="w", lease_s=60)
            order.append(claimed.job_id)
            s.execute(update(IngestionJob).where(IngestionJob.id == claimed.job_id).values(
                status="succeeded"))
    assert order == [edge, note, big_pdf, bomb]


def test_a_job_makes_room_only_for_a_client_running_fewer_jobs(sessions) -> None:  # type: ignore[no-untyped-def]
    """others_waiting (a running job's cue to detach its extraction or give up its slice):
    true for a waiting client running fewer jobs than the asking one, false for one running
    as many or more — B's note, having taken a worker from A's two files, never hands it
    back to A's third (it did, and waited 90 s: issue 47)."""
    with transaction(sessions) as s:
        a, _ = reg.create_client(s, name="a")
        b, _ = reg.create_client(s, name="b")

        def upload(client_id: str, name: str, running: bool = False) -> str:
            job = docs.register_upload(
                s, client_id=client_id, document_id=name, kind="txt", filename="a.txt",
                mime_type="text/plain", content=name.encode(),
                sha256=f"{hash(name) & 0xffff:064d}", canonical_metadata={}, source=None,
                path=None, max_attempts=3).job.id
            if running:
                s.execute(update(IngestionJob).where(IngestionJob.id == job).values(
                    status="running", worker_id="w", attempts=1, started_at=utcnow(),
                    lease_expires_at=utcnow() + timedelta(minutes=5)))
            return job

        upload(a.id, "a1", running=True)
        upload(a.id, "a2", running=True)
        upload(a.id, "a3")  # A: two running, one waiting
        b1 = upload(b.id, "b1")
    with transaction(sessions) as s:  # B waits running none: A's jobs make room
        assert jobs.others_waiting(s, client_id=a.id) is True
        assert jobs.others_waiting(s, client_id=b.id) is False  # no other waits under B's 0
        s.execute(update(IngestionJob).where(IngestionJob.id == b1).values(
            status="running", worker_id="w", attempts=1, started_at=utcnow(),
            lease_expires_at=utcnow() + timedelta(minutes=5)))
    with transaction(sessions) as s:  # B runs one: A (running two) waits; B keeps its worker
        assert jobs.others_waiting(s, client_id=b.id) is False
        assert jobs.others_waiting(s, client_id=a.id) is False  # none of B's waits
        upload(b.id, "b2")
    with transaction(sessions) as s:  # B's second waits running one, fewer than A's two
        assert jobs.others_waiting(s, client_id=a.id) is True
        s.execute(update(IngestionJob).where(IngestionJob.client_id == a.id,
                                             IngestionJob.status == "running").values(
            lease_expires_at=utcnow() - timedelta(seconds=1)))
    with transaction(sessions) as s:  # A's leases expired: A runs none (its jobs are due)
        assert jobs.others_waiting(s, client_id=a.id) is False
        assert jobs.others_waiting(s, client_id=b.id) is True
