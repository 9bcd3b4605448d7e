"""Accepting an upload: the checks that can be made at once, then a queued version.

The API and `evidence ingest` both come through here, so a file gets the same answer either way.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePath
from typing import Any

from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.charsets import looks_like_text
from app.domain.errors import BadRequest, PayloadTooLarge, UnsupportedMediaType
from app.domain.formats import (
    IMAGE_MAGIC,
    LABELS,
    OLE_MAGIC,
    SUPPORTED,
    TEXT_KINDS,
    ZIP_KINDS,
    document_id_for,  # noqa: F401 - re-exported: ingest reads it here
)
from app.domain.limits import (
    MetadataLimits,
    check_metadata,
    check_text,
    display_text,
    strict_json_loads,
)
from app.domain.metadata import upload_metadata
from app.registry.documents import RegisteredUpload, register_upload, validate_document_id
from app.settings import IngestSettings

MAX_FILENAME_CHARS = 1024
MAX_SOURCE_CHARS = 200
MAX_PATH_CHARS = 1024
# Leading bytes of formats that are never text: a file starting so is refused as .txt/.md/.html.
BINARY_MAGIC = {
    b"\x7fELF": "an ELF executable", b"\x89PNG": "a PNG image", b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image", b"%PDF-": "a PDF", b"PK\x03\x04": "a ZIP archive (DOCX?)",
    b"MZ": "a Windows executable", b"\x1f\x8b": "a gzip archive",
    b"\xd0\xcf\x11\xe0": "an old Office document",
}




def check_file(filename: str, content: bytes, settings: IngestSettings) -> str:
    """The checks of an upload's bytes alone (type, size, content): its kind, or the 4xx."""
    kind, _mime = detect_kind(filename)
    if len(content) > settings.max_upload_bytes:
        raise PayloadTooLarge(f"{filename} is {len(content):,} bytes; the limit is "
                              f"{settings.max_upload_bytes:,} (EVIDENCE_INGEST__MAX_UPLOAD_BYTES)",
                              details={"size_bytes": len(content),
                                       "limit_bytes": settings.max_upload_bytes})
    if not content:
        raise BadRequest(f"{filename} is empty (0 bytes)", code="EMPTY_FILE")
    sniff(kind, content, filename)
    return kind


def detect_kind(filename: str) -> tuple[str, str]:
    """(kind, mime type) from the file name; 415 for anything we cannot read."""
    suffix = PurePath(filename).suffix.lower()
    if suffix not in SUPPORTED:
        raise UnsupportedMediaType(
            f"{filename!r}: unsupported file type '{suffix or '(none)'}'; supported: "
            + ", ".join(sorted(SUPPORTED)), details={"filename": filename})
    return SUPPORTED[suffix]


def parse_metadata_field(raw: str | None, limits: MetadataLimits) -> dict[str, Any]:
    """The multipart ``metadata`` field: a JSON object within ``limits``, becoming
    canonical_metadata.custom."""
    if raw is None or raw.strip() == "":
        return {}
    if len(raw) > limits.total_bytes * 2:  # whitespace aside, it could not fit
        raise BadRequest(f"metadata is {len(raw):,} characters; at most {limits.total_bytes:,} "
                         "bytes as compact JSON", code="INVALID_METADATA")
    try:
        value = strict_json_loads(raw)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"metadata is not valid JSON: {exc.msg} at position {exc.pos}",
                         code="INVALID_METADATA") from None
    except (ValueError, RecursionError) as exc:
        why = "it is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise BadRequest(f"metadata is not valid JSON: {why}", code="INVALID_METADATA") from None
    if value is None:  # JSON null: no metadata, as an absent field (the spec's nullable)
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"metadata must be a JSON object, not {type(value).__name__}",
                         code="INVALID_METADATA")
    return check_metadata(value, limits)


BINARY_CONTROL_SHARE = 0.1  # Latin-1 text has next to none; random bytes ~23 %


def _looks_binary(head: bytes) -> bool:
    """Bytes that are not UTF-8 and hold many control bytes (C0 but tab and line breaks, and
    C1) are no text, whatever the extension says."""
    try:
        head.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:  # a character cut at the sample's end
            return False
    controls = sum(1 for b in head if (b < 32 and b not in (9, 10, 12, 13)) or 127 <= b < 160)
    return controls / max(len(head), 1) > BINARY_CONTROL_SHARE


def encrypted_office(content: bytes) -> bool:
    """An OLE compound file holding an ``EncryptedPackage`` stream: a password-protected
    .docx, .xlsx or .pptx ([MS-OFFCRYPTO])."""
    if not content.startswith(OLE_MAGIC):
        return False
    import io

    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(content)) as ole:
            return bool(ole.exists("EncryptedPackage"))
    except (OSError, ValueError, IndexError):
        return False


def sniff(kind: str, content: bytes, filename: str) -> None:
    """Refuse bytes that contradict the file's extension (415 FILE_CONTENT_MISMATCH), so an
    executable named .md or an image named .txt is never indexed as junk text."""
    head = content[:8192]
    if kind == "pdf":
        ok, found = b"%PDF-" in head[:1024], None
    elif kind in ZIP_KINDS:
        # a password-protected Office file is an OLE package holding the encrypted ZIP: it is
        # what its name says, and its job fails OFFICE_ENCRYPTED, as an encrypted PDF's does
        ok, found = head.startswith(b"PK\x03\x04") or encrypted_office(content), None
        if not ok and head.startswith(OLE_MAGIC):
            found = ("an old binary Office document (.doc, .xls or .ppt); save it as "
                     f".{kind} to upload it")
    elif kind in IMAGE_MAGIC:
        # any image OCR reads, whatever the extension says (a PNG named .tiff): the
        # extractor reads what the bytes are and says so in quality.warnings
        ok, found = any(head.startswith(magic) for magics in IMAGE_MAGIC.values()
                        for magic in magics), None
    elif kind == "msg":
        ok, found = head.startswith(OLE_MAGIC), None
    else:
        assert kind in TEXT_KINDS, kind
        found = next((what for magic, what in BINARY_MAGIC.items() if head.startswith(magic)),
                     None)
        # text in any charset passes (UTF-16 without a mark, Shift_JIS, windows-1251:
        # app/domain/charsets.py); Latin-1-like bytes with few control bytes pass as before
        if found is None and (b"\x00" in head or _looks_binary(head)) \
                and not looks_like_text(head):
            found = ("binary data (NUL or control bytes throughout, and no charset reads "
                     "it as text)")
        ok = found is None
    if not ok:
        expected = LABELS.get(kind, kind)
        raise UnsupportedMediaType(
            f"{display_text(filename)}: the bytes are {found or 'not ' + expected}, which does "
            f"not match its extension ({expected} expected)", code="FILE_CONTENT_MISMATCH",
            details={"filename": display_text(filename), "kind": kind})



def accept_upload(session: Session, *, settings: IngestSettings, client_id: str, filename: str,
                  content: bytes, document_id: str | None, custom: dict[str, Any],
                  source: str | None, path: str | None,
                  limits: MetadataLimits = MetadataLimits(),
                  attached_to: dict[str, Any] | None = None,
                  attached_to_pk: int | None = None, access: Access = Access(),
                  groups: tuple[str, ...] | None = None) -> RegisteredUpload:
    """Every check that needs no parsing of the file, then a queued version (not committed).
    ``attached_to`` names the e-mail a file was attached to (canonical metadata's
    source.attached_to) and ``attached_to_pk`` its document row; ``access`` what the
    uploading key may see, ``groups`` the document's access groups
    (registry.documents.register_upload)."""
    if groups is not None:
        access.may_label(groups)
    check_metadata(custom, limits)
    check_text(filename, field="filename", code="INVALID_FILENAME",
               max_chars=MAX_FILENAME_CHARS)
    shown = display_text(filename) or "upload"
    kind, mime = detect_kind(shown)
    if document_id is not None:
        validate_document_id(document_id)
    if source is not None:
        check_text(source, field="source", code="INVALID_SOURCE", max_chars=MAX_SOURCE_CHARS)
    if path is not None:
        check_text(path, field="path", code="INVALID_PATH", max_chars=MAX_PATH_CHARS)
    check_file(shown, content, settings)
    sha = hashlib.sha256(content).hexdigest()
    metadata = upload_metadata(filename=shown, mime_type=mime, size_bytes=len(content),
                               sha256=sha, kind=kind, source=source, path=path, custom=custom,
                               original_filename=filename if filename != shown else None)
    if attached_to is not None:
        metadata["source"]["attached_to"] = attached_to
    return register_upload(session, client_id=client_id, document_id=document_id, kind=kind,
                           filename=shown, mime_type=mime, content=content, sha256=sha,
                           canonical_metadata=metadata, source=source, path=path,
                           max_attempts=settings.max_attempts, attached_to_pk=attached_to_pk,
                           access=access, groups=groups)
