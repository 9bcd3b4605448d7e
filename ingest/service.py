"""Wire a Worker from a Runtime: the one place ingestion's parts are assembled."""

from __future__ import annotations

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
            threads=runtime.settings.models.threads, chunk_size=ingest.chunk_size,
            chunk_overlap=ingest.chunk_overlap, max_chunks=ingest.max_chunks,
            entities=entities, ocr=ingest.ocr()), extract_seconds=ingest.extract_seconds,
            page_seconds=ingest.extract_page_seconds)
    else:
        chunker = Chunker(models.count_tokens, chunk_size=ingest.chunk_size,
                          chunk_overlap=ingest.chunk_overlap, max_chunks=ingest.max_chunks)
        processor = InProcess(chunker, BatchEmbedder(
            models.dense, models.sparse, EntityExtractor(models.spacy_path)
            if entities and models.spacy_path is not None else None), ingest.ocr())
    return IngestDeps(sessions=runtime.sessions, store=runtime.store, processor=processor,
                      write_batch=ingest.write_batch, keep_superseded=ingest.keep_superseded,
                      upload_settings=ingest)


def build_worker(runtime: Runtime, worker_id: str | None = None) -> Worker:
    """A worker, having taken back what a dead process left running where it can know it is
    alone (the embedded engine)."""
    worker = Worker(build_deps(runtime), runtime.settings.ingest, worker_id=worker_id)
    worker.recover()
    return worker
