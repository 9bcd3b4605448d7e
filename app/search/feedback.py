"""Pseudo-relevance feedback (opt-in, ``EVIDENCE_SEARCH__PRF_DOCS``): the first pass's best
chunks sharpen the query, then the lanes ask again.

- Dense — Rocchio (1971): ``q' = q + β · mean(v_1 … v_k)``, renormalised (cosine).
- Sparse — RM3-style expansion (Abdul-Jaleel et al., 2004): each term of the feedback chunks
  scores the sum of its stored BM25 weights across them; the ``terms`` best that the query
  lacks join it at ``weight`` × (score / best score) × their IDF, the query's own terms keep
  their IDF weight.

Pure functions; the pipeline fetches the feedback vectors (one store call).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from app.models.encoders import SparseVec
from app.search.bm25 import CorpusStats, weigh_query


def rocchio(query: Sequence[float], feedback: Sequence[Sequence[float]],
            beta: float) -> list[float]:
    if not feedback:
        return list(query)
    k = len(feedback)
    moved = [q + beta * sum(v[i] for v in feedback) / k for i, q in enumerate(query)]
    norm = math.sqrt(sum(x * x for x in moved)) or 1.0
    return [x / norm for x in moved]


def expand_sparse(query: SparseVec, feedback: Sequence[SparseVec],
                  corpus: Callable[[Sequence[int]], CorpusStats], *, terms: int,
                  weight: float) -> SparseVec:
    """The query with the feedback chunks' strongest new terms added (weighted by IDF)."""
    scores: Counter[int] = Counter()
    for vector in feedback:
        for term, value in zip(vector.indices, vector.values, strict=True):
            scores[term] += value
    own = set(query.indices)
    best = [(t, s) for t, s in scores.most_common() if t not in own][:terms]
    if not best:
        return query
    top = best[0][1] or 1.0
    added = weigh_query(SparseVec([t for t, _ in best], [weight * s / top for _, s in best]),
                        corpus([t for t, _ in best]))
    return SparseVec(list(query.indices) + list(added.indices),
                     list(query.values) + list(added.values))
