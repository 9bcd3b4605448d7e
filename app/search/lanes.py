"""The retrieval lanes — the only search module with I/O.

Dense: the query's vector (the model's query form) against chunk vectors by cosine. Sparse:
the BM25 query vector against chunk vectors by the IDF-weighted dot product. Both run with the
ChunkFilter inside the engine query, so only the caller's published, current chunks compete.
"""

from __future__ import annotations

from dataclasses import replace

from app.models.encoders import SparseVec
from app.search.floors import apply_floor
from app.search.types import Candidate, LaneResult
from app.store import ChunkFilter, StoredHit, VectorStore
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


def entity_lane(store: VectorStore, query: list[float] | SparseVec, flt: ChunkFilter,
                keys: tuple[str, ...], *, depth: int) -> LaneResult:
    """The chunks holding an amount, day or id the query names (exact, normalised: app/
    entity_values.py), inside the same filter; ranked by how many of the query's entities
    they hold, then by the query's own vector (dense, or BM25 when there is none)."""
    holding = replace(flt, metadata=flt.metadata + (((ENTITY_KEYS, keys),),))
    ask = store.query_sparse if isinstance(query, SparseVec) else store.query_dense
    hits = ask(query, holding, depth, fields=(*LANE_FIELDS, ENTITY_KEYS))  # type: ignore[arg-type]
    if isinstance(query, SparseVec) and len(hits) < depth:
        # BM25 only returns chunks sharing a word with the query: "10000 dollars" shares none
        # with "$10,000.00". The entity is the match, so the rest are read by the filter alone
        seen = {h.id for h in hits}
        hits = hits + [h for h in store.scroll(holding, depth) if h.id not in seen][
            :depth - len(hits)]
    wanted = set(keys)
    ordered = sorted(enumerate(hits), key=lambda ih: (
        -len(wanted.intersection(ih[1].payload.get(ENTITY_KEYS) or ())), ih[0]))
    kept = [_candidate(h, "entity", rank) for rank, (_, h) in enumerate(ordered, start=1)]
    return LaneResult("entity", tuple(kept), fetched_ids=tuple(h.id for _, h in ordered),
                      depth=depth, floor=float("-inf"))


def dense_lane(store: VectorStore, vector: list[float], flt: ChunkFilter, *, depth: int,
               floor: float) -> LaneResult:
    hits = store.query_dense(vector, flt, depth, fields=LANE_FIELDS)
    kept = apply_floor([_candidate(h, "dense", i) for i, h in enumerate(hits, start=1)],
                       lane="dense", floor=floor)
    return LaneResult("dense", tuple(kept), fetched_ids=tuple(h.id for h in hits),
                      depth=depth, floor=floor)


def sparse_lane(store: VectorStore, vector: SparseVec, flt: ChunkFilter, *, depth: int,
                floor: float, fields: tuple[str, ...] = LANE_FIELDS) -> LaneResult:
    """``fields``: the payload keys the hits carry (more when a rescoring reads them)."""
    hits = store.query_sparse(vector, flt, depth, fields=fields)
    kept = apply_floor([_candidate(h, "sparse", i) for i, h in enumerate(hits, start=1)],
                       lane="sparse", floor=floor)
    return LaneResult("sparse", tuple(kept), fetched_ids=tuple(h.id for h in hits),
                      depth=depth, floor=floor)
