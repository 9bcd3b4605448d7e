"""canonical_metadata, schema_version "2": its groups (source, document, location,
classification, quality)."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from app.domain.formats import KINDS


class _MetadataGroup(BaseModel):
    """A group of canonical metadata: the keys the service writes, and room for more (older
    versions and later schema additions pass through). Absent keys are left out, never null."""

    model_config = ConfigDict(extra="allow")

    # no return annotation: with one, the spec would show the groups as untyped objects
    @model_serializer(mode="wrap")
    def _absent_not_null(self, handler: SerializerFunctionWrapHandler):  # noqa: ANN202
        return {k: v for k, v in handler(self).items() if v is not None}


class SourceMetadata(_MetadataGroup):
    filename: str | None = Field(None, description="The uploaded file name, safe to display")
    original_filename: str | None = Field(
        None, description="The name exactly as uploaded, only when it differs")
    mime_type: str | None = None
    size_bytes: int | None = None
    sha256: str | None = Field(None, description="SHA-256 of the uploaded bytes")


class DocumentMetadata(_MetadataGroup):
    kind: str | None = Field(None, description="The document's kind: " + ", ".join(KINDS))
    title: str | None = None
    author: str | None = None
    subject: str | None = None
    page_count: int | None = None
    chunk_count: int | None = None
    char_count: int | None = None
    # e-mail (.eml, .msg): the headers, and their filterable parts
    from_address: str | None = Field(None, description="E-mail: the sender's address, lower "
                                                       "case (filter document.from_address)")
    from_name: str | None = Field(None, description="E-mail: the sender's display name")
    to_address: list[str] | None = Field(None, description="E-mail: every To and Cc address, "
                                                           "lower case")
    has_attachments: bool | None = Field(None, description="E-mail: whether it has any")
    thread_id: str | None = Field(None, description="E-mail: its thread (the root message's "
                                                    "id, hashed): GET /threads/{thread_id}")
    in_reply_to: str | None = Field(None, description="E-mail: the Message-ID it answers")
    date_source: str | None = Field(None, description="Outlook .msg: which property gave "
                                    "document.date — submitted, header, delivered or created "
                                    "(the last when nothing else holds one)")


class LocationMetadata(_MetadataGroup):
    source: str | None = Field(None, description="The upload's source label")
    path: str | None = Field(None, description="The upload's path within its source")


class ClassificationMetadata(_MetadataGroup):
    status: str | None = Field(None, description="pending until the version is indexed, then "
                                                 "ready")
    categories: list[str] | None = None


class QualityMetadata(_MetadataGroup):
    text_extraction: str | None = Field(
        None, description="pending, then native (a text layer), ocr (every page read by OCR) "
                          "or mixed (some pages by OCR)")
    ocr_used: bool | None = None
    ocr_engine: str | None = Field(None, description="The OCR engine that ran, with its "
                                   "version (tesseract 5.3.0, rapidocr 1.4.4)")
    ocr_rotated_pages: list[dict[str, int]] | None = Field(
        None, description="Pages OCR found turned and read upright: [{page, degrees}] "
                          "(degrees clockwise)")
    warnings: list[str] | None = Field(None, description="What extraction could not do well: "
                                       "pages without text, pages OCR read with low confidence")


class CanonicalMetadata(BaseModel):
    """A version's canonical metadata snapshot (schema_version "2"); ``custom`` is the
    free-form JSON object sent with the upload."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = "2"
    source: SourceMetadata = Field(default_factory=SourceMetadata)
    document: DocumentMetadata = Field(default_factory=DocumentMetadata)
    location: LocationMetadata = Field(default_factory=LocationMetadata)
    classification: ClassificationMetadata = Field(default_factory=ClassificationMetadata)
    quality: QualityMetadata = Field(default_factory=QualityMetadata)
    custom: dict[str, Any] = Field(default_factory=dict)
