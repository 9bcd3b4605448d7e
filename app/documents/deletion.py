"""Deleting a document: every version, every chunk of it in the engine, and an e-mail's
attachments (and theirs) with it — one rule for DELETE /documents/{id} and a folder source
whose file vanished."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.registry import documents as docs_registry
from app.registry.tables import Document
from app.store import VectorStore


def delete_document(session: Session, store: VectorStore, document: Document) -> None:
    """The document and its attachments, from the engine then the registry (the caller
    commits)."""
    doomed, frontier = [document], [document]
    while frontier:  # attachments of attachments: bounded by the depth ingestion allows
        frontier = [a for d in frontier for a in docs_registry.attachments_of(session, document=d)]
        doomed += frontier
    for doc in doomed:
        store.delete(client_id=doc.client_id, document_id=doc.document_id)
        docs_registry.delete_document(session, document=doc)
