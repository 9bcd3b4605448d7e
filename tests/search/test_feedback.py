"""Pseudo-relevance feedback, hand-computed."""

from __future__ import annotations

import math

import pytest

from app.models.encoders import SparseVec
from app.search.bm25 import CorpusStats, idf
from app.search.feedback import expand_sparse, rocchio


def test_rocchio_moves_the_query_toward_the_feedback_and_renormalises() -> None:
    moved = rocchio([1.0, 0.0], [[0.0, 1.0], [0.0, 1.0]], beta=0.5)
    # q + 0.5 · mean = (1, 0.5) → / sqrt(1.25)
    assert moved == pytest.approx([1 / math.sqrt(1.25), 0.5 / math.sqrt(1.25)])
    assert rocchio([0.6, 0.8], [], beta=0.5) == [0.6, 0.8]


def test_expansion_adds_the_strongest_new_terms_weighted_by_idf() -> None:
    stats = CorpusStats(chunks=100, df={1: 10, 2: 5, 3: 50, 4: 1})

    def corpus(terms):  # type: ignore[no-untyped-def]
        return CorpusStats(chunks=stats.chunks, df={t: stats.df.get(t, 0) for t in terms})

    query = SparseVec([1], [idf(100, 10)])
    feedback = [SparseVec([1, 2, 3], [1.0, 2.0, 1.0]), SparseVec([2, 3, 9], [1.0, 0.5, 3.0])]
    # new terms: 2 → 3.0, 9 → 3.0 (held by no chunk of the client: dropped), 3 → 1.5
    expanded = expand_sparse(query, feedback, corpus, terms=3, weight=0.5)
    assert expanded.indices == [1, 2, 3]
    assert expanded.values == pytest.approx([idf(100, 10), 0.5 * 1.0 * idf(100, 5),
                                             0.5 * 0.5 * idf(100, 50)])
    assert expand_sparse(query, [], corpus, terms=3, weight=0.5) == query
