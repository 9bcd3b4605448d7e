"""Batch searches' rows (issue 51): the batch, each query's outcome, each query's hits.

A batch is claimed by one serving process at a time with a lease (``lease_until``) it renews
after each query; a process that dies leaves the lease to run out and another takes the batch
over from its ``done`` count (a query is recorded with its hits in one transaction, so a query
is never half there).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.domain.errors import NotFound
from app.registry.tables import SearchBatch, SearchBatchHit, SearchBatchQuery

ACTIVE = ("queued", "running")
FINISHED = ("done", "failed", "cancelled")


def new_batch_id() -> str:
    return "bat_" + secrets.token_hex(12)


def create(session: Session, *, client_id: str, key_id: str | None, name: str | None,
           request: dict[str, Any], queries: list[dict[str, Any]]) -> SearchBatch:
    batch = SearchBatch(batch_id=new_batch_id(), client_id=client_id, key_id=key_id, name=name,
                        status="queued", request=request, queries=queries, total=len(queries),
                        done=0, hits=0, failed_queries=0)
    session.add(batch)
    session.flush()
    return batch


def active_count(session: Session, *, client_id: str) -> int:
    return session.scalar(select(func.count()).select_from(SearchBatch).where(
        SearchBatch.client_id == client_id, SearchBatch.status.in_(ACTIVE))) or 0


def get(session: Session, *, client_id: str, batch_id: str, key_id: str | None = None
        ) -> SearchBatch:
    """A client's batch (with ``key_id``: only one that key made — a key with access groups
    sees its own batches, never another key's results); 404 otherwise."""
    stmt = select(SearchBatch).where(SearchBatch.client_id == client_id,
                                     SearchBatch.batch_id == batch_id)
    if key_id is not None:
        stmt = stmt.where(SearchBatch.key_id == key_id)
    batch = session.scalar(stmt)
    if batch is None:
        raise NotFound(f"no batch search {batch_id[:60]!r}", code="BATCH_NOT_FOUND",
                       details={"batch_id": batch_id[:60]})
    return batch


def listed(session: Session, *, client_id: str, key_id: str | None = None, limit: int = 50
           ) -> list[SearchBatch]:
    stmt = (select(SearchBatch).where(SearchBatch.client_id == client_id)
            .order_by(SearchBatch.id.desc()).limit(limit))
    if key_id is not None:
        stmt = stmt.where(SearchBatch.key_id == key_id)
    return list(session.scalars(stmt))


def claimable(session: Session, *, now: datetime, held: Sequence[int]) -> list[SearchBatch]:
    """Active batches this process holds (``held``) or whose lease has run out, oldest
    first."""
    return list(session.scalars(select(SearchBatch).where(
        SearchBatch.status.in_(ACTIVE),
        or_(SearchBatch.lease_until.is_(None), SearchBatch.lease_until < now,
            SearchBatch.id.in_(list(held) or [-1])))
        .order_by(SearchBatch.id)))


def claim(session: Session, *, batch_pk: int, now: datetime, lease_s: float,
          held: bool) -> bool:
    """Take (or, where this process holds it, renew) a batch's lease; False when another
    process took it first."""
    stmt = update(SearchBatch).where(SearchBatch.id == batch_pk,
                                     SearchBatch.status.in_(ACTIVE))
    if not held:
        stmt = stmt.where(or_(SearchBatch.lease_until.is_(None), SearchBatch.lease_until < now))
    done = session.execute(stmt.values(
        lease_until=now + timedelta(seconds=lease_s), status="running",
        started_at=func.coalesce(SearchBatch.started_at, now)))
    return bool(done.rowcount)


def record_query(session: Session, *, batch_pk: int, query_index: int,
                 hits: Sequence[dict[str, Any]], total: int | None,
                 lower_bound: bool = False, error_code: str | None = None,
                 error: str | None = None) -> None:
    """One query's outcome and hits; the batch's counts moved past it. Idempotent for a
    query re-run after a takeover (its earlier rows replaced)."""
    session.execute(delete(SearchBatchHit).where(SearchBatchHit.batch_pk == batch_pk,
                                                 SearchBatchHit.query_index == query_index))
    session.execute(delete(SearchBatchQuery).where(SearchBatchQuery.batch_pk == batch_pk,
                                                   SearchBatchQuery.query_index == query_index))
    session.add(SearchBatchQuery(batch_pk=batch_pk, query_index=query_index, total=total,
                                 total_is_lower_bound=lower_bound, error_code=error_code,
                                 error=error))
    session.add_all(SearchBatchHit(batch_pk=batch_pk, query_index=query_index, **h) for h in hits)
    session.execute(update(SearchBatch).where(SearchBatch.id == batch_pk).values(
        done=query_index + 1,
        hits=select(func.count()).select_from(SearchBatchHit)
        .where(SearchBatchHit.batch_pk == batch_pk).scalar_subquery(),
        failed_queries=select(func.count()).select_from(SearchBatchQuery)
        .where(SearchBatchQuery.batch_pk == batch_pk,
               SearchBatchQuery.error_code.is_not(None)).scalar_subquery()))


def finish(session: Session, *, batch_pk: int, status: str, error: str | None = None) -> None:
    session.execute(update(SearchBatch).where(SearchBatch.id == batch_pk,
                                              SearchBatch.status.in_(ACTIVE)).values(
        status=status, error=error, finished_at=datetime.now(UTC), lease_until=None))


def cancel(session: Session, batch: SearchBatch) -> None:
    finish(session, batch_pk=batch.id, status="cancelled")


def remove(session: Session, batch: SearchBatch) -> None:
    """A batch and its rows (the cascade, spelt out for SQLite without its pragma)."""
    for table in (SearchBatchHit, SearchBatchQuery):
        session.execute(delete(table).where(table.batch_pk == batch.id))
    session.delete(batch)


def drop_oldest_finished(session: Session, *, client_id: str, keep: int) -> int:
    """A client's finished batches beyond the newest ``keep``, removed with their rows."""
    old = list(session.scalars(select(SearchBatch).where(
        SearchBatch.client_id == client_id, SearchBatch.status.in_(FINISHED))
        .order_by(SearchBatch.id.desc()).offset(keep)))
    for batch in old:
        remove(session, batch)
    return len(old)


def outcomes(session: Session, *, batch_pk: int) -> dict[int, SearchBatchQuery]:
    return {q.query_index: q for q in session.scalars(
        select(SearchBatchQuery).where(SearchBatchQuery.batch_pk == batch_pk))}


def hits(session: Session, *, batch_pk: int, chunk: int = 1000) -> Iterator[SearchBatchHit]:
    """Every hit, by query then rank, read ``chunk`` rows at a time (an export of 1,000
    queries × 50 hits never sits in memory whole)."""
    after = (-1, 0)
    while True:
        rows = list(session.scalars(
            select(SearchBatchHit).where(
                SearchBatchHit.batch_pk == batch_pk,
                or_(SearchBatchHit.query_index > after[0],
                    (SearchBatchHit.query_index == after[0]) & (SearchBatchHit.rank > after[1])))
            .order_by(SearchBatchHit.query_index, SearchBatchHit.rank).limit(chunk)))
        yield from rows
        if len(rows) < chunk:
            return
        after = (rows[-1].query_index, rows[-1].rank)
