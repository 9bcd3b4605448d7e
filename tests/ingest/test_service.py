"""ingest/service.py: the worker pool — jobs indexed at once, each exactly once, taken back
once, errors handed on, and the models' threads shared among the workers."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.registry.tables import IngestionJob
from ingest.embedding import BatchEmbedder
from ingest.service import WorkerPool, model_threads
from ingest.worker import Worker
from tests.fakes import fake_models
from tests.service import running_service


def test_two_workers_index_two_jobs_at_once_and_every_job_exactly_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each embedding waits until another job is embedding too: only a pool whose workers
    run at once gets past it (one worker alone would time out at the first job)."""
    both_inside = threading.Barrier(2, timeout=20)
    overlapped: list[bool] = []
    embed = BatchEmbedder.embed

    def embed_beside_another(self: BatchEmbedder, *args: Any, **kwargs: Any) -> Any:
        try:
            both_inside.wait()
            overlapped.append(True)
        except threading.BrokenBarrierError:  # the last odd job has no partner
            overlapped.append(False)
        return embed(self, *args, **kwargs)

    monkeypatch.setattr(BatchEmbedder, "embed", embed_beside_another)
    with running_service(tmp_path, fake_models()) as svc:
        for i in range(4):
            assert svc.upload(f"d{i}.txt", f"document {i} on topic {i}",
                              document_id=f"d{i}").status_code == 202
        settings = svc.runtime.settings.model_copy(update={"ingest": svc.runtime.settings
                                                   .ingest.model_copy(update={"workers": 2})})
        svc.runtime.settings = settings
        pool = WorkerPool(svc.runtime)
        assert len(pool.workers) == 2
        assert len({w.worker_id for w in pool.workers}) == 2
        assert pool.drain() == 4
        pool.close()
        with svc.runtime.sessions() as s:
            jobs = s.scalars(select(IngestionJob)).all()
        assert [(j.status, j.attempts) for j in jobs] == [("succeeded", 1)] * 4
        assert overlapped.count(True) == 4  # two pairs, each embedding beside the other
        found = svc.search(query="topic", limit=10).json()["results"]
        assert sorted(r["document_version"]["document_id"] for r in found) == [
            "d0", "d1", "d2", "d3"]


def test_jobs_a_dead_process_left_are_taken_back_once_before_any_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(Worker, "recover", lambda self: calls.append(self.worker_id) or 0)
    with running_service(tmp_path, fake_models()) as svc:
        pool = WorkerPool(svc.runtime, 3)
        assert calls == [pool.workers[0].worker_id]
        pool.close()


def test_a_workers_error_reaches_the_caller_after_the_others_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_service(tmp_path, fake_models()) as svc:
        pool = WorkerPool(svc.runtime, 2)
        finished: list[str] = []

        def drain(self: Worker) -> int:
            if self is pool.workers[0]:
                raise RuntimeError("registry gone")
            finished.append(self.worker_id)
            return 0

        monkeypatch.setattr(Worker, "drain", drain)
        with pytest.raises(RuntimeError, match="registry gone"):
            pool.drain()
        assert finished == [pool.workers[1].worker_id]
        pool.close()


def test_the_models_threads_are_the_cores_shared_among_the_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ingest.service.os.cpu_count", lambda: 8)
    with running_service(tmp_path, fake_models()) as svc:
        settings = svc.runtime.settings

        def threads(workers: int, set_to: int | None = None) -> int:
            svc.runtime.settings = settings.model_copy(update={
                "ingest": settings.ingest.model_copy(update={"workers": workers}),
                "models": settings.models.model_copy(update={"threads": set_to})})
            return model_threads(svc.runtime)

        assert [threads(1), threads(2), threads(3), threads(16)] == [8, 4, 2, 1]
        assert threads(2, set_to=3) == 3  # as set
        svc.runtime.settings = settings
