"""Why not? For up to ten named documents, what this very search did with each: shown, ranked
past the window, under a lane's floor, beyond both lanes' candidate depth, excluded by a
filter, not current, not published, or not found.

Cost is bounded: one query per document and lane for its best chunk; ranks come from what
each lane fetched for the search itself (before its floor), so they are the search's own.
Nothing here changes the answer's rows or their order. Another client's document is NOT_FOUND
exactly like a missing one, so nothing leaks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.leaves import leaves_of
from app.models.encoders import SparseVec
from app.registry.documents import visible_clause
from app.registry.tables import Document, DocumentVersion, IngestionJob
from app.search.filters import RESERVED, leaf_matches
from app.search.lanes import LANE_FIELDS
from app.search.types import LaneResult
from app.store import ChunkFilter, StoredHit, VectorStore
from app.store.base import FAR_FUTURE
from app.store.payload import CHUNK_INDEX, DOCUMENT_ID, ENTITY_KEYS, VERSION_ID, chunk_ref

MAX_DIAGNOSED = 10
STATUSES = ("SHOWN", "OUTSIDE_WINDOW", "BELOW_FLOOR", "NOT_RETRIEVED", "FILTERED_OUT",
            "NOT_CURRENT", "NOT_PUBLISHED", "NOT_FOUND")


@dataclass(frozen=True)
class LaneLook:
    lane: str  # dense | sparse | entity (app/search/service.LANE_ORDER)
    chunk_id: str | None  # the document's best chunk in this lane, None: no match at all
    score: float | None
    rank: int | None  # among the chunks this search could see, when within the lane's depth
    beyond: int | None  # else: ranked beyond this depth
    floor: float | None
    passed: bool


@dataclass(frozen=True)
class Diagnosis:
    document_id: str
    version_id: str | None
    status: str
    message: str
    rank: int | None = None
    lanes: list[LaneLook] = field(default_factory=list)
    filters: dict[str, list[Any]] = field(default_factory=dict)  # key → its values


@dataclass(frozen=True)
class SearchContext:
    """What the search did, as diagnosis needs it."""

    client_id: str
    versions: str
    as_of: datetime | None
    engine_filter: ChunkFilter
    applied: Mapping[str, list[Any]]
    ranked: Sequence[tuple[str, str]]  # every ranked version, best first
    offset: int
    window: int
    dense_vector: list[float] | None
    sparse_vector: SparseVec | None
    lanes: Mapping[str, LaneResult]  # as the search last asked them: floor, depth, fetched
    entity_keys: tuple[str, ...] = ()  # the amounts, days and ids the query names
    access: Access = Access()  # what the caller may see: a hidden document is NOT_FOUND


def diagnose(session: Session, store: VectorStore, ctx: SearchContext,
             document_ids: Sequence[str]) -> list[Diagnosis]:
    lane_ranks = {name: {point: i for i, point in enumerate(lane.ranked_ids, start=1)}
                  for name, lane in ctx.lanes.items()}  # point id → rank before the floor
    return [_one(session, store, ctx, lane_ranks, d) for d in dict.fromkeys(document_ids)]


ENTITY_LOOK_DEPTH = 50  # a document's chunks holding the query's entities, read to find its best


def _query(store: VectorStore, ctx: SearchContext, lane: str, flt: ChunkFilter,
           limit: int) -> list[StoredHit]:
    if lane == "dense" and ctx.dense_vector is not None:
        return store.query_dense(ctx.dense_vector, flt, limit, fields=LANE_FIELDS)
    if lane == "sparse" and ctx.sparse_vector is not None:
        return store.query_sparse(ctx.sparse_vector, flt, limit, fields=LANE_FIELDS)
    if lane == "entity" and ctx.entity_keys:
        # its score: how many of the query's entities the chunk holds (the lane's own order)
        holding = replace(flt, metadata=flt.metadata + (((ENTITY_KEYS, ctx.entity_keys),),))
        wanted = set(ctx.entity_keys)
        hits = [replace(h, score=float(len(wanted & set(h.payload.get(ENTITY_KEYS) or ()))))
                for h in store.scroll(holding, ENTITY_LOOK_DEPTH)]
        return sorted(hits, key=lambda h: -h.score)[:limit]
    return []


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"


def _one(session: Session, store: VectorStore, ctx: SearchContext,
         lane_ranks: Mapping[str, dict[str, int]], document_id: str) -> Diagnosis:
    stmt = select(Document).where(Document.client_id == ctx.client_id,
                                  Document.document_id == document_id)
    if (visible := visible_clause(ctx.access)) is not None:
        stmt = stmt.where(visible)
    document = session.scalar(stmt)
    if document is None:  # or one the caller may not see: the same words

        return Diagnosis(document_id, None, "NOT_FOUND",
                         f"there is no document {document_id!r} for this client")
    versions = list(session.scalars(select(DocumentVersion).where(
        DocumentVersion.document_pk == document.id).order_by(DocumentVersion.id)))
    version, why_none = _version_asked(session, document, versions, ctx)
    if version is None:
        return why_none  # type: ignore[return-value]
    ranked_keys = [k for k in ctx.ranked if k[0] == document_id]
    if ranked_keys:  # versions "all" may rank several: the best one speaks
        rank = ctx.ranked.index(ranked_keys[0]) + 1
        shown_key = ranked_keys[0]
        if ctx.offset < rank <= ctx.window:
            return Diagnosis(document_id, shown_key[1], "SHOWN",
                             f"shown at rank {rank}", rank=rank)
        return Diagnosis(document_id, shown_key[1], "OUTSIDE_WINDOW",
                         f"ranked {rank}, outside this page (offset {ctx.offset}, limit "
                         f"{ctx.window - ctx.offset}): ask with another offset", rank=rank)
    excluded = _filtered_by(document, version, ctx.applied)
    if excluded:
        keys = ", ".join(excluded)
        return Diagnosis(document_id, version.version_id, "FILTERED_OUT",
                         f"excluded by the filter on {keys}", filters=excluded)
    own = replace(ctx.engine_filter, document_ids=(document_id,),
                  version_ids=(version.version_id,))
    looks = [_look(store, ctx, lane, own, lane_ranks[lane]) for lane in ctx.lanes]
    if ctx.versions == "current" and ctx.as_of is None and not any(x.passed for x in looks):
        older = _older_match(store, ctx, document_id, versions)
        if older is not None:
            return Diagnosis(document_id, version.version_id, "NOT_CURRENT",
                             f"only its superseded version {older} matches this query over "
                             "the floors; versions: all would show it", lanes=looks)
    if not ctx.lanes:  # scope metadata: no content lane was asked
        return Diagnosis(document_id, version.version_id, "NOT_RETRIEVED",
                         "the metadata lane matched none of its values")
    if not any(x.score is not None for x in looks):
        return Diagnosis(document_id, version.version_id, "NOT_RETRIEVED",
                         "no lane found it: none of the query's words occur in it"
                         + ("" if ctx.dense_vector else ", and the dense lane was not asked "
                            "(alpha 0)"), lanes=looks)
    if not any(x.passed for x in looks):
        return Diagnosis(document_id, version.version_id, "BELOW_FLOOR",
                         _below_message(looks), lanes=looks)
    beyond = ", ".join(f"{x.lane} lane beyond rank {x.beyond}" for x in looks if x.passed)
    return Diagnosis(document_id, version.version_id, "NOT_RETRIEVED",
                     f"it passed the floor but came {beyond}, deeper than this search looks; "
                     "a narrower filter or a more specific query would bring it up",
                     lanes=looks)


def _version_asked(session: Session, document: Document, versions: list[DocumentVersion],
                   ctx: SearchContext) -> tuple[DocumentVersion | None, Diagnosis | None]:
    """The version this search could have answered with, or why there is none."""
    by_id = {v.version_id: v for v in versions}
    if ctx.as_of is not None:
        for v in reversed(versions):
            if v.published_at is not None and v.published_at <= ctx.as_of and (
                    v.superseded_at is None or v.superseded_at > ctx.as_of) and \
                    v.superseded_at != v.published_at:
                return v, None
        first = min((v.published_at for v in versions if v.published_at), default=None)
        when = (f"its first version was published at {first.isoformat()}" if first
                else "no version of it has been published")
        return None, Diagnosis(document.document_id, None, "NOT_CURRENT",
                               f"no version of it was current at {ctx.as_of.isoformat()}: "
                               f"{when}")
    if document.current_version_id in by_id:
        return by_id[document.current_version_id], None
    latest = versions[-1] if versions else None
    state = latest.state if latest else "none"
    return None, Diagnosis(document.document_id, latest.version_id if latest else None,
                           "NOT_PUBLISHED", f"no version of it is published yet: the latest "
                           f"is {state}" + _job_words(session, latest))


def _job_words(session: Session, version: DocumentVersion | None) -> str:
    if version is None:
        return ""
    job = session.scalar(select(IngestionJob).where(IngestionJob.version_pk == version.id)
                         .order_by(IngestionJob.created_at.desc()))
    if job is None:
        return ""
    return f" (job {job.status}" + (f": {job.error})" if job.error else ")")


def _filtered_by(document: Document, version: DocumentVersion,
                 applied: Mapping[str, list[Any]]) -> dict[str, list[Any]]:
    """The filter keys this version fails, each with the version's own values for it."""
    own = {"document_id": [document.document_id], "version_id": [version.version_id],
           "kind": [document.kind], "source": [document.source] if document.source else []}
    leaves = leaves_of(version.canonical_metadata or {}, version.entities)
    failed: dict[str, list[Any]] = {}
    for key, values in applied.items():
        if key in RESERVED:
            negated = values[0]["not"] if values and isinstance(values[0], dict) else None
            if (set(own[key]) & set(negated) if negated is not None
                    else not set(own[key]) & set(values)):
                failed[key] = own[key]
        elif not leaf_matches(leaves, {key: values}):
            failed[key] = [leaf.value for leaf in leaves if leaf.key == key]
    return failed


def _look(store: VectorStore, ctx: SearchContext, lane: str, own: ChunkFilter,
          ranks: Mapping[str, int]) -> LaneLook:
    floor, depth = ctx.lanes[lane].floor, ctx.lanes[lane].depth
    shown_floor = floor if floor != float("-inf") else None
    hits = _query(store, ctx, lane, own, 1)
    if not hits:
        return LaneLook(lane, None, None, None, None, shown_floor, False)
    best = hits[0]
    chunk_id = chunk_ref(best.payload[DOCUMENT_ID], best.payload[VERSION_ID],
                         best.payload[CHUNK_INDEX])
    rank = ranks.get(best.id)
    return LaneLook(lane, chunk_id, round(best.score, 6), rank,
                    None if rank is not None else depth, shown_floor,
                    best.score >= floor)


def _older_match(store: VectorStore, ctx: SearchContext, document_id: str,
                 versions: list[DocumentVersion]) -> str | None:
    """A superseded version of the document that passes a floor for this query."""
    older = tuple(v.version_id for v in versions if v.state == "superseded")
    if not older:
        return None
    flt = replace(ctx.engine_filter, searchable_only=False, published_by=FAR_FUTURE,
                  document_ids=(document_id,), version_ids=older)
    for lane in ctx.lanes:
        hits = _query(store, ctx, lane, flt, 1)
        if hits and hits[0].score >= ctx.lanes[lane].floor:
            return str(hits[0].payload[VERSION_ID])
    return None


def _below_message(looks: list[LaneLook]) -> str:
    parts = [f"scored {_fmt(x.score)} in the {'BM25' if x.lane == 'sparse' else 'dense'} "
             f"lane, under the floor {_fmt(x.floor)}" for x in looks
             if x.score is not None and x.floor is not None]
    advice = (" ; a different alpha or a lower floor (EVIDENCE_SEARCH__DENSE_FLOOR / "
              "__SPARSE_FLOOR) would let it compete")
    return ("it " + " and ".join(parts) + advice.replace(" ;", ";")) if parts else \
        "no lane kept it"
