from app.search.floors import apply_floor
from tests.search.helpers import cand


def test_dense_floor_drops_below_and_ranks_from_one() -> None:
    hits = [cand("a", 0, dense=0.69), cand("b", 0, dense=0.91), cand("c", 0, dense=0.70)]
    kept = apply_floor(hits, lane="dense", floor=0.70)
    assert [(c.document_id, c.dense_rank) for c in kept] == [("b", 1), ("c", 2)]


def test_sparse_floor_is_inclusive() -> None:
    hits = [cand("a", 0, sparse=1.0), cand("b", 0, sparse=0.99)]
    kept = apply_floor(hits, lane="sparse", floor=1.0)
    assert [(c.document_id, c.sparse_rank) for c in kept] == [("a", 1)]


def test_equal_scores_rank_by_chunk_id() -> None:
    kept = apply_floor([cand("z", 0, dense=0.8), cand("a", 0, dense=0.8)], lane="dense",
                       floor=0.0)
    assert [c.document_id for c in kept] == ["a", "z"]
