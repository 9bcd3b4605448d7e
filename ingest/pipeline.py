"""ingest_version(): extract → chunk → entities → embed → write → publish.

A version's chunks are written unsearchable and flipped searchable only when every one of them
is stored, in the same step that supersedes the previous current version: a failed or running
job never exposes a partial version. Point ids are deterministic, and a fresh start clears the
version's old points first, so re-running a job never duplicates.

A long job works in slices: after each batch of chunks it records a checkpoint (the chunks
written, their term counts and entities) with its heartbeat, and when another client's job is
waiting and its slice has run long enough, it gives the worker back (`JobYielded`). The next
claim — or a restart after a crash — resumes from the checkpoint instead of from the start;
extraction and chunking are deterministic, so the chunk indices mean the same thing again.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from app.bm25 import term_document_frequencies
from app.leaves import leaves_of, merge_entities
from app.metadata import completed_metadata
from app.registry import bm25_stats, discovery, jobs
from app.registry import documents as docs_registry
from app.registry.database import transaction
from app.registry.jobs import ClaimedJob
from app.registry.tables import Document, DocumentVersion, IngestionJob
from app.store import ChunkPoint, VectorStore
from app.store.base import point_id
from app.store.payload import chunk_payload, passage_text, payload_meta
from ingest.chunking import Chunk
from ingest.processing import Processor

log = logging.getLogger(__name__)
WRITE_BATCH = 64


class JobLost(Exception):
    """Another worker took the job over (this one's lease expired): stop without writing more."""


class JobYielded(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The job's slice is over and another client's job waits: queue it again to resume."""

    def __init__(self, progress: float, checkpoint: dict) -> None:
        super().__init__("slice over")
        self.progress, self.checkpoint = progress, checkpoint


class JobControl(Protocol):
    """What the worker lends a running job: its heartbeat and its turn."""

    def beat(self, progress: float, checkpoint: dict | None = None) -> bool:
        """Renew the lease (and save the checkpoint) when due; False if the job is lost."""

    def should_yield(self) -> bool:
        """Whether the slice is over and another client's job waits."""


@dataclass
class IngestDeps:
    sessions: sessionmaker[Session]
    store: VectorStore
    # extraction, chunking and embedding: in a child process in service (ingest/processing.py)
    processor: Processor


def ingest_version(deps: IngestDeps, job: ClaimedJob, control: JobControl) -> int:
    """Index one claimed version and publish it; returns its chunk count."""

    def still_ours(progress: float, checkpoint: dict | None = None) -> None:
        if control.beat(progress, checkpoint):
            return
        with transaction(deps.sessions) as s:
            gone = s.get(IngestionJob, job.job_id) is None
        if gone:  # the document was deleted meanwhile: leave no orphan points behind
            deps.store.delete(client_id=job.client_id, document_id=document_id,
                              version_id=version_id)
        raise JobLost(job.job_id)

    with transaction(deps.sessions) as s:
        version = s.get(DocumentVersion, job.version_pk)
        assert version is not None
        document = s.get(Document, version.document_pk)
        assert document is not None
        content = docs_registry.version_content(s, version_pk=version.id)
        kind, filename, metadata = document.kind, version.filename, dict(version.canonical_metadata)
        document_id, version_id = document.document_id, version.version_id
        source = document.source

    prepared = deps.processor.prepare(kind, content, filename)
    chunks = prepared.chunks
    still_ours(0.1)
    title = prepared.title or metadata["source"]["filename"]
    final_metadata = completed_metadata(
        metadata, title=prepared.title, page_count=prepared.page_count,
        chunk_count=len(chunks), char_count=prepared.char_count,
        warnings=prepared.warnings, extra=prepared.extra)
    meta, meta_bool = payload_meta(leaves_of(final_metadata, None))
    resume = job.checkpoint if (job.checkpoint or {}).get("chunk_total") == len(chunks) else None
    if resume is None:  # a fresh start: whatever an earlier attempt wrote goes
        deps.store.delete(client_id=job.client_id, document_id=document_id,
                          version_id=version_id)
    first = resume["next_chunk"] if resume else 0
    term_df: Counter[str] = Counter(resume["term_df"] if resume else {})
    version_entities: list[dict[str, list[str]]] = [resume["entities"]] if resume else []
    for start in range(first, len(chunks), WRITE_BATCH):
        batch = chunks[start:start + WRITE_BATCH]
        embedded = deps.processor.embed(
            [passage_text(title, c.heading_path, c.text) for c in batch],
            [c.text for c in batch])
        points = [ChunkPoint(
            id=point_id(job.client_id, document_id, version_id, c.chunk_index),
            dense=embedded.dense[i].tolist() if embedded.dense is not None else None,
            sparse=embedded.sparse[i],
            payload=_payload(c, client_id=job.client_id, document_id=document_id,
                             version_id=version_id, kind=kind, source=source, title=title,
                             entities=embedded.entities[i], meta=meta, meta_bool=meta_bool))
            for i, c in enumerate(batch)]
        version_entities.extend(embedded.entities)
        term_df.update(term_document_frequencies(embedded.sparse))
        deps.store.upsert(points)
        done = start + len(batch)
        checkpoint = {"next_chunk": done, "chunk_total": len(chunks), "term_df": dict(term_df),
                      "entities": merge_entities(version_entities)}
        progress = 0.1 + 0.85 * done / len(chunks)
        still_ours(progress, checkpoint)
        if done < len(chunks) and control.should_yield():
            raise JobYielded(progress, checkpoint)

    with transaction(deps.sessions) as s:
        # Ownership is checked in the publishing transaction itself, so a job taken over or a
        # document deleted a moment ago is never published, whenever the last heartbeat was.
        version = s.get(DocumentVersion, job.version_pk)
        if version is None or not jobs.succeed_if_owned(s, job_id=job.job_id,
                                                        worker_id=job.worker_id):
            if version is None:  # deleted meanwhile: leave no orphan points behind
                deps.store.delete(client_id=job.client_id, document_id=document_id,
                                  version_id=version_id)
            raise JobLost(job.job_id)
        version.entities = merge_entities(version_entities)
        version.term_df = dict(sorted(term_df.items(), key=lambda kv: int(kv[0])))
        became_current, previous = docs_registry.mark_published(
            s, version=version, chunk_count=len(chunks), canonical_metadata=final_metadata)
        if became_current:  # the client's BM25 statistics follow what is searchable
            bm25_stats.add_version(s, client_id=job.client_id, version=version)
            if previous is not None:
                bm25_stats.remove_version(s, client_id=job.client_id, version=previous)
        if discovery.is_enabled(s, client_id=job.client_id):  # discovery keeps up
            if became_current:
                discovery.index_version(s, client_id=job.client_id, version=version)
            if previous is not None:
                discovery.drop_version(s, version=previous)
        # Flip visibility in the store before the registry commits: if the commit fails the job
        # is retried and publishes again, so the two converge.
        if became_current:
            deps.store.set_searchable(client_id=job.client_id, document_id=document_id,
                                      version_id=version_id, searchable=True)
            if previous is not None:
                deps.store.set_searchable(client_id=job.client_id, document_id=document_id,
                                          version_id=previous.version_id, searchable=False)
    log.info("published %s/%s: %d chunks", document_id, version_id, len(chunks))
    return len(chunks)


def _payload(chunk: Chunk, *, client_id: str, document_id: str, version_id: str, kind: str,
             source: str | None, title: str, entities: dict[str, list[str]],
             meta: dict, meta_bool: dict) -> dict:
    return chunk_payload(
        client_id=client_id, document_id=document_id, version_id=version_id,
        chunk_index=chunk.chunk_index, text=chunk.text, title=title,
        heading_path=chunk.heading_path, page=chunk.page, line_start=chunk.line_start,
        line_end=chunk.line_end, char_start=chunk.char_start, char_end=chunk.char_end,
        kind=kind, source=source, entities=entities, meta=meta, meta_bool=meta_bool)
