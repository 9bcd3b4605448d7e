import math

import pytest

from evaluation.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k


def test_ndcg_hand_computed() -> None:
    # relevant at ranks 2 and 4 of two relevant docs: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "a", "y", "b"], {"a": 1, "b": 1}) == pytest.approx(expected)
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 1}) == pytest.approx(1.0)
    assert ndcg_at_k(["x"], {"a": 1}) == 0.0


def test_recall_and_mrr() -> None:
    assert recall_at_k(["a", "x", "b"], {"a": 1, "b": 1, "c": 1}, 2) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "a"], {"a": 1}) == pytest.approx(1 / 3)
    assert mrr_at_k(["x"] * 10 + ["a"], {"a": 1}) == 0.0


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([0.0, 10.0], 1) == pytest.approx(0.1)
