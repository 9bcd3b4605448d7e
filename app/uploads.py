"""Accepting an upload: the checks that can be made at once, then a queued version.

The API and `evidence ingest` both come through here, so a file gets the same answer either way.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePath
from typing import Any

from sqlalchemy.orm import Session

from app.errors import BadRequest, PayloadTooLarge, UnsupportedMediaType
from app.metadata import upload_metadata
from app.registry.documents import RegisteredUpload, register_upload, validate_document_id
from app.settings import IngestSettings

SUPPORTED = {
    ".pdf": ("pdf", "application/pdf"),
    ".docx": ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ".html": ("html", "text/html"), ".htm": ("html", "text/html"),
    ".md": ("md", "text/markdown"), ".markdown": ("md", "text/markdown"),
    ".txt": ("txt", "text/plain"), ".text": ("txt", "text/plain"),
}


def detect_kind(filename: str) -> tuple[str, str]:
    """(kind, mime type) from the file name; 415 for anything we cannot read."""
    suffix = PurePath(filename).suffix.lower()
    if suffix not in SUPPORTED:
        raise UnsupportedMediaType(
            f"{filename!r}: unsupported file type '{suffix or '(none)'}'; supported: "
            + ", ".join(sorted(SUPPORTED)), details={"filename": filename})
    return SUPPORTED[suffix]


def document_id_for(name: str) -> str:
    """A legal document_id from a path or an outside id, stable so a re-ingest makes versions."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", name).lstrip("-._")[:200] or "document"


def parse_metadata_field(raw: str | None) -> dict[str, Any]:
    """The multipart ``metadata`` field: a JSON object, becoming canonical_metadata.custom."""
    if raw is None or raw.strip() == "":
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"metadata is not valid JSON: {exc.msg} at position {exc.pos}",
                         code="INVALID_METADATA") from None
    if not isinstance(value, dict):
        raise BadRequest(f"metadata must be a JSON object, not {type(value).__name__}",
                         code="INVALID_METADATA")
    return value


def accept_upload(session: Session, *, settings: IngestSettings, client_id: str, filename: str,
                  content: bytes, document_id: str | None, custom: dict[str, Any],
                  source: str | None, path: str | None) -> RegisteredUpload:
    kind, mime = detect_kind(filename)
    if len(content) > settings.max_upload_bytes:
        raise PayloadTooLarge(f"{filename} is {len(content):,} bytes; the limit is "
                              f"{settings.max_upload_bytes:,} (EVIDENCE_INGEST__MAX_UPLOAD_BYTES)",
                              details={"size_bytes": len(content),
                                       "limit_bytes": settings.max_upload_bytes})
    if not content:
        raise BadRequest(f"{filename} is empty (0 bytes)", code="EMPTY_FILE")
    if document_id is not None:
        validate_document_id(document_id)
    if source is not None and len(source) > 200:
        raise BadRequest("source is at most 200 characters", code="INVALID_SOURCE")
    sha = hashlib.sha256(content).hexdigest()
    metadata = upload_metadata(filename=filename, mime_type=mime, size_bytes=len(content),
                               sha256=sha, kind=kind, source=source, path=path, custom=custom)
    return register_upload(session, client_id=client_id, document_id=document_id, kind=kind,
                           filename=filename, mime_type=mime, content=content, sha256=sha,
                           canonical_metadata=metadata, source=source, path=path,
                           max_attempts=settings.max_attempts)
