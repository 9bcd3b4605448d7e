"""Calibration runs in the registry: one running a client at most, its progress, its end.

A run that stopped beating (its server stopped or died) is ended as failed
(CALIBRATION_INTERRUPTED) the next time anyone looks at it or the client starts another: no
run stays "running" for ever, and none blocks the client's next one.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.errors import Conflict, NotFound
from app.registry.tables import CalibrationRun, utcnow

# a running calibration beats after every few searches (a search is well under a second); this
# long without one, its process is gone
STALE_AFTER_S = 60.0
INTERRUPTED = ("the server stopped while this calibration ran (no progress for "
               f"{STALE_AFTER_S:.0f} s): nothing was applied; start it again")


def _end_stale(session: Session, *, client_id: str) -> None:
    session.execute(update(CalibrationRun).where(
        CalibrationRun.client_id == client_id, CalibrationRun.status == "running",
        CalibrationRun.heartbeat_at < utcnow() - timedelta(seconds=STALE_AFTER_S)).values(
        status="failed", active_client=None, error_code="CALIBRATION_INTERRUPTED",
        error=INTERRUPTED, finished_at=utcnow()))


def start(session: Session, *, client_id: str, searches_total: int) -> CalibrationRun:
    """A new running calibration of the client's, committed at once so another request (or
    process) sees it; 409 CALIBRATION_RUNNING while one runs."""
    _end_stale(session, client_id=client_id)
    session.commit()
    run = CalibrationRun(id=str(uuid.uuid4()), client_id=client_id, active_client=client_id,
                         status="running", searches_done=0, searches_total=searches_total)
    session.add(run)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        running = session.scalar(select(CalibrationRun.id).where(
            CalibrationRun.active_client == client_id))
        raise Conflict("a calibration of this client is already running: follow it at "
                       f"GET /clients/me/calibration/runs/{running}, then start another",
                       code="CALIBRATION_RUNNING", details={"run_id": running}) from None
    return run


def beat(session: Session, *, run_id: str, searches_done: int) -> None:
    session.execute(update(CalibrationRun).where(
        CalibrationRun.id == run_id, CalibrationRun.status == "running").values(
        searches_done=searches_done, heartbeat_at=utcnow()))


def succeed(session: Session, *, run_id: str, report: dict[str, Any]) -> None:
    session.execute(update(CalibrationRun).where(CalibrationRun.id == run_id).values(
        status="succeeded", active_client=None, report=report, finished_at=utcnow(),
        searches_done=CalibrationRun.searches_total, heartbeat_at=utcnow()))


def fail(session: Session, *, run_id: str, code: str, message: str) -> None:
    session.execute(update(CalibrationRun).where(CalibrationRun.id == run_id).values(
        status="failed", active_client=None, error_code=code, error=message,
        finished_at=utcnow()))


def get(session: Session, *, client_id: str, run_id: str) -> CalibrationRun:
    """The client's run (another client's is not found, as a run that never was)."""
    _end_stale(session, client_id=client_id)
    run = session.scalar(select(CalibrationRun).where(
        CalibrationRun.id == run_id, CalibrationRun.client_id == client_id))
    if run is None:
        raise NotFound(f"no calibration run {run_id!r}", code="CALIBRATION_RUN_NOT_FOUND")
    return run


def latest(session: Session, *, client_id: str) -> CalibrationRun | None:
    _end_stale(session, client_id=client_id)
    return session.scalar(select(CalibrationRun).where(CalibrationRun.client_id == client_id)
                          .order_by(CalibrationRun.created_at.desc()).limit(1))
