"""Uploads and documents: POST/GET/DELETE /documents, GET /jobs/{job_id}."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from pydantic import Field

from app.api.deps import (
    AuditDep,
    ClientDep,
    DocumentDep,
    PublishingClientDep,
    RuntimeDep,
    SessionDep,
)
from app.api.presenter import document_out, job_out
from app.api.schemas import (
    ChangesOut,
    DocumentChange,
    DocumentKind,
    DocumentList,
    DocumentOut,
    JobOut,
    UploadAccepted,
    VersionState,
    error_responses,
)
from app.documents import reads
from app.documents.access import relabel
from app.documents.deletion import delete_document as delete_document_family
from app.documents.uploads import (
    MAX_PATH_CHARS,
    MAX_SOURCE_CHARS,
    accept_upload,
    parse_metadata_field,
)
from app.domain.access import GROUP_LIST_PATTERN, parse_groups
from app.domain.errors import PayloadTooLarge
from app.domain.formats import SUPPORTED
from app.registry import documents as docs_registry
from app.registry import jobs as jobs_registry
from app.registry.database import commit_with_retry, scrub_deleted
from app.registry.documents import DOCUMENT_ID_RE, SortKey

router = APIRouter(tags=["documents"])
# The spec says what the server checks: the kinds from the one table, the id by its one rule
UPLOAD_FORMATS = "The file; by extension: " + ", ".join(sorted(SUPPORTED))
DOCUMENT_ID_PATTERN = f"^({DOCUMENT_ID_RE.pattern})?$"  # empty: no id, as if absent
MAX_LIST_OFFSET = 10_000_000  # far past any listing, well inside the registry's integers
MAX_LIST_FILTERS = 100  # values per filter


@router.post("/documents", status_code=202, response_model=UploadAccepted,
             responses=error_responses(400, 401, 403, 409, 413, 415, 422, 500))
def upload_document(
    request: Request, runtime: RuntimeDep, session: SessionDep, client: PublishingClientDep,
    # format binary: OpenAPI 3.0 style, so generated clients send a file, not a string
    file: Annotated[UploadFile, File(description=UPLOAD_FORMATS,
                                     json_schema_extra={"format": "binary"})],
    document_id: Annotated[str | None, Form(
        description="the document this upload is a new version of (made if new); absent or "
                    "empty: a new document named after the file",
        json_schema_extra={"pattern": DOCUMENT_ID_PATTERN, "maxLength": 200})] = None,
    metadata: Annotated[str | None, Form(description="a JSON object → canonical_metadata.custom")]
    = None,
    source: Annotated[str | None, Form(json_schema_extra={"maxLength": MAX_SOURCE_CHARS})]
    = None,
    path: Annotated[str | None, Form(json_schema_extra={"maxLength": MAX_PATH_CHARS})] = None,
    access: Annotated[str | None, Form(
        description="Its access groups, comma-separated (a new version of a document "
                    "relabels every version): only keys holding one of them, and admin keys, "
                    "see it; absent: a new document is seen by every key of the client, an "
                    "existing one keeps its groups",
        pattern=GROUP_LIST_PATTERN)] = None,
) -> UploadAccepted:
    """Queue a new version of a document (a new document unless ``document_id`` names one)."""
    limit = runtime.settings.ingest.max_upload_bytes
    content = file.file.read(limit + 1)
    if len(content) > limit:
        raise PayloadTooLarge(f"{file.filename} is over the upload limit of {limit:,} bytes "
                              "(EVIDENCE_INGEST__MAX_UPLOAD_BYTES)",
                              details={"limit_bytes": limit})
    limits = runtime.settings.limits.metadata()
    custom = parse_metadata_field(metadata, limits)
    groups = parse_groups(access) if access is not None else None
    # Parallel uploads of one document (one id, or one file name without an id) take turns,
    # so each gets its own version or name, no gaps; a race the turns cannot see (two names
    # with one readable id) registers again (commit_with_retry).
    filename = file.filename or "upload"
    with docs_registry.upload_turn(client.id, docs_registry.upload_key(document_id, filename)):
        upload = commit_with_retry(session, lambda: accept_upload(
            session, settings=runtime.settings.ingest, limits=limits, client_id=client.id,
            filename=filename, content=content, document_id=document_id or None,
            custom=custom, source=source, path=path, access=client.access, groups=groups),
            what="this upload")
        if groups is not None:
            relabel(session, runtime.store, upload.document, groups, client.access)
            session.commit()
    wake = getattr(request.app.state, "wake_worker", None)
    if wake is not None:
        wake()
    return UploadAccepted(document_id=upload.document.document_id,
                          version_id=upload.version.version_id, job_id=upload.job.id,
                          status=upload.job.status, deduplicated=upload.deduplicated,
                          reverts_to=upload.reverts_to)


@router.patch("/documents/{document_id}", response_model=DocumentOut,
               responses=error_responses(400, 401, 403, 404, 409, 422, 500))
def change_document(body: DocumentChange, runtime: RuntimeDep, session: SessionDep,
                    client: PublishingClientDep, document: DocumentDep,
                    audit: AuditDep) -> DocumentOut:
    """Change a document's access groups: every version's chunks are relabelled before the
    answer, its e-mail attachments with it. A key with groups gives only groups it holds."""
    groups = parse_groups(body.access)
    relabel(session, runtime.store, document, groups, client.access)
    session.commit()
    audit.record(client, "access_change", target=document.document_id,
                 details={"access": list(groups)})
    return document_out(*reads.document_detail(session, document, client.access))


@router.get("/documents", response_model=DocumentList,
             responses=error_responses(401, 422, 500))
def list_documents(
    session: SessionDep, client: ClientDep,
    kind: Annotated[list[DocumentKind], Query(description="Any of these kinds")] = [],  # noqa: B006
    source: Annotated[list[Annotated[str, Field(max_length=200)]],
                      Query(max_length=MAX_LIST_FILTERS,
                            description="Any of these sources")] = [],  # noqa: B006
    state: Annotated[list[VersionState],
                     Query(description="Any of these states of the latest version")] = [],  # noqa: B006
    sort: Annotated[SortKey, Query(description="The order of the list")] = "created_at",
    order: Annotated[Literal["asc", "desc"], Query()] = "asc",
    offset: Annotated[int, Query(ge=0, le=MAX_LIST_OFFSET)] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> DocumentList:
    """The client's documents, readable: name, title, state, the latest failure's reason."""
    rows, total = docs_registry.list_documents(
        session, client_id=client.id, offset=offset, limit=limit, kinds=kind, sources=source,
        states=state, sort=sort, descending=order == "desc", access=client.access)
    return DocumentList(documents=[document_out(d) for d in rows], total=total, offset=offset,
                        limit=limit)


@router.get("/documents/{document_id}", response_model=DocumentOut,
             responses=error_responses(401, 404, 422, 500))
def get_document(session: SessionDep, client: ClientDep, document: DocumentDep,
                 audit: AuditDep) -> DocumentOut:
    audit.record(client, "document_read", target=document.document_id)
    return document_out(*reads.document_detail(session, document, client.access))


@router.delete("/documents/{document_id}", status_code=204,
               responses=error_responses(401, 403, 404, 422, 500, 503))
def delete_document(runtime: RuntimeDep, session: SessionDep, client: PublishingClientDep,
                    document: DocumentDep, audit: AuditDep) -> None:
    """Delete a document, every version and every chunk of it in the vector store; an
    e-mail's attachments (and theirs) go with it."""
    document_id = document.document_id
    delete_document_family(session, runtime.store, document)
    session.commit()
    audit.record(client, "delete", target=document_id)
    scrub_deleted(runtime.engine)


@router.get("/jobs/{job_id}", response_model=JobOut,
             responses=error_responses(401, 404, 422, 500))
def get_job(job_id: str, session: SessionDep, client: ClientDep) -> JobOut:
    return job_out(*jobs_registry.job_with_version(session, client_id=client.id,
                                                   job_id=job_id, access=client.access))


VERSION_ID_PATTERN = "^v[0-9]{1,9}$"


@router.get("/documents/{document_id}/changes", response_model=ChangesOut,
            responses=error_responses(401, 404, 409, 422, 500))
def document_changes(
    runtime: RuntimeDep, session: SessionDep, document: DocumentDep,
    from_version: Annotated[str | None, Query(alias="from", pattern=VERSION_ID_PATTERN,
                                              description="the earlier version (default: the "
                                                          "one before `to`)")] = None,
    to_version: Annotated[str | None, Query(alias="to", pattern=VERSION_ID_PATTERN,
                                            description="the later version (default: the "
                                                        "current one)")] = None,
) -> ChangesOut:
    """What changed between two published versions: passages added, removed and changed,
    each with where it stands on each side (app/documents/changes.py,
    app/documents/version_changes.py)."""
    from app.documents.version_changes import version_changes

    from_id, to_id, found, complete = version_changes(
        session, runtime.store, document, from_version=from_version, to_version=to_version)
    return ChangesOut(document_id=document.document_id, from_version=from_id,
                      to_version=to_id, complete=complete, changes=found)
