"""Dependencies: the runtime, a session per request, the authenticated client, load-or-404."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

from app.registry import clients as clients_registry
from app.registry import documents as docs_registry
from app.registry.tables import Client, Document
from app.runtime import Runtime


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_session(runtime: RuntimeDep) -> Iterator[Session]:
    """A session per request, committed when the handler returns without error (handlers
    that must act after the commit, such as waking the worker, commit themselves)."""
    with runtime.sessions() as session:
        yield session
        session.commit()


SessionDep = Annotated[Session, Depends(get_session)]


def get_client(session: SessionDep,
               authorization: Annotated[str | None, Header()] = None,
               x_api_key: Annotated[str | None, Header()] = None) -> Client:
    """The client the API key names (``Authorization: Bearer`` or ``X-API-Key``); 401 if none."""
    secret = x_api_key
    if authorization and authorization.lower().startswith("bearer "):
        secret = authorization[7:].strip()
    return clients_registry.client_for_key(session, secret=secret)


ClientDep = Annotated[Client, Depends(get_client)]


def get_publishing_client(session: SessionDep, client: ClientDep) -> Client:
    """A client that holds an active publication authority; 403 otherwise."""
    clients_registry.require_active_authority(session, client_id=client.id)
    return client


PublishingClientDep = Annotated[Client, Depends(get_publishing_client)]


def get_document(document_id: str, session: SessionDep, client: ClientDep) -> Document:
    return docs_registry.get_document(session, client_id=client.id, document_id=document_id)


DocumentDep = Annotated[Document, Depends(get_document)]
