"""The embedded engine: Qdrant Edge (qdrant-edge-py, pinned — its API is 0.x) in-process.

Facts this adapter relies on (shared/design/QDRANT_EDGE_NOTES.md, our own tests): thread-safe;
durable through its WAL; one process per folder (a second open fails with WouldBlock, reported
as StoreLocked); no group-by (grouping is ours); ``optimize()`` holds the GIL for seconds to
minutes, so it is never called here — exact search is ~10 ms below 100k chunks.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from app.errors import StoreLocked
from app.models.encoders import SparseVec
from app.store.base import (
    DENSE,
    HIDDEN,
    KEYWORD_KEYS,
    SEARCHABLE,
    SPARSE,
    ChunkFilter,
    ChunkPoint,
    FilterOp,
    StoredHit,
    check_model,
    filter_plan,
)


def _op(op: FilterOp) -> qe.FieldCondition:
    kind, key, value = op
    if kind == "any":
        return qe.FieldCondition(key, match=qe.MatchAny(value))
    if kind == "range":
        return qe.FieldCondition(key, range=qe.RangeFloat(gte=value, lte=value))
    return qe.FieldCondition(key, match=qe.MatchValue(value))


def _filter(flt: ChunkFilter) -> qe.Filter:
    must: list[Any] = []
    for options in filter_plan(flt):
        conditions = [_op(o) for o in options]
        must.append(conditions[0] if len(conditions) == 1 else qe.Filter(should=conditions))
    return qe.Filter(must=must)


def _hits(points: list[Any]) -> list[StoredHit]:
    return [StoredHit(str(p.id), float(getattr(p, "score", 0.0) or 0.0), dict(p.payload or {}))
            for p in points]


class EdgeStore:
    def __init__(self, path: Path, *, dense_model: str, dense_dim: int) -> None:
        self.dense_model, self.dense_dim = dense_model, dense_dim
        self._root = Path(path)
        self._root.mkdir(parents=True, exist_ok=True)
        meta_path = self._root / "collection.json"
        recorded = json.loads(meta_path.read_text()) if meta_path.exists() else None
        check_model(recorded, dense_model, dense_dim)
        shard_path = self._root / "shard"
        try:
            if shard_path.exists() and any(shard_path.iterdir()):
                self._shard = qe.EdgeShard.load(str(shard_path))
            else:
                self._shard = qe.EdgeShard.create(str(shard_path), qe.EdgeConfig(
                    vectors={DENSE: qe.EdgeVectorParams(size=dense_dim,
                                                        distance=qe.Distance.Cosine)},
                    sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}))
                for key in KEYWORD_KEYS:
                    self._shard.update(qe.UpdateOperation.create_field_index(
                        key, qe.PayloadSchemaType.Keyword))
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreLocked(
                    f"the embedded engine at {shard_path} is in use by another process "
                    "(a running `evidence serve`?); the CLI sends work to the server instead",
                ) from None
            raise
        if recorded is None:
            meta_path.write_text(json.dumps({"dense_model": dense_model,
                                             "dense_dim": dense_dim}))
        self._write_lock = threading.Lock()

    def upsert(self, points: list[ChunkPoint]) -> None:
        if not points:
            return
        edge_points = []
        for p in points:
            vectors: dict[str, Any] = {SPARSE: qe.SparseVector(p.sparse.indices, p.sparse.values)}
            if p.dense is not None:
                vectors[DENSE] = p.dense
            edge_points.append(qe.Point(p.id, vectors, p.payload))
        with self._write_lock:
            self._shard.update(qe.UpdateOperation.upsert_points(edge_points))

    def set_searchable(self, *, client_id: str, document_id: str, version_id: str,
                       searchable: bool) -> None:
        flt = ChunkFilter(client_id=client_id, searchable_only=False,
                          document_ids=(document_id,), version_ids=(version_id,))
        with self._write_lock:
            self._shard.update(qe.UpdateOperation.set_payload_by_filter(
                _filter(flt), {"visibility": SEARCHABLE if searchable else HIDDEN}))

    def delete(self, *, client_id: str, document_id: str, version_id: str | None = None) -> None:
        flt = ChunkFilter(client_id=client_id, searchable_only=False,
                          document_ids=(document_id,),
                          version_ids=(version_id,) if version_id else ())
        with self._write_lock:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(_filter(flt)))

    def query_dense(self, vector: list[float], flt: ChunkFilter, limit: int,
                    fields: Sequence[str] | None = None) -> list[StoredHit]:
        return _hits(self._shard.query(qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest(vector, using=DENSE), filter=_filter(flt),
            with_payload=list(fields) if fields else True)))

    def query_sparse(self, vector: SparseVec, flt: ChunkFilter, limit: int,
                     fields: Sequence[str] | None = None) -> list[StoredHit]:
        if not vector.indices:
            return []
        return _hits(self._shard.query(qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest(qe.SparseVector(vector.indices, vector.values),
                                                using=SPARSE),
            filter=_filter(flt), with_payload=list(fields) if fields else True)))

    def retrieve(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        # both flags positional: the stub names them, the binding takes them by position
        return {str(r.id): dict(r.payload or {}) for r in self._shard.retrieve(list(ids), True,
                                                                              False)}

    def count(self, flt: ChunkFilter) -> int:
        return int(self._shard.count(qe.CountRequest(filter=_filter(flt), exact=True)))

    def scroll(self, flt: ChunkFilter, limit: int = 10_000) -> list[StoredHit]:
        records, _next = self._shard.scroll(qe.ScrollRequest(
            limit=limit, filter=_filter(flt), with_payload=True))
        return _hits(records)

    def close(self) -> None:
        with self._write_lock:
            self._shard.flush()
            self._shard.close()
