"""Entity pages: GET /entities (the people, organisations, amounts … in a client's current
versions) and GET /entities/{group}/{value}/documents (the versions naming one). Thin: the
registry streams the client's current versions, app/documents/entity_pages.py counts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from app.api.deps import PublishingClientDep, SessionDep
from app.api.schemas import (
    EntityDocuments,
    EntityGroup,
    EntityList,
    error_responses,
)
from app.documents import reads
from app.documents.entity_pages import (
    MAX_QUERY_CHARS,
)

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
    return EntityList.model_validate(reads.entities_listing(
        session, client.id, group, q=q, limit=limit, cursor=cursor, access=client.access))


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
    return EntityDocuments.model_validate(reads.entity_documents_listing(
        session, client.id, group, value, client.access))

