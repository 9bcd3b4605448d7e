"""The lane rescorings of issue 37 (app/search/lane_rescore.py) with hand-computed scores:
a title weight on both sides of the point where it reorders, one encoding per title; a best
stored sentence score that lifts its chunk past another, one just short of it, a tie; the depth
bound."""

from __future__ import annotations

from app.models.encoders import SparseVec
from app.search.lane_rescore import with_sentence_scores, with_title_weight
from tests.search.helpers import cand

QUERY = SparseVec(indices=[1, 2], values=[2.0, 1.0])
TITLES = {"alpha": SparseVec(indices=[1], values=[1.0]),  # title score 2·1 = 2.0
          "beta": SparseVec(indices=[3], values=[1.0])}  # shares no query term: 0.0


def _encoder(calls: list[list[str]]):  # type: ignore[no-untyped-def]
    def encode(texts: list[str]) -> list[SparseVec]:
        calls.append(list(texts))
        return [TITLES[t] for t in texts]
    return encode


def _bm25_hits() -> list:  # type: ignore[type-arg]
    return [cand("beta", 0, sparse=3.5, sparse_rank=1), cand("alpha", 0, sparse=3.0,
                                                             sparse_rank=2),
            cand("alpha", 1, sparse=1.0, sparse_rank=3)]


def test_a_title_match_lifts_its_chunk_once_the_weight_covers_the_gap() -> None:
    calls: list[list[str]] = []
    # weight 1: alpha/0 = 3.0 + 2.0 = 5.0 passes beta/0 = 3.5; alpha/1 = 1.0 + 2.0 = 3.0
    out = with_title_weight(_bm25_hits(), QUERY, _encoder(calls), 1.0)
    assert [(c.chunk_id, c.sparse_score, c.sparse_rank) for c in out] == [
        ("alpha:v1:0", 5.0, 1), ("beta:v1:0", 3.5, 2), ("alpha:v1:1", 3.0, 3)]
    assert calls == [["beta", "alpha"]]  # one encoding per distinct title


def test_a_small_title_weight_does_not_reorder_and_zero_is_off() -> None:
    # weight 0.2: alpha/0 = 3.0 + 0.4 = 3.4 < 3.5
    out = with_title_weight(_bm25_hits(), QUERY, _encoder([]), 0.2)
    assert [(c.chunk_id, round(c.sparse_score, 6)) for c in out] == [
        ("beta:v1:0", 3.5), ("alpha:v1:0", 3.4), ("alpha:v1:1", 1.4)]
    calls: list[list[str]] = []
    assert with_title_weight(_bm25_hits(), QUERY, _encoder(calls), 0.0) == _bm25_hits()
    assert calls == []


def _dense_hits() -> list:  # type: ignore[type-arg]
    return [cand("b", 0, dense=0.7, dense_rank=1), cand("a", 0, dense=0.5, dense_rank=2),
            cand("c", 0, dense=0.4, dense_rank=3)]


def _ids(*docs: str) -> list[str]:
    return [next(c.point_id for c in _dense_hits() if c.document_id == d) for d in docs]


def test_a_chunk_whose_best_sentence_beats_it_moves_up() -> None:
    b, a, c = _ids("b", "a", "c")
    # a's best sentence 0.9 beats b's chunk 0.7; b's best sentence (0.6) is below its own
    # cosine: kept; c's 1.0 is past the depth: not looked at
    out = with_sentence_scores(_dense_hits(), {b: 0.6, a: 0.9, c: 1.0}, depth=2)
    assert [(c.chunk_id, c.dense_score, c.dense_rank) for c in out] == [
        ("a:v1:0", 0.9, 1), ("b:v1:0", 0.7, 2), ("c:v1:0", 0.4, 3)]


def test_a_sentence_just_below_the_chunk_ahead_changes_nothing() -> None:
    b, a = _ids("b", "a")
    out = with_sentence_scores(_dense_hits(), {a: 0.69}, depth=3)
    assert [(c.chunk_id, c.dense_score) for c in out] == [
        ("b:v1:0", 0.7), ("a:v1:0", 0.69), ("c:v1:0", 0.4)]
    # a tie keeps the lane's order
    out = with_sentence_scores(_dense_hits(), {a: 0.7}, depth=3)
    assert [c.chunk_id for c in out] == ["b:v1:0", "a:v1:0", "c:v1:0"]


def test_depth_zero_or_no_sentences_leave_the_lane_as_it_was() -> None:
    b, a, _c = _ids("b", "a", "c")
    assert with_sentence_scores(_dense_hits(), {a: 0.9}, depth=0) == _dense_hits()
    assert with_sentence_scores(_dense_hits(), {}, depth=5) == _dense_hits()
