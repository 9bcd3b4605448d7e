"""Ingestion jobs: atomic claim, lease heartbeat, retry with backoff, permanent failure.

A claim takes the oldest due job that is queued, or running with an expired lease (its worker
died). On PostgreSQL the candidate row is read ``FOR UPDATE SKIP LOCKED`` so several workers
never wait on one another; on every database the claim is a guarded UPDATE whose row count
proves this worker won it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.errors import NotFound
from app.domain.formats import HEAVY_BYTES
from app.registry.tables import Document, DocumentVersion, IngestionJob, utcnow


@dataclass(frozen=True)
class ClaimedJob:
    job_id: str
    client_id: str
    version_pk: int
    attempt: int
    max_attempts: int
    worker_id: str
    checkpoint: dict | None = None


def _claimable(now: datetime):  # type: ignore[no-untyped-def]
    return or_(
        and_(IngestionJob.status == "queued", IngestionJob.next_attempt_at <= now),
        and_(IngestionJob.status == "running", IngestionJob.lease_expires_at < now),
    )


DEFAULT_MAX_CRASHES = 5  # ingest.max_crashes


def claim_next(session: Session, *, worker_id: str, lease_s: float,
               max_crashes: int = DEFAULT_MAX_CRASHES) -> ClaimedJob | None:
    """Claim one due job, or None. Commit right after so the claim is visible to others.

    Fair across clients: the client with the fewest jobs running now goes first (a client
    already holding a worker does not take a second while another client waits: issue 47),
    then the client served longest ago (its latest claim), and within a client its light jobs
    before its heavy ones (declared at upload: app/domain/formats.HEAVY_BYTES), then the oldest;
    so one client's queue of uploads, or its large document giving up its slice, never holds
    back another client's work, nor its own note behind its own 400-page PDF.

    A running job whose lease expired lost its attempt to its worker's death: the attempt is
    given back and counted as a crash instead; past ``max_crashes`` the job fails."""
    now = utcnow()
    waiting = select(IngestionJob.client_id).where(_claimable(now))
    served = (select(IngestionJob.client_id,
                     func.max(IngestionJob.started_at).label("served_at"))
              .where(IngestionJob.client_id.in_(waiting))
              .group_by(IngestionJob.client_id).subquery())
    busy = (select(IngestionJob.client_id, func.count().label("running"))
            .where(IngestionJob.status == "running", IngestionJob.lease_expires_at >= now,
                   IngestionJob.client_id.in_(waiting))
            .group_by(IngestionJob.client_id).subquery())
    for _ in range(5):
        candidate = session.execute(
            select(IngestionJob.id, IngestionJob.status, IngestionJob.attempts,
                   IngestionJob.crashes)
            .join(served, served.c.client_id == IngestionJob.client_id)
            .outerjoin(busy, busy.c.client_id == IngestionJob.client_id)
            .where(_claimable(now))
            .order_by(func.coalesce(busy.c.running, 0).asc(),
                      served.c.served_at.asc().nulls_first(),
                      (IngestionJob.declared_bytes >= HEAVY_BYTES).asc(),
                      IngestionJob.created_at, IngestionJob.id)
            .limit(1).with_for_update(skip_locked=True, of=IngestionJob)).first()
        if candidate is None:
            return None
        job_id, status, attempts, crashes = candidate
        crashed = status == "running"  # its lease expired: its worker died mid-attempt
        if crashed and crashes >= max_crashes:
            # lost to a dying worker once too often: stop here instead of looping forever
            fail(session, job_id=job_id, reason=_crashed(crashes + 1, "its lease expired"),
                 code="WORKER_CRASHED")
            continue
        guard = ((IngestionJob.status == status) & (IngestionJob.attempts == attempts)
                 & (IngestionJob.crashes == crashes))
        attempt = attempts if crashed else attempts + 1  # the lost attempt is given back
        won = session.execute(
            update(IngestionJob).where(IngestionJob.id == job_id, guard).values(
                status="running", attempts=attempt, crashes=crashes + crashed,
                worker_id=worker_id, lease_expires_at=now + timedelta(seconds=lease_s),
                started_at=now, error=None,
                # said from the claim on (issue 53: null for the first ~30 s of a long
                # extraction); pages as they are read, then chunks as they are embedded
                stage={"name": "extracting", "unit": "pages", "done": 0, "total": 0})
        ).rowcount
        if won == 1:
            job = session.get(IngestionJob, job_id)
            assert job is not None
            session.execute(update(DocumentVersion).where(
                DocumentVersion.id == job.version_pk, DocumentVersion.state == "queued"
            ).values(state="indexing"))
            return ClaimedJob(job_id, job.client_id, job.version_pk, attempt, job.max_attempts,
                              worker_id, job.checkpoint)
    return None


def _owned(job_id: str, worker_id: str):  # type: ignore[no-untyped-def]
    return ((IngestionJob.id == job_id) & (IngestionJob.worker_id == worker_id)
            & (IngestionJob.status == "running"))


def _crashed(times: int, how: str) -> str:
    """Why a job whose worker kept dying fails instead of looping (WORKER_CRASHED)."""
    return (f"WORKER_CRASHED: the worker stopped during this job {times} times ({how} the "
            f"last time; at most {times - 1} are retried, EVIDENCE_INGEST__MAX_CRASHES): the "
            "document may be what stops it — check the server's memory and logs, then upload "
            "the file again to retry")


def heartbeat(session: Session, *, job_id: str, worker_id: str, lease_s: float,
              progress: float, checkpoint: dict | None = None,
              stage: dict | None = None) -> bool:
    """Extend the lease, record progress and stage (and where to resume); False when this
    worker no longer owns the job."""
    values: dict = {"lease_expires_at": utcnow() + timedelta(seconds=lease_s),
                    "progress": progress}
    if checkpoint is not None:
        values["checkpoint"] = checkpoint
    if stage is not None:
        values["stage"] = stage
    return session.execute(update(IngestionJob).where(_owned(job_id, worker_id))
                           .values(**values)).rowcount == 1


def give_back(session: Session, *, job_id: str, worker_id: str, progress: float,
              checkpoint: dict) -> bool:
    """Queue an unfinished job again, due now, to resume from ``checkpoint``: its slice is
    over and another client's job waits. Not an attempt: the claim's count is taken back."""
    return session.execute(update(IngestionJob).where(_owned(job_id, worker_id)).values(
        status="queued", attempts=IngestionJob.attempts - 1, worker_id=None,
        lease_expires_at=None, next_attempt_at=utcnow(), progress=progress,
        checkpoint=checkpoint)).rowcount == 1


def others_waiting(session: Session, *, client_id: str) -> bool:
    """Whether a client with fewer jobs running than this one has a job due now — the client
    ``claim_next`` would serve first, and the one this client's job should make room for.
    A client running as many jobs as this one, or more, waits its turn: the one-line note that
    just took a worker from a client running two large files never gives it back to them (it
    did, and waited 90 s behind their next file: issue 47)."""
    now = utcnow()
    live = and_(IngestionJob.status == "running", IngestionJob.lease_expires_at >= now)
    mine = session.scalar(select(func.count()).select_from(IngestionJob).where(
        live, IngestionJob.client_id == client_id)) or 0
    running = (select(IngestionJob.client_id, func.count().label("n")).where(live)
               .group_by(IngestionJob.client_id).subquery())
    return session.execute(
        select(IngestionJob.id)
        .outerjoin(running, running.c.client_id == IngestionJob.client_id)
        .where(_claimable(now), IngestionJob.client_id != client_id,
               func.coalesce(running.c.n, 0) < mine)
        .limit(1)).first() is not None


def succeed_if_owned(session: Session, *, job_id: str, worker_id: str) -> bool:
    """Mark the job succeeded if this worker still owns it; False when it was taken over or
    deleted. Run inside the publishing transaction, so publication and success commit as one."""
    return session.execute(update(IngestionJob).where(_owned(job_id, worker_id)).values(
        status="succeeded", progress=1.0, finished_at=utcnow(), lease_expires_at=None,
        error=None, error_code=None, checkpoint=None, stage=None)).rowcount == 1


def fail(session: Session, *, job_id: str, reason: str, code: str) -> None:
    """Permanent failure: the job and its version are failed with a reason a person can act on
    and its stable code (ingest/failures.py FAILURE_CODES)."""
    job = session.get(IngestionJob, job_id)
    if job is None:
        return
    job.status, job.error, job.finished_at, job.lease_expires_at = "failed", reason, utcnow(), None
    job.error_code = code
    version = session.get(DocumentVersion, job.version_pk)
    if version is not None and version.state in ("queued", "indexing"):
        version.state = "failed"


def retry_later(session: Session, *, job_id: str, reason: str, backoff_base_s: float,
                code: str = "RETRIES_EXHAUSTED") -> bool:
    """Requeue after a transient failure with exponential backoff; fail once attempts run out.

    Returns True when the job was requeued.
    """
    job = session.get(IngestionJob, job_id)
    if job is None:
        return False
    if job.attempts >= job.max_attempts:
        fail(session, job_id=job_id,
             reason=f"gave up after {job.attempts} attempts; last error: {reason}", code=code)
        return False
    delay = backoff_base_s * (2 ** (job.attempts - 1))
    job.status, job.error, job.lease_expires_at = "queued", reason, None
    job.error_code = code
    job.next_attempt_at = utcnow() + timedelta(seconds=delay)
    return True


def job_with_version(session: Session, *, client_id: str, job_id: str,
                     access: Access = Access()) -> tuple[IngestionJob, str, str]:
    """The client's job with its (document_id, version_id); 404 for anyone else's, and for
    a job of a document ``access`` may not see (the same answer as no such job)."""
    from app.registry.documents import visible_clause

    job = get_job(session, client_id=client_id, job_id=job_id)
    stmt = (select(Document.document_id, DocumentVersion.version_id)
            .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
            .where(DocumentVersion.id == job.version_pk))
    if (visible := visible_clause(access)) is not None:
        stmt = stmt.where(visible)
    row = session.execute(stmt).one_or_none()
    if row is None:
        raise NotFound(f"no job {job_id!r}", code="JOB_NOT_FOUND")
    return job, row[0], row[1]


def get_job(session: Session, *, client_id: str, job_id: str) -> IngestionJob:
    job = session.get(IngestionJob, job_id)
    if job is None or job.client_id != client_id:
        raise NotFound(f"no job {job_id!r}", code="JOB_NOT_FOUND")
    return job


def requeue_current_versions(session: Session, *, max_attempts: int) -> int:
    """A queued job for every current, published version, so a re-index writes each one's
    chunks again from the stored file (its publication makes it current once more)."""
    rows = session.execute(
        select(DocumentVersion.id, Document.client_id)
        .join(Document, DocumentVersion.document_pk == Document.id)
        .where(DocumentVersion.state == "published",
               DocumentVersion.version_id == Document.current_version_id)).all()
    for version_pk, client_id in rows:
        session.add(IngestionJob(id=str(uuid.uuid4()), client_id=client_id,
                                 version_pk=version_pk, status="queued", attempts=0,
                                 max_attempts=max_attempts, progress=0.0,
                                 next_attempt_at=utcnow()))
    return len(rows)


def release_orphans(session: Session, *, max_crashes: int = DEFAULT_MAX_CRASHES) -> int:
    """Every running job back to queued (due now), its lost attempt given back and counted as
    a crash (a server's death is not the document's fault); failed past ``max_crashes``.
    Only for a worker that knows it is alone: the embedded engine admits one process."""
    count = 0
    for job in session.scalars(select(IngestionJob).where(IngestionJob.status == "running")):
        count += 1
        if job.crashes >= max_crashes:
            fail(session, job_id=job.id, reason=_crashed(job.crashes + 1, "taken back at start"),
                 code="WORKER_CRASHED")
            continue
        job.crashes += 1
        job.attempts = max(job.attempts - 1, 0)
        job.status, job.worker_id, job.lease_expires_at = "queued", None, None
        job.next_attempt_at = utcnow()
        job.error = "the previous process stopped during this job; taken back at start"
    return count


def queue_state(session: Session) -> tuple[dict[str, int], float]:
    """(jobs by status, seconds the oldest queued job has waited; 0 when none waits)."""
    counts = {status: n for status, n in session.execute(
        select(IngestionJob.status, func.count()).group_by(IngestionJob.status))}
    oldest = session.scalar(select(func.min(IngestionJob.created_at))
                            .where(IngestionJob.status == "queued"))
    age = max(0.0, (utcnow() - oldest).total_seconds()) if oldest is not None else 0.0
    return counts, age
