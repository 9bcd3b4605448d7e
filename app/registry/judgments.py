"""A client's relevance judgments and the calibration they justified (issue 37), per client:
nothing here reads another client's rows."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.domain.errors import Conflict
from app.registry.tables import ClientCalibration, Judgment, utcnow

# A client's judgments, all told: a calibration reads them all (a few thousand judge a
# deployment well; 20,000 were stored in 33 s by one hostile client)
MAX_JUDGMENTS_PER_CLIENT = 10_000


def record(session: Session, *, client_id: str,
           items: list[tuple[str, str, int]]) -> int:
    """(query, document id, grade) judgments; a pair judged again takes the new grade.
    Returns the client's judgment count; 409 JUDGMENT_LIMIT_REACHED, storing none of them,
    where the new pairs would take it past ``MAX_JUDGMENTS_PER_CLIENT``."""
    held = count(session, client_id=client_id)
    pairs = {(query, document_id) for query, document_id, _grade in items}
    if held + len(pairs) > MAX_JUDGMENTS_PER_CLIENT:
        known = sum(1 for query, document_id in pairs if session.scalar(
            select(Judgment.id).where(Judgment.client_id == client_id,
                                      Judgment.query == query,
                                      Judgment.document_id == document_id)) is not None)
        if held + len(pairs) - known > MAX_JUDGMENTS_PER_CLIENT:
            raise Conflict(f"this client holds {held:,} judgments and these would add "
                           f"{len(pairs) - known:,}: at most {MAX_JUDGMENTS_PER_CLIENT:,} are "
                           "kept; DELETE /judgments, or judge fewer",
                           code="JUDGMENT_LIMIT_REACHED",
                           details={"held": held, "new": len(pairs) - known,
                                    "max": MAX_JUDGMENTS_PER_CLIENT})
    for query, document_id, grade in items:
        found = session.scalar(select(Judgment).where(
            Judgment.client_id == client_id, Judgment.query == query,
            Judgment.document_id == document_id))
        if found is None:
            session.add(Judgment(client_id=client_id, query=query, document_id=document_id,
                                 grade=grade, created_at=utcnow()))
        else:
            found.grade = grade
        session.flush()
    return count(session, client_id=client_id)


def count(session: Session, *, client_id: str) -> int:
    return session.scalar(select(func.count()).select_from(Judgment)
                          .where(Judgment.client_id == client_id)) or 0


def page(session: Session, *, client_id: str, offset: int, limit: int) -> list[Judgment]:
    return list(session.scalars(select(Judgment).where(Judgment.client_id == client_id)
                                .order_by(Judgment.id).offset(offset).limit(limit)))


def clear(session: Session, *, client_id: str) -> None:
    session.execute(delete(Judgment).where(Judgment.client_id == client_id))


def by_query(session: Session, *, client_id: str) -> dict[str, dict[str, int]]:
    """{query: {document id: grade}} of the client's judgments."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for query, document_id, grade in session.execute(
            select(Judgment.query, Judgment.document_id, Judgment.grade)
            .where(Judgment.client_id == client_id).order_by(Judgment.id)):
        out[query][document_id] = grade
    return dict(out)


def calibration(session: Session, *, client_id: str) -> ClientCalibration | None:
    return session.get(ClientCalibration, client_id)


def apply(session: Session, *, client_id: str, alpha: float, fusion: str,
          report: dict[str, Any]) -> None:
    row = session.get(ClientCalibration, client_id)
    if row is None:
        session.add(ClientCalibration(client_id=client_id, alpha=alpha, fusion=fusion,
                                      report=report, applied_at=utcnow()))
    else:
        row.alpha, row.fusion, row.report, row.applied_at = alpha, fusion, report, utcnow()


def reset(session: Session, *, client_id: str) -> None:
    session.execute(delete(ClientCalibration).where(ClientCalibration.client_id == client_id))
