"""The changes between two published versions of a document, read from the registry and the
store and compared by app/documents/changes.py (pure); one LRU of version pairs for the API's
changes route
and for ``changed_only`` search. A version never changes once published, so a pair's answer
is kept; the key is the versions' own rows (and their creation times: a row id can be reused
after a delete)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.documents.changes import changes, passages
from app.domain.errors import Conflict, NotFound
from app.registry import documents as docs_registry
from app.registry.tables import Document, DocumentVersion
from app.store import ChunkFilter, VectorStore

CACHED_PAIRS = 128
_CACHE: OrderedDict[tuple, tuple[list[dict[str, Any]], bool]] = OrderedDict()


def published_versions(session: Session, document: Document) -> list[DocumentVersion]:
    return [v for v in docs_registry.versions_of(session, document_pk=document.id)
            if v.state in ("published", "superseded")]


def not_published(session: Session, document: Document, version_id: str | None) -> NotFound:
    """404 VERSION_NOT_FOUND saying what there is instead: a version asked for that exists
    but is not published (queued, indexing, failed), or — none named and none published yet —
    the latest version's state (a first upload still queued said "no published version ''")."""
    versions = docs_registry.versions_of(session, document_pk=document.id)
    named = next((v for v in versions if v.version_id == version_id), None) if version_id \
        else (versions[-1] if versions else None)
    if named is None:
        return NotFound(f"{document.document_id} has no version {version_id!r}",
                        code="VERSION_NOT_FOUND", details={"version_id": version_id})
    state = named.state
    said = {"queued": "is queued to be indexed", "indexing": "is being indexed",
            "failed": "failed to index"}.get(state, f"is {state}")
    lead = (f"{document.document_id} has no published version yet: {named.version_id} {said}"
            if not version_id else f"{document.document_id} {named.version_id} {said}, "
            "so it has no changes to show")
    return NotFound(lead + ("; GET /jobs/{job_id} (or `evidence jobs show`) follows it"
                            if state in ("queued", "indexing") else ""),
                    code="VERSION_NOT_FOUND",
                    details={"version_id": named.version_id, "state": state})


def version_changes(session: Session, store: VectorStore, document: Document, *,
                    from_version: str | None, to_version: str | None
                    ) -> tuple[str | None, str, list[dict[str, Any]], bool]:
    """(from, to, changes, complete): ``to`` defaults to the current version, ``from`` to the
    published version before it (None: ``to`` is the first, everything in it is added)."""
    kept = published_versions(session, document)
    by_id = {v.version_id: v for v in kept}
    to_id = to_version or document.current_version_id or ""
    if to_id not in by_id or (from_version is not None and from_version not in by_id):
        missing = to_id if to_id not in by_id else from_version
        raise not_published(session, document, missing)
    earlier = [v for v in kept if v.id < by_id[to_id].id]
    from_id = from_version or (earlier[-1].version_id if earlier else None)
    key = tuple((v.id, v.created_at.isoformat()) if v else None
                for v in (by_id.get(from_id or ""), by_id[to_id]))
    if key not in _CACHE:
        def read(version_id: str) -> list:
            hits = store.scroll(ChunkFilter(
                client_id=document.client_id, searchable_only=False,
                document_ids=(document.document_id,), version_ids=(version_id,)))
            if not hits and by_id[version_id].chunk_count:
                raise Conflict(f"the text of {version_id} is no longer kept (older versions "
                               "are removed past EVIDENCE_INGEST__KEEP_SUPERSEDED)",
                               code="VERSION_TEXT_GONE", details={"version_id": version_id})
            return passages([h.payload for h in hits])

        _CACHE[key] = changes(read(from_id) if from_id else [], read(to_id))
        while len(_CACHE) > CACHED_PAIRS:
            _CACHE.popitem(last=False)
    found, complete = _CACHE[key]
    return from_id, to_id, found, complete


@dataclass(frozen=True)
class ChangedPassage:
    """A sentence of a version added or changed relative to the version before it."""

    chunk_index: int
    start: int  # offsets into the chunk's text
    end: int
    kind: str  # "added" | "changed"
    text: str


def changed_passages(session: Session, store: VectorStore, *, client_id: str,
                     document_id: str, version_id: str) -> list[ChangedPassage]:
    """The sentences of a version added or changed relative to the published version before
    it; none for a first version (it has nothing to change from) or one no longer kept."""
    try:
        document = docs_registry.get_document(session, client_id=client_id,
                                              document_id=document_id)
        from_id, _to, found, _complete = version_changes(session, store, document,
                                                         from_version=None,
                                                         to_version=version_id)
    except (NotFound, Conflict):
        return []
    if from_id is None:
        return []
    out = []
    for change in found:
        after = change["after"]
        index = after["location"].get("chunk_index") if after else None
        if after is None or not isinstance(index, int):
            continue
        start, end = after.get("span") or (0, 0)
        out.append(ChangedPassage(index, start, end, change["kind"], after["text"]))
    return out
