"""Two rescorings of one lane's candidates before fusion (issue 37's levers, both opt-in and
measured in docs/BENCHMARKS.md): pure stages, the pipeline hands them what they read.

- **Title weight** (BM25 lane): a chunk's BM25 score plus ``weight`` × the BM25 score of its
  title and headings alone — the passage prefix (app/store/payload.passage_prefix) is already
  in every chunk's text once, so weight 1 counts a word of the title twice, BM25F's usual title
  boost of 2 (Robertson, Zaragoza & Taylor, 2004). The floor was applied to the chunk's own
  score: the boost reorders what passed, it lets nothing in.
- **Sentences** (dense lane): a chunk's score becomes the best of its own cosine and its best
  sentence's (each sentence embedded with the chunk's prefix, as the chunk was, so the two
  scores stand on the same footing): a passage that answers in one sentence among several
  others is not diluted by them. Only the lane's first ``depth`` chunks are rescored (the ones
  that can reach a page); the rest keep their order after them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from app.models.encoders import SparseVec
from app.search.snippets import cosines, sentences
from app.search.types import Candidate
from app.store.payload import TEXT, stored_prefix


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


def best_sentence_scores(texts: Sequence[str], prefixes: Sequence[str],
                         query_vector: Sequence[float],
                         embed: Callable[[list[str]], np.ndarray]) -> list[float | None]:
    """Each text's best sentence cosine with the query (one batch), None without sentences."""
    spans = [sentences(t) for t in texts]
    flat = [f"{p}\n\n{t[a:b].strip()}" if p else t[a:b].strip()
            for t, p, found in zip(texts, prefixes, spans, strict=True) for a, b in found]
    if not flat:
        return [None] * len(texts)
    similarity = cosines(flat, query_vector, embed)
    out: list[float | None] = []
    at = 0
    for found in spans:
        out.append(float(similarity[at:at + len(found)].max()) if found else None)
        at += len(found)
    return out


def with_sentence_scores(candidates: Sequence[Candidate], query_vector: Sequence[float],
                         embed: Callable[[list[str]], np.ndarray], depth: int
                         ) -> list[Candidate]:
    """Dense candidates (the first ``depth`` with their texts) rescored by their best
    sentence where it beats the chunk; the rest follow unchanged."""
    head, tail = list(candidates[:depth]), list(candidates[depth:])
    if not head:
        return list(candidates)
    prefixes = [stored_prefix(c.payload) for c in head]
    best = best_sentence_scores([c.payload.get(TEXT, "") for c in head], prefixes,
                                query_vector, embed)
    scores = [max(c.dense_score or 0.0, s if s is not None else -1.0)
              for c, s in zip(head, best, strict=True)]
    return _reranked(head, scores, "dense") + tail
