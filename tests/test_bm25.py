"""Per-client BM25 weighting (app/bm25.py), by hand."""

from __future__ import annotations

import math

import pytest

from app.bm25 import CorpusStats, idf, term_document_frequencies, weigh_query
from app.models.encoders import SparseVec


@pytest.mark.parametrize("chunks, df, expected", [
    (3, 2, math.log(1.6)),        # (3 - 2 + 0.5) / (2 + 0.5) + 1 = 1.6
    (3, 3, math.log(8 / 7)),      # 0.5 / 3.5 + 1
    (1, 1, math.log(4 / 3)),      # one document: 0.2877, under the 1.0 floor
    (2, 5, math.log(1.2)),        # df clamped to N: never the log of a negative
])
def test_idf_is_qdrants_formula(chunks: int, df: int, expected: float) -> None:
    assert idf(chunks, df) == pytest.approx(expected, abs=1e-12)


def test_the_query_carries_the_clients_idf_and_drops_terms_it_never_holds() -> None:
    query = SparseVec([7, 8, 9], [1.0, 2.0, 1.0])
    weighted = weigh_query(query, CorpusStats(chunks=3, df={7: 2, 9: 3}))
    assert weighted.indices == [7, 9]
    assert weighted.values == pytest.approx([math.log(1.6), math.log(8 / 7)])


def test_a_versions_document_frequencies_count_chunks_not_occurrences() -> None:
    chunks = [SparseVec([5, 1], [2.0, 1.0]), SparseVec([1], [3.0]), SparseVec([], [])]
    assert term_document_frequencies(chunks) == {"1": 2, "5": 1}
