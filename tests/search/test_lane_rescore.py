"""The lane rescorings of issue 37 (app/search/lane_rescore.py) with hand-computed scores:
a title weight on both sides of the point where it reorders, one encoding per title; a best
sentence that lifts its chunk past another and one that does not; the depth bound."""

from __future__ import annotations

import numpy as np

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


ANSWER = "The answer is in this sentence."


def _embed(seen: list[str]):  # type: ignore[no-untyped-def]
    def embed(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return np.array([[1.0, 0.0] if "answer" in t else [0.6, 0.8] for t in texts])
    return embed


def _dense_hits() -> list:  # type: ignore[type-arg]
    return [cand("b", 0, dense=0.7, dense_rank=1, text="Nothing relevant here at all."),
            cand("a", 0, dense=0.5, dense_rank=2, text="An opening sentence, long enough. "
                                                       + ANSWER),
            cand("c", 0, dense=0.4, dense_rank=3, text=ANSWER)]


def test_a_chunk_whose_best_sentence_beats_it_moves_up() -> None:
    seen: list[str] = []
    # query (1, 0): "answer" sentences score 1.0, the others 0.6
    out = with_sentence_scores(_dense_hits(), [1.0, 0.0], _embed(seen), depth=2)
    assert [(c.chunk_id, c.dense_score, c.dense_rank) for c in out] == [
        ("a:v1:0", 1.0, 1), ("b:v1:0", 0.7, 2), ("c:v1:0", 0.4, 3)]  # c: past the depth
    # b's best sentence (0.6) is below its own 0.7: kept; each sentence read with its title
    assert seen == ["b\n\nNothing relevant here at all.", "a\n\nAn opening sentence, long "
                    "enough.", f"a\n\n{ANSWER}"]


def test_depth_zero_or_no_sentences_leave_the_lane_as_it_was() -> None:
    assert with_sentence_scores(_dense_hits(), [1.0, 0.0], _embed([]), depth=0) == _dense_hits()
    short = [cand("x", 0, dense=0.3, dense_rank=1, text="Too short.")]
    assert with_sentence_scores(short, [1.0, 0.0], _embed([]), depth=5) == short
