"""Alpha-weighted reciprocal-rank fusion.

    fused(c) = alpha / (k + rank_dense(c)) + (1 - alpha) / (k + rank_sparse(c))

with ranks starting at 1 within each lane (after its floor), k = 60 (Cormack, Clarke & Büttcher,
2009, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods"), and
a lane that did not find the chunk adding nothing. alpha weighs the dense lane, 1 - alpha the
sparse lane (alpha = 0.5 gives each lane half of plain RRF). Only ranks are combined, so cosine
and BM25 scores need no calibration. Ties are broken by chunk id, so the order is stable.
"""

from __future__ import annotations

from dataclasses import replace

from app.search.types import Candidate

RRF_K = 60


def fuse(dense: list[Candidate], sparse: list[Candidate], *, alpha: float,
         k: int = RRF_K) -> list[Candidate]:
    """Merge two ranked lanes into one list ordered by fused score, then chunk id."""
    merged: dict[str, Candidate] = {}
    for c in dense:
        merged[c.point_id] = c
    for c in sparse:
        prior = merged.get(c.point_id)
        merged[c.point_id] = (replace(prior, sparse_score=c.sparse_score,
                                      sparse_rank=c.sparse_rank) if prior else c)
    fused = []
    for c in merged.values():
        score = 0.0
        if c.dense_rank is not None:
            score += alpha / (k + c.dense_rank)
        if c.sparse_rank is not None:
            score += (1.0 - alpha) / (k + c.sparse_rank)
        fused.append(replace(c, fused=score))
    fused.sort(key=lambda c: (-c.fused, c.tie_key()))
    return fused
