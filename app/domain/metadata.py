"""Canonical metadata, schema_version "2": source, document, location, classification,
quality, custom — begun at upload, completed by the ingestion worker."""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = "2"


def upload_metadata(*, filename: str, mime_type: str, size_bytes: int, sha256: str, kind: str,
                    source: str | None, path: str | None, custom: dict[str, Any],
                    original_filename: str | None = None) -> dict[str, Any]:
    """``filename`` is the name made safe to display; ``original_filename`` (only when it
    differs) is the name exactly as uploaded, control characters and all."""
    source_meta: dict[str, Any] = {"filename": filename, "mime_type": mime_type,
                                   "size_bytes": size_bytes, "sha256": sha256}
    if original_filename is not None:
        source_meta["original_filename"] = original_filename
    location = {k: v for k, v in (("source", source), ("path", path)) if v}
    return {
        "schema_version": SCHEMA_VERSION,
        "source": source_meta,
        "document": {"kind": kind},
        "location": location,
        "classification": {"status": "pending", "categories": []},
        "quality": {"text_extraction": "pending", "ocr_used": False, "warnings": []},
        "custom": custom,
    }


def completed_metadata(metadata: dict[str, Any], *, title: str | None, page_count: int | None,
                       chunk_count: int, char_count: int, warnings: list[str],
                       extra: dict[str, Any],
                       quality: dict[str, Any] | None = None) -> dict[str, Any]:
    """The metadata of a published version: what extraction learned about the document."""
    done = {**metadata}
    document = {**metadata.get("document", {}), "title": title, "chunk_count": chunk_count,
                "char_count": char_count, **extra}
    if page_count is not None:
        document["page_count"] = page_count
    done["document"] = {k: v for k, v in document.items() if v is not None}
    categories = metadata.get("classification", {}).get("categories", [])
    done["classification"] = {"status": "ready", "categories": categories}
    done["quality"] = {"text_extraction": "native", "ocr_used": False, **(quality or {}),
                       "warnings": warnings}
    return done
