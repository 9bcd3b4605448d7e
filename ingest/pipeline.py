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
An extraction that runs long while another client waits goes on without the worker
(`JobParked`): the job stays the worker's, which resumes it when the extraction has ended.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from app.documents.near_duplicates import bands as near_bands
from app.documents.uploads import accept_upload, check_file, document_id_for
from app.domain.errors import ExtractionError, ServiceError
from app.domain.languages import LANGUAGE_TERMS
from app.domain.leaves import EntityUnion, leaves_of
from app.domain.limits import display_text
from app.domain.metadata import completed_metadata
from app.ops import metrics
from app.registry import bm25_stats, discovery, jobs, threads
from app.registry import documents as docs_registry
from app.registry import near_duplicates as near_registry
from app.registry import watches as watches_registry
from app.registry.bm25_stats import term_document_frequencies
from app.registry.database import transaction
from app.registry.jobs import ClaimedJob
from app.registry.tables import Document, DocumentVersion, IngestionJob
from app.registry.threads import MAIL_KINDS
from app.settings import IngestSettings
from app.store import ChunkPoint, VectorStore
from app.store.base import ACCESS, point_id
from app.store.payload import (
    META,
    META_BOOL,
    chunk_payload,
    passage_text,
    payload_meta,
    version_timeline,
)
from ingest.chunking import Chunk
from ingest.embedding import EmbeddedBatch
from ingest.entities import message_persons
from ingest.extract.types import Attachment
from ingest.processing import (
    ExtractionDetached,
    PendingExtraction,
    Processor,
    prepared_from_json,
    prepared_to_json,
)

log = logging.getLogger(__name__)


class JobLost(Exception):
    """Another worker took the job over (this one's lease expired): stop without writing more."""


class DocumentDeleted(JobLost):
    """The job's document was deleted while the job ran: nothing to index, nothing to mark."""


class JobYielded(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The job's slice is over and another client's job waits: queue it again to resume."""

    def __init__(self, progress: float, checkpoint: dict) -> None:
        super().__init__("slice over")
        self.progress, self.checkpoint = progress, checkpoint


class JobParked(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The job's extraction ran long while another client's job waited: it goes on in a
    child of its own, the job stays this worker's (its lease kept by the worker), and the
    worker resumes it with ``ingest_version(..., parked=pending)`` when it is free."""

    def __init__(self, pending: PendingExtraction) -> None:
        super().__init__("extraction parked")
        self.pending = pending


class JobControl(Protocol):
    """What the worker lends a running job: its heartbeat and its turn."""

    def beat(self, progress: float, checkpoint: Callable[[], dict] | None = None,
             stage: dict | None = None) -> bool:
        """Renew the lease and record progress and stage (and save the checkpoint it builds)
        when due; False if the job is lost."""

    def should_yield(self) -> bool:
        """Whether the slice is over and another client's job waits."""

    def should_detach(self, extracting_s: float) -> bool:
        """Whether an extraction that has run this long should go on without the worker
        (another client's job waits)."""


@dataclass
class IngestDeps:
    sessions: sessionmaker[Session]
    store: VectorStore
    # extraction, chunking and embedding: in a child process in service (ingest/processing.py)
    processor: Processor
    write_batch: int = 64  # chunks embedded and written per batch (EVIDENCE_INGEST__WRITE_BATCH)
    keep_superseded: int | None = None  # retention (EVIDENCE_INGEST__KEEP_SUPERSEDED)
    # what an attachment must pass to become a document, as an upload (None: attachments are
    # listed but not registered)
    upload_settings: IngestSettings | None = None


@dataclass(frozen=True)
class Loaded:
    """What the registry holds of the version a job indexes."""

    client_id: str
    document_id: str
    version_id: str
    kind: str
    filename: str
    source: str | None
    metadata: dict
    content: bytes
    access: tuple[str, ...] = ()  # its document's access groups when the job began


@dataclass
class Progress:
    """What the written batches have added up to: resumable from a checkpoint. Entities are
    merged as batches arrive, so neither a checkpoint nor publication re-merges every chunk's."""

    next_chunk: int = 0
    term_df: Counter[str] = field(default_factory=Counter)
    entities: EntityUnion = field(default_factory=EntityUnion)
    # a long extraction's result (processing.prepared_to_json), kept so a resume skips it
    prepared: dict | None = None

    @classmethod
    def resumed(cls, checkpoint: dict | None, chunk_total: int) -> Progress | None:
        if not checkpoint or checkpoint.get("chunk_total") != chunk_total:
            return None  # none, or from another chunking: start over
        done = cls(checkpoint["next_chunk"], Counter(checkpoint["term_df"]),
                   prepared=checkpoint.get("prepared"))
        done.entities.add(checkpoint["entities"], checkpoint.get("mentions"))
        return done

    def add(self, entities: list[dict[str, list[str]]], sparse: list,
            languages: list[str] | None = None) -> None:
        """A written batch's entities (per chunk), term counts and its chunks' languages (each
        a pseudo-term of its own: app/domain/languages.py LANGUAGE_TERMS)."""
        for found in entities:
            self.entities.add(found)
        self.term_df.update(term_document_frequencies(sparse))
        self.term_df.update(str(LANGUAGE_TERMS[lang]) for lang in languages or []
                            if lang in LANGUAGE_TERMS)

    def checkpoint(self, chunk_total: int) -> dict:
        return {"next_chunk": self.next_chunk, "chunk_total": chunk_total,
                "term_df": dict(self.term_df),
                "entities": {g: list(v) for g, v in self.entities.groups.items()},
                "mentions": self.entities.mentions,
                **({"prepared": self.prepared} if self.prepared is not None else {})}


def ingest_version(deps: IngestDeps, job: ClaimedJob, control: JobControl,
                   parked: PendingExtraction | None = None) -> int:
    """Index one claimed version and publish it; returns its chunk count.

    load → prepare (extract, chunk: in the processor; ``parked``: an extraction this job
    left running, JobParked) → complete the metadata → per batch: embed + entities (the
    processor) → payloads → write hidden → checkpoint → publish."""
    loaded = load(deps, job)

    def still_ours(progress: float, checkpoint: Callable[[], dict] | None = None,
                   stage: dict | None = None) -> None:
        if control.beat(progress, checkpoint, stage):
            return
        with transaction(deps.sessions) as s:
            gone = s.get(IngestionJob, job.job_id) is None
        if gone:  # the document was deleted meanwhile: leave no orphan points behind
            forget_points(deps, loaded)
            raise DocumentDeleted(job.job_id)
        raise JobLost(job.job_id)

    def pages_read(done: int, total: int) -> None:  # live while extracting (0 → 0.1)
        still_ours(0.1 * done / max(total, 1),
                   stage=stage_of("extracting", "pages", done, total) if total else None)

    cached = (job.checkpoint or {}).get("prepared")
    if cached is not None:  # a resumed job whose extraction was long: not read again
        prepared = prepared_from_json(cached)
    else:
        try:
            prepared = (deps.processor.resume(parked, pages_read, control.should_detach)
                        if parked is not None else
                        deps.processor.prepare(loaded.kind, loaded.content, loaded.filename,
                                               pages_read, control.should_detach))
        except ExtractionDetached as detached:
            raise JobParked(detached.pending) from None
        if (prepared.seconds.get("extract", 0.0) >= KEEP_EXTRACTION_AFTER_S
                and not prepared.attachments):
            cached = prepared_to_json(prepared)
    chunks = prepared.chunks
    seconds = dict(prepared.seconds)  # per stage, for the metrics once published
    still_ours(0.1)
    title = prepared.title or loaded.metadata["source"]["filename"]
    attachments, skipped = plan_attachments(deps, loaded, prepared.attachments)
    extra = dict(prepared.extra)
    if loaded.kind in MAIL_KINDS and extra.get("thread_subject"):
        with deps.sessions() as s:  # a message whose headers name no other: the fallback
            adopted = threads.adopted_thread(s, client_id=job.client_id, document=extra)
        if adopted:
            extra["thread_id"] = adopted
    if prepared.attachments:
        extra["attachments"] = [{"filename": a.filename, "document_id": doc_id}
                                for doc_id, a in attachments]
    final_metadata = completed_metadata(
        loaded.metadata, title=prepared.title, page_count=prepared.page_count,
        chunk_count=len(chunks), char_count=prepared.char_count,
        warnings=prepared.warnings + skipped, extra=extra, quality=prepared.quality)
    meta, meta_bool = payload_meta(leaves_of(final_metadata, None))
    # an e-mail's header names are persons in every chunk of it (ingest/entities.py)
    persons = message_persons(extra) if loaded.kind in MAIL_KINDS else ()
    language = str(extra.get("language") or "en")  # the document's (ingest/processing.py)
    done = Progress.resumed(job.checkpoint, len(chunks))
    if done is None:  # a fresh start: whatever an earlier attempt wrote goes
        forget_points(deps, loaded)
        done = Progress()
    if cached is not None and done.prepared is None:  # kept from now on, saved when due
        done.prepared = cached
        still_ours(0.1, lambda: done.checkpoint(len(chunks)))
    batch_size = deps.write_batch
    def embedded_so_far(n: int) -> None:  # live while embedding (0.1 → 0.95)
        still_ours(0.1 + 0.85 * n / len(chunks),
                   stage=stage_of("embedding", "chunks", n, len(chunks)))

    start, size = done.next_chunk, min(batch_size, FIRST_BATCH)  # then sized by its seconds
    while start < len(chunks):
        batch = chunks[start:start + size]
        asked = time.perf_counter()
        embedded = deps.processor.embed(
            [passage_text(title, c.heading_path, c.text) for c in batch],
            [c.text for c in batch],
            on_progress=lambda n, start=start: embedded_so_far(start + n),
            known_persons=persons, language=language)
        size = next_batch_size(len(batch), time.perf_counter() - asked, batch_size)
        for stage, s in embedded.seconds.items():
            seconds[stage] = seconds.get(stage, 0.0) + s
        t0 = time.perf_counter()
        deps.store.upsert(points(loaded, batch, embedded, title=title, meta=meta,
                                 meta_bool=meta_bool))
        seconds["write"] = seconds.get("write", 0.0) + time.perf_counter() - t0
        done.next_chunk = start = start + len(batch)
        done.add(embedded.entities, embedded.sparse, embedded.languages)
        progress = 0.1 + 0.85 * done.next_chunk / len(chunks)
        still_ours(progress, lambda: done.checkpoint(len(chunks)),  # built only when saved
                   stage_of("embedding", "chunks", done.next_chunk, len(chunks)))
        if done.next_chunk < len(chunks) and control.should_yield():
            raise JobYielded(progress, done.checkpoint(len(chunks)))
    t0 = time.perf_counter()
    publish(deps, job, loaded, done, chunk_count=len(chunks), metadata=final_metadata,
            attachments=attachments, chunk_texts=[c.text for c in chunks],
            minhash=prepared.minhash, boxes=prepared.boxes)
    seconds["publish"] = time.perf_counter() - t0
    metrics.observe_stages(seconds)  # a resumed job reports the part done in this attempt
    log.info("published %s/%s: %d chunk%s", loaded.document_id, loaded.version_id, len(chunks),
             "" if len(chunks) == 1 else "s")
    return len(chunks)


# A batch of chunks is sized to embed in about this long (at most ``write_batch``): the turn
# is given up between batches, and on two busy cores 64 chunks of 512 tokens took 24 s, which
# another client's one-line note waited out (issue 47). Idle, a batch is ~1–2 s anyway.
BATCH_SECONDS = 1.0
MIN_BATCH = 4
FIRST_BATCH = 8  # an attempt's first batch, before its seconds are known (64 took 20 s loaded)


def next_batch_size(size: int, seconds: float, most: int) -> int:
    """The next batch's size from how long this one's ``size`` chunks took to embed: about
    ``BATCH_SECONDS`` of work, at least ``MIN_BATCH`` chunks, never more than ``most``."""
    return min(most, max(MIN_BATCH, int(size * BATCH_SECONDS / max(seconds, 1e-3))))


def stage_of(name: str, unit: str, done: int, total: int) -> dict:
    """What a running job is doing, for GET /jobs (registry ``stage``)."""
    return {"name": name, "unit": unit, "done": done, "total": total}


def sync_timelines(deps: IngestDeps, batch: int = 500) -> int:
    """Write the timeline to the points of versions published before points carried one
    (an upgraded registry): once per version, resumable; returns how many were written."""
    synced = 0
    while True:
        with transaction(deps.sessions) as s:
            pending = docs_registry.versions_without_timeline(s, limit=batch)
            for version, client_id, document_id in pending:
                deps.store.set_searchable(
                    client_id=client_id, document_id=document_id,
                    version_id=version.version_id, searchable=version.state == "published",
                    timeline=version_timeline(version.published_at, version.superseded_at))
                version.timeline_synced = True
        synced += len(pending)
        if len(pending) < batch:
            return synced


def load(deps: IngestDeps, job: ClaimedJob) -> Loaded:
    with transaction(deps.sessions) as s:
        version = s.get(DocumentVersion, job.version_pk)
        document = s.get(Document, version.document_pk) if version is not None else None
        if version is None or document is None:  # deleted between the claim and now
            raise DocumentDeleted(job.job_id)
        return Loaded(client_id=job.client_id, document_id=document.document_id,
                      version_id=version.version_id, kind=document.kind,
                      filename=version.filename, source=document.source,
                      metadata=dict(version.canonical_metadata),
                      content=docs_registry.version_content(s, version_pk=version.id),
                      access=docs_registry.document_groups(s, document_pk=document.id))


def forget_points(deps: IngestDeps, loaded: Loaded) -> None:
    deps.store.delete(client_id=loaded.client_id, document_id=loaded.document_id,
                      version_id=loaded.version_id)


def points(loaded: Loaded, batch: list[Chunk], embedded: EmbeddedBatch, *, title: str,
           meta: dict, meta_bool: dict) -> list[ChunkPoint]:
    """The batch as engine points: deterministic ids, vectors, payloads (written hidden)."""
    return [ChunkPoint(
        id=point_id(loaded.client_id, loaded.document_id, loaded.version_id, c.chunk_index),
        dense=embedded.dense[i].tolist() if embedded.dense is not None else None,
        sparse=embedded.sparse[i],
        sentences=embedded.sentences[i].tolist()
        if embedded.sentences is not None and len(embedded.sentences[i]) else None,
        payload=chunk_payload(
            client_id=loaded.client_id, document_id=loaded.document_id,
            version_id=loaded.version_id, chunk_index=c.chunk_index, text=c.text, title=title,
            heading_path=c.heading_path, page=c.page, line_start=c.line_start,
            line_end=c.line_end, char_start=c.char_start, char_end=c.char_end,
            kind=loaded.kind, source=loaded.source, entities=embedded.entities[i], meta=meta,
            meta_bool=meta_bool, rows=c.rows, sheet=c.sheet,
            entity_keys=embedded.entity_keys[i],
            sentence_spans=embedded.sentence_spans[i] if embedded.sentence_spans else None,
            access=loaded.access,
            language=embedded.languages[i] if embedded.languages else "en"))
        for i, c in enumerate(batch)]


# An extraction at least this long is kept in the job's checkpoint, so a job that gives its
# turn up (or is killed) resumes without reading the file again (a scan's OCR, say)
KEEP_EXTRACTION_AFTER_S = 1.0  # with 2 s turns (slice_s) a longer one was read every turn
MAX_ATTACHMENT_DEPTH = 3  # an e-mail attached to an e-mail attached to an e-mail, no deeper


def text_sha256(chunk_texts: list[str]) -> str | None:
    """The hash exact duplicates share: the chunks' texts, whitespace normalised (the same
    text chunks the same way, whatever the file's name, format details or bytes)."""
    import hashlib

    if not chunk_texts:
        return None
    return hashlib.sha256("\n".join(" ".join(t.split()) for t in chunk_texts).encode()
                          ).hexdigest()


def plan_attachments(deps: IngestDeps, loaded: Loaded, found: list[Attachment]
                     ) -> tuple[list[tuple[str, Attachment]], list[str]]:
    """(document id, attachment) of those that become documents, and a warning for each that
    does not (a type we do not read, bytes that contradict it, too deep, too large). An
    attachment's id is its e-mail's and its place, so the e-mail's next version gives the same
    attachment a next version."""
    if not found:
        return [], []
    depth = int((loaded.metadata.get("source", {}).get("attached_to") or {}).get("depth", 0))
    if deps.upload_settings is None or depth >= MAX_ATTACHMENT_DEPTH:
        why = (f"e-mails attached to e-mails nest at most {MAX_ATTACHMENT_DEPTH} deep"
               if deps.upload_settings is not None else "attachments are not indexed here")
        return [], [f"{len(found)} attachment(s) of {loaded.filename} not indexed: {why}"]
    planned, skipped = [], []
    budget = deps.upload_settings.max_upload_bytes
    for n, attachment in enumerate(found, start=1):
        name = display_text(attachment.filename) or f"attachment-{n}"
        budget -= len(attachment.content)
        try:
            if budget < 0:
                raise ExtractionError("the attachments together are larger than one upload "
                                      "may be (EVIDENCE_INGEST__MAX_UPLOAD_BYTES)")
            check_file(name, attachment.content, deps.upload_settings)
        except ServiceError as exc:
            skipped.append(f"attachment {name} is not indexed: {exc.message}")
            continue
        planned.append((document_id_for(f"{loaded.document_id}--{n}-{name}"),
                        Attachment(name, attachment.content)))
    return planned, skipped


def _register_attachments(deps: IngestDeps, s: Session, job: ClaimedJob, loaded: Loaded,
                          version: DocumentVersion,
                          attachments: list[tuple[str, Attachment]]) -> None:
    """Each attachment a version of its own document naming its e-mail; the attachments the
    e-mail's previous version had and this one has not are deleted with their chunks."""
    assert deps.upload_settings is not None or not attachments
    mail = s.get(Document, version.document_pk)
    assert mail is not None
    depth = int((loaded.metadata.get("source", {}).get("attached_to") or {}).get("depth", 0))
    for document_id, attachment in attachments:
        accept_upload(s, settings=deps.upload_settings, client_id=job.client_id,  # type: ignore[arg-type]
                      filename=attachment.filename, content=attachment.content,
                      document_id=document_id, custom=loaded.metadata.get("custom") or {},
                      source=loaded.source, path=None, attached_to={
                          "document_id": loaded.document_id, "version_id": loaded.version_id,
                          "filename": loaded.filename, "depth": depth + 1},
                      attached_to_pk=mail.id)
    kept = {document_id for document_id, _ in attachments}
    for stale in docs_registry.attachments_of(s, document=mail):
        if stale.document_id not in kept:
            deps.store.delete(client_id=job.client_id, document_id=stale.document_id)
            docs_registry.delete_document(s, document=stale)


def _rethread(deps: IngestDeps, s: Session, client_id: str, metadata: dict) -> None:
    """A message just published may be the thread an earlier header-less reply of the same
    subject belongs to (or no longer the closest): those replies are threaded again, in the
    registry and in their points' payloads, so threads do not depend on indexing order."""
    subject = (metadata.get("document") or {}).get("thread_subject")
    if not subject:
        return
    for moved in threads.rethread(s, client_id=client_id, subject=str(subject)):
        meta, meta_bool = payload_meta(leaves_of(moved.canonical_metadata, None))
        deps.store.set_version_fields(client_id=client_id, document_id=moved.document_id,
                                      version_id=moved.version_id,
                                      fields={META: meta, META_BOOL: meta_bool})


def publish(deps: IngestDeps, job: ClaimedJob, loaded: Loaded, done: Progress, *,
            chunk_count: int, metadata: dict,
            attachments: list[tuple[str, Attachment]] | None = None,
            chunk_texts: list[str] | None = None, minhash: list[int] | None = None,
            boxes: dict[int, list[list[int]]] | None = None) -> None:
    """One transaction: still ours? → registry published/superseded, the client's BM25
    statistics and discovery leaves follow → an e-mail's attachments registered → visibility
    flipped in the engine."""
    with transaction(deps.sessions) as s:
        # Ownership is checked in the publishing transaction itself, so a job taken over or a
        # document deleted a moment ago is never published, whenever the last heartbeat was.
        version = s.get(DocumentVersion, job.version_pk)
        if version is None or not jobs.succeed_if_owned(s, job_id=job.job_id,
                                                        worker_id=job.worker_id):
            if version is None:  # deleted meanwhile: leave no orphan points behind
                forget_points(deps, loaded)
                raise DocumentDeleted(job.job_id)
            raise JobLost(job.job_id)
        version.entities = done.entities.groups
        version.text_sha256 = text_sha256(chunk_texts or [])
        if minhash and version.minhash is None:  # near duplicates: the signature and its bands
            version.minhash = minhash
            near_registry.add_bands(s, client_id=job.client_id, version=version,
                                    bands=near_bands(minhash))
        version.entity_mentions = done.entities.mentions
        docs_registry.keep_boxes(s, version_pk=version.id, boxes=boxes or {})
        version.term_df = dict(sorted(done.term_df.items(), key=lambda kv: int(kv[0])))
        first_publication = version.published_at is None  # a re-index publishes again
        became_current, previous = docs_registry.mark_published(
            s, version=version, chunk_count=chunk_count, canonical_metadata=metadata)
        if became_current:  # the client's BM25 statistics follow what is searchable
            bm25_stats.add_version(s, client_id=job.client_id, version=version)
            if previous is not None:
                bm25_stats.remove_version(s, client_id=job.client_id, version=previous)
        if discovery.is_enabled(s, client_id=job.client_id):  # discovery keeps up
            if became_current:
                discovery.index_version(s, client_id=job.client_id, version=version)
            if previous is not None:
                discovery.drop_version(s, version=previous)
        if became_current and first_publication:  # for the client's watches (app/watches/)
            watches_registry.note_publication(s, client_id=job.client_id, version=version)
        if became_current and (attachments or loaded.kind in ("eml", "msg")):
            _register_attachments(deps, s, job, loaded, version, attachments or [])
        if became_current and loaded.kind in MAIL_KINDS:
            _rethread(deps, s, job.client_id, metadata)
        # The document's access groups as the registry holds them now (after
        # mark_published took its row, so a relabelling, which takes it first, is seen):
        # on every version's points before this one shows (app/documents/access.py)
        deps.store.set_version_fields(
            client_id=job.client_id, document_id=loaded.document_id, version_id=None,
            fields={ACCESS: list(docs_registry.document_groups(
                s, document_pk=version.document_pk))})
        # Flip visibility (and write the timeline) in the store before the registry commits:
        # if the commit fails the job is retried and publishes again, so the two converge.
        # The old version is hidden before the new one shows: a crash between the two calls
        # leaves the document unfound until the retry, never found twice.
        if previous is not None:
            deps.store.set_searchable(
                client_id=job.client_id, document_id=loaded.document_id,
                version_id=previous.version_id, searchable=False,
                timeline=version_timeline(previous.published_at, previous.superseded_at))
            previous.timeline_synced = True
        deps.store.set_searchable(
            client_id=job.client_id, document_id=loaded.document_id,
            version_id=loaded.version_id, searchable=became_current,
            timeline=version_timeline(version.published_at, version.superseded_at))
        version.timeline_synced = True
        if deps.keep_superseded is not None:
            for gone in docs_registry.superseded_beyond(s, document_pk=version.document_pk,
                                                        keep=deps.keep_superseded):
                deps.store.delete(client_id=job.client_id, document_id=loaded.document_id,
                                  version_id=gone.version_id)
                s.delete(gone)
