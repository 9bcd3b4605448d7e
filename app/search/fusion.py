"""Alpha-weighted reciprocal-rank fusion.

    fused(c) = alpha / (k + rank_dense(c)) + (1 - alpha) / (k + rank_sparse(c))
               + (1 - alpha) * entity_weight / (k + rank_entity(c))

with ranks starting at 1 within each lane (after its floor), k from the settings (``rrf_k``: 2,
chosen by cross-validation; RRF_K = 60 is Cormack, Clarke & Büttcher's 2009 value, the default
of this function), and a lane that did not find the chunk adding nothing. alpha weighs the
dense lane, 1 - alpha the sparse lane (alpha = 0.5 gives each lane half of plain RRF). Only
ranks are combined, so cosine and BM25 scores need no calibration. Ties are broken by chunk
id, so the order is stable.

Two score fusions are opt-in (per request ``fusion``, or ``EVIDENCE_SEARCH__FUSION``; outside
the contract, which fuses by rank). Both scale each lane's raw scores over that lane's
candidates for this query, then sum ``alpha * dense + (1 - alpha) * sparse`` per chunk (a lane
that did not find a chunk adds nothing):

- ``fuse_dbsf`` — distribution-based score fusion (Mazzeschi, 2023, "Distribution-Based Score
  Fusion (DBSF)"; Qdrant's Query API offers it unweighted): a lane's scores s with mean μ and
  (population) standard deviation σ become ``(s - (μ - 3σ)) / 6σ``, so the lane's spread, not
  its single best and worst candidate, sets the scale; a lane whose candidates all score the
  same gives each 0.5. Not clipped: a candidate beyond μ + 3σ keeps its lead.
- ``fuse_relative_scores`` — min-max: ``(s - min) / (max - min)`` (LlamaIndex's "relative
  score fusion"; equal scores give 1.0).

Measured against rank fusion, per query with a paired bootstrap, in docs/BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.search.types import Candidate

RRF_K = 60


def fuse(dense: list[Candidate], sparse: list[Candidate], *, alpha: float,
         k: int = RRF_K, entity: Sequence[Candidate] = (),
         entity_weight: float = 0.0) -> list[Candidate]:
    """Merge the ranked lanes into one list ordered by fused score, then chunk id. The entity
    lane (a query naming an amount, day or id) is exact matching, so it sits on the words side
    with BM25: it adds ``(1 - alpha) * entity_weight / (k + rank)`` — nothing at alpha 1 (dense
    alone, as the contract says), its whole weight at alpha 0."""
    return _combine(
        dense, sparse,
        {c.point_id: alpha / (k + c.dense_rank) for c in dense if c.dense_rank is not None},
        {c.point_id: (1.0 - alpha) / (k + c.sparse_rank) for c in sparse
         if c.sparse_rank is not None}, entity=entity,
        entity_part={c.point_id: (1.0 - alpha) * entity_weight / (k + c.entity_rank)
                     for c in entity if c.entity_rank is not None})


def fuse_relative_scores(dense: list[Candidate], sparse: list[Candidate], *,
                         alpha: float, entity: Sequence[Candidate] = (),
                         entity_weight: float = 0.0) -> list[Candidate]:
    """Merge two lanes by min-max-scaled raw scores; a lane whose candidates all score the same
    gives each of them 1.0, a lane that did not find a chunk adds nothing."""
    return _score_fusion(dense, sparse, alpha, _min_max, entity, entity_weight)


def fuse_dbsf(dense: list[Candidate], sparse: list[Candidate], *,
              alpha: float, entity: Sequence[Candidate] = (),
              entity_weight: float = 0.0) -> list[Candidate]:
    """Merge two lanes by their scores scaled to each lane's mean ± 3 standard deviations."""
    return _score_fusion(dense, sparse, alpha, _three_sigma, entity, entity_weight)


def _score_fusion(dense: list[Candidate], sparse: list[Candidate], alpha: float,
                  scale: Callable[[dict[str, float | None]], dict[str, float]],
                  entity: Sequence[Candidate], entity_weight: float) -> list[Candidate]:
    """An entity match scores as a words-side lane whose candidates all score the same:
    ``(1 - alpha) * entity_weight``."""
    dense_scaled = scale({c.point_id: c.dense_score for c in dense})
    sparse_scaled = scale({c.point_id: c.sparse_score for c in sparse})
    return _combine(dense, sparse, {i: alpha * v for i, v in dense_scaled.items()},
                    {i: (1.0 - alpha) * v for i, v in sparse_scaled.items()},
                    dense_scaled, sparse_scaled, entity=entity,
                    entity_part={c.point_id: (1.0 - alpha) * entity_weight for c in entity})


def _combine(dense: list[Candidate], sparse: list[Candidate], dense_part: dict[str, float],
             sparse_part: dict[str, float], dense_scaled: dict[str, float] | None = None,
             sparse_scaled: dict[str, float] | None = None, *,
             entity: Sequence[Candidate] = (),
             entity_part: dict[str, float] | None = None) -> list[Candidate]:
    """One candidate per chunk, scored by the sum of its lanes' parts (a lane that did not
    find it adds nothing), ordered by that score, then chunk id. The scaled lane scores of a
    score fusion ride along for explain."""
    from_sparse = {c.point_id: c for c in sparse}
    from_entity = {c.point_id: c for c in entity}
    dense_scaled, sparse_scaled = dense_scaled or {}, sparse_scaled or {}
    entity_part = entity_part or {}

    def total(i: str) -> float:
        return dense_part.get(i, 0.0) + sparse_part.get(i, 0.0) + entity_part.get(i, 0.0)

    fused = []
    for c in dense:
        s = from_sparse.pop(c.point_id, None)
        e = from_entity.pop(c.point_id, None)
        fused.append(_merged(c, s, total(c.point_id), dense_scaled.get(c.point_id),
                             sparse_scaled.get(c.point_id), e))
    for s in from_sparse.values():
        e = from_entity.pop(s.point_id, None)
        fused.append(_merged(s, s, total(s.point_id), None, sparse_scaled.get(s.point_id), e))
    for e in from_entity.values():  # found by the entity lane alone
        fused.append(_merged(e, None, total(e.point_id), None, None, e))
    fused.sort(key=lambda c: (-c.fused, c.tie_key()))
    return fused


def _min_max(scores: dict[str, float | None]) -> dict[str, float]:
    values = [v for v in scores.values() if v is not None]
    if not values:
        return {}
    low, high = min(values), max(values)
    span = high - low
    return {k: ((v - low) / span if span else 1.0) if v is not None else 0.0
            for k, v in scores.items()}


def _three_sigma(scores: dict[str, float | None]) -> dict[str, float]:
    values = [v for v in scores.values() if v is not None]
    if not values:
        return {}
    mean = sum(values) / len(values)
    sigma = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    low = mean - 3 * sigma
    return {k: ((v - low) / (6 * sigma) if sigma else 0.5) if v is not None else 0.0
            for k, v in scores.items()}


def as_if_unfiltered(unfiltered: list[Candidate], filtered: list[Candidate]
                     ) -> list[Candidate]:
    """Exact filters narrow the candidates but do not change retrieval rank (the contract):
    the filtered answer is the unfiltered fusion with the non-matching chunks removed — same
    lane ranks, same fused scores, same order. Every matching chunk the unfiltered lanes found
    is among the filtered lanes' (a filter only lifts a chunk's rank), so the unfiltered
    fusion restricted to the filtered ids is exact; the matching chunks the unfiltered lanes
    did not reach within their depth follow, in their filtered fusion's order."""
    matching = {c.point_id for c in filtered}
    first = [c for c in unfiltered if c.point_id in matching]
    seen = {c.point_id for c in first}
    return first + [c for c in filtered if c.point_id not in seen]


Fuser = Callable[..., list[Candidate]]
FUSERS: dict[str, Fuser] = {"rank": fuse, "dbsf": fuse_dbsf,
                            "relative_score": fuse_relative_scores}
SCORE_FUSIONS = frozenset({"dbsf", "relative_score"})


def _merged(c: Candidate, s: Candidate | None, fused: float, dense_scaled: float | None = None,
            sparse_scaled: float | None = None, e: Candidate | None = None) -> Candidate:
    """A new candidate carrying both lanes' scores (direct construction: this runs for every
    candidate of every search, and dataclasses.replace costs ~3x as much)."""
    return Candidate(point_id=c.point_id, document_id=c.document_id, version_id=c.version_id,
                     chunk_index=c.chunk_index, payload=c.payload, dense_score=c.dense_score,
                     dense_rank=c.dense_rank, sparse_score=s.sparse_score if s else None,
                     sparse_rank=s.sparse_rank if s else None, fused=fused,
                     rerank_score=c.rerank_score, dense_scaled=dense_scaled,
                     sparse_scaled=sparse_scaled, entity_rank=e.entity_rank if e else None)
