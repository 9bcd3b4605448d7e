"""A lane's hits as ranked candidates: the floor's order (score, then chunk id) whatever order
the engine returned exact ties in, ranks from 1 after the floor, every fetched id kept."""

from __future__ import annotations

from app.search.lanes import lane_query, lane_result
from app.store import ChunkFilter, StoredHit
from app.store.payload import CHUNK_INDEX, DOCUMENT_ID, VERSION_ID


def hit(point: str, doc: str, index: int, score: float) -> StoredHit:
    return StoredHit(point, score, {DOCUMENT_ID: doc, VERSION_ID: "v1", CHUNK_INDEX: index})


def test_ties_ranked_by_chunk_id_and_the_floor_drops_the_tail() -> None:
    engine_order = [hit("p1", "z", 0, 2.0), hit("p2", "a", 3, 2.0), hit("p3", "a", 1, 2.0),
                    hit("p4", "b", 0, 1.5), hit("p5", "c", 0, 0.9), hit("p6", "d", 0, 0.99)]
    asked = lane_query("sparse", [0.1], ChunkFilter(client_id="c"), 50)
    result = lane_result("sparse", asked, engine_order, floor=1.0)
    assert [(c.point_id, c.sparse_rank) for c in result.hits] == [
        ("p3", 1), ("p2", 2), ("p1", 3), ("p4", 4)]  # 0.99 and 0.9 under the floor of 1.0
    assert result.fetched_ids == ("p1", "p2", "p3", "p4", "p5", "p6")
    at_floor = lane_result("sparse", asked, [hit("p5", "c", 0, 1.0)], floor=1.0)
    assert [c.point_id for c in at_floor.hits] == ["p5"]  # a score equal to the floor stays
