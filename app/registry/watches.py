"""Standing queries in the registry (issue 36): the watches, the outbox of first publications
they have yet to see (written in the publishing transaction, ingest/pipeline.py), their matches
and the matches' webhook deliveries.

Every read is per client: another client's watch is a 404, never seen. Claims (of an event, of
a delivery) are guarded UPDATEs, so several serving processes can run the watch runner without
evaluating an event or POSTing a match twice.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.errors import Conflict, NotFound
from app.registry.tables import (
    Document,
    DocumentVersion,
    Watch,
    WatchEvent,
    WatchMatch,
    utcnow,
)

CLAIM_LEASE = timedelta(minutes=5)  # a claim older than this was a dead runner's
MAX_EVENT_ATTEMPTS = 3  # an event whose evaluation fails this often is dropped (and logged)


def create(session: Session, *, client_id: str, request: dict[str, Any], name: str | None,
           webhook_url: str | None, max_per_client: int, key_id: str | None = None,
           narrowed: tuple[str, ...] | None = None) -> Watch:
    count = session.scalar(select(func.count()).select_from(Watch)
                           .where(Watch.client_id == client_id)) or 0
    if count >= max_per_client:
        raise Conflict(f"this client already has {count} watches, the most it may keep "
                       f"(EVIDENCE_WATCH__MAX_PER_CLIENT): delete one first",
                       code="WATCH_LIMIT_REACHED")
    watch = Watch(watch_id=f"wat_{secrets.token_hex(8)}", client_id=client_id, name=name,
                  request=request, webhook_url=webhook_url,
                  secret=f"whsec_{secrets.token_urlsafe(32)}", created_at=utcnow(),
                  match_count=0, key_id=key_id,
                  narrowed=list(narrowed) if narrowed is not None else None)
    session.add(watch)
    session.flush()
    return watch


def get(session: Session, *, client_id: str, watch_id: str, key_id: str | None = None
        ) -> Watch:
    """The client's watch (``key_id``: only one that key made — a key with access groups
    sees its own watches; 404 for any other, as for none)."""
    stmt = select(Watch).where(Watch.client_id == client_id, Watch.watch_id == watch_id)
    if key_id is not None:
        stmt = stmt.where(Watch.key_id == key_id)
    watch = session.scalar(stmt)
    if watch is None:
        raise NotFound(f"no watch {watch_id!r}", code="WATCH_NOT_FOUND")
    return watch


def listing(session: Session, *, client_id: str, key_id: str | None = None) -> list[Watch]:
    stmt = select(Watch).where(Watch.client_id == client_id)
    if key_id is not None:
        stmt = stmt.where(Watch.key_id == key_id)
    return list(session.scalars(stmt.order_by(Watch.id)))


def remove(session: Session, *, client_id: str, watch_id: str, key_id: str | None = None
           ) -> None:
    watch = get(session, client_id=client_id, watch_id=watch_id, key_id=key_id)
    session.execute(delete(WatchMatch).where(WatchMatch.watch_pk == watch.id))
    session.delete(watch)


def kept_counts(session: Session, watch_pks: list[int]) -> dict[int, int]:
    """Matches kept per watch (the rest were dropped past ``max_matches``)."""
    if not watch_pks:
        return {}
    return dict(session.execute(  # type: ignore[arg-type]
        select(WatchMatch.watch_pk, func.count()).where(WatchMatch.watch_pk.in_(watch_pks))
        .group_by(WatchMatch.watch_pk)).all())


def matches_page(session: Session, *, watch: Watch, after: int, limit: int
                 ) -> tuple[list[WatchMatch], bool]:
    """The watch's matches recorded after match ``after`` (a cursor), oldest first: a feed a
    caller polls with the last cursor it got. Returns (page, more after it)."""
    rows = list(session.scalars(
        select(WatchMatch).where(WatchMatch.watch_pk == watch.id, WatchMatch.id > after)
        .order_by(WatchMatch.id).limit(limit + 1)))
    return rows[:limit], len(rows) > limit


# -- the outbox: first publications ---------------------------------------------------------

def note_publication(session: Session, *, client_id: str, version: DocumentVersion) -> None:
    """In the publishing transaction: a version published for the first time, for the client's
    watches to look at (nothing when it has none — a watch sees what is published after it)."""
    if session.scalar(select(Watch.id).where(Watch.client_id == client_id).limit(1)) is None:
        return
    session.add(WatchEvent(client_id=client_id, version_pk=version.id,
                           published_at=version.published_at or utcnow(), attempts=0))


def claim_events(session: Session, *, limit: int, now: datetime | None = None
                 ) -> list[WatchEvent]:
    """Events no live runner holds, oldest first, each claimed by a guarded UPDATE."""
    now = now or utcnow()
    stale = now - CLAIM_LEASE
    candidates = session.execute(
        select(WatchEvent.id, WatchEvent.claimed_at)
        .where((WatchEvent.claimed_at.is_(None)) | (WatchEvent.claimed_at < stale))
        .order_by(WatchEvent.id).limit(limit)).all()
    claimed = []
    for event_id, claimed_at in candidates:
        held = (WatchEvent.claimed_at.is_(None) if claimed_at is None
                else WatchEvent.claimed_at == claimed_at)
        if session.execute(update(WatchEvent).where(WatchEvent.id == event_id, held)
                           .values(claimed_at=now)).rowcount == 1:  # type: ignore[attr-defined]
            claimed.append(event_id)
    session.commit()
    return list(session.scalars(select(WatchEvent).where(WatchEvent.id.in_(claimed))
                                .order_by(WatchEvent.id)))


def event_subject(session: Session, event: WatchEvent
                  ) -> tuple[DocumentVersion, Document] | None:
    """The event's version and document, or None when either is gone."""
    version = session.get(DocumentVersion, event.version_pk)
    document = session.get(Document, version.document_pk) if version is not None else None
    return (version, document) if version is not None and document is not None else None


def watches_seeing(session: Session, event: WatchEvent) -> list[Watch]:
    """The client's watches that existed when the version was published."""
    return list(session.scalars(select(Watch).where(
        Watch.client_id == event.client_id, Watch.created_at <= event.published_at)
        .order_by(Watch.id)))


def event_failed(session: Session, event: WatchEvent) -> bool:
    """Given back for another try; True when it is dropped instead (tried too often)."""
    event.attempts += 1
    if event.attempts >= MAX_EVENT_ATTEMPTS:
        session.delete(event)
        return True
    event.claimed_at = None
    return False


def record_match(session: Session, *, watch: Watch, version: DocumentVersion,
                 document_id: str, evidence: dict[str, Any], max_matches: int) -> bool:
    """A match, once per watch and version (False when it was already recorded); the watch's
    oldest matches beyond ``max_matches`` are dropped."""
    match = WatchMatch(watch_pk=watch.id, version_pk=version.id, document_id=document_id,
                       version_id=version.version_id, matched_at=utcnow(), evidence=evidence,
                       delivery_state="pending" if watch.webhook_url else None, attempts=0,
                       next_attempt_at=utcnow() if watch.webhook_url else None)
    try:
        with session.begin_nested():
            session.add(match)
    except IntegrityError:
        return False
    watch.match_count += 1
    cutoff = session.scalar(select(WatchMatch.id).where(WatchMatch.watch_pk == watch.id)
                            .order_by(WatchMatch.id.desc()).offset(max_matches).limit(1))
    if cutoff is not None:
        session.execute(delete(WatchMatch).where(WatchMatch.watch_pk == watch.id,
                                                 WatchMatch.id <= cutoff))
    return True


# -- webhook deliveries ---------------------------------------------------------------------

def claim_deliveries(session: Session, *, limit: int, lease_s: float,
                     now: datetime | None = None) -> list[tuple[WatchMatch, Watch]]:
    """Pending deliveries that are due, each claimed by moving its next attempt ``lease_s``
    ahead and counting the attempt now: a runner that dies mid-POST leaves it due again after
    the lease — one repeat, which the receiver recognises by its delivery id — and a
    delivery that kills its runner every time still ends after ``max_attempts``."""
    now = now or utcnow()
    due = session.execute(
        select(WatchMatch.id, WatchMatch.next_attempt_at)
        .where(WatchMatch.delivery_state == "pending", WatchMatch.next_attempt_at <= now)
        .order_by(WatchMatch.next_attempt_at, WatchMatch.id).limit(limit)).all()
    claimed = [match_id for match_id, at in due
               if session.execute(update(WatchMatch).where(
                   WatchMatch.id == match_id, WatchMatch.next_attempt_at == at)
                   .values(next_attempt_at=now + timedelta(seconds=lease_s),
                           attempts=WatchMatch.attempts + 1)
               ).rowcount == 1]  # type: ignore[attr-defined]
    session.commit()
    return list(session.execute(  # type: ignore[arg-type]
        select(WatchMatch, Watch).join(Watch, Watch.id == WatchMatch.watch_pk)
        .where(WatchMatch.id.in_(claimed)).order_by(WatchMatch.id)).all())


def delivered(session: Session, *, match_id: int) -> None:
    session.execute(update(WatchMatch).where(WatchMatch.id == match_id).values(
        delivery_state="delivered", delivered_at=utcnow(), last_error=None,
        next_attempt_at=None))


def delivery_failed(session: Session, *, match_id: int, error: str, max_attempts: int,
                    backoff_base_s: float, permanent: bool = False) -> None:
    """Another try after base × 2^(attempts − 1) seconds (capped at an hour); failed for good
    after ``max_attempts`` or at once when trying again cannot help (``permanent``: the
    receiver refused it, the host is no longer allowed). The claim counted the attempt."""
    match = session.get(WatchMatch, match_id)
    if match is None:
        return  # its watch or document was deleted meanwhile
    match.last_error = error[:500]
    if permanent or match.attempts >= max_attempts:
        match.delivery_state, match.next_attempt_at = "failed", None
    else:
        delay = min(3600.0, backoff_base_s * 2 ** (match.attempts - 1))
        match.next_attempt_at = utcnow() + timedelta(seconds=delay)
