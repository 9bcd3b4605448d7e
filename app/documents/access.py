"""Relabelling a document's access groups (PATCH /documents/{id}, an upload that names
them): the registry's rows and every point of every version in the engine, the document's
attachments with it (an attachment's groups are its message's)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.errors import Conflict
from app.registry import documents as docs_registry
from app.registry.tables import Document, utcnow
from app.store import VectorStore
from app.store.base import ACCESS


def relabel(session: Session, store: VectorStore, document: Document,
            groups: Sequence[str], access: Access, *, attachment_too: bool = False) -> None:
    """Give ``document`` (and its attachments, and theirs) these groups. The engine is
    written inside the caller's transaction, before it commits; the document's row is taken
    first, so a publication of it (which takes the row, then reads the groups it writes)
    runs wholly before or after. ``attachment_too``: the caller relabels the message."""
    if document.attached_to_pk is not None and not attachment_too:
        raise Conflict(f"{document.document_id} is an e-mail's attachment: its access groups "
                       "are its message's; change the message's",
                       code="ACCESS_FOLLOWS_MESSAGE")
    access.may_label(groups)
    family, frontier = [document], [document]
    while frontier:
        frontier = [a for d in frontier
                    for a in docs_registry.attachments_of(session, document=d)]
        family += frontier
    for doc in family:
        doc.updated_at = utcnow()
    session.flush()
    for doc in family:
        docs_registry.set_document_groups(session, document_pk=doc.id, groups=groups)
        store.set_version_fields(client_id=doc.client_id, document_id=doc.document_id,
                                 version_id=None, fields={ACCESS: sorted(set(groups))})
