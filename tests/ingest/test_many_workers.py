"""Several workers on one registry (PostgreSQL's FOR UPDATE SKIP LOCKED, SQLite's single
writer): every job done exactly once, and the metrics agree with the registry. Threads, since
the embedded engine admits one process."""

from __future__ import annotations

import threading
from pathlib import Path

from prometheus_client import REGISTRY
from sqlalchemy import select

from app.registry.tables import IngestionJob
from ingest.worker import Worker
from tests.conftest import METRICS_AUTH
from tests.fakes import fake_models
from tests.service import running_service

DOCUMENTS = 12


def _succeeded() -> float:
    return REGISTRY.get_sample_value("evidence_ingest_jobs_total",
                                     {"outcome": "succeeded"}) or 0.0


def test_three_workers_do_every_job_exactly_once(tmp_path: Path, db_url: str) -> None:
    with running_service(tmp_path, fake_models(), db_url=db_url) as svc:
        for i in range(DOCUMENTS):
            svc.upload(f"d{i}.txt", f"document number {i} about topic {i % 3}",
                       document_id=f"d{i}")
        workers = [Worker(svc.worker.deps, svc.runtime.settings.ingest, worker_id=f"w{i}")
                   for i in range(3)]
        processed: dict[str, int] = {}
        before = _succeeded()
        start = threading.Barrier(len(workers))

        def work(worker: Worker) -> None:
            start.wait()
            processed[worker.worker_id] = worker.drain()

        threads = [threading.Thread(target=work, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        with svc.runtime.sessions() as s:
            jobs = s.scalars(select(IngestionJob)).all()
        assert [j.status for j in jobs] == ["succeeded"] * DOCUMENTS
        assert [j.attempts for j in jobs] == [1] * DOCUMENTS  # nobody took a job twice
        assert sum(processed.values()) == DOCUMENTS
        assert _succeeded() - before == DOCUMENTS  # the metric agrees with the registry
        metrics_text = svc.http.get("/metrics", headers=METRICS_AUTH).text
        assert f'evidence_jobs{{state="succeeded"}} {float(DOCUMENTS)}' in metrics_text
        listing = svc.http.get("/documents", params={"limit": 50}, headers=svc.auth()).json()
        assert {d["state"] for d in listing["documents"]} == {"published"}
