"""Shared request pieces: enums the spec carries once, filter shapes, the one error shape."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
)

from app.domain.formats import KINDS
from app.registry.vocabulary import VERSION_STATES

MAX_QUERY_CHARS = 4000


# Named enums (not Literals): the spec carries each once as a component, so a generated
# client has one VersionState type rather than one per field that uses it.
class Scope(StrEnum):
    content = "content"
    metadata = "metadata"
    both = "both"


VersionState = StrEnum("VersionState", {s: s for s in VERSION_STATES})  # app/registry


class JobStatus(StrEnum):
    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"


class Versions(StrEnum):
    current = "current"
    all = "all"


class Fusion(StrEnum):
    rank = "rank"
    dbsf = "dbsf"
    relative_score = "relative_score"


DocumentKind = StrEnum("DocumentKind", {kind: kind for kind in KINDS})  # app/domain/formats.py


FilterScalar = str | int | float | bool


RangeBound = int | float | str


class FilterRange(BaseModel):
    """A range: numbers, or dates (RFC 3339 or YYYY-MM-DD); any of the four bounds."""

    model_config = ConfigDict(extra="forbid", strict=True)
    gte: RangeBound | None = None
    gt: RangeBound | None = None
    lte: RangeBound | None = None
    lt: RangeBound | None = None
    currency: str | None = Field(None, description="entities.monetary_amounts only: compare "
                                 "amounts in this ISO 4217 currency (none: any currency)")


class FilterNot(BaseModel):
    """A negation: versions (or, for entities.*, chunks) holding none of these values."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    not_: FilterScalar | list[FilterScalar] = Field(alias="not")


FilterValue = Annotated[
    FilterScalar | list[FilterScalar] | FilterRange | FilterNot,
    Field(description="A value, a list of values of which any may match, a range "
                      "({\"gte\": 10000}) or a negation ({\"not\": \"draft\"})")]


def _integral(value: object) -> object:
    """JSON Schema's integer: a number with no fractional part, 10.0 too (the spec's readers
    send it); still strict, so "10" or true stay 422s."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


JsonInteger = Annotated[int, BeforeValidator(_integral)]


# "At least one non-blank character", the same in every regex engine that reads it: Python's
# \s also holds \x1c-\x1f and \x85, ECMAScript's (a generated client's, schemathesis's)
# \ufeff, the Rust engine pydantic validates with neither; the class excludes all of them
NOT_BLANK = r"[^\s\x1c-\x1f\x85\ufeff]"


class ErrorBody(BaseModel):
    code: str = Field(description="A stable code, e.g. WINDOW_TOO_LARGE, API_KEY_INVALID")
    message: str = Field(description="What went wrong, in words a person can act on")
    details: dict[str, Any] = Field(default_factory=dict)


class ErrorResponse(BaseModel):
    """Every error, whatever its status: {"error": {"code", "message", "details"}}."""

    error: ErrorBody


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error shape documented for the statuses an operation can answer with."""
    words = {400: "Malformed request", 401: "Missing, unknown or revoked API key",
             403: "Publication authority not active", 404: "Not found",
             409: "Conflict (readiness, concurrent update)", 413: "Body or file too large",
             415: "Unsupported or mismatching file type",
             422: "Invalid request (the code names the field)", 500: "Unexpected error",
             503: "A model or the engine is unavailable"}
    return {status: {"model": ErrorResponse, "description": words[status]}
            for status in statuses}
