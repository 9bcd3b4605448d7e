"""Documents, their versions, changes and ingestion jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from app.api.schemas.common import JobStatus, VersionState
from app.api.schemas.metadata import CanonicalMetadata
from app.domain.access import GROUP_PATTERN, MAX_GROUPS


class UploadAccepted(BaseModel):
    document_id: str
    version_id: str
    job_id: str
    status: JobStatus
    deduplicated: bool = False
    reverts_to: str | None = Field(
        None, description="The earlier version whose bytes this new version repeats: the "
                          "upload brings an older text back (a revert); null: it does not "
                          "(additive)")


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
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    canonical_metadata: CanonicalMetadata
    error: str | None = Field(None, description="A failed version: why, in words")
    error_code: str | None = Field(None, description="A failed version: its stable code "
                                                     "(docs/FORMATS.md: PDF_ENCRYPTED, …)")
    job_id: str | None = Field(None, description="Its last ingestion job: GET /jobs/{job_id} "
                                                 "(`evidence jobs show`; additive)")


class DocumentOut(BaseModel):
    document_id: str = Field(description="Given at upload, or made from the file name")
    filename: str = Field(description="Of the current version, or the latest while none is "
                                      "published")
    title: str | None = Field(description="The document's own title, once indexed")
    kind: str
    source: str | None
    path: str | None
    current_version_id: str | None = Field(description="The published version search answers "
                                                       "from; null until one is published")
    latest_version_id: str
    state: VersionState = Field(description="The latest version's state: queued, indexing, "
                                            "published or failed")
    error: str | None = Field(description="Why the latest version failed, when it did")
    error_code: str | None = Field(None, description="Its stable code (docs/FORMATS.md)")
    version_count: int
    chunk_count: int = Field(description="Chunks of the version shown")
    access: list[str] = Field(default_factory=list, description=(
        "Its access groups: only keys holding one of them (and admin keys) see it; empty: "
        "every key of the client"))
    created_at: datetime
    updated_at: datetime
    versions: list[VersionOut] | None = Field(None, description="Every version, newest last "
                                                                "(GET /documents/{id} only)")


class DocumentChange(BaseModel):
    """PATCH /documents/{id}."""

    model_config = ConfigDict(extra="forbid", strict=True)
    access: list[Annotated[str, Field(pattern=GROUP_PATTERN)]] = Field(
        max_length=MAX_GROUPS, description=(
            "The document's access groups from now on ([]: every key of the client sees "
            "it); each 1–64 characters of a-z, 0-9, '.', '_', '-'"))


class DocumentList(BaseModel):
    documents: list[DocumentOut]
    total: int
    offset: int
    limit: int


class ChangeSide(BaseModel):
    text: str = Field(description="The passage as the version writes it (untrusted)")
    location: dict[str, Any] = Field(description="Where it stands: chunk_index, and page, "
                                                 "heading_path, line_start/line_end or "
                                                 "location {sheet, rows} as the chunk has")
    marks: list[list[int]] | None = Field(
        None, description="Of a changed item: the words that changed, as [start, end) "
                          "character offsets into text (whole words: an amount or an "
                          "identifier is marked whole); absent on added and removed items")


class Change(BaseModel):
    kind: Literal["added", "removed", "changed"] = Field(
        description="changed: a removed and an added sentence alike enough to be one "
                    "(difflib's ratio over their words ≥ 0.5); otherwise removed and added")
    before: ChangeSide | None = Field(description="In the earlier version (null: added)")
    after: ChangeSide | None = Field(description="In the later version (null: removed)")


class ChangesOut(BaseModel):
    document_id: str
    from_version: str | None = Field(alias="from", description="The earlier version (null: "
                                                                "the later one is the first)")
    to_version: str = Field(alias="to")
    complete: bool = Field(description="False where a bound stopped the comparison (20,000 "
                                       "sentences a side, 5 s)")
    changes: list[Change] = Field(description="In the later version's order; unchanged "
                                              "passages are not listed")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class JobStage(BaseModel):
    name: Literal["extracting", "embedding"] = Field(
        description="extracting: reading the file (PDF pages as they are read); embedding: "
                    "vectors and entities for the chunks")
    unit: Literal["pages", "chunks"]
    done: int
    total: int


class JobOut(BaseModel):
    job_id: str
    status: JobStatus
    attempts: int
    max_attempts: int
    progress: float = Field(description="0 to 1: extraction up to 0.1, embedding to 0.95, "
                            "then publication; recorded every few seconds while it runs")
    stage: JobStage | None = Field(None, description="While running: what the job is doing, "
                                   "in pages or chunks (additive)")
    error: str | None = Field(description="Why it failed (or, while queued again, why the "
                                          "last attempt did)")
    error_code: str | None = Field(None, description="The error's stable code (docs/"
                                                     "FORMATS.md: PDF_ENCRYPTED, OCR_TIMEOUT, "
                                                     "…)")
    document_id: str
    version_id: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
