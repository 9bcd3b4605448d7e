"""Two rescorings of one lane's candidates before fusion (issue 37's levers, each kept or
dropped by its interval in docs/BENCHMARKS.md: the title weight opt-in, the sentence scores on
by default): pure stages, the pipeline hands them what they read.

- **Title weight** (BM25 lane): a chunk's BM25 score plus ``weight`` × the BM25 score of its
  title and headings alone — the passage prefix (app/store/payload.passage_prefix) is already
  in every chunk's text once, so weight 1 counts a word of the title twice, BM25F's usual title
  boost of 2 (Robertson, Zaragoza & Taylor, 2004). The floor was applied to the chunk's own
  score: the boost reorders what passed, it lets nothing in.
- **Sentences** (dense lane): a chunk's score becomes the best of its own cosine and its best
  sentence's (each sentence embedded at ingestion with the chunk's prefix, as the chunk was,
  so the two scores stand on the same footing; the engine's MaxSim over the stored
  multivector finds the best): a passage that answers in one sentence among several others
  is not diluted by them. Only the lane's first ``depth`` chunks are rescored (the ones that
  can reach a page); the rest keep their order after them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from app.models.encoders import SparseVec
from app.search.types import Candidate
from app.store.payload import stored_prefix


def _dot(query: SparseVec, doc: SparseVec) -> float:
    weights = dict(zip(query.indices, query.values, strict=True))
    return float(sum(weights.get(i, 0.0) * v for i, v in zip(doc.indices, doc.values,
                                                              strict=True)))


def _reranked(candidates: Sequence[Candidate], scores: Sequence[float], lane: str
              ) -> list[Candidate]:
    """The candidates ordered by ``scores`` (ties keep the lane's order), ranks renumbered."""
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    field = f"{lane}_score"
    return [replace(candidates[i], **{field: scores[i], f"{lane}_rank": rank})
            for rank, i in enumerate(order, start=1)]


def with_title_weight(candidates: Sequence[Candidate], query: SparseVec,
                      encode: Callable[[list[str]], list[SparseVec]], weight: float
                      ) -> list[Candidate]:
    """BM25 candidates (payloads holding title and headings) rescored with their title's own
    BM25 score × ``weight``; one encoding per distinct prefix."""
    if weight <= 0 or not candidates:
        return list(candidates)
    prefixes = [stored_prefix(c.payload) for c in candidates]
    distinct = [p for p in dict.fromkeys(prefixes) if p]
    title_score = dict(zip(distinct, (_dot(query, v) for v in encode(distinct)), strict=True))
    scores = [(c.sparse_score or 0.0) + weight * title_score.get(p, 0.0)
              for c, p in zip(candidates, prefixes, strict=True)]
    return _reranked(candidates, scores, "sparse")


def with_sentence_scores(candidates: Sequence[Candidate], best: Mapping[str, float],
                         depth: int) -> list[Candidate]:
    """Dense candidates, the first ``depth`` rescored by their best sentence's cosine
    (``best``: point id → the stored sentence vectors' MaxSim with the query) where it beats
    the chunk's own; a chunk without sentence vectors keeps its score; the rest follow
    unchanged."""
    head, tail = list(candidates[:depth]), list(candidates[depth:])
    if not head or not best:
        return list(candidates)
    scores = [max(c.dense_score or 0.0, best.get(c.point_id, -1.0)) for c in head]
    return _reranked(head, scores, "dense") + tail
