"""Wire a Worker from a Runtime: the one place ingestion's parts are assembled."""

from __future__ import annotations

from app.runtime import Runtime
from ingest.chunking import Chunker
from ingest.embedding import BatchEmbedder
from ingest.entities import EntityExtractor
from ingest.pipeline import IngestDeps
from ingest.worker import Worker


def build_deps(runtime: Runtime, *, entities: bool = True) -> IngestDeps:
    models, ingest = runtime.models, runtime.settings.ingest
    chunker = Chunker(models.count_tokens, chunk_size=ingest.chunk_size,
                      chunk_overlap=ingest.chunk_overlap, max_chunks=ingest.max_chunks)
    embedder = BatchEmbedder(models.dense, models.sparse,
                             EntityExtractor(models.spacy_path)
                             if entities and models.spacy_path is not None else None)
    return IngestDeps(sessions=runtime.sessions, store=runtime.store, chunker=chunker,
                      embedder=embedder)


def build_worker(runtime: Runtime, worker_id: str | None = None) -> Worker:
    """A worker, having taken back what a dead process left running where it can know it is
    alone (the embedded engine)."""
    worker = Worker(build_deps(runtime), runtime.settings.ingest, worker_id=worker_id)
    worker.recover()
    return worker
