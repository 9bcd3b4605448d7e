"""Watches: standing queries (issue 36)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
)

from app.api.schemas.search import ContentItem, MetadataItem, SearchTerms


class WatchCreate(SearchTerms):
    """POST /watches: a search to run against every version published from now on."""

    name: str | None = Field(None, max_length=200, description="A label of your own")
    # bounded here only against abuse: what a URL may be (2,000 characters, http(s), no
    # control character …) is app/watches/webhooks.checked_url's, as WEBHOOK_URL_INVALID
    webhook_url: str | None = Field(
        None, max_length=8000,
        description="Each match is POSTed here as JSON, signed: X-Evidence-Signature: "
                    "sha256=<hex HMAC-SHA256 of the body with the watch's secret>, with "
                    "X-Evidence-Delivery: the same id on every try of one match (drop a "
                    "repeat). Only hosts and ports the operator allows "
                    "(EVIDENCE_WATCH__WEBHOOK_HOSTS; a host without a port: 80 and 443), "
                    "never this server itself; any other is a 422",
        examples=["https://hooks.example.org/evidence"])


class WatchOut(BaseModel):
    watch_id: str
    name: str | None = None
    query: str
    scope: str
    alpha: float | None = None
    filters: dict[str, Any] = Field(default_factory=dict)
    webhook_url: str | None = None
    created_at: datetime
    matches: int = Field(description="Matches kept (the oldest beyond "
                                     "EVIDENCE_WATCH__MAX_MATCHES are dropped)")
    matches_ever: int = Field(description="Matches recorded since the watch was made")
    secret: str | None = Field(None, description="The webhook signing secret: in the creation "
                                                 "answer only, keep it")


class WatchList(BaseModel):
    items: list[WatchOut]


class WatchDelivery(BaseModel):
    state: Literal["pending", "delivered", "failed"]
    attempts: int
    delivered_at: datetime | None = None
    next_attempt_at: datetime | None = None
    last_error: str | None = None


class WatchMatchOut(BaseModel):
    document_id: str
    version_id: str
    matched_at: datetime
    evidence: list[ContentItem] = Field(description="The content evidence the watch's search "
                                                    "cited for this version")
    metadata_evidence: list[MetadataItem] = Field(default_factory=list)
    delivery: WatchDelivery | None = Field(None, description="Its webhook delivery (a watch "
                                                             "with a webhook_url only)")


class WatchMatches(BaseModel):
    items: list[WatchMatchOut]
    next_cursor: str = Field(description="Pass as cursor to read the matches recorded after "
                                         "these (a feed: poll with the last cursor)")
    has_more: bool
