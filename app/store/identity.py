"""What a lane needs of a hit, without the engine copying payloads.

A point's id is made of its client, document, version and chunk index (base.point_id), so a
hit's document, version and chunk index never change for an id, whatever is re-indexed or
made visible. Asking the engine for those three payload fields cost ~9× the query itself
(qdrant-edge 0.9.0, 100 hits: 1.11 ms against 0.13 ms with ids and scores only, all of it
holding the interpreter's lock; docs/BENCHMARKS.md, issue 25). So the adapters ask for ids
and scores and read the identity from here: filled by this process's writes and, for ids it
has not seen (after a restart, or written by another process), by one retrieve of those ids.

Bounded: past ``capacity`` the oldest entries go (a later hit on them is one retrieve again:
1.0 ms per 100 ids, about what asking the query for the fields cost, so a collection larger
than the cache searches no slower than before it).
Nothing else is kept: fields that can change for an id (entity keys after a re-index, the
timeline) are always read from the engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from app.store.base import StoredHit
from app.store.payload import CHUNK_INDEX, DOCUMENT_ID, VERSION_ID

IDENTITY_FIELDS = frozenset({DOCUMENT_ID, VERSION_ID, CHUNK_INDEX})
Identity = tuple[str, str, str, int]  # point id as text, document id, version id, chunk index


def identity_only(fields: Sequence[str] | None) -> bool:
    """True when a query asks for nothing but identity fields: served from the cache."""
    return bool(fields) and IDENTITY_FIELDS.issuperset(fields or ())


class IdentityCache:
    """Engine point id (in the engine's own type: a UUID from qdrant-edge, text from
    qdrant-client) → its identity. Reads take no lock (a dict lookup is atomic); writes do,
    so eviction never races an insertion."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._known: dict[Hashable, Identity] = {}
        self._lock = threading.Lock()
        self.misses = 0  # ids fetched from the engine (tests and benches read it)

    def __len__(self) -> int:
        return len(self._known)

    def remember(self, entries: Sequence[tuple[Hashable, str, dict[str, Any]]]) -> None:
        """(engine id, id as text, payload) of points written or fetched."""
        if self.capacity <= 0:
            return
        with self._lock:
            known = self._known
            for key, text, payload in entries:
                known[key] = _identity(text, payload)
            while len(known) > self.capacity:  # oldest first (dicts keep insertion order)
                del known[next(iter(known))]

    def hits(self, scored: Sequence[tuple[Hashable, float]],
             fetch: Callable[[list[str]], dict[str, dict[str, Any]]]) -> list[StoredHit]:
        """(engine id, score) pairs as hits with their identity payload, in the same order;
        unknown ids fetched once (``fetch``: ids as text → payloads). A point deleted between
        the query and the fetch is left out, as the engine would now leave it out."""
        known = self._known
        entries = [known.get(key) for key, _ in scored]  # before any eviction below
        missing = [key for (key, _), entry in zip(scored, entries, strict=True)
                   if entry is None]
        if missing:
            self.misses += len(missing)
            texts = [str(key) for key in missing]
            payloads = fetch(texts)
            found = [(key, text, payloads[text]) for key, text in zip(missing, texts, strict=True)
                     if text in payloads]
            self.remember(found)
            fetched = {key: _identity(text, p) for key, text, p in found}
            entries = [entry or fetched.get(key)
                       for (key, _), entry in zip(scored, entries, strict=True)]
        out = []
        for (_, score), entry in zip(scored, entries, strict=True):
            if entry is not None:
                text, document_id, version_id, chunk_index = entry
                out.append(StoredHit(text, score, {DOCUMENT_ID: document_id,
                                                   VERSION_ID: version_id,
                                                   CHUNK_INDEX: chunk_index}))
        return out


def _identity(text: str, payload: dict[str, Any]) -> Identity:
    return text, payload[DOCUMENT_ID], payload[VERSION_ID], int(payload[CHUNK_INDEX])
