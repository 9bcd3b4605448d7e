"""Entity pages: GET /entities (the people, organisations, amounts … in a client's current
versions) and GET /entities/{group}/{value}/documents (the versions naming one). Thin: the
registry streams the client's current versions, app/documents/entity_pages.py counts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from sqlalchemy.orm import Session

from app.api.deps import PublishingClientDep, SessionDep
from app.api.schemas import (
    EntityDocument,
    EntityDocuments,
    EntityGroup,
    EntityList,
    EntityOut,
    error_responses,
)
from app.documents.entity_pages import (
    MAX_QUERY_CHARS,
    cursor_for,
    entity_documents,
    entity_list,
    offset_of,
)
from app.domain.access import Access
from app.domain.errors import NotFound
from app.registry import documents as docs_registry

router = APIRouter(tags=["entities"])
MAX_VALUE_CHARS = 500
MAX_CURSOR_CHARS = 40
# URL-safe base64, unpadded (app/documents/entity_pages.cursor_for)
CURSOR_PATTERN = "^[A-Za-z0-9_-]*$"


@router.get("/entities", response_model=EntityList,
            responses=error_responses(401, 403, 422, 500))
def list_entities(
    session: SessionDep, client: PublishingClientDep,
    group: Annotated[EntityGroup, Query(description="The entity group to list")],
    q: Annotated[str | None, Query(max_length=MAX_QUERY_CHARS,
                                   description="A part of the value, any case (okafor)")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS, pattern=CURSOR_PATTERN,
                                        description="next_cursor of the page before")] = None,
) -> EntityList:
    """The group's entities named in the client's current versions, most documents first,
    each with its documents and mentions (the values are untrusted document text)."""
    return entities_page(session, client.id, group, q=q, limit=limit, cursor=cursor,
                         access=client.access)


@router.get("/entities/{group}/{value:path}/documents", response_model=EntityDocuments,
            responses=error_responses(401, 403, 404, 422, 500))
def entity_versions(
    session: SessionDep, client: PublishingClientDep, group: EntityGroup,
    value: Annotated[str, Path(min_length=1, max_length=MAX_VALUE_CHARS,
                               description="The entity in any spelling (an IBAN with or "
                                           "without spaces, a name in any case)")],
) -> EntityDocuments:
    """The client's current versions naming the entity, most mentions first; 404 where none
    does (another client's entities are never seen)."""
    return entity_documents_page(session, client.id, group, value, client.access)


def entities_page(session: Session, client_id: str, group: str, *, q: str | None, limit: int,
                  cursor: str | None, access: Access = Access()) -> EntityList:
    """GET /entities's answer (the CLI reads the registry through this too), counted over
    the documents ``access`` may see."""
    offset = offset_of(cursor)
    items, total = entity_list(docs_registry.current_entity_rows(
        session, client_id=client_id, access=access), group, q=q, offset=offset, limit=limit)
    more = offset + len(items) < total
    return EntityList(group=group, items=[EntityOut(**i) for i in items], total=total,
                      next_cursor=cursor_for(offset + len(items)) if more else None)


def entity_documents_page(session: Session, client_id: str, group: str, value: str,
                          access: Access = Access()) -> EntityDocuments:
    items = entity_documents(docs_registry.current_entity_rows(
        session, client_id=client_id, access=access), group, value)
    if not items:
        raise NotFound(f"no current document names {value!r} under {group}",
                       code="ENTITY_NOT_FOUND", details={"group": group})
    return EntityDocuments(group=group, value=value,
                           items=[EntityDocument(**i) for i in items])
