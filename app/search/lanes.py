"""The retrieval lanes — the only search module with I/O.

Dense: the query's vector (the model's query form) against chunk vectors by cosine. Sparse:
the BM25 query vector against chunk vectors by the IDF-weighted dot product. Both run with the
ChunkFilter inside the engine query, so only the caller's published, current chunks compete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from app.models.encoders import SparseVec
from app.search.floors import apply_floor
from app.search.types import Candidate, LaneResult
from app.store import ChunkFilter, LaneQuery, StoredHit, VectorStore
from app.store.base import DENSE, SPARSE
from app.store.payload import CHUNK_INDEX, DOCUMENT_ID, ENTITY_KEYS, VERSION_ID

# Lanes fetch only what ranking and grouping need; texts are fetched for the few chunks that
# are shown or reranked (hydrate), since copying ~1,000 payloads per lane dominated latency.
LANE_FIELDS = (DOCUMENT_ID, VERSION_ID, CHUNK_INDEX)


def hydrate(store: VectorStore, candidates: list[Candidate]) -> list[Candidate]:
    """The same candidates with their full payloads (text, title, headings, page …)."""
    payloads = store.retrieve([c.point_id for c in candidates])
    return [replace(c, payload=payloads.get(c.point_id, c.payload)) for c in candidates]


def _candidate(hit: StoredHit, lane: str, rank: int) -> Candidate:
    p = hit.payload
    scores = ({"dense_score": hit.score, "dense_rank": rank} if lane == "dense"
              else {"sparse_score": hit.score, "sparse_rank": rank} if lane == "sparse"
              else {"entity_rank": rank})
    return Candidate(point_id=hit.id, document_id=p[DOCUMENT_ID], version_id=p[VERSION_ID],
                     chunk_index=int(p[CHUNK_INDEX]), payload=p, **scores)


def _score_then_chunk(hit: StoredHit) -> tuple[float, str, str, int]:
    """The floor's order (``apply_floor``): best score first, ties by chunk id."""
    p = hit.payload
    return (-(hit.score or 0.0), p[DOCUMENT_ID], p[VERSION_ID], int(p[CHUNK_INDEX]))


def lane_query(name: str, query: list[float] | SparseVec, flt: ChunkFilter, depth: int,
               entity_keys: tuple[str, ...] = (), fields: tuple[str, ...] = LANE_FIELDS
               ) -> LaneQuery:
    """The engine query lane ``name`` asks to ``depth`` inside ``flt``: dense by cosine, sparse
    by BM25's dot product, entity as the chunks holding one of ``entity_keys`` ranked by the
    query's own vector (dense, or BM25 when there is none)."""
    using = SPARSE if isinstance(query, SparseVec) else DENSE
    if name == "entity":
        holding = replace(flt, metadata=flt.metadata + (((ENTITY_KEYS, entity_keys),),))
        return LaneQuery(using, query, holding, depth, (*LANE_FIELDS, ENTITY_KEYS))
    return LaneQuery(using, query, flt, depth, fields)


def lane_result(name: str, asked: LaneQuery, hits: list[StoredHit], floor: float,
                entity_keys: tuple[str, ...] = ()) -> LaneResult:
    """What lane ``name`` found (``hits``, in the engine's order) as a LaneResult: dense and
    sparse with their floor applied, entity ordered by how many of the query's entities each
    chunk holds."""
    if name == "entity":
        wanted = set(entity_keys)
        ordered = [h for _, h in sorted(enumerate(hits), key=lambda ih: (
            -len(wanted.intersection(ih[1].payload.get(ENTITY_KEYS) or ())), ih[0]))]
        kept = [_candidate(h, "entity", rank) for rank, h in enumerate(ordered, start=1)]
        return LaneResult("entity", tuple(kept), fetched_ids=tuple(h.id for h in ordered),
                          depth=asked.limit, floor=float("-inf"))
    # in the floor's order before the candidates are made, so none is copied to renumber it
    # (exact ties, common in BM25, leave the engine's order: 88 copies a search on SciFact)
    ordered = sorted(hits, key=_score_then_chunk)
    kept = apply_floor([_candidate(h, name, i) for i, h in enumerate(ordered, start=1)],
                       lane=name, floor=floor)
    return LaneResult(name, tuple(kept), fetched_ids=tuple(h.id for h in hits),
                      depth=asked.limit, floor=floor)


def ask_lanes(store: VectorStore, asks: Sequence[tuple[str, LaneQuery, float]],
              entity_keys: tuple[str, ...] = ()) -> list[LaneResult]:
    """Each (lane, query, floor) asked of the engine in one call, as LaneResults in order.
    An entity lane asked by BM25 (no dense vector) that found fewer than its depth is filled
    from its filter alone: BM25 returns only chunks sharing a word with the query, and "10000
    dollars" shares none with "$10,000.00" — the entity is the match."""
    found = store.query_batch([q for _, q, _ in asks])
    results = []
    for (name, asked, floor), hits in zip(asks, found, strict=True):
        if name == "entity" and asked.using == SPARSE and len(hits) < asked.limit:
            seen = {h.id for h in hits}
            hits = hits + [h for h in store.scroll(asked.flt, asked.limit)
                           if h.id not in seen][:asked.limit - len(hits)]
        results.append(lane_result(name, asked, hits, floor, entity_keys))
    return results


def dense_lane(store: VectorStore, vector: list[float], flt: ChunkFilter, *, depth: int,
               floor: float) -> LaneResult:
    """The dense lane alone (no sentence rescoring): what evaluation's lane runs read."""
    return ask_lanes(store, [("dense", lane_query("dense", vector, flt, depth), floor)])[0]


def sparse_lane(store: VectorStore, vector: SparseVec, flt: ChunkFilter, *, depth: int,
                floor: float) -> LaneResult:
    """The BM25 lane alone (no title weight)."""
    return ask_lanes(store, [("sparse", lane_query("sparse", vector, flt, depth), floor)])[0]
