"""The store's vocabulary: points, filters, hits, and the VectorStore protocol.

Every query carries a ChunkFilter whose client id and visibility flag are applied inside the
engine query, so no other client's chunk and no unpublished chunk can take a result slot.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from app.domain.errors import ModelMismatchError, StoreNeedsReindex, StoreRejected
from app.models.encoders import SparseVec

DENSE, SPARSE = "dense", "sparse"
# Each chunk's sentences as a multivector (MaxSim: a query's score is its best sentence's
# cosine), in collections made with them (EVIDENCE_QDRANT__SENTENCE_VECTORS, recorded with the
# collection). Stored as 16-bit floats: a cosine moves by ~2e-4, a quarter of the storage.
SENTENCES = "sentences"
# A version's timeline on its points (Unix seconds): published when, superseded when (far in
# the future while current). Version-aware search filters on them inside the engine.
PUBLISHED_TS, SUPERSEDED_TS = "published_ts", "superseded_ts"
FAR_FUTURE = 1e13  # beyond any instant a datetime can hold (year 9999 is 2.5e11)
POINT_NAMESPACE = uuid.UUID("6f1c1c1e-8c2a-4c52-9a40-3c7e1f3b9e11")
# Keyword payload keys the filters use; each gets a payload index.
# Visibility is a keyword, not a bool: qdrant-edge-py 0.9.0 never matches MatchValue(True)
# on a bool field, indexed or not (tests/store pins this down).
KEYWORD_KEYS = ("client_id", "document_id", "version_id", "kind", "source", "visibility",
                "entity_keys", "access")
# A chunk's document's access groups (app/domain/access.py): absent or [] for a document every
# key of its client sees. Restricted callers' queries hold "access is empty or shares one of
# mine" inside the engine, so totals and pages are those of what they may see.
ACCESS = "access"
SEARCHABLE, HIDDEN = "searchable", "hidden"
# How the collection scores BM25: "client" = term frequencies stored without the engine's IDF
# modifier, each query weighted by its client's own IDF (app/search/bm25.py). Recorded with the
# collection; a collection without it used the engine's collection-wide IDF.
SPARSE_IDF = "client"
# Qdrant fails to decode a payload nested ~128 deep and, in the embedded engine, every later
# write too. Upload validation bounds metadata far below this; this is the last guard.
MAX_PAYLOAD_DEPTH = 32


def point_id(client_id: str, document_id: str, version_id: str, chunk_index: int) -> str:
    """Deterministic, so re-running a job overwrites instead of duplicating (engine needs UUIDs)."""
    return str(uuid.uuid5(POINT_NAMESPACE, f"{client_id}/{document_id}/{version_id}/{chunk_index}"))


@dataclass(frozen=True)
class ChunkPoint:
    id: str
    dense: list[float] | None
    sparse: SparseVec
    payload: dict[str, Any]
    # the chunk's sentence vectors (one per sentence kept with it, app/domain/sentences.py),
    # where it has any
    sentences: list[list[float]] | None = None


def stored_point(point_id: Any, vectors: Any, payload: dict[str, Any] | None) -> ChunkPoint:
    """A point as either engine returns it (vectors by name), as the ChunkPoint it was."""
    vectors = vectors if isinstance(vectors, dict) else {}
    sparse, dense = vectors.get(SPARSE), vectors.get(DENSE)
    sentences = vectors.get(SENTENCES)
    return ChunkPoint(id=str(point_id),
                      dense=[float(x) for x in dense] if dense is not None else None,
                      sparse=SparseVec(indices=list(sparse.indices) if sparse else [],
                                       values=list(sparse.values) if sparse else []),
                      payload=dict(payload or {}),
                      sentences=[[float(x) for x in v] for v in sentences] if sentences
                      else None)


Alternatives = tuple[tuple[str, tuple[Any, ...]], ...]


@dataclass(frozen=True)
class Bounds:
    """A range condition's bounds on a number (None: that side open)."""

    gte: float | None = None
    gt: float | None = None
    lte: float | None = None
    lt: float | None = None

    def as_dict(self) -> dict[str, float]:
        return {k: v for k, v in (("gte", self.gte), ("gt", self.gt), ("lte", self.lte),
                                  ("lt", self.lt)) if v is not None}


@dataclass(frozen=True)
class ChunkFilter:
    """Which chunks a query may see. ``searchable_only`` keeps published, current versions."""

    client_id: str
    searchable_only: bool = True
    document_ids: tuple[str, ...] = ()
    version_ids: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    # Each condition: alternatives of (payload path, any-of values), one of which must hold;
    # strings match exactly, numbers by value. Two alternatives arise when one key is filtered
    # with values of two types that live under different paths (booleans: see filters.py).
    metadata: tuple[Alternatives, ...] = field(default=())
    # Conditions none of which may hold (negated filters): each as ``metadata``'s
    excluded: tuple[Alternatives, ...] = field(default=())
    # The version timeline (with searchable_only off): published at or before, and superseded
    # after, these instants. "Every published version" is published_by=FAR_FUTURE.
    published_by: float | None = None
    superseded_after: float | None = None
    # The caller's access groups (None: an admin key, no condition); see ACCESS
    access_groups: tuple[str, ...] | None = None

    @property
    def narrows(self) -> bool:
        """Whether exact filters narrow the candidates beyond the client and its versions."""
        return bool(self.document_ids or self.version_ids or self.kinds or self.sources
                    or self.metadata or self.excluded)

    def unnarrowed(self) -> ChunkFilter:
        """The same client and versions without the exact filters: the ranking they keep."""
        return replace(self, document_ids=(), version_ids=(), kinds=(), sources=(),
                       metadata=(), excluded=())

    def conditions(self) -> list[Alternatives]:
        """The conditions that must all hold."""
        conds: list[Alternatives] = [(("client_id", (self.client_id,)),)]
        if self.searchable_only:
            conds.append((("visibility", (SEARCHABLE,)),))
        for key, values in (("document_id", self.document_ids), ("version_id", self.version_ids),
                            ("kind", self.kinds), ("source", self.sources)):
            if values:
                conds.append(((key, values),))
        conds.extend(self.metadata)
        return conds


# ("any", key, [str, …]) | ("eq", key, v) | ("range", key, x): equal to x | ("lte" | "gt", key, x)
# | ("between", key, {"gte" | "gt" | "lte" | "lt": x, …}) | ("empty", key, None): absent or []
FilterOp = tuple[str, str, Any]


def _options(alternatives: Alternatives) -> list[FilterOp]:
    """One condition's alternatives as operations: strings match exactly (several at once:
    any of); numbers by value, as a closed range, so 12 matches a stored 12.0 and never the
    string "12"; Bounds as a range."""
    options: list[FilterOp] = []
    for key, values in alternatives:
        if len(values) > 1 and all(isinstance(v, str) for v in values):
            options.append(("any", key, list(values)))
            continue
        for v in values:
            if isinstance(v, Bounds):
                options.append(("between", key, v.as_dict()))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                options.append(("range", key, float(v)))
            else:
                options.append(("eq", key, v))
    return options


def exclusion_plan(flt: ChunkFilter) -> list[FilterOp]:
    """The negated filters: a chunk matching any of these operations is left out."""
    return [op for alternatives in flt.excluded for op in _options(alternatives)]


def filter_plan(flt: ChunkFilter) -> list[list[FilterOp]]:
    """The filter as engine-neutral operations: a list of must-hold conditions, each a list of
    alternatives (_options); exclusion_plan holds what must not."""
    plan = [_options(alternatives) for alternatives in flt.conditions()]
    if flt.published_by is not None:
        plan.append([("lte", PUBLISHED_TS, flt.published_by)])
    if flt.superseded_after is not None:
        plan.append([("gt", SUPERSEDED_TS, flt.superseded_after)])
    if flt.access_groups is not None:
        plan.append([("empty", ACCESS, None)]
                    + ([("any", ACCESS, list(flt.access_groups))] if flt.access_groups else []))
    return plan


@dataclass(frozen=True)
class StoredHit:
    id: str
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True)
class LaneQuery:
    """One query of a batch (VectorStore.query_batch): a vector against one of the collection's
    vector fields — DENSE (a list of floats), SPARSE (a SparseVec) or SENTENCES (the query as a
    one-row multivector, scored by MaxSim) — inside ``flt``; ``ids``: only these points."""

    using: str
    vector: Any
    flt: ChunkFilter
    limit: int
    fields: tuple[str, ...] | None = None  # the payload keys the hits carry; None: all, (): none
    ids: tuple[str, ...] = ()

    def answerable(self, sentence_vectors: bool) -> bool:
        """A BM25 query without terms finds nothing; nor does a collection without sentences:
        neither is sent to the engine."""
        if self.using == SPARSE:
            return bool(self.vector.indices)
        return self.using != SENTENCES or sentence_vectors


def check_model(recorded: dict[str, Any] | None, dense_model: str, dense_dim: int) -> None:
    """Refuse to open a collection built by another dense model: its vectors mean nothing here."""
    if recorded and (recorded.get("dense_model") != dense_model
                     or int(recorded.get("dense_dim", dense_dim)) != dense_dim):
        raise ModelMismatchError(
            f"the collection was built with {recorded.get('dense_model')} "
            f"({recorded.get('dense_dim')}-d) but the installed dense model is {dense_model} "
            f"({dense_dim}-d). Re-index: `evidence reindex` (or delete the data directory and "
            "ingest again), or install the profile that built it.",
            details={"collection_model": recorded.get("dense_model"),
                     "installed_model": dense_model})


def sentence_record(recorded: dict[str, Any] | None, wanted: bool) -> bool:
    """Whether the collection holds sentence vectors: what it recorded when it was made (a
    collection from before they existed recorded nothing: none), or, for a new one, what the
    settings want. The engine's vector fields are fixed when a collection is made."""
    return bool(recorded.get("sentence_vectors", False)) if recorded else wanted


def check_sparse_scoring(recorded: dict[str, Any] | None, where: object) -> None:
    """Refuse a collection that weighs BM25 by the engine's collection-wide IDF: its scores
    would count every client's words (the side channel per-client IDF closes)."""
    if recorded and recorded.get("sparse_idf") != SPARSE_IDF:
        raise StoreNeedsReindex(
            f"the collection at {where} was built with the engine's collection-wide BM25 IDF; "
            "this version keeps BM25 statistics per client. Re-index: `evidence reindex` "
            "re-queues every current version from the registry's stored files.",
            details={"collection": str(where)})


def payload_depth(value: Any) -> int:
    """Nesting depth of a JSON value, iteratively (a recursive walk would fail on deep input)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def check_payloads(points: Sequence[ChunkPoint]) -> None:
    for p in points:
        if payload_depth(p.payload) > MAX_PAYLOAD_DEPTH:
            raise StoreRejected(f"a chunk payload is nested deeper than {MAX_PAYLOAD_DEPTH} "
                                "levels; the engine cannot store it")


class VectorStore(Protocol):
    dense_model: str
    sentence_vectors: bool  # the collection holds each chunk's sentence vectors (SENTENCES)
    exclusive: bool  # no other process can write here (the embedded engine's folder lock)

    def upsert(self, points: list[ChunkPoint]) -> None: ...

    def set_searchable(self, *, client_id: str, document_id: str, version_id: str,
                       searchable: bool, timeline: dict[str, float] | None = None) -> None:
        """Show or hide a version's points, and set their timeline fields if given."""
        ...

    def set_version_fields(self, *, client_id: str, document_id: str, version_id: str | None,
                           fields: dict[str, Any]) -> None:
        """Set top-level payload fields on every point of one version (None: of every version
        of the document); a field named is replaced whole (``meta`` when a version's
        metadata changed after publication, ``access`` when a document's groups did)."""
        ...

    def delete(self, *, client_id: str, document_id: str, version_id: str | None = None
               ) -> None: ...

    def query_dense(self, vector: list[float], flt: ChunkFilter, limit: int,
                    fields: Sequence[str] | None = None) -> list[StoredHit]: ...

    def query_sparse(self, vector: SparseVec, flt: ChunkFilter, limit: int,
                     fields: Sequence[str] | None = None) -> list[StoredHit]: ...

    def query_batch(self, queries: Sequence[LaneQuery]) -> list[list[StoredHit]]:
        """Each query's hits, in order, asked of the engine in one call (a shown page's rows
        ask 20–40 small queries: one call, not one each). A BM25 query without terms, or a
        SENTENCES query of a collection without them, answers []."""
        ...

    def sentence_scores(self, vector: list[float], flt: ChunkFilter, ids: Sequence[str]
                        ) -> dict[str, float]:
        """Of these points inside ``flt``, each one's best sentence cosine with ``vector``
        (MaxSim); points without sentence vectors are left out. {} where the collection
        holds none (``sentence_vectors`` False)."""
        ...

    def retrieve(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...

    def vectors(self, ids: Sequence[str]) -> dict[str, ChunkPoint]:
        """The points' vectors (payloads left out): pseudo-relevance feedback."""
        ...

    def count(self, flt: ChunkFilter) -> int: ...

    def count_all(self) -> int:
        """Every point in the collection, every client's (metrics)."""
        ...

    def export_points(self, offset: str | None, limit: int
                      ) -> tuple[list[ChunkPoint], str | None]:
        """A page of every point with its vectors and payload, in id order, and the offset of
        the next page (None after the last): app/store/transfer.py."""
        ...

    def scroll(self, flt: ChunkFilter, limit: int = 10_000,
               fields: Sequence[str] | None = None) -> list[StoredHit]: ...

    def delete_pending_compaction(self) -> bool: ...

    def compact(self) -> bool: ...

    def close(self) -> None: ...
