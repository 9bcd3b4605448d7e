"""Per-client BM25 weighting (app/search/bm25.py), by hand."""

from __future__ import annotations

import math

import pytest

from app.models.encoders import SparseVec
from app.registry.bm25_stats import term_document_frequencies
from app.search.bm25 import (
    BackgroundPrior,
    CorpusStats,
    idf,
    weigh_query,
)


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


# The public prior (app/search/bm25.py BackgroundPrior), by hand: m = 1000 pseudo-chunks, a term of
# frequency 1e-5 per word → p = 1 − exp(−256 · 1e-5) = 0.0025567, so m · p = 2.5567.
PRIOR = BackgroundPrior({42: 1e-5}, chunks=1000)


def test_the_prior_rate_is_the_chance_a_256_word_chunk_holds_the_word() -> None:
    assert PRIOR.rate(42) == pytest.approx(1 - math.exp(-256e-5), rel=1e-12)
    assert PRIOR.rate(42) == pytest.approx(0.0025567, abs=1e-7)
    # a word the background never saw counts as wordfreq's least frequency, 1e-8
    assert PRIOR.rate(7) == pytest.approx(2.56e-6, rel=1e-5)


@pytest.mark.parametrize("chunks, df, expected", [
    # ln((N + m − (df + m·p) + 0.5) / (df + m·p + 0.5) + 1)
    (1, 1, math.log((1001 - 3.5567 + 0.5) / (3.5567 + 0.5) + 1)),       # 5.509; alone 0.288
    (2, 1, math.log((1002 - 3.5567 + 0.5) / (3.5567 + 0.5) + 1)),       # 5.510; alone 0.693
    (5, 1, math.log((1005 - 3.5567 + 0.5) / (3.5567 + 0.5) + 1)),       # 5.513; alone 1.386
    (1000, 1, math.log((2000 - 3.5567 + 0.5) / (3.5567 + 0.5) + 1)),    # 6.201; alone 6.503
    (1000, 100, math.log((2000 - 102.5567 + 0.5) / (102.5567 + 0.5) + 1)),  # 2.966; alone 2.299
])
def test_small_corpora_get_an_idf_from_the_prior_large_ones_from_their_counts(
        chunks: int, df: int, expected: float) -> None:
    stats = CorpusStats(chunks=chunks, df={42: df}, prior=PRIOR)
    assert stats.idf(42) == pytest.approx(expected, abs=1e-4)


def test_one_document_scores_over_the_bm25_floor_with_the_prior_and_under_it_alone() -> None:
    # BM25 term weight of one occurrence in a 20-token chunk: 2.2 / (1 + 1.2·(0.25 + 0.75·20/256))
    tf_part = 2.2 / (1 + 1.2 * (0.25 + 0.75 * 20 / 256))
    query = SparseVec([42], [1.0])
    alone = weigh_query(query, CorpusStats(chunks=1, df={42: 1}))
    blended = weigh_query(query, CorpusStats(chunks=1, df={42: 1}, prior=PRIOR))
    assert alone.values[0] * tf_part < 1.0 < blended.values[0] * tf_part


def test_a_common_word_weighs_less_than_a_rare_one_from_the_first_document() -> None:
    prior = BackgroundPrior({1: 1e-3, 2: 1e-6}, chunks=1000)  # "report" vs "apoptosis"
    stats = CorpusStats(chunks=1, df={1: 1, 2: 1}, prior=prior)
    assert stats.idf(1) < stats.idf(2)
    # without the prior both are the same 0.288: one document cannot tell them apart
    assert CorpusStats(chunks=1, df={1: 1, 2: 1}).idf(1) == CorpusStats(
        chunks=1, df={1: 1, 2: 1}).idf(2)


def test_no_prior_weight_is_qdrants_formula_exactly() -> None:
    stats = CorpusStats(chunks=3, df={42: 2}, prior=BackgroundPrior({42: 1e-5}, chunks=0))
    assert stats.idf(42) == idf(3, 2)
