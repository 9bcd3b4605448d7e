"""The same behaviour from both VectorStore implementations: the embedded Qdrant Edge engine
and qdrant-client (its local mode standing in for a Qdrant server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.domain.errors import ModelMismatchError, StoreNeedsReindex, StoreRejected
from app.models.encoders import SparseVec
from app.registry.bm25_stats import term_document_frequencies
from app.search.bm25 import CorpusStats, weigh_query
from app.settings import QdrantSettings
from app.store import ChunkFilter, ChunkPoint, LaneQuery, open_store
from app.store.base import DENSE, HIDDEN, SEARCHABLE, SPARSE, point_id
from tests.fakes import FakeDense, FakeSparse

TEXTS = {
    ("c1", "a", "v1"): ["budget report for apollo", "vacation policy days"],
    ("c1", "b", "v1"): ["invoice PO-2231 paid", "budget overrun"],
    ("c2", "x", "v1"): ["budget report of another client"],
}


def _settings(kind: str, tmp: Path) -> QdrantSettings:
    if kind == "edge":
        return QdrantSettings(path=tmp / "edge")
    return QdrantSettings(url=f"path:{tmp / 'local'}")


@pytest.fixture(params=["edge", "qdrant-client"])
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    s = open_store(_settings(request.param, tmp_path), dense_model="fake", dense_dim=384)
    dense, sparse = FakeDense(), FakeSparse()
    for (client, doc, version), texts in TEXTS.items():
        s.upsert([ChunkPoint(
            id=point_id(client, doc, version, i), dense=dense.embed_documents([t])[0].tolist(),
            sparse=sparse.embed_documents([t])[0],
            payload={"client_id": client, "document_id": doc, "version_id": version,
                     "chunk_index": i, "text": t, "kind": "txt", "source": "",
                     "visibility": HIDDEN}) for i, t in enumerate(texts)])
        s.set_searchable(client_id=client, document_id=doc, version_id=version,
                         searchable=True)
    yield s
    s.close()


def _ids(hits) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(h.payload["document_id"], h.payload["chunk_index"]) for h in hits]


def test_dense_query_is_filtered_by_client_inside_the_engine(store) -> None:
    hits = store.query_dense(FakeDense().embed_query("budget report"), ChunkFilter("c1"), 10)
    assert ("x", 0) not in _ids(hits)
    assert _ids(hits)[0] == ("a", 0)
    assert len(hits) == 4


def test_sparse_query_is_a_plain_dot_product_the_idf_is_the_querys(store) -> None:
    """No engine IDF modifier: stored term counts times the query's weights, nothing else."""
    query = FakeSparse().embed_query("PO-2231")
    hits = store.query_sparse(SparseVec(query.indices, [2.5] * len(query.indices)),
                              ChunkFilter("c1"), 10)
    assert _ids(hits) == [("b", 0)]
    # "invoice PO-2231 paid": "po" and "2231" once each (FakeSparse splits on \W), 2.5 apiece
    assert hits[0].score == pytest.approx(5.0)


def test_hidden_versions_are_invisible_until_made_searchable(store) -> None:
    store.set_searchable(client_id="c1", document_id="a", version_id="v1", searchable=False)
    assert {d for d, _ in _ids(store.scroll(ChunkFilter("c1")))} == {"b"}
    assert store.count(ChunkFilter("c1", searchable_only=False)) == 4
    assert store.scroll(ChunkFilter("c1"))[0].payload["visibility"] == SEARCHABLE


def test_filters_by_document_kind_and_any_of(store) -> None:
    assert store.count(ChunkFilter("c1", document_ids=("a",))) == 2
    assert store.count(ChunkFilter("c1", document_ids=("a", "b"))) == 4
    assert store.count(ChunkFilter("c1", kinds=("pdf",))) == 0


def test_delete_a_version_and_a_document(store) -> None:
    store.delete(client_id="c1", document_id="a", version_id="v1")
    assert store.count(ChunkFilter("c1")) == 2
    store.delete(client_id="c1", document_id="b")
    assert store.count(ChunkFilter("c1")) == 0
    assert store.count(ChunkFilter("c2")) == 1  # another client's points untouched


def test_upserting_the_same_ids_never_duplicates(store) -> None:
    before = store.count(ChunkFilter("c1"))
    hit = store.scroll(ChunkFilter("c1", document_ids=("a",)))[0]
    dense = FakeDense().embed_documents(["x"])[0].tolist()
    store.upsert([ChunkPoint(id=hit.id, dense=dense, sparse=FakeSparse().embed_query("x"),
                             payload=hit.payload)])
    assert store.count(ChunkFilter("c1")) == before


@pytest.mark.parametrize("kind", ["edge", "qdrant-client"])
def test_opening_with_another_dense_model_is_a_clear_error(kind: str, tmp_path: Path) -> None:
    open_store(_settings(kind, tmp_path), dense_model="model-a", dense_dim=384).close()
    with pytest.raises(ModelMismatchError) as err:
        open_store(_settings(kind, tmp_path), dense_model="model-b", dense_dim=384)
    assert "model-a" in err.value.message and "model-b" in err.value.message
    assert "Re-index" in err.value.message


def test_edge_engine_never_matches_bool_payloads(tmp_path: Path) -> None:
    """Why visibility is a keyword: qdrant-edge-py 0.9.0 finds nothing by MatchValue(True).
    If this starts failing, the engine was fixed and a bool flag would do."""
    import qdrant_edge as qe

    shard = qe.EdgeShard.create(str(tmp_path / "s"), qe.EdgeConfig(
        vectors={"d": qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine)}))
    shard.update(qe.UpdateOperation.upsert_points([qe.Point(1, {"d": [1.0, 0.0]},
                                                            {"flag": True})]))
    found, _ = shard.scroll(qe.ScrollRequest(limit=5, filter=qe.Filter(must=[
        qe.FieldCondition("flag", match=qe.MatchValue(True))])))
    assert found == []
    shard.close()


def test_a_second_open_of_the_embedded_engine_reports_store_locked(tmp_path: Path) -> None:
    from app.domain.errors import StoreLocked

    first = open_store(_settings("edge", tmp_path), dense_model="m", dense_dim=384)
    try:
        with pytest.raises(StoreLocked):
            open_store(_settings("edge", tmp_path), dense_model="m", dense_dim=384)
    finally:
        first.close()


def test_lanes_can_fetch_only_some_fields_and_retrieve_the_rest(store) -> None:
    hits = store.query_sparse(FakeSparse().embed_query("budget"), ChunkFilter("c1"), 10,
                              fields=("document_id", "chunk_index"))
    # identity fields come whole (from the identity cache: app/store/identity.py)
    assert hits and all(set(h.payload) <= {"document_id", "version_id", "chunk_index"}
                        and {"document_id", "chunk_index"} <= set(h.payload) for h in hits)
    full = store.retrieve([h.id for h in hits])
    assert {full[h.id]["text"] for h in hits} == {"budget report for apollo", "budget overrun"}
    assert store.retrieve([]) == {}


def test_per_client_idf_reproduces_the_engines_own_idf_on_one_client(tmp_path: Path) -> None:
    """Why `evidence eval` (one client) scores as before: the same points scored by the
    engine's IDF modifier and by our store with the query weighted by weigh_query agree."""
    import qdrant_edge as qe

    texts = [f"budget report {i} apollo" if i % 3 else f"vacation days {i} budget"
             for i in range(30)] + ["apollo apollo moon"]
    vectors = FakeSparse().embed_documents(texts)
    engine_idf = qe.EdgeShard.create(str(tmp_path / "old"), qe.EdgeConfig(
        sparse_vectors={"s": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}))
    engine_idf.update(qe.UpdateOperation.upsert_points([
        qe.Point(i, {"s": qe.SparseVector(v.indices, v.values)}, {}) for i, v in
        enumerate(vectors)]))
    ours = open_store(_settings("edge", tmp_path), dense_model="m", dense_dim=384)
    ours.upsert([ChunkPoint(id=point_id("c", "d", "v", i), dense=None, sparse=v,
                            payload={"client_id": "c", "document_id": "d", "version_id": "v",
                                     "chunk_index": i, "visibility": SEARCHABLE})
                 for i, v in enumerate(vectors)])
    df = {int(t): n for t, n in term_document_frequencies(vectors).items()}
    for query in ("apollo", "budget apollo", "vacation moon"):
        q = FakeSparse().embed_query(query)
        expected = sorted(p.score for p in engine_idf.query(qe.QueryRequest(
            limit=50, query=qe.Query.Nearest(qe.SparseVector(q.indices, q.values), using="s"))))
        got = sorted(h.score for h in ours.query_sparse(
            weigh_query(q, CorpusStats(len(vectors), df)), ChunkFilter("c"), 50))
        assert got == pytest.approx(expected, rel=1e-5), query
    engine_idf.close()
    ours.close()


def test_payload_nested_too_deep_never_reaches_the_engine(store) -> None:
    deep: object = 1
    for _ in range(125):
        deep = {"x": deep}
    point = ChunkPoint(id=point_id("c1", "deep", "v1", 0), dense=None,
                       sparse=SparseVec([1], [1.0]),
                       payload={"client_id": "c1", "document_id": "deep", "version_id": "v1",
                                "chunk_index": 0, "visibility": HIDDEN, "meta": deep})
    with pytest.raises(StoreRejected):
        store.upsert([point])
    store.set_searchable(client_id="c1", document_id="a", version_id="v1", searchable=False)
    store.delete(client_id="c1", document_id="b")  # later writes go on
    assert store.count(ChunkFilter("c1")) == 0 and store.count(ChunkFilter("c2")) == 1


def test_a_collection_scored_by_the_engines_idf_asks_for_a_reindex(tmp_path: Path) -> None:
    (tmp_path / "edge").mkdir()
    (tmp_path / "edge" / "collection.json").write_text(
        '{"dense_model": "m", "dense_dim": 384}')  # as written before per-client BM25
    with pytest.raises(StoreNeedsReindex) as err:
        open_store(_settings("edge", tmp_path), dense_model="m", dense_dim=384)
    assert "evidence reindex" in err.value.message


def test_ranges_and_negations_match_the_same_on_both_engines(store) -> None:
    """Range conditions on numbers (any element of an array within the bounds) and negated
    conditions (must-not), as app/search/filters.py writes them."""
    from app.store.base import Bounds
    from app.store.payload import entity_numbers

    dense = FakeDense()
    rows = [("p1", 5000.0, "money:USD:5000.00"), ("p2", 10000.0, "money:USD:10000.00"),
            ("p3", 12500.5, "money:EUR:12500.50")]
    store.upsert([ChunkPoint(
        id=point_id("c3", doc, "v1", 0), dense=dense.embed_documents([doc])[0].tolist(),
        sparse=SparseVec([1], [1.0]),
        payload={"client_id": "c3", "document_id": doc, "version_id": "v1", "chunk_index": 0,
                 "text": doc, "kind": "txt", "source": "", "visibility": SEARCHABLE,
                 "meta": {"custom": {"amount": amount}}, **entity_numbers([key])})
        for doc, amount, key in rows])

    def docs(**flt: object) -> list[str]:
        found = store.scroll(ChunkFilter("c3", **flt))  # type: ignore[arg-type]
        return sorted(h.payload["document_id"] for h in found)

    assert docs(metadata=((("meta.custom.amount", (Bounds(gte=10000),)),),)) == ["p2", "p3"]
    assert docs(metadata=((("meta.custom.amount", (Bounds(gt=5000, lt=12500.5),)),),)) == ["p2"]
    assert docs(metadata=((("entity_money.USD", (Bounds(gte=6000),)),),)) == ["p2"]
    assert docs(metadata=((("entity_money.any", (Bounds(gte=6000),)),),)) == ["p2", "p3"]
    assert docs(excluded=((("document_id", ("p1",)),),)) == ["p2", "p3"]
    assert docs(excluded=((("meta.custom.amount", (Bounds(lte=10000),)),),)) == ["p3"]
    assert docs(metadata=((("entity_money.any", (Bounds(gte=1),)),),),
                excluded=((("entity_money.EUR", (Bounds(gte=1),)),),)) == ["p1", "p2"]


def test_every_key_a_client_may_store_can_be_filtered_on_both_engines(store) -> None:
    """Keys of any script, digits, '_' and '-' (app/domain/limits.py KEY_SEGMENT): the filter paths
    they make are valid on both engines and match exactly."""
    dense = FakeDense()
    keys = ["größe", "日付", "a-b", "x_1", "2024", "-lead"]
    store.upsert([ChunkPoint(
        id=point_id("c4", key, "v1", 0), dense=dense.embed_documents([key])[0].tolist(),
        sparse=SparseVec([1], [1.0]),
        payload={"client_id": "c4", "document_id": key, "version_id": "v1", "chunk_index": 0,
                 "text": key, "kind": "txt", "source": "", "visibility": SEARCHABLE,
                 "meta": {"custom": {key: {"inner-ü": "yes"}}}}) for key in keys])
    for key in keys:
        found = store.scroll(ChunkFilter("c4", metadata=(  # type: ignore[arg-type]
            ((f"meta.custom.{key}.inner-ü", ("yes",)),),)))
        assert [h.payload["document_id"] for h in found] == [key]


@pytest.mark.parametrize("kind", ["edge", "qdrant-client"])
@pytest.mark.parametrize("capacity", [0, 1, 200_000])
def test_identity_hits_agree_with_the_engines_payload_cold_warm_and_bounded(
        kind: str, capacity: int, tmp_path: Path) -> None:
    """Identity fields from the cache (app/store/identity.py) are exactly the payload the
    engine holds: after this process's writes (warm), after a restart (cold: fetched once,
    then known), with a cache of one entry (evicting) and with none (capacity 0)."""
    settings = _settings(kind, tmp_path).model_copy(update={"identity_cache": capacity})
    s = open_store(settings, dense_model="fake", dense_dim=384)
    sparse = FakeSparse()
    texts = ["budget report", "budget overrun", "budget meeting notes"]
    s.upsert([ChunkPoint(id=point_id("c1", "d", "v3", i), dense=None,
                         sparse=sparse.embed_documents([t])[0],
                         payload={"client_id": "c1", "document_id": "d", "version_id": "v3",
                                  "chunk_index": i, "text": t, "visibility": SEARCHABLE})
              for i, t in enumerate(texts)])
    query = sparse.embed_query("budget")
    fields = ("document_id", "version_id", "chunk_index")
    warm = s.query_sparse(query, ChunkFilter("c1"), 10, fields=fields)
    engine = s.query_sparse(query, ChunkFilter("c1"), 10, fields=(*fields, "text"))
    assert [(h.id, h.score) for h in warm] == [(h.id, h.score) for h in engine]
    assert [h.payload for h in warm] == [
        {k: h.payload[k] for k in fields} for h in engine]
    assert s.identity.misses == (0 if capacity >= 3 else 3 if capacity == 0 else 2)
    s.close()
    cold = open_store(settings, dense_model="fake", dense_dim=384)
    again = [cold.query_sparse(query, ChunkFilter("c1"), 10, fields=fields) for _ in range(2)]
    # (ties may come in another order from a reopened engine: compared as sets)
    assert [sorted((h.id, h.score, h.payload["chunk_index"]) for h in hits)
            for hits in again] == [sorted((h.id, h.score, h.payload["chunk_index"])
                                          for h in warm)] * 2
    index_of = {point_id("c1", "d", "v3", i): i for i in range(len(texts))}
    assert all(h.payload == {"document_id": "d", "version_id": "v3",
                             "chunk_index": index_of[h.id]} for h in again[0])
    # fetched once while they fit; with room for one, the second query misses the other two
    assert cold.identity.misses == {0: 6, 1: 5, 200_000: 3}[capacity]
    assert len(cold.identity) == min(capacity, 3)
    cold.close()


def test_a_batch_answers_each_query_as_it_would_alone_in_order(store) -> None:
    """One call, four queries: each answer is the single query's, in the order asked; a BM25
    query without terms answers [] in its place without reaching the engine; payload fields
    as asked (identity fields, one extra field, none)."""
    dense, sparse = FakeDense(), FakeSparse()
    vector = dense.embed_query("budget report")
    terms = sparse.embed_query("budget")
    asks = [LaneQuery(DENSE, vector, ChunkFilter("c1", document_ids=("b",)), 10,
                      ("document_id", "version_id", "chunk_index")),
            LaneQuery(SPARSE, SparseVec([], []), ChunkFilter("c1"), 10),
            LaneQuery(SPARSE, terms, ChunkFilter("c2"), 10, ("document_id", "text")),
            LaneQuery(DENSE, vector, ChunkFilter("c1"), 2, ())]
    first, empty, other, bare = store.query_batch(asks)
    assert _ids(first) == _ids(store.query_dense(vector, ChunkFilter("c1", document_ids=("b",)),
                                                 10))
    assert {h.payload["document_id"] for h in first} == {"b"}
    assert empty == []
    assert [(h.payload["document_id"], h.payload["text"]) for h in other] == [
        ("x", "budget report of another client")]
    assert [h.id for h in bare] == [h.id for h in store.query_dense(vector, ChunkFilter("c1"),
                                                                    2)]
    assert all(h.payload == {} for h in bare)
    assert [h.score for h in bare] == pytest.approx(
        [h.score for h in store.query_dense(vector, ChunkFilter("c1"), 2)])
    assert store.query_batch([]) == []


def _unit(*xs: float) -> list[float]:
    norm = sum(x * x for x in xs) ** 0.5
    return [x / norm for x in xs]


@pytest.mark.parametrize("kind", ["edge", "qdrant-client"])
def test_sentence_scores_are_each_points_best_sentence_inside_the_filter(
        kind: str, tmp_path: Path) -> None:
    """MaxSim over the stored sentence vectors, by hand: query (1, 0, 0, 0); "two" has
    sentences at cosine 0 and 0.6 (best 0.6), "one" a sentence at 0.8; "none" has no
    sentences; "other" is another client's and "hidden" unpublished, both asked by id and
    both left out. Stored as 16-bit floats: within 1e-3."""
    settings = _settings(kind, tmp_path).model_copy(update={"sentence_vectors": True})
    store = open_store(settings, dense_model="m", dense_dim=4)
    assert store.sentence_vectors
    sentences = {"two": [_unit(0, 1, 0, 0), _unit(0.6, 0.8, 0, 0)], "one": [_unit(0.8, 0.6, 0, 0)],
                 "none": None, "other": [_unit(1, 0, 0, 0)], "hidden": [_unit(1, 0, 0, 0)]}
    ids = {}
    for doc, vectors in sentences.items():
        client = "c2" if doc == "other" else "c1"
        ids[doc] = point_id(client, doc, "v1", 0)
        store.upsert([ChunkPoint(id=ids[doc], dense=_unit(0, 0, 1, 0), sparse=SparseVec([], []),
                                 payload={"client_id": client, "document_id": doc,
                                          "version_id": "v1", "chunk_index": 0,
                                          "visibility": HIDDEN if doc == "hidden"
                                          else SEARCHABLE},
                                 sentences=vectors)])
    scores = store.sentence_scores(_unit(1, 0, 0, 0), ChunkFilter("c1"), list(ids.values()))
    assert {doc: round(scores[i], 3) for doc, i in ids.items() if i in scores} == {
        "two": pytest.approx(0.6, abs=1e-3), "one": pytest.approx(0.8, abs=1e-3)}
    assert store.sentence_scores(_unit(1, 0, 0, 0), ChunkFilter("c1"), []) == {}
    # the vectors come back with the point (export, import)
    stored = store.vectors([ids["two"]])[ids["two"]].sentences
    assert stored is not None and len(stored) == 2
    assert stored[1] == pytest.approx(_unit(0.6, 0.8, 0, 0), abs=1e-3)
    store.close()


@pytest.mark.parametrize("kind", ["edge", "qdrant-client"])
def test_a_collection_keeps_the_sentence_vectors_it_was_made_with(kind: str,
                                                                  tmp_path: Path) -> None:
    """Made without them (as every collection before them was), a collection opens without
    them whatever the settings say now — its engine fields are fixed — takes points that
    carry sentences (leaving them out) and scores none; and the other way round."""
    without = _settings(kind, tmp_path).model_copy(update={"sentence_vectors": False})
    open_store(without, dense_model="m", dense_dim=4).close()
    store = open_store(without.model_copy(update={"sentence_vectors": True}),
                       dense_model="m", dense_dim=4)
    assert store.sentence_vectors is False
    pid = point_id("c1", "d", "v1", 0)
    store.upsert([ChunkPoint(id=pid, dense=_unit(1, 0, 0, 0), sparse=SparseVec([], []),
                             payload={"client_id": "c1", "document_id": "d", "version_id": "v1",
                                      "chunk_index": 0, "visibility": SEARCHABLE},
                             sentences=[_unit(1, 0, 0, 0)])])
    assert store.sentence_scores(_unit(1, 0, 0, 0), ChunkFilter("c1"), [pid]) == {}
    assert store.vectors([pid])[pid].sentences is None
    store.close()

    other = tmp_path / "made-with"
    with_them = _settings(kind, other).model_copy(update={"sentence_vectors": True})
    open_store(with_them, dense_model="m", dense_dim=4).close()
    store = open_store(with_them.model_copy(update={"sentence_vectors": False}),
                       dense_model="m", dense_dim=4)
    assert store.sentence_vectors is True
    store.close()


def test_a_versions_fields_are_replaced_on_its_points_alone(store) -> None:
    """``set_version_fields`` replaces a top-level field whole on every point of the one
    version (a re-threaded e-mail's ``meta``), and the filters read the new value."""
    path = "meta.document.thread_id"
    store.set_version_fields(client_id="c1", document_id="a", version_id="v1",
                             fields={"meta": {"document": {"thread_id": "th-1", "x": "y"}}})
    store.set_version_fields(client_id="c1", document_id="a", version_id="v1",
                             fields={"meta": {"document": {"thread_id": "th-2"}}})
    moved = store.scroll(ChunkFilter("c1", metadata=(((path, ("th-2",)),),)))
    assert sorted(_ids(moved)) == [("a", 0), ("a", 1)]
    assert store.count(ChunkFilter("c1", metadata=(((path, ("th-1",)),),))) == 0
    assert store.count(ChunkFilter("c1", metadata=((("meta.document.x", ("y",)),),))) == 0
    assert store.count(ChunkFilter("c2", metadata=(((path, ("th-2",)),),))) == 0
    assert store.retrieve([moved[0].id])[moved[0].id]["text"]  # the rest of the payload stays
