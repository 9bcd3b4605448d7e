"""The audit trail's rows (issue 51): appended in batches, read per client, pruned by age."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session

from app.registry.tables import ApiKey, AuditEvent

MAX_PAGE = 1000


def append(session: Session, events: Sequence[dict[str, Any]]) -> None:
    """Rows as AuditTrail queued them (client_id, at, key_id, actor, action, target, query,
    details)."""
    session.add_all(AuditEvent(**e) for e in events)


def read(session: Session, *, client_id: str, since: datetime | None = None,
         until: datetime | None = None, actor: str | None = None,
         actions: Collection[str] = (), after: int = 0, limit: int = 100
         ) -> list[tuple[AuditEvent, str | None]]:
    """(event, its key's prefix) of one client, oldest first, after the id ``after`` (the
    cursor). ``actor``: a key's id, its prefix, or what a key-less door recorded (cli)."""
    stmt = (select(AuditEvent, ApiKey.prefix)
            .outerjoin(ApiKey, ApiKey.id == AuditEvent.key_id)
            .where(AuditEvent.client_id == client_id, AuditEvent.id > after)
            .order_by(AuditEvent.id).limit(min(limit, MAX_PAGE)))
    if since is not None:
        stmt = stmt.where(AuditEvent.at >= since)
    if until is not None:
        stmt = stmt.where(AuditEvent.at < until)
    if actor:
        stmt = stmt.where(or_(AuditEvent.key_id == actor, ApiKey.prefix == actor,
                              AuditEvent.actor == actor))
    if actions:
        stmt = stmt.where(AuditEvent.action.in_(list(actions)))
    return [(event, prefix) for event, prefix in session.execute(stmt)]


def prune(session: Session, *, before: datetime) -> int:
    """Rows older than ``before`` removed (every client's): the retention setting."""
    return session.execute(delete(AuditEvent).where(AuditEvent.at < before)).rowcount or 0
