"""Documents and their versions: registering uploads, publishing, listing, deleting."""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
import uuid
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import ColumnElement, Select, and_, delete, exists, func, or_, select, text
from sqlalchemy.orm import Session, aliased

from app.documents.entity_pages import VersionEntities
from app.domain.access import Access
from app.domain.errors import BadRequest, Conflict, NotFound
from app.domain.formats import declared_size
from app.registry import bm25_stats
from app.registry.tables import (
    ChunkBoxes,
    Document,
    DocumentAccess,
    DocumentVersion,
    IngestionJob,
    VersionContent,
    utcnow,
)
from app.registry.vocabulary import DOCUMENT_SORTS

DOCUMENT_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,199}")  # the whole id (fullmatch)
LIVE_STATES = ("queued", "indexing", "published")


@dataclass(frozen=True)
class RegisteredUpload:
    document: Document
    version: DocumentVersion
    job: IngestionJob
    deduplicated: bool
    # the earlier version whose bytes this new one repeats (a revert: issue 53), if any
    reverts_to: str | None = None


def validate_document_id(document_id: str) -> str:
    if not DOCUMENT_ID_RE.fullmatch(document_id):
        raise BadRequest(
            "document_id may hold letters, digits, '.', '_' and '-', start with a letter or "
            "digit, and be at most 200 characters", code="INVALID_DOCUMENT_ID",
            details={"document_id": document_id[:220].encode("utf-8", "replace").decode()})
    return document_id


class _KeyedLocks:
    """A lock per key, made while someone holds or waits for it and dropped after."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[tuple[str, ...], list] = {}  # key → [lock, holders and waiters]

    @contextmanager
    def hold(self, key: tuple[str, ...]) -> Iterator[None]:
        with self._guard:
            entry = self._locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1] -= 1
                if not entry[1]:
                    del self._locks[key]


_UPLOAD_TURNS = _KeyedLocks()


def upload_key(document_id: str | None, filename: str) -> str:
    """What parallel uploads race for: the document id named, else the file name's readable
    stem (every name-made id of that file name starts with it)."""
    if document_id:
        return f"id:{document_id}"
    slug = _slug(filename)
    return "name:" + (slug.rpartition(".")[0] or slug)


@contextmanager
def upload_turn(client_id: str, key: str) -> Iterator[None]:
    """Parallel uploads of one document — one id, or one file name without an id — take
    turns in this process, so each registers once, after the one before, instead of racing for
    the version number or the free name and starting over until the retries run out (3 of 96
    such uploads got 409). Across processes the registry's lock does the same
    (``register_upload``)."""
    with _UPLOAD_TURNS.hold((client_id, key)):
        yield


def _take_upload_turn(session: Session, client_id: str, key: str) -> None:
    """PostgreSQL: a transaction-scoped advisory lock on the upload's key, so uploads of one
    document from several API processes wait for each other (released at commit or rollback).
    SQLite has one writer at a time anyway."""
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.blake2b(f"{client_id}\0{key}".encode(), digest_size=8).digest()
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                    {"key": int.from_bytes(digest, "big", signed=True)})


def register_upload(session: Session, *, client_id: str, document_id: str | None, kind: str,
                    filename: str, mime_type: str, content: bytes, sha256: str,
                    canonical_metadata: dict, source: str | None, path: str | None,
                    max_attempts: int, attached_to_pk: int | None = None,
                    access: Access = Access(), groups: tuple[str, ...] | None = None
                    ) -> RegisteredUpload:
    """Record a new version (and its queued job) of a new or existing document.

    ``access``: what the uploading key may see (a document it may not see is never its
    twin, nor can it add a version to one); ``groups``: the document's access groups from
    now on (None: a new document has none, an existing one keeps its own, an attachment
    takes its message's).

    The same bytes uploaded again while their version is queued, indexing or published give
    back that version rather than a duplicate.
    """
    _take_upload_turn(session, client_id, upload_key(document_id, filename))
    if groups is None and attached_to_pk is not None:  # an attachment: its message's groups
        groups = document_groups(session, document_pk=attached_to_pk)
    if not document_id:  # the same bytes again, without an id: that version, not a copy
        twin = _live_twin(session, client_id=client_id, sha256=sha256, access=access,
                          groups=groups)
        if twin is not None:
            return twin
    if not document_id:
        # A name-made id always makes a new document: its row is inserted at once, so a
        # parallel upload that took the same name loses the unique index and registers again
        # under the next free name (commit_with_retry) — never as a version of another file.
        document_id = readable_document_id(session, client_id=client_id, filename=filename)
        document = None
    else:
        document_id = validate_document_id(document_id)
        # the row locked (PostgreSQL; SQLite has one writer anyway): parallel uploads to one
        # document wait their turn and each numbers its version after the last, instead of
        # colliding on the number and starting over — 16 at once ran out of retries
        document = session.scalar(select(Document).where(
            Document.client_id == client_id, Document.document_id == document_id)
            .with_for_update())
        if document is not None and not access.sees(
                document_groups(session, document_pk=document.id)):
            # ids are the client's, one namespace: the caller learns the id is taken, and
            # nothing else of what holds it
            raise Conflict(f"the document id {document_id!r} cannot be used by this key",
                           code="DOCUMENT_ID_UNAVAILABLE")
    if document is None:
        document = Document(client_id=client_id, document_id=document_id, kind=kind,
                            source=source, path=path, version_count=0,
                            attached_to_pk=attached_to_pk)
        session.add(document)
        session.flush()
        if groups:
            set_document_groups(session, document_pk=document.id, groups=groups)
    else:  # (its groups, if the upload names them: app/documents/access.relabel)
        twin = _live_twin(session, client_id=client_id, sha256=sha256, document_pk=document.id)
        if twin is not None:
            return twin
        document.kind, document.updated_at = kind, utcnow()
        document.source = source or document.source
        document.path = path or document.path
    # the same bytes as an earlier, superseded version: a revert, said in the answer
    reverts_to = session.scalar(
        select(DocumentVersion.version_id).where(
            DocumentVersion.document_pk == document.id, DocumentVersion.content_sha256 == sha256,
            DocumentVersion.state == "superseded").order_by(DocumentVersion.id.desc()).limit(1)
    ) if document.version_count else None
    document.version_count += 1
    version = DocumentVersion(
        document_pk=document.id, version_id=f"v{document.version_count}", state="queued",
        filename=filename, mime_type=mime_type, size_bytes=len(content), content_sha256=sha256,
        canonical_metadata=canonical_metadata, chunk_count=0)
    session.add(version)
    session.flush()
    session.add(VersionContent(version_pk=version.id, content=content))
    job = IngestionJob(id=str(uuid.uuid4()), client_id=client_id, version_pk=version.id,
                       status="queued", attempts=0, max_attempts=max_attempts, progress=0.0,
                       next_attempt_at=utcnow(), declared_bytes=declared_size(kind, content))
    session.add(job)
    session.flush()
    return RegisteredUpload(document, version, job, deduplicated=False, reverts_to=reverts_to)


def _live_twin(session: Session, *, client_id: str, sha256: str,
               document_pk: int | None = None, access: Access = Access(),
               groups: tuple[str, ...] | None = None) -> RegisteredUpload | None:
    """The client's newest queued, indexing or published version with these bytes (in one
    document, if given) and its latest job, as a deduplicated upload; None if there is none.
    Only a document ``access`` may see, and holding exactly ``groups`` where they are given:
    a twin never names a hidden document, nor drops the groups an upload asked for."""
    query = (select(Document, DocumentVersion)
             .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
             .where(Document.client_id == client_id, DocumentVersion.content_sha256 == sha256,
                    DocumentVersion.state.in_(LIVE_STATES)))
    if document_pk is not None:
        query = query.where(Document.id == document_pk)
    if (visible := visible_clause(access)) is not None:
        query = query.where(visible)
    row = session.execute(query.order_by(DocumentVersion.id.desc()).limit(1)).first()
    if row is None or (document_pk is None and groups is not None and document_groups(
            session, document_pk=row[0].id) != tuple(sorted(groups))):
        return None
    job = session.scalar(select(IngestionJob).where(IngestionJob.version_pk == row[1].id)
                         .order_by(IngestionJob.created_at.desc()))
    assert job is not None
    return RegisteredUpload(row[0], row[1], job, deduplicated=True)


def _slug(filename: str) -> str:
    """A document id a person can read from a file name: ``Q3 Budget (final).PDF`` →
    ``Q3-Budget-final.pdf``; accents folded to ASCII, anything else outside the id's
    alphabet becomes '-'."""
    name = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""

    def ascii_only(text: str) -> str:
        return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()

    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", ascii_only(stem)).strip("-._")[:150] or "document"
    ext = re.sub(r"[^A-Za-z0-9]+", "", ascii_only(ext))[:10].lower()
    return f"{stem}.{ext}" if ext else stem


def readable_document_id(session: Session, *, client_id: str, filename: str) -> str:
    """The file name as an id (``_slug``), made unique within the client: ``handbook.pdf``,
    then ``handbook-2.pdf``, ``handbook-3.pdf``… (a parallel upload that takes the same id
    loses the unique constraint and registers again: ``commit_with_retry``)."""
    base = _slug(filename)
    stem, dot, ext = base.rpartition(".") if "." in base else (base, "", "")
    suffix = f".{ext}" if dot else ""
    taken = set(session.scalars(select(Document.document_id).where(
        Document.client_id == client_id,
        Document.document_id.startswith(stem, autoescape=True))))
    if base not in taken:
        return base
    n = 2
    while f"{stem}-{n}{suffix}" in taken:
        n += 1
    return f"{stem}-{n}{suffix}"


SortKey = Literal["created_at", "updated_at", "document_id"]
SORT_COLUMNS = {sort: getattr(Document, sort) for sort in DOCUMENT_SORTS}


@dataclass(frozen=True)
class DocumentSummary:
    """A document as a person reads it in a list: name and title of the version shown (the
    current one, or the latest while none is published), and how its latest upload went."""

    document: Document
    filename: str
    title: str | None
    chunk_count: int
    latest_version_id: str
    state: str  # the latest version's: queued, indexing, published or failed
    error: str | None  # the failed latest version's job error
    error_code: str | None = None  # and its stable code (ingest/failures.py)
    access: tuple[str, ...] = ()  # its access groups (none: every key of the client)


def list_documents(session: Session, *, client_id: str, offset: int = 0, limit: int = 50,
                   kinds: Collection[str] = (), sources: Collection[str] = (),
                   states: Collection[str] = (), sort: SortKey = "created_at",
                   descending: bool = False, document_pks: Collection[int] = (),
                   access: Access = Access()) -> tuple[list[DocumentSummary], int]:
    """A page of the client's documents ``access`` may see, with the total that match the
    filters."""
    latest_pk = (select(DocumentVersion.document_pk, func.max(DocumentVersion.id).label("pk"))
                 .join(Document, Document.id == DocumentVersion.document_pk)
                 .where(Document.client_id == client_id)  # this client's versions only
                 .group_by(DocumentVersion.document_pk).subquery())
    latest = aliased(DocumentVersion)
    current = aliased(DocumentVersion)
    query = (select(Document.id)
             .join(latest_pk, latest_pk.c.document_pk == Document.id)
             .join(latest, latest.id == latest_pk.c.pk)
             .where(Document.client_id == client_id))
    if kinds:
        query = query.where(Document.kind.in_(kinds))
    if sources:
        query = query.where(Document.source.in_(sources))
    if states:
        query = query.where(latest.state.in_(states))
    if document_pks:
        query = query.where(Document.id.in_(document_pks))
    if (visible := visible_clause(access)) is not None:
        query = query.where(visible)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    column = SORT_COLUMNS[sort]
    order = (column.desc(), Document.id.desc()) if descending else (column, Document.id)
    page = (query.add_columns(latest.version_id, latest.state, latest.id,
                              func.coalesce(current.id, latest.id))
            .outerjoin(current, and_(current.document_pk == Document.id,
                                     current.version_id == Document.current_version_id))
            .order_by(*order).offset(offset).limit(limit))
    rows = session.execute(page).all()
    documents = {d.id: d for d in session.scalars(
        select(Document).where(Document.id.in_([r[0] for r in rows])))}
    shown = {v.id: v for v in session.execute(
        select(DocumentVersion.id, DocumentVersion.filename, DocumentVersion.chunk_count,
               DocumentVersion.canonical_metadata)
        .where(DocumentVersion.id.in_([r[4] for r in rows])))}
    failed = [r[3] for r in rows if r[2] == "failed"]
    errors = version_errors(session, failed)
    groups = groups_by_document(session, list(documents))
    summaries = []
    for pk, latest_id, state, latest_version_pk, shown_pk in rows:
        version = shown[shown_pk]
        title = (version.canonical_metadata or {}).get("document", {}).get("title")
        summaries.append(DocumentSummary(
            document=documents[pk], filename=version.filename,
            title=title if isinstance(title, str) else None, chunk_count=version.chunk_count,
            latest_version_id=latest_id, state=state,
            error=errors.get(latest_version_pk, (None, None))[0],
            error_code=errors.get(latest_version_pk, (None, None))[1],
            access=groups.get(pk, ())))
    return summaries, total


def version_errors(session: Session, version_pks: Collection[int]
                   ) -> dict[int, tuple[str | None, str | None]]:
    """{version pk: (error, error code)} of the versions' last jobs that recorded one."""
    errors: dict[int, tuple[str | None, str | None]] = {}
    if not version_pks:
        return errors
    for version_pk, error, code in session.execute(
            select(IngestionJob.version_pk, IngestionJob.error, IngestionJob.error_code)
            .where(IngestionJob.version_pk.in_(version_pks)).order_by(IngestionJob.created_at)):
        errors[version_pk] = (error, code)  # the last job of the version wins
    return errors


def latest_jobs(session: Session, version_pks: Collection[int]) -> dict[int, str]:
    """{version pk: the id of its last ingestion job} (GET /jobs/{id} follows it)."""
    jobs: dict[int, str] = {}
    if version_pks:
        for version_pk, job_id in session.execute(
                select(IngestionJob.version_pk, IngestionJob.id)
                .where(IngestionJob.version_pk.in_(version_pks))
                .order_by(IngestionJob.created_at)):
            jobs[version_pk] = job_id  # the last job of the version wins
    return jobs


def summarise(session: Session, document: Document) -> DocumentSummary:
    rows, _ = list_documents(session, client_id=document.client_id, limit=1,
                             document_pks=[document.id])
    return rows[0]


def get_document(session: Session, *, client_id: str, document_id: str,
                 access: Access = Access()) -> Document:
    """The client's document; 404 where none has this id or ``access`` may not see it —
    the same answer, so a caller cannot tell a hidden document from a missing one."""
    stmt = select(Document).where(Document.client_id == client_id,
                                  Document.document_id == document_id)
    if (visible := visible_clause(access)) is not None:
        stmt = stmt.where(visible)
    document = session.scalar(stmt)
    if document is None:
        raise NotFound(f"no document {document_id!r}", code="DOCUMENT_NOT_FOUND")
    return document


def visible_clause(access: Access) -> ColumnElement[bool] | None:
    """The SQL condition a Document row passes when ``access`` may see it (None: no
    condition, an admin key): it holds no group, or one of the caller's."""
    if access.groups is None:
        return None
    restricted = exists().where(DocumentAccess.document_pk == Document.id)
    if not access.groups:
        return ~restricted
    shared = exists().where(DocumentAccess.document_pk == Document.id,
                            DocumentAccess.group_name.in_(access.groups))
    return or_(~restricted, shared)


def document_groups(session: Session, *, document_pk: int) -> tuple[str, ...]:
    """A document's access groups, sorted (() = every key of its client sees it)."""
    return tuple(session.scalars(select(DocumentAccess.group_name)
                                 .where(DocumentAccess.document_pk == document_pk)
                                 .order_by(DocumentAccess.group_name)))


def groups_by_document(session: Session, document_pks: Collection[int]
                       ) -> dict[int, tuple[str, ...]]:
    """{document pk: its groups} for those holding any (one query for a page)."""
    found: dict[int, list[str]] = {}
    if document_pks:
        for pk, name in session.execute(
                select(DocumentAccess.document_pk, DocumentAccess.group_name)
                .where(DocumentAccess.document_pk.in_(set(document_pks)))
                .order_by(DocumentAccess.group_name)):
            found.setdefault(pk, []).append(name)
    return {pk: tuple(names) for pk, names in found.items()}


def set_document_groups(session: Session, *, document_pk: int, groups: Collection[str]) -> None:
    """Replace a document's access groups (the caller writes the engine's payload too)."""
    session.execute(delete(DocumentAccess).where(DocumentAccess.document_pk == document_pk))
    session.add_all(DocumentAccess(document_pk=document_pk, group_name=g) for g in set(groups))
    session.flush()


def visible_document_ids(session: Session, *, client_id: str, access: Access,
                         document_ids: Collection[str]) -> set[str]:
    """Of these document ids, those ``access`` may see (all of them for an admin key)."""
    if access.groups is None or not document_ids:
        return set(document_ids)
    return set(session.scalars(select(Document.document_id).where(
        Document.client_id == client_id, Document.document_id.in_(set(document_ids)),
        visible_clause(access))))


def without_hidden(session: Session, *, client_id: str, access: Access,
                   exact: dict[VersionKey, list[str]], near: dict[VersionKey, list[dict]]
                   ) -> tuple[dict[VersionKey, list[str]], dict[VersionKey, list[dict]]]:
    """Duplicates as ``access`` may see them: a document it may not see is never named."""
    if access.groups is None:
        return exact, near
    named = {d for ids in exact.values() for d in ids} | {
        n["document_id"] for found in near.values() for n in found}
    seen = visible_document_ids(session, client_id=client_id, access=access,
                                document_ids=named)
    return ({k: [d for d in ids if d in seen] for k, ids in exact.items()},
            {k: [n for n in found if n["document_id"] in seen] for k, found in near.items()})


VersionKey = tuple[str, str]


def where_version_keys(stmt: Select, *, client_id: str, keys: Collection[VersionKey]) -> Select:
    """A statement joined to documents and versions narrowed to the client's (document_id,
    version_id) pairs: one indexed lookup by (client, document_id IN …); the caller keeps the
    wanted pairs (a row-value IN over the join made SQLite scan: 10 ms for ten rows at 5k)."""
    return stmt.where(Document.client_id == client_id,
                      Document.document_id.in_({d for d, _ in keys}),
                      DocumentVersion.version_id.in_({v for _, v in keys}))


def versions_by_keys(session: Session, *, client_id: str, keys: Collection[VersionKey],
                     document_ids: Collection[str] = (), version_ids: Collection[str] = (),
                     kinds: Collection[str] = (), sources: Collection[str] = ()
                     ) -> list[VersionKey]:
    """(document_id, version_id) of the given versions that pass the reserved filters (any of
    each non-empty list)."""
    if not keys:
        return []
    stmt = where_version_keys(
        select(Document.document_id, DocumentVersion.version_id)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id),
        client_id=client_id, keys=keys)
    for column, values in ((Document.document_id, document_ids),
                           (DocumentVersion.version_id, version_ids),
                           (Document.kind, kinds), (Document.source, sources)):
        if values:
            stmt = stmt.where(column.in_(values))
    wanted = set(keys)
    return [(d, v) for d, v in session.execute(stmt) if (d, v) in wanted]


@dataclass(frozen=True)
class ShownVersion:
    """What an answer row says of its version: canonical metadata and timeline."""

    canonical_metadata: dict
    is_current: bool
    published_at: datetime | None
    superseded_at: datetime | None
    superseded_by: str | None
    # what its duplicates are found by (exact_duplicates, near_duplicates.near_duplicates)
    version_pk: int | None = field(default=None, repr=False)
    text_sha256: str | None = field(default=None, repr=False)
    minhash: list[int] | None = field(default=None, repr=False)


def shown_versions(session: Session, *, client_id: str, keys: Collection[VersionKey]
                   ) -> dict[VersionKey, ShownVersion]:
    """The given versions as answer rows show them, with what their duplicates are found by:
    a page's one read of its versions."""
    if not keys:
        return {}
    stmt = where_version_keys(
        select(Document.document_id, DocumentVersion.version_id, Document.current_version_id,
               DocumentVersion.canonical_metadata, DocumentVersion.published_at,
               DocumentVersion.superseded_at, DocumentVersion.superseded_by,
               DocumentVersion.id, DocumentVersion.text_sha256, DocumentVersion.minhash)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id),
        client_id=client_id, keys=keys)
    wanted = set(keys)
    return {(d, v): ShownVersion(meta or {}, current == v, published, superseded, by, pk,
                                 digest, minhash)
            for d, v, current, meta, published, superseded, by, pk, digest, minhash
            in session.execute(stmt) if (d, v) in wanted}


BROWSE_SORTS = ("date", "updated_at", "document_id")


def browse_order(session: Session, *, client_id: str, keys: Collection[VersionKey],
                 sort: str = "date") -> list[VersionKey]:
    """The given versions in a browse's order (an empty query: app/search/stages._browse).
    ``date``: the document's own date (an e-mail's Date header) or, without one, when the
    version was published — newest first; ``updated_at``: when the version was published,
    newest first; ``document_id``: A to Z. Ties by document id, then version id."""
    if not keys:
        return []
    stmt = where_version_keys(
        select(Document.document_id, DocumentVersion.version_id,
               DocumentVersion.canonical_metadata, DocumentVersion.published_at)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id),
        client_id=client_id, keys=keys)
    wanted = set(keys)
    rows = [((d, v), meta, published) for d, v, meta, published in session.execute(stmt)
            if (d, v) in wanted]
    if sort == "document_id":
        return sorted(key for key, _m, _p in rows)

    def instant(meta: dict | None, published: datetime | None) -> float:
        own = _own_date(meta) if sort == "date" else None
        if own is not None:
            return own
        return published.replace(tzinfo=published.tzinfo or UTC).timestamp() if published else 0.0

    return [key for key, _m, _p in sorted(rows, key=lambda r: (-instant(r[1], r[2]), r[0]))]


def _own_date(meta: dict | None) -> float | None:
    """A version's document.date as a POSIX instant (a day alone: its midnight UTC), if any."""
    value = ((meta or {}).get("document") or {}).get("date")
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.replace(tzinfo=when.tzinfo or UTC).timestamp()


def facet_rows(session: Session, *, client_id: str, keys: Collection[VersionKey]
               ) -> list[tuple[VersionKey, str, str | None, dict | None, dict | None]]:
    """(key, kind, source, canonical metadata, entities) of the given versions: what facets
    count (app/search/facets.py)."""
    if not keys:
        return []
    stmt = where_version_keys(
        select(Document.document_id, DocumentVersion.version_id, Document.kind,
               Document.source, DocumentVersion.canonical_metadata, DocumentVersion.entities)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id),
        client_id=client_id, keys=keys)
    wanted = set(keys)
    return [((d, v), kind, source, meta, ents)
            for d, v, kind, source, meta, ents in session.execute(stmt) if (d, v) in wanted]


def current_versions(stmt: Select, *, client_id: str, access: Access = Access()) -> Select:
    """A statement over documents joined to their current, published versions, narrowed to the
    client's (and to those ``access`` may see): what entity pages, threads and duplicates
    read."""
    stmt = (stmt.join(DocumentVersion, and_(
        DocumentVersion.document_pk == Document.id,
        DocumentVersion.version_id == Document.current_version_id))
        .where(Document.client_id == client_id, DocumentVersion.state == "published"))
    visible = visible_clause(access)
    return stmt if visible is None else stmt.where(visible)


def text_hashes(session: Session, *, client_id: str, keys: Collection[VersionKey]
                ) -> dict[VersionKey, str | None]:
    """{version: its text hash} (None: no text, e.g. a photo without words)."""
    if not keys:
        return {}
    wanted = set(keys)
    return {(d, v): h for d, v, h in session.execute(where_version_keys(
        select(Document.document_id, DocumentVersion.version_id, DocumentVersion.text_sha256)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id),
        client_id=client_id, keys=keys)) if (d, v) in wanted}


def exact_duplicates(session: Session, *, client_id: str, keys: Collection[VersionKey],
                     hashes: Mapping[VersionKey, str | None] | None = None
                     ) -> dict[VersionKey, list[str]]:
    """{version: the other documents whose current version holds the same text} for the given
    versions (exact duplicates: their text_sha256, read here unless ``hashes`` holds them), in
    document id order."""
    if hashes is None:
        hashes = text_hashes(session, client_id=client_id, keys=keys)
    hashes = {key: h for key, h in hashes.items() if h}
    if not hashes:
        return {}
    holders: dict[str, list[str]] = {}
    for document_id, digest in session.execute(current_versions(
            select(Document.document_id, DocumentVersion.text_sha256), client_id=client_id)
            .where(DocumentVersion.text_sha256.in_(set(hashes.values())))
            .order_by(Document.document_id)):
        holders.setdefault(digest, []).append(document_id)
    return {key: [d for d in holders.get(digest, []) if d != key[0]]
            for key, digest in hashes.items()}


def current_entity_rows(session: Session, *, client_id: str, access: Access = Access()
                        ) -> Iterator[VersionEntities]:
    """The client's current published versions ``access`` may see with their entities
    (entity pages), streamed."""
    stmt = (current_versions(
        select(Document.document_id, DocumentVersion.version_id, DocumentVersion.filename,
               DocumentVersion.canonical_metadata, DocumentVersion.entities,
               DocumentVersion.entity_mentions), client_id=client_id, access=access)
        .where(DocumentVersion.entities.is_not(None))
        .order_by(Document.id).execution_options(yield_per=500))
    for document_id, version_id, filename, meta, entities, mentions in session.execute(stmt):
        title = ((meta or {}).get("document") or {}).get("title")
        yield VersionEntities(document_id, version_id, title if isinstance(title, str) else None,
                              filename, entities or {}, mentions)


def versions_of(session: Session, *, document_pk: int) -> list[DocumentVersion]:
    return list(session.scalars(select(DocumentVersion).where(
        DocumentVersion.document_pk == document_pk).order_by(DocumentVersion.id)))


def keep_boxes(session: Session, *, version_pk: int, boxes: Mapping[int, list[list[int]]]
               ) -> None:
    """A version's chunks' word boxes (app/documents/boxes.py), replacing any it had (a
    re-index publishes again)."""
    session.execute(delete(ChunkBoxes).where(ChunkBoxes.version_pk == version_pk))
    session.add_all(ChunkBoxes(version_pk=version_pk, chunk_index=i, words=words)
                    for i, words in boxes.items())


def chunk_boxes(session: Session, *, client_id: str,
                chunks: Collection[tuple[str, str, int]]) -> dict[tuple[str, str, int],
                                                                   list[list[int]]]:
    """{(document_id, version_id, chunk index): its words' boxes} of the client's chunks
    that have them (one query for a page of evidence)."""
    if not chunks:
        return {}
    wanted = set(chunks)
    rows = session.execute(
        select(Document.document_id, DocumentVersion.version_id, ChunkBoxes.chunk_index,
               ChunkBoxes.words)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
        .join(ChunkBoxes, ChunkBoxes.version_pk == DocumentVersion.id)
        .where(Document.client_id == client_id,
               Document.document_id.in_({d for d, _, _ in wanted}),
               DocumentVersion.version_id.in_({v for _, v, _ in wanted}),
               ChunkBoxes.chunk_index.in_({i for _, _, i in wanted})))
    return {(d, v, i): words for d, v, i, words in rows if (d, v, i) in wanted}


def version_content(session: Session, *, version_pk: int) -> bytes:
    row = session.get(VersionContent, version_pk)
    if row is None:
        raise NotFound("the uploaded file of this version is gone", code="CONTENT_MISSING")
    return row.content


def mark_published(session: Session, *, version: DocumentVersion, chunk_count: int,
                   canonical_metadata: dict) -> tuple[bool, DocumentVersion | None]:
    """Publish a version; returns (became current, the version it superseded).

    Versions are ordered by upload: a version that finishes after a newer one was published
    goes straight to superseded, so the newest upload always wins.
    """
    document = session.get(Document, version.document_pk)
    assert document is not None
    version.chunk_count, version.canonical_metadata = chunk_count, canonical_metadata
    version.published_at = utcnow()
    current = None
    if document.current_version_id and document.current_version_id != version.version_id:
        current = session.scalar(select(DocumentVersion).where(
            DocumentVersion.document_pk == document.id,
            DocumentVersion.version_id == document.current_version_id))
    if current is not None and current.id > version.id:
        # finished after a newer one was published: superseded the moment it was published
        version.state, version.superseded_at = "superseded", version.published_at
        version.superseded_by = current.version_id
        return False, None
    if current is not None:
        current.state, current.superseded_at = "superseded", version.published_at
        current.superseded_by = version.version_id
    version.state = "published"
    document.current_version_id, document.updated_at = version.version_id, utcnow()
    return True, current


def superseded_beyond(session: Session, *, document_pk: int, keep: int
                      ) -> list[DocumentVersion]:
    """The document's superseded versions past the ``keep`` newest (retention)."""
    return list(session.scalars(
        select(DocumentVersion).where(DocumentVersion.document_pk == document_pk,
                                      DocumentVersion.state == "superseded")
        .order_by(DocumentVersion.id.desc()).offset(keep)))


def versions_without_timeline(session: Session, *, limit: int
                              ) -> list[tuple[DocumentVersion, str, str]]:
    """(version, client id, document id) of published or superseded versions whose points do
    not carry their timeline yet."""
    rows = session.execute(
        select(DocumentVersion, Document.client_id, Document.document_id)
        .join(Document, Document.id == DocumentVersion.document_pk)
        .where(DocumentVersion.state.in_(("published", "superseded")),
               DocumentVersion.timeline_synced.is_(False))
        .order_by(DocumentVersion.id).limit(limit)).all()
    return [(v, c, d) for v, c, d in rows]


def attachments_of(session: Session, *, document: Document) -> list[Document]:
    """The documents registered from this document's attachments (an e-mail's)."""
    return list(session.scalars(select(Document).where(
        Document.client_id == document.client_id, Document.attached_to_pk == document.id)))


def delete_document(session: Session, *, document: Document) -> None:
    """Delete a document and its versions; its current version leaves its client's BM25
    statistics in the same transaction."""
    if document.current_version_id:
        current = session.scalar(select(DocumentVersion).where(
            DocumentVersion.document_pk == document.id,
            DocumentVersion.version_id == document.current_version_id))
        if current is not None and current.state == "published":
            bm25_stats.remove_version(session, client_id=document.client_id, version=current)
    session.delete(document)
