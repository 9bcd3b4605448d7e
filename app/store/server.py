"""A Qdrant server or cluster through qdrant-client (``EVIDENCE_QDRANT__URL``).

``url=":memory:"`` or a ``path:`` URL selects qdrant-client's local mode, which stands in for a
server in the congruence tests (it is pure Python: fine for tests, far too slow for service).
The collection records the dense model that built it in the collection's metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qdrant_client import QdrantClient, models

from app.domain.limits import IDENTITY_CACHE_POINTS
from app.models.encoders import SparseVec
from app.store.base import (
    ACCESS,
    DENSE,
    HIDDEN,
    KEYWORD_KEYS,
    SEARCHABLE,
    SENTENCES,
    SPARSE,
    SPARSE_IDF,
    ChunkFilter,
    ChunkPoint,
    FilterOp,
    LaneQuery,
    StoredHit,
    check_model,
    check_payloads,
    check_sparse_scoring,
    exclusion_plan,
    filter_plan,
    sentence_record,
    stored_point,
)
from app.store.identity import IdentityCache, identity_only


def _op(op: FilterOp) -> Any:
    kind, key, value = op
    if kind == "empty":
        return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))
    if kind == "any":
        return models.FieldCondition(key=key, match=models.MatchAny(any=value))
    if kind == "range":
        return models.FieldCondition(key=key, range=models.Range(gte=value, lte=value))
    if kind == "lte":
        return models.FieldCondition(key=key, range=models.Range(lte=value))
    if kind == "gt":
        return models.FieldCondition(key=key, range=models.Range(gt=value))
    if kind == "between":
        return models.FieldCondition(key=key, range=models.Range(**value))
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def _filter(flt: ChunkFilter, *also: Any) -> models.Filter:
    """The filter; ``also``: further conditions that must hold (the engine's own)."""
    must: list[Any] = list(also)
    for options in filter_plan(flt):
        conditions = [_op(o) for o in options]
        must.append(conditions[0] if len(conditions) == 1 else models.Filter(should=conditions))
    must_not = [_op(o) for o in exclusion_plan(flt)]
    return models.Filter(must=must, must_not=must_not or None)


def _request(query: LaneQuery) -> models.QueryRequest:
    """qdrant-client's request for one LaneQuery."""
    if query.using == SPARSE:
        vector: Any = models.SparseVector(indices=query.vector.indices,
                                          values=query.vector.values)
    elif query.using == SENTENCES:
        vector = [list(query.vector)]
    else:
        vector = list(query.vector)
    also = (models.HasIdCondition(has_id=list(query.ids)),) if query.ids else ()
    plain = query.using == SENTENCES or query.fields == () or identity_only(query.fields)
    return models.QueryRequest(query=vector, using=query.using, filter=_filter(query.flt, *also),
                               limit=query.limit,
                               with_payload=False if plain else
                               list(query.fields) if query.fields else True)


def _hits(points: list[Any]) -> list[StoredHit]:
    return [StoredHit(str(p.id), float(getattr(p, "score", 0.0) or 0.0), dict(p.payload or {}))
            for p in points]


class ServerStore:
    # Several workers may share a server: leases decide who holds a job.
    exclusive = False

    def __init__(self, *, url: str, api_key: str | None, collection: str, dense_model: str,
                 dense_dim: int, identity_capacity: int = IDENTITY_CACHE_POINTS,
                 sentence_vectors: bool = False) -> None:
        self.dense_model, self.dense_dim, self._name = dense_model, dense_dim, collection
        self.identity = IdentityCache(identity_capacity)
        if url == ":memory:":
            self._client = QdrantClient(location=":memory:")
        elif url.startswith("path:"):
            self._client = QdrantClient(path=url.removeprefix("path:"))
        else:
            self._client = QdrantClient(url=url, api_key=api_key, timeout=30)
        if self._client.collection_exists(collection):
            info = self._client.get_collection(collection)
            check_model(info.config.metadata, dense_model, dense_dim)
            check_sparse_scoring(info.config.metadata, collection)
            self.sentence_vectors = sentence_record(info.config.metadata, False)
            if ACCESS not in (info.payload_schema or {}):  # made before access groups
                self._client.create_payload_index(collection, ACCESS, models.KeywordIndexParams(
                    type=models.KeywordIndexType.KEYWORD))
        else:
            self.sentence_vectors = sentence_vectors
            vectors = {DENSE: models.VectorParams(size=dense_dim,
                                                  distance=models.Distance.COSINE)}
            if sentence_vectors:
                vectors[SENTENCES] = models.VectorParams(
                    size=dense_dim, distance=models.Distance.COSINE,
                    datatype=models.Datatype.FLOAT16,
                    multivector_config=models.MultiVectorConfig(
                        comparator=models.MultiVectorComparator.MAX_SIM))
            self._client.create_collection(
                collection, vectors_config=vectors,
                # no IDF modifier: the engine's IDF would span every client (app/search/bm25.py)
                sparse_vectors_config={SPARSE: models.SparseVectorParams()},
                metadata={"dense_model": dense_model, "dense_dim": dense_dim,
                          "sparse_idf": SPARSE_IDF, "sentence_vectors": sentence_vectors})
            for key in KEYWORD_KEYS:
                self._client.create_payload_index(
                    collection, key, models.KeywordIndexParams(
                        type=models.KeywordIndexType.KEYWORD, is_tenant=key == "client_id"))

    def upsert(self, points: list[ChunkPoint]) -> None:
        if not points:
            return
        check_payloads(points)
        self._client.upsert(self._name, wait=True, points=[models.PointStruct(
            id=p.id, payload=p.payload,
            vector={SPARSE: models.SparseVector(indices=p.sparse.indices, values=p.sparse.values),
                    **({DENSE: p.dense} if p.dense is not None else {}),
                    **({SENTENCES: p.sentences} if p.sentences and self.sentence_vectors
                       else {})}) for p in points])
        self.identity.remember([(p.id, p.id, p.payload) for p in points])

    def set_searchable(self, *, client_id: str, document_id: str, version_id: str,
                       searchable: bool, timeline: dict[str, float] | None = None) -> None:
        self.set_version_fields(client_id=client_id, document_id=document_id,
                                version_id=version_id,
                                fields={"visibility": SEARCHABLE if searchable else HIDDEN,
                                        **(timeline or {})})

    def set_version_fields(self, *, client_id: str, document_id: str, version_id: str | None,
                           fields: dict[str, Any]) -> None:
        flt = ChunkFilter(client_id=client_id, searchable_only=False,
                          document_ids=(document_id,),
                          version_ids=(version_id,) if version_id else ())
        self._client.set_payload(self._name, payload=fields, points=_filter(flt), wait=True)

    def delete(self, *, client_id: str, document_id: str, version_id: str | None = None) -> None:
        flt = ChunkFilter(client_id=client_id, searchable_only=False,
                          document_ids=(document_id,),
                          version_ids=(version_id,) if version_id else ())
        self._client.delete(self._name, points_selector=models.FilterSelector(
            filter=_filter(flt)), wait=True)

    def query_dense(self, vector: list[float], flt: ChunkFilter, limit: int,
                    fields: Sequence[str] | None = None) -> list[StoredHit]:
        return self.query_batch([LaneQuery(DENSE, vector, flt, limit,
                                           tuple(fields) if fields else None)])[0]

    def query_sparse(self, vector: SparseVec, flt: ChunkFilter, limit: int,
                     fields: Sequence[str] | None = None) -> list[StoredHit]:
        return self.query_batch([LaneQuery(SPARSE, vector, flt, limit,
                                           tuple(fields) if fields else None)])[0]

    def sentence_scores(self, vector: list[float], flt: ChunkFilter, ids: Sequence[str]
                        ) -> dict[str, float]:
        if not ids:
            return {}
        hits = self.query_batch([LaneQuery(SENTENCES, vector, flt, len(ids), (), tuple(ids))])
        return {h.id: h.score for h in hits[0]}

    def query_batch(self, queries: Sequence[LaneQuery]) -> list[list[StoredHit]]:
        """One ``query_batch_points`` call for every query that can answer; identity fields
        from the cache, as the embedded adapter."""
        asked = [i for i, q in enumerate(queries) if q.answerable(self.sentence_vectors)]
        answers: list[list[StoredHit]] = [[] for _ in queries]
        if not asked:
            return answers
        requests = [_request(queries[i]) for i in asked]
        if len(requests) == 1:
            r = requests[0]
            found = [self._client.query_points(
                self._name, query=r.query, using=r.using, query_filter=r.filter,
                limit=r.limit, with_payload=r.with_payload)]
        else:
            found = self._client.query_batch_points(self._name, requests=requests)
        for i, response in zip(asked, found, strict=True):
            q, points = queries[i], response.points
            if q.using == SENTENCES or q.fields == ():
                answers[i] = [StoredHit(str(p.id), float(p.score), {}) for p in points]
            elif identity_only(q.fields):
                answers[i] = self.identity.hits([(str(p.id), p.score) for p in points],
                                                self.retrieve)
            else:
                answers[i] = _hits(points)
        return answers

    def retrieve(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        return {str(r.id): dict(r.payload or {})
                for r in self._client.retrieve(self._name, list(ids), with_payload=True)}

    def vectors(self, ids: Sequence[str]) -> dict[str, ChunkPoint]:
        if not ids:
            return {}
        return {str(r.id): stored_point(r.id, r.vector, None) for r in self._client.retrieve(
            self._name, list(ids), with_payload=False, with_vectors=True)}

    def count(self, flt: ChunkFilter) -> int:
        return self._client.count(self._name, count_filter=_filter(flt), exact=True).count

    def export_points(self, offset: str | None, limit: int
                      ) -> tuple[list[ChunkPoint], str | None]:
        records, following = self._client.scroll(self._name, offset=offset, limit=limit,
                                                 with_payload=True, with_vectors=True)
        return ([stored_point(r.id, r.vector, r.payload) for r in records],
                str(following) if following is not None else None)

    def count_all(self) -> int:
        return self._client.count(self._name, exact=True).count

    def scroll(self, flt: ChunkFilter, limit: int = 10_000,
               fields: Sequence[str] | None = None) -> list[StoredHit]:
        records, _ = self._client.scroll(self._name, scroll_filter=_filter(flt), limit=limit,
                                         with_payload=list(fields) if fields else True)
        return _hits(records)

    def delete_pending_compaction(self) -> bool:
        return False

    def compact(self) -> bool:
        """A Qdrant server vacuums deleted points with its own optimizers (its
        ``deleted_threshold``); nothing to do from here."""
        return False

    def close(self) -> None:
        self._client.close()
