"""Watches in the registry on SQLite and PostgreSQL: the outbox only when a watch exists, claims
taken once (and a dead runner's retaken), a match once, the oldest dropped past the bound,
delivery backoff by the stated doubling."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.domain.errors import Conflict
from app.registry import clients as reg
from app.registry import documents as docs
from app.registry import watches
from app.registry.database import transaction
from app.registry.tables import DocumentVersion, WatchEvent, WatchMatch, utcnow

REQUEST = {"query": "fee", "scope": "content", "alpha": None, "filters": {}}


def _versions(sessions, n: int) -> tuple[str, list[int]]:  # type: ignore[no-untyped-def]
    with transaction(sessions) as s:
        client, _ = reg.create_client(s, name="c")
        pks = [docs.register_upload(
            s, client_id=client.id, document_id=f"d{i}", kind="txt", filename="a.txt",
            mime_type="text/plain", content=b"x", sha256=f"{i:064d}", canonical_metadata={},
            source=None, path=None, max_attempts=3).version.id for i in range(n)]
        return client.id, pks


def _publish(sessions, client_id: str, pk: int) -> None:  # type: ignore[no-untyped-def]
    with transaction(sessions) as s:
        version = s.get(DocumentVersion, pk)
        version.published_at = utcnow()
        watches.note_publication(s, client_id=client_id, version=version)


def test_publications_are_noted_only_for_a_client_with_watches(sessions) -> None:
    client_id, (first, second) = _versions(sessions, 2)
    _publish(sessions, client_id, first)
    with transaction(sessions) as s:
        assert s.scalar(select(func.count()).select_from(WatchEvent)) == 0
        watches.create(s, client_id=client_id, request=REQUEST, name=None, webhook_url=None,
                       max_per_client=2)
    _publish(sessions, client_id, second)
    with transaction(sessions) as s:
        assert s.scalars(select(WatchEvent.version_pk)).all() == [second]


def test_a_client_keeps_at_most_its_bound_of_watches(sessions) -> None:
    client_id, _ = _versions(sessions, 0)
    with transaction(sessions) as s:
        for _ in range(2):
            watches.create(s, client_id=client_id, request=REQUEST, name=None,
                           webhook_url=None, max_per_client=2)
        with pytest.raises(Conflict) as refused:
            watches.create(s, client_id=client_id, request=REQUEST, name=None,
                           webhook_url=None, max_per_client=2)
    assert refused.value.code == "WATCH_LIMIT_REACHED"


def test_an_event_is_claimed_once_and_a_dead_runners_claim_is_retaken(sessions) -> None:
    client_id, (pk,) = _versions(sessions, 1)
    with transaction(sessions) as s:
        watches.create(s, client_id=client_id, request=REQUEST, name=None, webhook_url=None,
                       max_per_client=5)
    _publish(sessions, client_id, pk)
    now = utcnow()
    with sessions() as s:
        assert [e.version_pk for e in watches.claim_events(s, limit=10, now=now)] == [pk]
    with sessions() as s:  # another runner, a minute later: held
        assert watches.claim_events(s, limit=10, now=now + timedelta(minutes=1)) == []
    with sessions() as s:  # past the lease: the first runner died
        later = now + watches.CLAIM_LEASE + timedelta(seconds=1)
        assert len(watches.claim_events(s, limit=10, now=later)) == 1


def test_a_match_is_recorded_once_and_the_oldest_dropped_past_the_bound(sessions) -> None:
    client_id, pks = _versions(sessions, 12)
    with transaction(sessions) as s:
        watch = watches.create(s, client_id=client_id, request=REQUEST, name=None,
                               webhook_url=None, max_per_client=5)
        for pk in pks:
            version = s.get(DocumentVersion, pk)
            assert watches.record_match(s, watch=watch, version=version, document_id="d",
                                        evidence={}, max_matches=10)
        again = s.get(DocumentVersion, pks[-1])
        assert not watches.record_match(s, watch=watch, version=again, document_id="d",
                                         evidence={}, max_matches=10)
        assert watch.match_count == 12
        kept = s.scalars(select(WatchMatch.version_pk).order_by(WatchMatch.id)).all()
        assert kept == pks[2:]  # ten kept, the two oldest dropped
        page, more = watches.matches_page(s, watch=watch, after=0, limit=4)
        assert [m.version_pk for m in page] == pks[2:6] and more
        last, more = watches.matches_page(s, watch=watch, after=page[-1].id, limit=6)
        assert [m.version_pk for m in last] == pks[6:] and not more


def _one_pending_delivery(sessions) -> None:  # type: ignore[no-untyped-def]
    """A watch with a webhook and one match waiting to be delivered."""
    client_id, (pk,) = _versions(sessions, 1)
    with transaction(sessions) as s:
        watch = watches.create(s, client_id=client_id, request=REQUEST, name=None,
                               webhook_url="http://127.0.0.1/h", max_per_client=5)
        watches.record_match(s, watch=watch, version=s.get(DocumentVersion, pk),
                             document_id="d", evidence={}, max_matches=10)


def test_delivery_backoff_doubles_and_fails_after_the_last_attempt(sessions) -> None:
    _one_pending_delivery(sessions)
    later = utcnow() + timedelta(hours=2)  # every retry's time has come
    for attempt, delay in ((1, 2.0), (2, 4.0), (3, 8.0)):
        with sessions() as s:  # the claim counts the attempt and holds it 30 s
            [(claimed, _watch)] = watches.claim_deliveries(s, limit=5, lease_s=30, now=later)
            assert claimed.attempts == attempt
            assert watches.claim_deliveries(s, limit=5, lease_s=30, now=later) == []
        with transaction(sessions) as s:
            match = s.scalars(select(WatchMatch)).one()
            before = utcnow()
            watches.delivery_failed(s, match_id=match.id, error="HTTP 500", max_attempts=4,
                                    backoff_base_s=2.0)
            assert match.attempts == attempt and match.delivery_state == "pending"
            waited = (match.next_attempt_at - before).total_seconds()
            assert delay - 0.5 < waited < delay + 0.5
    with sessions() as s:
        watches.claim_deliveries(s, limit=5, lease_s=30, now=later)
    with transaction(sessions) as s:
        match = s.scalars(select(WatchMatch)).one()
        watches.delivery_failed(s, match_id=match.id, error="x" * 900, max_attempts=4,
                                backoff_base_s=2.0)
        assert (match.delivery_state, match.next_attempt_at, len(match.last_error)) == (
            "failed", None, 500)


def test_a_permanent_failure_ends_the_delivery_at_its_first_attempt(sessions) -> None:
    _one_pending_delivery(sessions)
    with sessions() as s:
        [(claimed, _watch)] = watches.claim_deliveries(s, limit=5, lease_s=30)
    with transaction(sessions) as s:
        watches.delivery_failed(s, match_id=claimed.id, error="HTTP 404", max_attempts=6,
                                backoff_base_s=2.0, permanent=True)
    with sessions() as s:
        match = s.scalars(select(WatchMatch)).one()
        assert (match.delivery_state, match.attempts, match.next_attempt_at) == (
            "failed", 1, None)
