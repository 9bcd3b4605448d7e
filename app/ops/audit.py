"""The audit trail's writer (issue 51): who searched what, read, downloaded, exported or
deleted which document, issued a key or changed a document's access.

Recording must not slow a search (the goal: ≤ 5 % of its p50), so a door only appends the
event to an in-memory list; a background thread writes what has gathered every ``flush_s``
in one transaction, and prunes rows past the retention once an hour. A read of the trail
(GET /audit) flushes first, so it always holds what its own process recorded. What a crash
loses is at most the last ``flush_s`` of events (the trail is evidence of use, not the data
itself: a document is never lost with it). Query texts are left out when the operator says so
(``EVIDENCE_AUDIT__QUERIES=false``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.registry import audit as audit_registry
from app.registry.clients import Caller
from app.settings import AuditSettings

log = logging.getLogger(__name__)
ACTIONS = ("search", "batch_search", "batch_export", "document_read", "download",
           "page_view", "export", "delete", "access_change", "key_issued", "key_revoked",
           "authority_change")
MAX_PENDING = 100_000  # past it a door writes the list itself (slower, nothing lost)
PRUNE_EVERY_S = 3600.0
MAX_KEPT_QUERY = 4000  # a query text as kept (a batch's: its first queries, a line each)


def audit_event(settings: AuditSettings, caller: Caller | None, action: str, *,
                client_id: str | None = None, target: str | None = None,
                query: str | None = None, details: dict[str, Any] | None = None,
                actor: str | None = None) -> dict[str, Any] | None:
    """One event's row as the settings keep it (None: the trail is off); the CLI in-process
    writes it in its own transaction (app/registry/audit.append), the server through
    AuditTrail."""
    if not settings.enabled:
        return None
    return {"client_id": caller.id if caller is not None else client_id,
            "at": datetime.now(UTC), "key_id": caller.key_id if caller is not None else None,
            "actor": actor, "action": action, "target": target,
            "query": query[:MAX_KEPT_QUERY] if query is not None and settings.queries else None,
            "details": details}


def record_cli(session: Session, settings: AuditSettings, caller: Caller | None, action: str,
               *, client_id: str | None = None, target: str | None = None,
               query: str | None = None, details: dict[str, Any] | None = None) -> None:
    """An event of the CLI's own doors (``actor: cli``), written in the command's own
    transaction: the CLI runs no background writer."""
    event = audit_event(settings, caller, action, client_id=client_id, target=target,
                        query=query, details=details, actor="cli")
    if event is not None:
        audit_registry.append(session, [event])


class AuditTrail:
    def __init__(self, sessions: Callable[[], Session], settings: AuditSettings) -> None:
        self.sessions, self.settings = sessions, settings
        self._pending: list[dict[str, Any]] = []
        self._lock = threading.Lock()  # the pending list
        self._write = threading.Lock()  # one writer at a time
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._pruned_at = 0.0

    def record(self, caller: Caller | None, action: str, *, client_id: str | None = None,
               target: str | None = None, query: str | None = None,
               details: dict[str, Any] | None = None, actor: str | None = None) -> None:
        """Queue one event of ``caller`` (a key's request) or, without one, of ``actor`` (a
        door without a key, ``client_id`` given)."""
        event = audit_event(self.settings, caller, action, client_id=client_id, target=target,
                            query=query, details=details, actor=actor)
        if event is None:
            return
        with self._lock:
            self._pending.append(event)
            backed_up = len(self._pending) >= MAX_PENDING
        if backed_up:
            self.flush()
        else:
            self._started()

    def flush(self) -> None:
        """Write what has gathered, in one transaction (and prune when an hour has passed)."""
        with self._write:
            with self._lock:
                pending, self._pending = self._pending, []
            if pending:
                try:
                    with self.sessions() as session:
                        audit_registry.append(session, pending)
                        session.commit()
                except Exception:  # noqa: BLE001 - kept for the next round, never dropped
                    log.exception("audit events not written yet (%d kept)", len(pending))
                    with self._lock:
                        self._pending[:0] = pending
                    return
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_S:
                self._pruned_at = time.monotonic()
                self.prune()

    def prune(self) -> int:
        before = datetime.now(UTC) - timedelta(days=self.settings.retention_days)
        with self.sessions() as session:
            gone = audit_registry.prune(session, before=before)
            session.commit()
        return gone

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.flush()

    def _started(self) -> None:
        if self._thread is None and not self._closed:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="audit-writer",
                                                    daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self.settings.flush_s)
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - the writer never dies of one round
                log.exception("audit flush failed")
