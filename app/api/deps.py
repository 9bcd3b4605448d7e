"""Dependencies: the runtime, a session per request, the authenticated client, load-or-404."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from app.domain.errors import BadRequest, Unauthorized
from app.ops.audit import AuditTrail
from app.registry import clients as clients_registry
from app.registry import documents as docs_registry
from app.registry.clients import Caller
from app.registry.tables import Document
from app.runtime import Runtime
from app.search.service import SearchService

# Dependencies that do no I/O are async: FastAPI runs every sync one in a worker thread, a
# hop (and a turn for the interpreter's lock) per dependency per request (issue 25).


async def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_session(runtime: RuntimeDep) -> Iterator[Session]:
    """A session per request, committed when the handler returns without error (handlers
    that must act after the commit, such as waking the worker, commit themselves).

    ``scope="function"``: the commit happens before the response is sent. With FastAPI's
    default (request scope) the exit code runs after the response has gone, so a client that
    read a 204 for a DELETE could ask again and still find what it deleted (seen in CI)."""
    with runtime.sessions() as session:
        yield session
        session.commit()


SessionDep = Annotated[Session, Depends(get_session, scope="function")]


# The two ways to send the key, as OpenAPI security schemes (Swagger UI's Authorize button);
# auto_error off: the gate (app/api/guard.py) has already answered a missing or bad key.
BEARER = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
API_KEY_HEADER = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key")


async def get_client(request: Request,
                     _bearer: Annotated[HTTPAuthorizationCredentials | None,
                                        Depends(BEARER)] = None,
                     _api_key: Annotated[str | None, Depends(API_KEY_HEADER)] = None) -> Caller:
    """The client the API key names (``Authorization: Bearer`` or ``X-API-Key``); 401 if none.

    The gate (app/api/guard.py) resolved the key, with the client's name and publication
    authority, in one query before the body was read, and left it in the request state; the
    schemes are declared so the OpenAPI spec shows them."""
    caller = getattr(request.state, "caller", None)
    if caller is None:
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>' "
                           "or 'X-API-Key: <key>'", code="API_KEY_MISSING")
    return caller


ClientDep = Annotated[Caller, Depends(get_client)]


async def get_publishing_client(client: ClientDep) -> Caller:
    """A client that holds an active publication authority; 403 otherwise."""
    clients_registry.require_active(client.authority)
    return client


PublishingClientDep = Annotated[Caller, Depends(get_publishing_client)]


def get_document(document_id: str, session: SessionDep, client: ClientDep) -> Document:
    return docs_registry.get_document(session, client_id=client.id, document_id=document_id,
                                      access=client.access)


DocumentDep = Annotated[Document, Depends(get_document)]


async def get_search_service(request: Request) -> SearchService:
    return request.app.state.search_service


SearchServiceDep = Annotated[SearchService, Depends(get_search_service)]


async def reject_unknown_query_params(request: Request) -> None:
    """422 for a query parameter the operation does not take: ``GET /documents?knd=pdf`` must
    not quietly list everything. (Applied to the API routers, not to /docs' OAuth redirect.)"""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = _query_names(dependant)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise BadRequest(f"unknown query parameter(s): {', '.join(unknown)[:300]}; this "
                         f"operation takes {', '.join(sorted(known)) or 'none'}",
                         code="UNKNOWN_QUERY_PARAMETER",
                         details={"unknown": [u[:100] for u in unknown[:20]],
                                  "known": sorted(known)})


def _query_names(dependant: Dependant) -> set[str]:
    """The query parameters an operation and its dependencies declare."""
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


async def get_audit(request: Request) -> AuditTrail:
    return request.app.state.audit


AuditDep = Annotated[AuditTrail, Depends(get_audit)]
