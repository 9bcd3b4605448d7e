"""The ingestion worker: claim → ingest → mark, with retries, leases and a clean stop.

A failure that would repeat (a file that can never be read as it is, a limit, a bug met on its
data) fails the job at once with the reason; only failures that can pass on their own are
retried with exponential backoff up to the job's max attempts (ingest/failures.py).

A worker that dies mid-job leaves its lease to expire and another worker claims the job. In the
embedded default the engine's folder lock proves no other worker is alive, so jobs a previous
process left `running` are taken back at once when the worker starts (`recover`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable

from sqlalchemy.orm.exc import StaleDataError

from app.domain.errors import ServiceError
from app.ops import metrics
from app.registry import discovery, jobs
from app.registry.database import commit_with_retry, transaction
from app.settings import IngestSettings
from ingest.failures import error_code, is_transient, reason
from ingest.pipeline import (
    DocumentDeleted,
    IngestDeps,
    JobLost,
    JobParked,
    JobYielded,
    ingest_version,
    stage_of,
    sync_timelines,
)
from ingest.processing import PendingExtraction

log = logging.getLogger(__name__)
DISCOVERY_BATCH = 200  # versions indexed per transaction while catching up


class Worker:
    def __init__(self, deps: IngestDeps, settings: IngestSettings,
                 worker_id: str | None = None) -> None:
        self.deps, self.settings = deps, settings
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.wake = threading.Event()
        self._compacted_at = float("-inf")
        # jobs whose extraction goes on without the worker (JobParked), by job id
        self._parked: dict[str, tuple[jobs.ClaimedJob, PendingExtraction]] = {}
        self._parked_lock = threading.Lock()
        self._keeper: threading.Thread | None = None
        self._stopping = threading.Event()

    def recover(self) -> int:
        """Take back the jobs a dead process left running — only where this worker is known to
        be the only one (the embedded engine's folder lock); elsewhere the lease decides."""
        synced = sync_timelines(self.deps)
        if synced:
            log.info("wrote the timeline of %d earlier version(s) to their points", synced)
        if not getattr(self.deps.store, "exclusive", False):
            return 0
        with transaction(self.deps.sessions) as s:
            taken = jobs.release_orphans(s, max_crashes=self.settings.max_crashes)
        if taken:
            log.warning("took back %d job(s) a previous process left running", taken)
        return taken

    def compact_if_due(self) -> bool:
        """Compact the engine when documents were deleted and the interval has passed, so a
        deleted document's text leaves its files within about ``compact_interval_s``."""
        interval = self.settings.compact_interval_s
        store = self.deps.store
        if (not interval or not store.delete_pending_compaction()
                or time.monotonic() - self._compacted_at < interval):
            return False
        started = time.perf_counter()
        try:
            store.compact()
        except Exception as exc:  # noqa: BLE001 - the jobs go on; compaction is tried again
            log.warning("engine compaction failed (tried again in %.0f s): %s", interval, exc)
            return False
        finally:
            self._compacted_at = time.monotonic()
        log.info("engine compacted in %.2f s", time.perf_counter() - started)
        return True

    def run_once(self) -> bool:
        """Process one due job, or else a batch of metadata discovery; False when idle.

        Order: a parked job whose extraction has ended, then the next claim (fair across
        clients), then a parked job still extracting (waited on until another client's job
        arrives), then discovery."""
        self.compact_if_due()
        metrics.heartbeat(self.worker_id)
        parked = self._unpark(ended_only=True, unless_others_wait=True)
        if parked is not None:
            return self._process(*parked)
        with transaction(self.deps.sessions) as s:
            job = jobs.claim_next(s, worker_id=self.worker_id, lease_s=self.settings.lease_s,
                                  max_crashes=self.settings.max_crashes)
        if job is not None:
            return self._process(job, None)
        parked = self._unpark(ended_only=False)
        if parked is not None:
            return self._process(*parked)
        with self.deps.sessions() as s:  # from scratch when a version is deleted meanwhile
            busy = commit_with_retry(s, lambda: discovery.catch_up(s, limit=DISCOVERY_BATCH),
                                     what="metadata discovery") > 0
        if not busy and self.settings.child_idle_s > 0 and not self._parked:
            self.deps.processor.release_idle(self.settings.child_idle_s)
        return busy

    def _process(self, job: jobs.ClaimedJob, parked: PendingExtraction | None) -> bool:
        try:
            chunks = ingest_version(self.deps, job, _Control(self, job), parked)
        except JobParked as parking:
            self._park(job, parking.pending)
            return True
        except JobYielded as turn:
            metrics.JOBS.labels("yielded").inc()
            with transaction(self.deps.sessions) as s:
                jobs.give_back(s, job_id=job.job_id, worker_id=self.worker_id,
                               progress=turn.progress, checkpoint=turn.checkpoint)
            log.info("job %s gave its turn to another client's job at %.0f %%", job.job_id,
                     turn.progress * 100)
            return True
        except DocumentDeleted:
            metrics.JOBS.labels("lost").inc()
            log.info("job %s: its document was deleted meanwhile; nothing left to do", job.job_id)
            return True
        except JobLost:
            metrics.JOBS.labels("lost").inc()
            log.warning("job %s was taken over by another worker; stopping it here", job.job_id)
            return True
        except Exception as exc:  # noqa: BLE001 - every failure ends its job, one way or the other
            transient = is_transient(exc)
            if isinstance(exc, ServiceError):
                log.warning("job %s: %s", job.job_id, exc.message)
            else:
                log.exception("job %s failed on attempt %d", job.job_id, job.attempt)
            try:
                with transaction(self.deps.sessions) as s:
                    retried = transient and jobs.retry_later(
                        s, job_id=job.job_id, reason=reason(exc),
                        backoff_base_s=self.settings.backoff_base_s,
                        code=error_code(exc, gave_up=True))
                    if not transient:
                        jobs.fail(s, job_id=job.job_id, reason=reason(exc),
                                  code=error_code(exc))
            except StaleDataError:  # its document was deleted meanwhile: nothing left to mark
                log.info("job %s: its document was deleted while it failed", job.job_id)
                metrics.JOBS.labels("lost").inc()
                return True
            metrics.JOBS.labels("retried" if retried else "failed").inc()
            return True
        metrics.JOBS.labels("succeeded").inc()  # ingest_version marked it as it published
        metrics.CHUNKS_INDEXED.inc(chunks)
        return True

    def _park(self, job: jobs.ClaimedJob, pending: PendingExtraction) -> None:
        """Keep a job whose extraction goes on without the worker: still this worker's, its
        lease renewed (with the pages read) by the keeper thread until it is resumed."""
        metrics.JOBS.labels("parked").inc()
        with self._parked_lock:
            self._parked[job.job_id] = (job, pending)
            if self._keeper is None:
                self._keeper = threading.Thread(target=self._keep_parked, name="parked-leases",
                                                daemon=True)
                self._keeper.start()
        log.info("job %s: its extraction goes on in a child of its own while another client's "
                 "job runs", job.job_id)

    def _unpark(self, *, ended_only: bool, unless_others_wait: bool = False
                ) -> tuple[jobs.ClaimedJob, PendingExtraction] | None:
        """A parked job to go on with (one whose extraction ended, with ``ended_only``); with
        ``unless_others_wait``, not one whose client runs more jobs than a client whose job
        waits — that job is claimed first (a parked file's ended extraction once went before
        another client's note, which waited 15 s: issue 47)."""
        with self._parked_lock:
            ready = [(job_id, job, pending) for job_id, (job, pending) in self._parked.items()
                     if not ended_only or pending.outcome.done()]
        for job_id, job, pending in ready:
            if unless_others_wait:
                with transaction(self.deps.sessions) as s:
                    if jobs.others_waiting(s, client_id=job.client_id):
                        continue
            with self._parked_lock:
                if self._parked.pop(job_id, None) is not None:
                    return job, pending
        return None

    def _keep_parked(self) -> None:
        """Renew the parked jobs' leases (recording the pages read); a job lost meanwhile (its
        document deleted, say) has its extraction stopped; an ended extraction wakes the
        worker."""
        every_s = max(min(self.settings.heartbeat_s, self.settings.lease_s / 3), 0.05)
        while not self._stopping.wait(every_s):
            with self._parked_lock:
                parked = list(self._parked.items())
                if not parked:  # the next park starts another
                    self._keeper = None
                    return
            for job_id, (_, pending) in parked:
                done, total = pending.pages()
                try:
                    with transaction(self.deps.sessions) as s:
                        ours = jobs.heartbeat(
                            s, job_id=job_id, worker_id=self.worker_id,
                            lease_s=self.settings.lease_s, progress=0.1 * done / max(total, 1),
                            stage=stage_of("extracting", "pages", done, total) if total else None)
                except Exception:  # noqa: BLE001 - the next beat tries again
                    log.exception("could not renew the lease of parked job %s", job_id)
                    continue
                if not ours:
                    with self._parked_lock:
                        lost = self._parked.pop(job_id, None)
                    if lost is not None:
                        log.info("parked job %s is gone; its extraction is stopped", job_id)
                        lost[1].cancel()
                elif pending.outcome.done():
                    self.wake.set()

    def close(self) -> None:
        """Stop the parked extractions and the processing children (if any); a parked job
        stays running until its lease ends (or the next start takes it back, embedded)."""
        self._stopping.set()
        with self._parked_lock:
            parked, self._parked = list(self._parked.values()), {}
        for _, pending in parked:
            pending.cancel()
        self.deps.processor.close()

    def drain(self) -> int:
        """Process jobs until none is due; returns how many were processed."""
        done = 0
        while self.run_once():
            done += 1
        return done

    def run_forever(self, stop: threading.Event) -> None:
        """Poll for jobs until ``stop`` is set (SIGTERM-safe: a job in hand is finished first)."""
        log.info("worker %s started", self.worker_id)
        while not stop.is_set():
            try:
                busy = self.run_once()
            except Exception:
                log.exception("worker loop error")
                busy = False
            if not busy:
                self.wake.wait(self.settings.poll_interval_s)
                self.wake.clear()
        log.info("worker %s stopped", self.worker_id)


class _Control:
    """A running job's heartbeat and turn (ingest/pipeline.py's JobControl)."""

    def __init__(self, worker: Worker, job: jobs.ClaimedJob) -> None:
        self.worker, self.job = worker, job
        settings = worker.settings
        self.every_s = min(settings.heartbeat_s, settings.lease_s / 3)
        self.renewed_at = self.started_at = time.monotonic()  # the claim set the lease
        self.saved_at = self.started_at
        self.asked_at = float("-inf")

    def beat(self, progress: float, checkpoint: Callable[[], dict] | None = None,
             stage: dict | None = None) -> bool:
        """Renew the lease (saving the checkpoint, recording progress and stage) when due;
        between renewals the lease is known to hold, so a crash redoes at most
        ``heartbeat_s`` of work. Progress-only beats (no checkpoint: mid-batch, mid-
        extraction) never take a due checkpoint's turn."""
        now = time.monotonic()
        save = checkpoint is not None and now - self.saved_at >= self.every_s
        if now - self.renewed_at < self.every_s and not save:
            return True
        with transaction(self.worker.deps.sessions) as s:
            ours = jobs.heartbeat(s, job_id=self.job.job_id, worker_id=self.worker.worker_id,
                                  lease_s=self.worker.settings.lease_s, progress=progress,
                                  checkpoint=checkpoint() if save and checkpoint else None,
                                  stage=stage)
        self.renewed_at = time.monotonic()
        if save:
            self.saved_at = self.renewed_at
        metrics.heartbeat(self.worker.worker_id)
        return ours

    def should_yield(self) -> bool:
        """After ``slice_s``, give the turn up when another client's job waits."""
        return (time.monotonic() - self.started_at >= self.worker.settings.slice_s
                and self._others_waiting())

    def should_detach(self, extracting_s: float) -> bool:
        """After ``extract_slice_s`` of extraction, let it go on without the worker when
        another client's job waits."""
        return extracting_s >= self.worker.settings.extract_slice_s and self._others_waiting()

    def _others_waiting(self) -> bool:
        """Whether a client running fewer jobs than this one has a job due (asked at most
        once a second): registry/jobs.others_waiting."""
        now = time.monotonic()
        if now - self.asked_at < 1.0:
            return False
        self.asked_at = now
        with transaction(self.worker.deps.sessions) as s:
            return jobs.others_waiting(s, client_id=self.job.client_id)
