"""Floors: absolute raw-score gates per lane, applied before fusion, never to fused scores.

A candidate below its lane's floor is not eligible for that lane (contract: dense cosine 0.70
for bge-small, BM25 1.0; the offline profile has its own, calibrated dense floor). Ranks are
given after the floor, from 1, in score order.
"""

from __future__ import annotations

from dataclasses import replace

from app.search.types import Candidate


def apply_floor(hits: list[Candidate], *, lane: str, floor: float) -> list[Candidate]:
    """Keep hits scoring ≥ floor and number them 1.. by score (ties: chunk id)."""
    score = (lambda c: c.dense_score) if lane == "dense" else (lambda c: c.sparse_score)
    kept = [c for c in hits if (score(c) or 0.0) >= floor]
    kept.sort(key=lambda c: (-(score(c) or 0.0), c.tie_key()))
    rank_field = "dense_rank" if lane == "dense" else "sparse_rank"
    # lanes number hits in engine order already; copy only those whose rank moved
    return [c if getattr(c, rank_field) == i else replace(c, **{rank_field: i})
            for i, c in enumerate(kept, start=1)]
