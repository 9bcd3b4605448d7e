"""GET /audit (issue 51): the client's audit trail for an admin key — who searched what, read,
downloaded, exported or deleted which document, issued a key or changed access, when. Never
another client's: every read is narrowed to the caller's client. Recorded by the doors
through app/ops/audit.py."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from app.api.deps import AuditDep, ClientDep, SessionDep
from app.api.schemas import error_responses
from app.domain.errors import BadRequest
from app.ops.audit import ACTIONS
from app.registry import audit as audit_registry

router = APIRouter(tags=["audit"])
# an instant with its offset, as the search's as_of: "0.5" (a Unix time to pydantic) is not one
RFC3339 = (r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
           r"(:[0-5][0-9](\.[0-9]{1,9})?)?(Z|z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$")
Action = Literal[ACTIONS]  # type: ignore[valid-type]
# event ids are SQL BIGINTs: a cursor past the largest one is a 422, never an overflow (500)
AUDIT_CURSOR_MAX = 2**63 - 1


class AuditEventOut(BaseModel):
    id: int = Field(description="Ascending; the next page starts after the last one's")
    at: datetime
    action: str = Field(description=", ".join(ACTIONS))
    key_id: str | None = Field(description="The key that did it")
    key_prefix: str | None = Field(description="Its prefix, as `evidence clients keys` "
                                               "shows it")
    actor: str | None = Field(description="A door without a key: cli")
    target: str | None = Field(description="The document (id:version), batch or key acted on")
    query: str | None = Field(description="A search's text; null when the operator keeps no "
                                          "query texts (EVIDENCE_AUDIT__QUERIES=false)")
    details: dict[str, Any] | None = Field(description="scope, filters and the result ids of "
                                                       "a search; a change's new values")


class AuditPage(BaseModel):
    events: list[AuditEventOut]
    next_cursor: int | None = Field(description="Pass as `after` for the next page; null at "
                                                "the end")


@router.get("/audit", response_model=AuditPage, responses=error_responses(401, 403, 422, 500))
def read_audit(
    session: SessionDep, client: ClientDep, audit: AuditDep,
    since: Annotated[str | None, Query(pattern=RFC3339, max_length=40, description=(
        "RFC 3339 with its offset: events at or after, e.g. 2026-03-01T00:00:00Z"))] = None,
    until: Annotated[str | None, Query(pattern=RFC3339, max_length=40, description=(
        "RFC 3339 with its offset: events before"))] = None,
    actor: Annotated[str | None, Query(max_length=64, description="A key's id or prefix")]
    = None,
    action: Annotated[list[Action], Query(description="Any of these actions")] = [],  # noqa: B006
    after: Annotated[int, Query(ge=0, le=AUDIT_CURSOR_MAX,
                                description="The cursor a page ended with")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> AuditPage:
    """What the client's keys did, oldest first (an admin key's door: a key with access
    groups is refused, 403 ACCESS_GROUPS_NOT_SUPPORTED)."""
    audit.flush()  # what this process recorded a moment ago is in the answer
    rows = audit_registry.read(session, client_id=client.id, since=_instant("since", since),
                               until=_instant("until", until),
                               actor=actor, actions=action, after=after, limit=limit + 1)
    page = rows[:limit]
    return AuditPage(events=[AuditEventOut(
        id=e.id, at=e.at, action=e.action, key_id=e.key_id, key_prefix=prefix, actor=e.actor,
        target=e.target, query=e.query, details=e.details) for e, prefix in page],
        next_cursor=page[-1][0].id if len(rows) > limit else None)


def _instant(name: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:  # the pattern passed, the calendar did not (2026-02-30)
        raise BadRequest(f"{name}: {value!r} is no day of the calendar",
                         code="INVALID_INSTANT") from None
