"""Exact filters → a ChunkFilter applied inside the engine query.

Reserved keys address the version itself: ``document_id``, ``version_id``, ``kind``,
``source``. A value is a string or a list of strings (any of); strings compare exactly as
stored (case-sensitive). Filters narrow the candidates and never change rank. Metadata keys
(dotted, e.g. ``custom.project``) are not filterable yet and answer 422 naming the key.
"""

from __future__ import annotations

from typing import Any

from app.errors import BadRequest
from app.store import ChunkFilter

RESERVED = ("document_id", "version_id", "kind", "source")
KINDS = ("pdf", "docx", "html", "md", "txt")


def parse_filters(filters: dict[str, Any], *, client_id: str
                  ) -> tuple[ChunkFilter, dict[str, list[str]]]:
    """(the engine filter, the filters echoed normalised: every value a sorted list)."""
    applied: dict[str, list[str]] = {}
    for key, value in filters.items():
        if key not in RESERVED:
            raise BadRequest(
                f"filter key {key!r} is not supported: filter on {', '.join(RESERVED)}",
                code="INVALID_FILTER", details={"key": key})
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) and v for v in values):
            raise BadRequest(f"filter {key!r} takes a non-empty string or a list of them",
                             code="INVALID_FILTER", details={"key": key})
        if key == "kind" and (bad := [v for v in values if v not in KINDS]):
            raise BadRequest(f"filter 'kind' has unknown kind(s) {bad}; kinds are "
                             f"{', '.join(KINDS)}", code="INVALID_FILTER", details={"key": key})
        applied[key] = sorted(set(values))
    flt = ChunkFilter(client_id=client_id,
                      document_ids=tuple(applied.get("document_id", ())),
                      version_ids=tuple(applied.get("version_id", ())),
                      kinds=tuple(applied.get("kind", ())),
                      sources=tuple(applied.get("source", ())))
    return flt, applied
