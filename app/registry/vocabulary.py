"""The registry's closed word lists, standard library only: the API's enums and the CLI's
option checks read them here, so a CLI command validates its options without importing the
API schemas or SQLAlchemy (issue 38: a command answers within a second)."""

from __future__ import annotations

VERSION_STATES = ("queued", "indexing", "published", "superseded", "failed")
DOCUMENT_SORTS = ("created_at", "updated_at", "document_id")
