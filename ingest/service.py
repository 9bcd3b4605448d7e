"""Wire workers from a Runtime: the one place ingestion's parts are assembled."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from app.runtime import Runtime
from ingest.chunking import Chunker
from ingest.embedding import BatchEmbedder
from ingest.entities import EntityExtractor
from ingest.pipeline import IngestDeps
from ingest.processing import ChildProcess, ChildSpec, InProcess, Processor
from ingest.worker import Worker


def build_deps(runtime: Runtime, *, entities: bool = True) -> IngestDeps:
    """In a child process when ``ingest.child_process`` (the default) and the models are the
    installed ones; in this process otherwise (test fakes cannot be loaded by a child)."""
    models, ingest = runtime.models, runtime.settings.ingest
    processor: Processor
    if ingest.child_process and models.spacy_path is not None:
        processor = ChildProcess(ChildSpec(
            models_dir=runtime.settings.models.dir,
            batch_size=runtime.settings.models.embed_batch_size,
            threads=model_threads(runtime), chunk_size=ingest.chunk_size,
            chunk_overlap=ingest.chunk_overlap, max_chunks=ingest.max_chunks,
            entities=entities, sentences=runtime.store.sentence_vectors,
            pooling=runtime.settings.qdrant.sentence_pooling, ocr=ingest.ocr()),
            extract_seconds=ingest.extract_seconds,
            page_seconds=ingest.extract_page_seconds)
    else:
        chunker = Chunker(models.count_tokens, chunk_size=ingest.chunk_size,
                          chunk_overlap=ingest.chunk_overlap, max_chunks=ingest.max_chunks)
        processor = InProcess(chunker, BatchEmbedder(
            models.dense, models.sparse, EntityExtractor(models.spacy_path)
            if entities and models.spacy_path is not None else None,
            sentences=runtime.store.sentence_vectors,
            pooling=runtime.settings.qdrant.sentence_pooling), ingest.ocr())
    return IngestDeps(sessions=runtime.sessions, store=runtime.store, processor=processor,
                      write_batch=ingest.write_batch, keep_superseded=ingest.keep_superseded,
                      upload_settings=ingest)


def build_worker(runtime: Runtime, worker_id: str | None = None) -> Worker:
    """A worker, having taken back what a dead process left running where it can know it is
    alone (the embedded engine)."""
    worker = Worker(build_deps(runtime), runtime.settings.ingest, worker_id=worker_id)
    worker.recover()
    return worker


def model_threads(runtime: Runtime) -> int:
    """ONNX threads of each worker's models: as set, else the cores shared among workers."""
    settings = runtime.settings
    return settings.models.threads or max(1, (os.cpu_count() or 1) // settings.ingest.workers)


class WorkerPool:
    """``ingest.workers`` workers, a thread each, with processing children of their own, so
    one job's registry, extraction and write steps run while another's chunks embed.

    They share what is safe to share (the registry's sessions, the store, which is thread
    safe); claims are the registry's (one job to one worker, fair across clients), as between
    separate worker processes. Jobs a dead process left running are taken back once, before
    any worker claims."""

    def __init__(self, runtime: Runtime, count: int | None = None, *,
                 entities: bool = True) -> None:
        count = count or runtime.settings.ingest.workers
        self.workers = [Worker(build_deps(runtime, entities=entities), runtime.settings.ingest)
                        for _ in range(count)]
        self.workers[0].recover()

    def wake(self) -> None:
        for worker in self.workers:
            worker.wake.set()

    def run_forever(self, stop: threading.Event) -> None:
        """Every worker polls for jobs until ``stop`` is set; returns when they have all
        finished the job in hand."""
        self._each(lambda worker: worker.run_forever(stop))

    def drain(self) -> int:
        """Process jobs until none is due; returns how many were processed, by all workers."""
        counts: list[int] = []
        self._each(lambda worker: counts.append(worker.drain()))
        return sum(counts)

    def _each(self, work: Callable[[Worker], object]) -> None:
        """``work`` for every worker in a thread of its own; the first error, re-raised here
        once all have returned."""
        errors: list[BaseException] = []

        def run(worker: Worker) -> None:
            try:
                work(worker)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(worker,), daemon=True,
                                    name=f"ingest-worker-{i}")
                   for i, worker in enumerate(self.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
