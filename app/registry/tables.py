"""SQLAlchemy 2 table mappings. The schema itself is created only by Alembic migrations."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores UTC, returns timezone-aware datetimes on SQLite and PostgreSQL alike
    (SQLite drops the zone, which would make naive/aware comparisons fail)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    type_annotation_map = {datetime: UTCDateTime}


class Client(Base):
    __tablename__ = "clients"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiKey(Base):
    """An API key, stored as sha256 of the secret; the prefix lets a person tell keys apart."""

    __tablename__ = "api_keys"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # Access groups (app/domain/access.py): None = an admin key, it sees every document of
    # its client; else the groups whose documents (and the unrestricted ones) it sees.
    groups: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    # whether it may narrow a request to the groups of the person it serves (X-Evidence-Groups)
    may_delegate: Mapped[bool] = mapped_column(Boolean, default=False)


class PublicationAuthority(Base):
    """Whether a client may publish and search: active | suspended | revoked."""

    __tablename__ = "publication_authorities"
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default="active")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("client_id", "document_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    document_id: Mapped[str] = mapped_column(String(200))
    source: Mapped[str | None] = mapped_column(String(200), nullable=True)
    path: Mapped[str | None] = mapped_column(Text, nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    version_count: Mapped[int] = mapped_column(Integer, default=0)
    current_version_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # An attachment's e-mail (documents.id): deleting the e-mail deletes its attachments
    attached_to_pk: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)


class DocumentAccess(Base):
    """One access group of a document (none: every key of its client sees it). A row per
    group, so every listing filters in SQL (documents.visible_clause)."""

    __tablename__ = "document_access"
    document_pk: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"),
                                             primary_key=True)
    group_name: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)


class ChunkBoxes(Base):
    """Where a paged version's chunk's words stand on their pages (app/documents/boxes.py):
    [[start, end, page, x0, y0, x1, y1], …], kept at ingestion so search never reads the
    file again. Only chunks of PDFs (and, later, scans) have a row."""

    __tablename__ = "chunk_boxes"
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), primary_key=True)
    chunk_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    words: Mapped[list[list[int]]] = mapped_column(JSON)


class DocumentVersion(Base):
    """One uploaded version: queued → indexing → published → superseded, or failed."""

    __tablename__ = "document_versions"
    __table_args__ = (UniqueConstraint("document_pk", "version_id"),
                      Index("ix_versions_sha256", "content_sha256"),
                      Index("ix_versions_text_sha256", "text_sha256"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_pk: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"),
                                             index=True)
    version_id: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16), default="queued")
    filename: Mapped[str] = mapped_column(String(500))
    mime_type: Mapped[str] = mapped_column(String(200))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    content_sha256: Mapped[str] = mapped_column(String(64))
    canonical_metadata: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    published_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # Its timeline: superseded when, by which version (registry/documents.mark_published).
    superseded_at: Mapped[datetime | None] = mapped_column(nullable=True)
    superseded_by: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Whether its points carry the timeline fields (worker.recover catches older ones up).
    timeline_synced: Mapped[bool] = mapped_column(Boolean, default=False)
    # The union of the entities found in its chunks (leaves under entities.<group>).
    entities: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # SHA-256 of its extracted text, whitespace normalised: versions holding the same text
    # are exact duplicates (canonical_metadata.duplicates, search collapse "duplicates")
    text_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # its MinHash signature (app/documents/near_duplicates.py; None: too short): near duplicates
    minhash: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    # {group: {value: how many of its chunks name it}} for entity pages (GET /entities);
    # None for a version indexed before it was kept (`evidence reindex` fills it)
    entity_mentions: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    leaves_indexed: Mapped[bool] = mapped_column(Boolean, default=False)
    # {term id: how many of its chunks hold the term}, added to its client's BM25 statistics
    # while it is the current version (app/registry/bm25_stats.py).
    term_df: Mapped[dict[str, int] | None] = mapped_column(JSON, nullable=True)


class NearBand(Base):
    """One LSH band of a version's MinHash signature: versions sharing a band are near-duplicate
    candidates (app/registry/near_duplicates.py)."""

    __tablename__ = "near_bands"
    __table_args__ = (Index("ix_near_bands_lookup", "client_id", "band", "digest"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(36))
    band: Mapped[int] = mapped_column(Integer)
    digest: Mapped[str] = mapped_column(String(16))
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)


class VersionContent(Base):
    """The uploaded bytes, kept apart so listings never load them; read by the worker."""

    __tablename__ = "version_contents"
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), primary_key=True)
    content: Mapped[bytes] = mapped_column(LargeBinary)


class IngestionJob(Base):
    """queued → running → succeeded | failed; a running job whose lease expired is reclaimed."""

    __tablename__ = "ingestion_jobs"
    __table_args__ = (Index("ix_jobs_claim", "status", "next_attempt_at"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), index=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    # Attempts lost to a worker's death (its lease expired, or taken back at a restart): not
    # the document's fault, so not counted in ``attempts``; bounded by ingest.max_crashes.
    crashes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # its stable code (ingest/failures.py FAILURE_CODES): PDF_ENCRYPTED, OCR_TIMEOUT, …
    error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    # What the upload declared before any work (app/domain/formats.declared_size): its cost
    # class — a client's light jobs are claimed before its heavy ones
    declared_bytes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    worker_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(nullable=True)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # Where a long job stopped (chunks written, their term counts and entities): the next
    # claim resumes there instead of from the start (ingest/pipeline.py).
    checkpoint: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # What it is doing, as the heartbeat last said: {"name": "extracting" | "embedding",
    # "unit": "pages" | "chunks", "done": n, "total": n}
    stage: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class MetadataDiscovery(Base):
    """A client's opt-in to metadata discovery (scope metadata | both)."""

    __tablename__ = "metadata_discovery"
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class MetadataLeaf(Base):
    """One typed leaf of a published, current version of a client with discovery enabled."""

    __tablename__ = "metadata_leaves"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(300))
    type: Mapped[str] = mapped_column(String(16))
    value: Mapped[Any] = mapped_column(JSON)
    value_folded: Mapped[str] = mapped_column(Text)


class Bm25Term(Base):
    """How many chunks of a client's current, published versions hold a term (its BM25 df)."""

    __tablename__ = "bm25_terms"
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True)
    term: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    df: Mapped[int] = mapped_column(Integer)


class Bm25Corpus(Base):
    """How many chunks a client's current, published versions hold (BM25's N)."""

    __tablename__ = "bm25_corpus"
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True)
    chunk_count: Mapped[int] = mapped_column(Integer)


class Watch(Base):
    """A client's standing query (issue 36): the search it would run on each new publication,
    and where its matches are POSTed (signed with ``secret``) when it has a webhook."""

    __tablename__ = "watches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    watch_id: Mapped[str] = mapped_column(String(40), unique=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"),
                                           index=True)
    name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # {"query", "scope", "filters", "alpha"}: the POST /search fields it runs with
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    webhook_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    secret: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    match_count: Mapped[int] = mapped_column(Integer, default=0)  # ever recorded
    # The key that made it (api_keys.id): the watch sees what that key may see when it runs
    # (its groups then; nothing once it is revoked). None: made before access groups.
    key_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    # the groups X-Evidence-Groups narrowed its maker to (None: not narrowed)
    narrowed: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)


class WatchEvent(Base):
    """A first publication the watches have not looked at yet (an outbox: the publishing
    transaction writes it, the server's watch runner reads and deletes it)."""

    __tablename__ = "watch_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(String(36), index=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)
    published_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class WatchMatch(Base):
    """A version a watch's search returned when it was published, with the evidence it cited;
    its webhook delivery's state when the watch has one."""

    __tablename__ = "watch_matches"
    __table_args__ = (UniqueConstraint("watch_pk", "version_pk", name="uq_watch_match"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    watch_pk: Mapped[int] = mapped_column(ForeignKey("watches.id", ondelete="CASCADE"),
                                          index=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[str] = mapped_column(String(200))
    version_id: Mapped[str] = mapped_column(String(32))
    matched_at: Mapped[datetime] = mapped_column(default=utcnow)
    evidence: Mapped[dict[str, Any]] = mapped_column(JSON)
    # None without a webhook; else pending → delivered | failed
    delivery_state: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(nullable=True)
    delivered_at: Mapped[datetime | None] = mapped_column(nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)


class Judgment(Base):
    """A client's own relevance judgment: this document answers this query this well (issue 37:
    calibration from the client's judgments). One per query and document; a new grade replaces
    the old."""

    __tablename__ = "judgments"
    __table_args__ = (UniqueConstraint("client_id", "query", "document_id",
                                       name="uq_judgment"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"),
                                           index=True)
    query: Mapped[str] = mapped_column(Text)
    document_id: Mapped[str] = mapped_column(String(200))
    grade: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClientCalibration(Base):
    """The search defaults a client's calibration chose and applied (alpha, fusion), with the
    report that justified them."""

    __tablename__ = "client_calibrations"
    client_id: Mapped[str] = mapped_column(
        ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True)
    alpha: Mapped[float] = mapped_column(Float)
    fusion: Mapped[str] = mapped_column(String(16))
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    applied_at: Mapped[datetime] = mapped_column(default=utcnow)


class CalibrationRun(Base):
    """One calibration of a client's search defaults, run in the background (issue 47: 300
    judged queries were one 132 s request, and clients timed out). ``active_client`` holds the
    client's id while the run is running and NULL once it ended: under its unique constraint two
    POSTs cannot both start one, on SQLite and PostgreSQL alike, in one process or several."""

    __tablename__ = "calibration_runs"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"),
                                           index=True)
    active_client: Mapped[str | None] = mapped_column(String(36), unique=True, nullable=True)
    status: Mapped[str] = mapped_column(String(16))  # running | succeeded | failed
    searches_done: Mapped[int] = mapped_column(Integer, default=0)
    searches_total: Mapped[int] = mapped_column(Integer, default=0)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)


class Source(Base):
    """A folder (later a mailbox) a client's documents are kept in sync with (issue 50)."""

    __tablename__ = "sources"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source_id: Mapped[str] = mapped_column(String(40), unique=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"),
                                           index=True)
    kind: Mapped[str] = mapped_column(String(16))
    path: Mapped[str] = mapped_column(Text)
    on_delete: Mapped[str] = mapped_column(String(8), default="delete")  # delete | keep
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_sync_at: Mapped[datetime | None] = mapped_column(nullable=True)
    last_report: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # a mailbox's host, port, tls, username and folders (never its password)
    config: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # a mailbox's password, encrypted with the operator's key (EVIDENCE_SOURCES__SECRET_KEY)
    secret: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    every_s: Mapped[int | None] = mapped_column(Integer, nullable=True)  # synced this often
    # while a sync runs (any process): one sync of a source at a time; a dead one's expires
    sync_lease_until: Mapped[datetime | None] = mapped_column(nullable=True)
    # the running sync's counts so far (None when none runs)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class SourceFile(Base):
    """A file a folder source has seen, and the document it is: what the next sync compares
    with (unchanged size and mtime: not read again)."""

    __tablename__ = "source_files"
    source_pk: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"),
                                           primary_key=True)
    rel_path: Mapped[str] = mapped_column(String(1024), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    mtime_ns: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    document_id: Mapped[str] = mapped_column(String(200))


class SourceFolder(Base):
    """Where a mailbox source's folder stands: its UIDVALIDITY and the last UID read (a
    message above it is new; another UIDVALIDITY: the folder is read again, its messages
    known by their Message-ID)."""

    __tablename__ = "source_folders"
    source_pk: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"),
                                           primary_key=True)
    folder: Mapped[str] = mapped_column(String(512), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    last_uid: Mapped[int] = mapped_column(BigInteger)



class SearchBatch(Base):
    """A list of queries searched as one job (POST /searches/batch, issue 51): the search
    body they share, each query's text (and optional name), how far it has come."""

    __tablename__ = "search_batches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    batch_id: Mapped[str] = mapped_column(String(40), unique=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"),
                                           index=True)
    key_id: Mapped[str | None] = mapped_column(String(36), nullable=True)  # searched as it
    name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued|running|done|failed
    request: Mapped[dict[str, Any]] = mapped_column(JSON)  # the search body, less its query
    queries: Mapped[list[dict[str, Any]]] = mapped_column(JSON)  # [{"query", "name"?}, …]
    total: Mapped[int] = mapped_column(Integer)
    done: Mapped[int] = mapped_column(Integer, default=0)
    hits: Mapped[int] = mapped_column(Integer, default=0)
    failed_queries: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # while a process runs it: another takes it over once this passes (a dead runner's)
    lease_until: Mapped[datetime | None] = mapped_column(nullable=True)


class SearchBatchQuery(Base):
    """One query of a batch, once searched: how many versions it found, or why it failed."""

    __tablename__ = "search_batch_queries"
    batch_pk: Mapped[int] = mapped_column(ForeignKey("search_batches.id", ondelete="CASCADE"),
                                          primary_key=True)
    query_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    total_is_lower_bound: Mapped[bool] = mapped_column(Boolean, default=False)
    error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class SearchBatchHit(Base):
    """One result row of one query of a batch: what the CSV and JSON lines export."""

    __tablename__ = "search_batch_hits"
    __table_args__ = (Index("ix_search_batch_hits_batch", "batch_pk", "query_index", "rank"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    batch_pk: Mapped[int] = mapped_column(ForeignKey("search_batches.id", ondelete="CASCADE"))
    query_index: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    document_id: Mapped[str] = mapped_column(String(200))
    version_id: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str | None] = mapped_column(Text, nullable=True)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    chunk_id: Mapped[str | None] = mapped_column(String(300), nullable=True)
    snippet: Mapped[str | None] = mapped_column(Text, nullable=True)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)


class AuditEvent(Base):
    """One thing a key did (issue 51): searched, read, downloaded, exported, deleted, changed a
    key or a document's access. Appended only; pruned past the retention setting."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_client_at", "client_id", "at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(default=utcnow)
    key_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    actor: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the key's prefix
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str | None] = mapped_column(String(300), nullable=True)
    query: Mapped[str | None] = mapped_column(Text, nullable=True)  # withheld when told
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
