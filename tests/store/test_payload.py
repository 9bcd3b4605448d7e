"""The chunk payload's one home (app/store/payload.py)."""

from __future__ import annotations

from app.domain.leaves import Leaf
from app.search.rerank import rerank
from app.search.types import Candidate
from app.store.payload import (
    TEXT,
    chunk_payload,
    passage_prefix,
    passage_text,
    payload_meta,
    stored_passage,
)


class Recording:
    name = "recording"

    def __init__(self) -> None:
        self.passages: list[str] = []

    def score(self, query: str, passages: list[str]) -> list[float]:
        self.passages.extend(passages)
        return [0.0] * len(passages)


def test_the_reranker_reads_exactly_the_passage_that_was_embedded() -> None:
    payload = chunk_payload(
        client_id="c", document_id="hb", version_id="v1", chunk_index=0,
        text="You get 25 days.", title="Handbook", heading_path=("Handbook", "Leave"),
        page=None, line_start=3, line_end=3, char_start=0, char_end=16, kind="md",
        source=None, entities={}, meta={}, meta_bool={})
    embedded = passage_text("Handbook", ("Handbook", "Leave"), "You get 25 days.")
    assert embedded == "Handbook > Leave\n\nYou get 25 days."  # the title once
    assert stored_passage(payload) == embedded
    reranker = Recording()
    rerank("days", [Candidate("p", "hb", "v1", 0, payload)], reranker=reranker, limit=10,
           timeout_s=5)
    assert reranker.passages == [embedded]
    assert payload[TEXT] == "You get 25 days." and payload["visibility"] == "hidden"
    assert passage_prefix(None, ()) == "" and passage_text(None, (), "t") == "t"


def test_metadata_trees_for_filters_keep_booleans_apart_and_tolerate_shape_clashes() -> None:
    meta, meta_bool = payload_meta([
        Leaf("custom.project", "string", "Apollo"), Leaf("custom.tags", "string", "a"),
        Leaf("custom.tags", "string", "b"), Leaf("quality.ocr_used", "boolean", False),
        Leaf("custom.a.b", "number", 1), Leaf("custom.a.b.c", "number", 2),
        Leaf("entities.persons", "string", "Jane")])
    assert meta == {"custom": {"project": "Apollo", "tags": ["a", "b"], "a": {"b": 1}}}
    assert meta_bool == {"quality": {"ocr_used": "false"}}


def test_a_chunk_id_names_its_version_in_the_payload_and_in_citations() -> None:
    from app.search.types import Candidate
    from app.store.payload import chunk_ref

    assert chunk_ref("snap", "v2", 0) == "snap:v2:0"
    c = Candidate(point_id="p", document_id="snap", version_id="v2", chunk_index=0, payload={})
    assert c.chunk_id == chunk_ref("snap", "v2", 0) != chunk_ref("snap", "v1", 0)
