"""A version's original file and its pages (issue 49): GET /documents/{id}/versions/{v}/file
and …/pages/{n}.png. The file is always an attachment (an uploaded HTML or SVG must never run
in the API's origin, where the console keeps its key); pages are PNGs the server drew."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from app.api.deps import AuditDep, ClientDep, DocumentDep, SessionDep
from app.api.schemas import error_responses
from app.documents.pages import (
    DEFAULT_WIDTH,
    MAX_WIDTH,
    MIN_WIDTH,
    Box,
    chunk_highlight,
    render_page,
)
from app.documents.reads import kind_of
from app.domain.errors import NotFound
from app.registry import documents as docs_registry
from app.registry.tables import Document, DocumentVersion

router = APIRouter(tags=["documents"])
VersionId = Annotated[str, Path(pattern="^v[0-9]{1,9}$", description="v1, v2, …")]
CHUNK_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._\\-]{0,199}:v[0-9]{1,9}:[0-9]{1,6}$"
MAX_PAGE = 100_000


def _version(session: SessionDep, document: Document, version_id: str) -> DocumentVersion:
    found = next((v for v in docs_registry.versions_of(session, document_pk=document.id)
                  if v.version_id == version_id), None)
    if found is None:
        raise NotFound(f"{document.document_id} has no version {version_id!r}",
                       code="VERSION_NOT_FOUND", details={"version_id": version_id})
    return found


@router.get("/documents/{document_id}/versions/{version_id}/file",
            responses={**error_responses(401, 404, 422, 500),
                       200: {"content": {"application/octet-stream": {}},
                             "description": "The bytes uploaded, as an attachment"}})
def original_file(session: SessionDep, document: DocumentDep, version_id: VersionId,
                  client: ClientDep, audit: AuditDep) -> Response:
    """The file as it was uploaded, byte for byte, as an attachment (never shown inline),
    with its SHA-256 in ``X-Content-SHA256``; 404 where retention removed it."""
    version = _version(session, document, version_id)
    content = docs_registry.version_content(session, version_pk=version.id)
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._-") else "_"
                   for ch in version.filename)[:200] or "file"
    audit.record(client, "download", target=f"{document.document_id}:{version_id}",
                 details={"sha256": version.content_sha256})
    return Response(content, media_type="application/octet-stream", headers={
        "Content-Disposition": f'attachment; filename="{safe}"',
        "X-Content-SHA256": version.content_sha256,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "X-Evidence-Media-Type": version.mime_type})


@router.get("/documents/{document_id}/versions/{version_id}/pages/{page}.png",
            responses={**error_responses(401, 404, 422, 500),
                       200: {"content": {"image/png": {}}, "description": "The page"}})
def page_image(
    session: SessionDep, document: DocumentDep, version_id: VersionId, client: ClientDep,
    audit: AuditDep,
    page: Annotated[int, Path(ge=1, le=MAX_PAGE, description="1-based")],
    width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH, description="pixels")]
    = DEFAULT_WIDTH,
    highlight: Annotated[str | None, Query(pattern=CHUNK_ID_PATTERN, description=(
        "a chunk_id of this version: its words on this page are drawn"))] = None,
) -> Response:
    """A page of a stored PDF or image as PNG, ``width`` pixels wide; with ``highlight``,
    the chunk's words on this page boxed (evidence items carry the same boxes)."""
    version = _version(session, document, version_id)
    boxes: list[Box] = []
    if highlight is not None:
        if highlight.rsplit(":", 2)[:2] != [document.document_id, version_id]:
            raise NotFound(f"{highlight} is not a chunk of {document.document_id} "
                           f"{version_id}", code="CHUNK_NOT_FOUND")
        boxes = chunk_highlight(session, client_id=document.client_id, chunk_id=highlight)
    png = render_page(key=(version.id, version.content_sha256), kind=kind_of(version),
                      content=docs_registry.version_content(session, version_pk=version.id),
                      page=page, width=width, boxes=boxes)
    audit.record(client, "page_view", target=f"{document.document_id}:{version_id}",
                 details={"page": page})
    return Response(png, media_type="image/png",
                    headers={"Cache-Control": "private, max-age=3600"})
