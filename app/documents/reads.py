"""The reads both doors share — a document with its versions, duplicates and jobs; a client's
entity pages; an e-mail thread — as plain data: the HTTP routes shape them into their schemas,
the CLI (reading the registry where no server runs) into the same JSON. Logic lives here, not
in a route module the CLI would otherwise import."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.documents.entity_pages import cursor_for, entity_documents, entity_list, offset_of
from app.domain.access import Access
from app.domain.errors import NotFound
from app.domain.formats import SUPPORTED
from app.registry import documents as docs_registry
from app.registry import threads as threads_registry
from app.registry.documents import DocumentSummary
from app.registry.near_duplicates import near_duplicates
from app.registry.tables import Document, DocumentVersion

KIND_BY_MIME = {mime: kind for kind, mime in SUPPORTED.values()}


def kind_of(version: DocumentVersion) -> str:
    """The version's own kind (a document's kind is its latest upload's)."""
    return KIND_BY_MIME.get(version.mime_type, "")


def document_detail(session: Session, document: Document, access: Access = Access()
                    ) -> tuple[DocumentSummary, list[DocumentVersion],
                               dict[int, tuple[str | None, str | None]],
                               tuple[list[str], list[dict]], dict[int, str]]:
    """A document, every version of it, the failed ones' errors, the other documents
    holding its current version's text, and each version's last job (GET /documents/{id},
    `evidence documents show`)."""
    versions = docs_registry.versions_of(session, document_pk=document.id)
    current = (document.document_id, document.current_version_id or "")
    exact, near = docs_registry.without_hidden(
        session, client_id=document.client_id, access=access,
        exact=docs_registry.exact_duplicates(session, client_id=document.client_id,
                                             keys=[current]),
        near=near_duplicates(session, client_id=document.client_id, keys=[current]))
    return (docs_registry.summarise(session, document), versions,
            docs_registry.version_errors(session, [v.id for v in versions
                                                   if v.state == "failed"]),
            (exact.get(current, []), near.get(current, [])),
            docs_registry.latest_jobs(session, [v.id for v in versions]))


def entities_listing(session: Session, client_id: str, group: str, *, q: str | None,
                     limit: int, cursor: str | None, access: Access = Access()
                     ) -> dict[str, Any]:
    """GET /entities's answer as data, counted over the documents ``access`` may see."""
    offset = offset_of(cursor)
    items, total = entity_list(docs_registry.current_entity_rows(
        session, client_id=client_id, access=access), group, q=q, offset=offset, limit=limit)
    more = offset + len(items) < total
    return {"group": group, "items": items, "total": total,
            "next_cursor": cursor_for(offset + len(items)) if more else None}


def entity_documents_listing(session: Session, client_id: str, group: str, value: str,
                             access: Access = Access()) -> dict[str, Any]:
    """GET /entities/{group}/{value}/documents's answer as data; 404 where none names it."""
    items = entity_documents(docs_registry.current_entity_rows(
        session, client_id=client_id, access=access), group, value)
    if not items:
        raise NotFound(f"no current document names {value!r} under {group}",
                       code="ENTITY_NOT_FOUND", details={"group": group})
    return {"group": group, "value": value, "items": items}


def thread_listing(session: Session, client_id: str, thread_id: str,
                   access: Access = Access()) -> dict[str, Any]:
    """GET /threads/{thread_id}'s answer as data: the messages ``access`` may see (the
    registry answers 404 where it sees none)."""
    return {"thread_id": thread_id, "messages": threads_registry.thread_messages(
        session, client_id=client_id, thread_id=thread_id, access=access)}
