import pytest

from app.search.fusion import as_if_unfiltered, fuse, fuse_dbsf, fuse_relative_scores
from tests.search.helpers import cand


def test_hand_computed_weighted_rank_fusion() -> None:
    dense = [cand("a", 0, dense_rank=1), cand("b", 0, dense_rank=2), cand("c", 0, dense_rank=3)]
    sparse = [cand("c", 0, sparse_rank=1), cand("a", 0, sparse_rank=2)]
    fused = {c.chunk_id: c.fused for c in fuse(dense, sparse, alpha=0.7)}
    # a: 0.7/61 + 0.3/62 = 0.011475409836 + 0.004838709677
    assert fused["a:v1:0"] == pytest.approx(0.016314119513, abs=1e-12)
    # b: 0.7/62 only; the sparse lane did not find it and adds nothing
    assert fused["b:v1:0"] == pytest.approx(0.011290322581, abs=1e-12)
    # c: 0.7/63 + 0.3/61 = 0.011111111111 + 0.004918032787
    assert fused["c:v1:0"] == pytest.approx(0.016029143898, abs=1e-12)
    assert [c.chunk_id for c in fuse(dense, sparse, alpha=0.7)] == ["a:v1:0", "c:v1:0", "b:v1:0"]


def test_equal_weights_match_the_seed_example() -> None:
    # seed 002: rank 1 in both → 1/61 + 1/61 = 0.0328 (plain RRF); here alpha halves each lane
    fused = fuse([cand("r", 0, dense_rank=1)], [cand("r", 0, sparse_rank=1)], alpha=0.5)
    assert fused[0].fused == pytest.approx(0.5 * (2 / 61))
    assert round(2 * fused[0].fused, 4) == 0.0328


def test_alpha_one_ignores_sparse_and_zero_ignores_dense() -> None:
    dense = [cand("a", 0, dense_rank=1)]
    sparse = [cand("b", 0, sparse_rank=1)]
    assert [c.chunk_id for c in fuse(dense, sparse, alpha=1.0)][0] == "a:v1:0"
    assert fuse(dense, sparse, alpha=1.0)[1].fused == 0.0
    assert [c.chunk_id for c in fuse(dense, sparse, alpha=0.0)][0] == "b:v1:0"


def test_ties_break_by_chunk_id_with_numeric_chunk_index() -> None:
    dense = [cand("d", 10, dense_rank=1), cand("d", 2, dense_rank=1)]
    order = [c.chunk_id for c in fuse(dense, [], alpha=0.5)]
    assert order == ["d:v1:2", "d:v1:10"]
    # the same input in another order gives the same output
    assert [c.chunk_id for c in fuse(list(reversed(dense)), [], alpha=0.5)] == order


def test_fusion_keeps_both_lane_scores() -> None:
    fused = fuse([cand("a", 0, dense=0.8, dense_rank=1)], [cand("a", 0, sparse=7.5,
                                                                sparse_rank=3)], alpha=0.5)
    assert (fused[0].dense_score, fused[0].sparse_score) == (0.8, 7.5)
    assert (fused[0].dense_rank, fused[0].sparse_rank) == (1, 3)


def test_hand_computed_relative_score_fusion() -> None:
    dense = [cand("a", 0, dense=0.9, dense_rank=1), cand("c", 0, dense=0.7, dense_rank=2),
             cand("b", 0, dense=0.5, dense_rank=3)]
    sparse = [cand("c", 0, sparse=10.0, sparse_rank=1), cand("a", 0, sparse=4.0, sparse_rank=2)]
    fused = fuse_relative_scores(dense, sparse, alpha=0.6)
    # scaled dense a 1.0, c 0.5, b 0.0; scaled sparse c 1.0, a 0.0
    # a: 0.6 * 1.0 + 0.4 * 0.0 = 0.6; c: 0.6 * 0.5 + 0.4 * 1.0 = 0.7; b: 0.0
    assert [(c.chunk_id, round(c.fused, 12)) for c in fused] == [
        ("c:v1:0", 0.7), ("a:v1:0", 0.6), ("b:v1:0", 0.0)]
    assert (fused[0].dense_score, fused[0].sparse_score) == (0.7, 10.0)


def test_relative_scores_of_a_one_candidate_lane_count_fully() -> None:
    fused = fuse_relative_scores([], [cand("s", 0, sparse=3.2, sparse_rank=1)], alpha=0.25)
    assert [(c.chunk_id, c.fused) for c in fused] == [("s:v1:0", 0.75)]


def test_hand_computed_distribution_based_score_fusion() -> None:
    dense = [cand("a", 0, dense=0.9, dense_rank=1), cand("c", 0, dense=0.7, dense_rank=2),
             cand("b", 0, dense=0.5, dense_rank=3)]
    sparse = [cand("c", 0, sparse=10.0, sparse_rank=1), cand("a", 0, sparse=4.0, sparse_rank=2)]
    fused = fuse_dbsf(dense, sparse, alpha=0.6)
    # dense: μ 0.7, σ = sqrt(0.08 / 3) = 0.163299; scaled = 0.5 + (s − μ) / 6σ:
    #   a 0.704124, c 0.5, b 0.295876
    # sparse: μ 7, σ 3; scaled = (s − (7 − 9)) / 18: c 0.666667, a 0.333333
    # a: 0.6 · 0.704124 + 0.4 · 0.333333 = 0.555808
    # c: 0.6 · 0.5      + 0.4 · 0.666667 = 0.566667
    # b: 0.6 · 0.295876                  = 0.177526
    assert [(c.chunk_id, round(c.fused, 6)) for c in fused] == [
        ("c:v1:0", 0.566667), ("a:v1:0", 0.555808), ("b:v1:0", 0.177526)]
    a = fused[1]
    assert (round(a.dense_scaled, 6), round(a.sparse_scaled, 6)) == (0.704124, 0.333333)
    assert (a.dense_score, a.sparse_score, a.dense_rank, a.sparse_rank) == (0.9, 4.0, 1, 2)
    assert fused[2].sparse_scaled is None  # b: the BM25 lane did not find it


def test_dbsf_of_a_lane_whose_scores_are_all_equal_gives_each_the_middle() -> None:
    fused = fuse_dbsf([], [cand("s", 0, sparse=3.2, sparse_rank=1),
                           cand("t", 0, sparse=3.2, sparse_rank=2)], alpha=0.25)
    assert [(c.chunk_id, c.fused) for c in fused] == [("s:v1:0", 0.375), ("t:v1:0", 0.375)]


def test_dbsf_does_not_clip_an_outlier() -> None:
    scores = [10.0] + [1.0] * 20  # μ 1.43, σ 1.92: the outlier sits beyond μ + 3σ
    fused = fuse_dbsf([cand(f"d{i}", 0, dense=s, dense_rank=i + 1)
                       for i, s in enumerate(scores)], [], alpha=1.0)
    assert fused[0].chunk_id == "d0:v1:0" and fused[0].fused > 1.0


def test_a_filtered_fusion_keeps_the_unfiltered_ranks_and_order() -> None:
    # unfiltered: ops-03 dense #1 sparse #2, fin-05 dense #2 sparse #1, hr-01 dense #3
    dense = [cand("ops-03", 0, dense=0.9, dense_rank=1), cand("fin-05", 0, dense=0.8,
             dense_rank=2), cand("hr-01", 0, dense=0.7, dense_rank=3)]
    sparse = [cand("fin-05", 0, sparse=5.0, sparse_rank=1),
              cand("ops-03", 0, sparse=4.0, sparse_rank=2)]
    unfiltered = fuse(dense, sparse, alpha=0.7)
    # 0.7/61 + 0.3/62 = 0.016314 (ops-03) > 0.7/62 + 0.3/61 = 0.016208 (fin-05)
    assert [c.document_id for c in unfiltered] == ["ops-03", "fin-05", "hr-01"]
    # the filter keeps ops-03 and fin-05 plus a chunk the unfiltered lanes never reached
    f_dense = [cand("ops-03", 0, dense=0.9, dense_rank=1),
               cand("fin-05", 0, dense=0.8, dense_rank=2)]
    f_sparse = [cand("fin-05", 0, sparse=5.0, sparse_rank=1),
                cand("ops-03", 0, sparse=4.0, sparse_rank=2),
                cand("deep-9", 0, sparse=1.5, sparse_rank=3)]
    kept = as_if_unfiltered(unfiltered, fuse(f_dense, f_sparse, alpha=0.7))
    assert [c.document_id for c in kept] == ["ops-03", "fin-05", "deep-9"]
    assert kept[0].fused == pytest.approx(0.7 / 61 + 0.3 / 62)
    assert (kept[1].dense_rank, kept[1].sparse_rank) == (2, 1)
