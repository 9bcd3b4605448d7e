"""The contract's request and Evidence Result models (shared/seeds/004: field for field).

Fields beyond the contract are additive: ``meta.timings``, ``meta.warnings``, ``meta.scope``,
evidence items' ``heading_path``/``line_start``/``line_end`` and, with ``explain``, ``scores``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.limits import is_valid_utf8
from app.search.service import MAX_WINDOW

MAX_QUERY_CHARS = 4000
Scope = Literal["content", "metadata", "both"]
VersionState = Literal["queued", "indexing", "published", "superseded", "failed"]
JobStatus = Literal["queued", "running", "succeeded", "failed"]


class SearchRequest(BaseModel):
    # strict: `alpha: true` or `"0.5"`, `rerank: "yes"` are 422s, never quietly converted
    model_config = ConfigDict(extra="forbid", strict=True)

    query: str = Field(..., max_length=MAX_QUERY_CHARS,
                       description="Free text; only ever embedded and tokenised, never parsed.")
    scope: Scope = Field("content", description="content | metadata | both (case-insensitive)")
    alpha: float | None = Field(None, ge=0.0, le=1.0,
                                description="Dense weight; default HYBRID_ALPHA (0.5)")
    rerank: bool = False
    filters: dict[str, Any] = Field(default_factory=dict)
    offset: int = Field(0, ge=0, le=MAX_WINDOW)
    limit: int = Field(10, ge=1, le=MAX_WINDOW)
    explain: bool = False

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be empty or whitespace")
        if not is_valid_utf8(value):
            raise ValueError("query is not valid UTF-8 (a lone surrogate such as \\ud800)")
        return value

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class DocumentVersionRef(BaseModel):
    document_id: str
    version_id: str | None


class Contribution(BaseModel):
    lane: Literal["content", "metadata"]
    rank: int


class Scores(BaseModel):
    dense: float | None = None
    dense_rank: int | None = None
    sparse: float | None = None
    sparse_rank: int | None = None
    fused: float
    rerank: float | None = None


class LiteralSpan(BaseModel):
    start: int
    end: int
    text: str


class ContentItem(BaseModel):
    chunk_id: str
    chunk_index: int
    text: str
    page: int | None
    literal_spans: list[LiteralSpan]
    heading_path: list[str] = Field(default_factory=list)
    line_start: int | None = None
    line_end: int | None = None
    scores: Scores | None = None


class ContentEvidence(BaseModel):
    items: list[ContentItem]
    total: int
    truncated: bool


class MetadataItem(BaseModel):
    key: str
    value: Any
    match: Literal["exact", "identifier", "number", "date", "all_words", "some_words"]
    spans: list[LiteralSpan] = Field(default_factory=list)


class MetadataEvidence(BaseModel):
    items: list[MetadataItem] = Field(default_factory=list)
    total: int = 0
    truncated: bool = False


class ResultRow(BaseModel):
    rank: int
    document_version: DocumentVersionRef
    canonical_metadata: dict[str, Any]
    retrieval_contributions: list[Contribution]
    content_evidence: ContentEvidence
    metadata_evidence: MetadataEvidence


class RetrievalInfo(BaseModel):
    alpha: float
    reranked: bool
    reranked_count: int


class Meta(BaseModel):
    query: str
    total: int
    total_is_lower_bound: bool
    offset: int
    limit: int
    has_more: bool
    query_time_ms: float
    retrieval: RetrievalInfo
    applied_filters: dict[str, Any]
    scope: str = "content"
    timings: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


class EvidenceResult(BaseModel):
    results: list[ResultRow]
    meta: Meta


# ---- documents and jobs -------------------------------------------------------------------

class UploadAccepted(BaseModel):
    document_id: str
    version_id: str
    job_id: str
    status: JobStatus
    deduplicated: bool = False


class VersionOut(BaseModel):
    version_id: str
    state: VersionState
    filename: str
    mime_type: str
    size_bytes: int
    content_sha256: str
    chunk_count: int
    created_at: datetime
    published_at: datetime | None
    canonical_metadata: dict[str, Any]


class DocumentOut(BaseModel):
    document_id: str
    kind: str
    source: str | None
    path: str | None
    current_version_id: str | None
    version_count: int
    created_at: datetime
    updated_at: datetime
    versions: list[VersionOut] | None = None


class DocumentList(BaseModel):
    documents: list[DocumentOut]
    total: int
    offset: int
    limit: int


class JobOut(BaseModel):
    job_id: str
    status: JobStatus
    attempts: int
    max_attempts: int
    progress: float
    error: str | None
    document_id: str
    version_id: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


# ---- the calling client -------------------------------------------------------------------

class DiscoveryState(BaseModel):
    state: Literal["disabled", "discovering", "ready"]
    progress: float
    indexed_versions: int
    published_versions: int


class ClientOut(BaseModel):
    id: str
    name: str
    publication_authority: str
    metadata_discovery: DiscoveryState


class DiscoverySwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    enabled: bool


class MetadataKey(BaseModel):
    key: str
    type: str
    count: int


class MetadataCatalog(DiscoveryState):
    keys: list[MetadataKey]


# ---- errors -------------------------------------------------------------------------------

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
