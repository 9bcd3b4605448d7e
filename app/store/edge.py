"""The embedded engine: Qdrant Edge (qdrant-edge-py, pinned — its API is 0.x) in-process.

Facts this adapter relies on (shared/design/QDRANT_EDGE_NOTES.md, our own tests): thread-safe;
durable through its WAL; one process per folder (a second open fails with WouldBlock, reported
as StoreLocked); no group-by (grouping is ours); ``optimize()`` holds the GIL for seconds to
minutes, so it is never called here — exact search is ~10 ms below 100k chunks.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from app.domain.errors import StoreLocked, StoreRejected, Unavailable
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

log = logging.getLogger(__name__)
NEVER_INDEX_KB = 10**9
# Flush the shard once this many points were written since the last flush (issue 64). The
# engine never flushes by itself, and a flush holds the GIL for time that grows with what is
# unflushed: 0.9 s for 100k chunks written since the last one (bench/scale.py), ~27 ms for
# 1,000 (a fixed ~20 ms and ~9 ms a thousand). 2,000 keeps each pause near 35 ms, a third of
# the 100 ms goal, and costs < 0.1 % of ingestion (2,000 chunks take ~40 s to embed here);
# it also bounds what a reopen must replay from the WAL.
FLUSH_EVERY_POINTS = 2_000


def _op(op: FilterOp) -> Any:
    kind, key, value = op
    if kind == "empty":
        return qe.IsEmptyCondition(key)
    if kind == "any":
        return qe.FieldCondition(key, match=qe.MatchAny(value))
    if kind == "range":
        return qe.FieldCondition(key, range=qe.RangeFloat(gte=value, lte=value))
    if kind == "lte":
        return qe.FieldCondition(key, range=qe.RangeFloat(lte=value))
    if kind == "gt":
        return qe.FieldCondition(key, range=qe.RangeFloat(gt=value))
    if kind == "between":
        return qe.FieldCondition(key, range=qe.RangeFloat(**value))
    return qe.FieldCondition(key, match=qe.MatchValue(value))


def _filter(flt: ChunkFilter, *also: Any) -> qe.Filter:
    """The filter; ``also``: further conditions that must hold (the engine's own)."""
    must: list[Any] = list(also)
    for options in filter_plan(flt):
        conditions = [_op(o) for o in options]
        must.append(conditions[0] if len(conditions) == 1 else qe.Filter(should=conditions))
    must_not = [_op(o) for o in exclusion_plan(flt)]
    return qe.Filter(must=must, must_not=must_not) if must_not else qe.Filter(must=must)


def _fields(fields: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(fields) if fields else None


def _request(query: LaneQuery) -> qe.QueryRequest:
    """The engine's request for one LaneQuery."""
    if query.using == SPARSE:
        vector: Any = qe.SparseVector(query.vector.indices, query.vector.values)
    elif query.using == SENTENCES:
        vector = [list(query.vector)]
    else:
        vector = query.vector
    also = (qe.HasIdCondition(set(query.ids)),) if query.ids else ()
    plain = query.using == SENTENCES or query.fields == () or identity_only(query.fields)
    return qe.QueryRequest(limit=query.limit, query=qe.Query.Nearest(vector, using=query.using),
                           filter=_filter(query.flt, *also),
                           with_payload=False if plain else
                           list(query.fields) if query.fields else True)


def _hits(points: list[Any]) -> list[StoredHit]:
    return [StoredHit(str(p.id), float(getattr(p, "score", 0.0) or 0.0), dict(p.payload or {}))
            for p in points]


def edge_config(dense_dim: int, sentence_vectors: bool, *, indexed: bool = False) -> Any:
    """The shard's config. The server's (``indexed=False``) never builds an HNSW index: it
    would hold the GIL for minutes. ``indexed=True`` is the child's (app/store/index_build.py),
    which builds one where nobody waits on its lock."""
    vectors = {DENSE: qe.EdgeVectorParams(size=dense_dim, distance=qe.Distance.Cosine)}
    if sentence_vectors:
        vectors[SENTENCES] = qe.EdgeVectorParams(
            size=dense_dim, distance=qe.Distance.Cosine,
            multivector_config=qe.MultiVectorConfig(comparator=qe.MultiVectorComparator.MaxSim),
            datatype=qe.VectorStorageDatatype.Float16)
    from app.store import index_build

    return qe.EdgeConfig(
        vectors=vectors,
        # no IDF modifier: the engine's IDF would span every client (app/search/bm25.py)
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams()},
        hnsw_config=index_build.hnsw_config() if indexed else None,
        # compact() only vacuums deleted points: any deletion qualifies
        optimizers=qe.EdgeOptimizersConfig(
            deleted_threshold=1e-9, vacuum_min_vector_number=1,
            default_segment_number=1 if indexed else None,
            indexing_threshold=index_build.CHILD_INDEXING_THRESHOLD_KB if indexed
            else NEVER_INDEX_KB))


class EdgeStore:
    # The folder lock admits one process: its worker is the only one there is.
    exclusive = True

    def __init__(self, path: Path, *, dense_model: str, dense_dim: int,
                 identity_capacity: int = IDENTITY_CACHE_POINTS,
                 sentence_vectors: bool = False) -> None:
        self.dense_model, self.dense_dim = dense_model, dense_dim
        self.identity = IdentityCache(identity_capacity)
        self._root = Path(path)
        self._root.mkdir(parents=True, exist_ok=True)
        self._folder_lock = _lock_folder(self._root)
        recorded = check_collection_file(self._root)
        check_model(recorded, dense_model, dense_dim)
        # the shard must be loaded with the vector fields it was made with
        self.sentence_vectors = sentence_record(recorded, sentence_vectors)
        self._shard_path = self._root / "shard"
        self._write_lock = threading.Lock()
        self._generation = 0  # bumped by every reopen; a read that raced one is retried
        self._broken: str | None = None
        self._deleted_since_compaction = False
        self._unflushed_points = 0
        try:
            self._shard = self._open()
        except BaseException:
            _unlock_folder(self._folder_lock)
            raise
        if recorded is None:
            (self._root / "collection.json").write_text(json.dumps(
                {"dense_model": dense_model, "dense_dim": dense_dim, "sparse_idf": SPARSE_IDF,
                 "sentence_vectors": self.sentence_vectors}))

    def _config(self) -> Any:
        return edge_config(self.dense_dim, self.sentence_vectors)

    def _open(self) -> Any:
        shard_path = self._shard_path
        try:
            if shard_path.exists() and any(shard_path.iterdir()):
                shard = qe.EdgeShard.load(str(shard_path), self._config())
                # a collection made before access groups: their index (made again: a no-op)
                shard.update(qe.UpdateOperation.create_field_index(
                    ACCESS, qe.PayloadSchemaType.Keyword))
                return shard
            shard = qe.EdgeShard.create(str(shard_path), self._config())
            for key in KEYWORD_KEYS:
                shard.update(qe.UpdateOperation.create_field_index(
                    key, qe.PayloadSchemaType.Keyword))
            return shard
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise _in_use(self._root) from None
            raise

    def _reopen(self) -> None:
        """Close and load the shard again (under the write lock): after one failed write the
        engine refuses every later write ("Not recovered from previous error") until then."""
        self._generation += 1
        try:
            self._shard.close()
        except Exception:  # noqa: BLE001 - a failed engine may not close cleanly
            log.warning("closing the failed engine shard raised", exc_info=True)
        try:
            self._shard = self._open()
            self._broken = None
        except Exception as exc:  # noqa: BLE001 - reported on every later call
            self._broken = f"{type(exc).__name__}: {exc}"
            log.error("the embedded engine could not be reopened: %s", self._broken)

    def _check_usable(self) -> None:
        if self._broken is not None:
            raise Unavailable(f"the vector engine could not be reopened after a failure "
                              f"({self._broken}); restart the service", code="STORE_UNAVAILABLE")

    def _update(self, op: Any, what: str) -> None:
        """One write. A failed write reopens the engine and is tried once more, so a passing
        fault heals; failing twice, it is this write's own data the engine refuses: the
        engine is reopened for everyone else and the caller gets a permanent error."""
        with self._write_lock:
            self._check_usable()
            try:
                self._shard.update(op)
                return
            except Exception as first:  # noqa: BLE001
                log.warning("engine write (%s) failed, reopening: %s", what, first)
                self._reopen()
                self._check_usable()
            try:
                self._shard.update(op)
            except Exception as second:  # noqa: BLE001
                self._reopen()
                raise StoreRejected(f"the vector engine refused this {what}: {second}") from None

    def _read(self, fn: Callable[[Any], Any]) -> Any:
        self._check_usable()
        generation = self._generation
        try:
            return fn(self._shard)
        except Exception:
            if generation == self._generation:
                raise
        with self._write_lock:  # a reopen raced this read: once more on the new shard
            self._check_usable()
            return fn(self._shard)

    def upsert(self, points: list[ChunkPoint]) -> None:
        if not points:
            return
        check_payloads(points)
        edge_points = []
        for p in points:
            vectors: dict[str, Any] = {SPARSE: qe.SparseVector(p.sparse.indices, p.sparse.values)}
            if p.dense is not None:
                vectors[DENSE] = p.dense
            if p.sentences and self.sentence_vectors:
                vectors[SENTENCES] = p.sentences
            edge_points.append(qe.Point(p.id, vectors, p.payload))
        self._update(qe.UpdateOperation.upsert_points(edge_points), "write of chunks")
        self._flush_every(len(points))
        self.identity.remember([(uuid.UUID(p.id), p.id, p.payload) for p in points])

    def _flush_every(self, written: int) -> None:
        """Flush once FLUSH_EVERY_POINTS were written since the last flush, so no flush (at a
        copy, a compaction, a close) ever has a large backlog to hold the GIL for."""
        with self._write_lock:
            self._unflushed_points += written
            if self._unflushed_points < FLUSH_EVERY_POINTS or self._broken is not None:
                return
            self._shard.flush()
            self._unflushed_points = 0

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
        self._update(qe.UpdateOperation.set_payload_by_filter(_filter(flt), fields),
                     "payload change")

    def delete(self, *, client_id: str, document_id: str, version_id: str | None = None) -> None:
        flt = ChunkFilter(client_id=client_id, searchable_only=False,
                          document_ids=(document_id,),
                          version_ids=(version_id,) if version_id else ())
        self._update(qe.UpdateOperation.delete_points_by_filter(_filter(flt)), "deletion")
        self._deleted_since_compaction = True

    def query_dense(self, vector: list[float], flt: ChunkFilter, limit: int,
                    fields: Sequence[str] | None = None) -> list[StoredHit]:
        return self.query_batch([LaneQuery(DENSE, vector, flt, limit, _fields(fields))])[0]

    def query_sparse(self, vector: SparseVec, flt: ChunkFilter, limit: int,
                     fields: Sequence[str] | None = None) -> list[StoredHit]:
        return self.query_batch([LaneQuery(SPARSE, vector, flt, limit, _fields(fields))])[0]

    def sentence_scores(self, vector: list[float], flt: ChunkFilter, ids: Sequence[str]
                        ) -> dict[str, float]:
        if not ids:
            return {}
        hits = self.query_batch([LaneQuery(SENTENCES, vector, flt, len(ids), (), tuple(ids))])
        return {h.id: h.score for h in hits[0]}

    def query_batch(self, queries: Sequence[LaneQuery]) -> list[list[StoredHit]]:
        """One engine call for every query that can answer (identity fields alone: ids and
        scores from the engine, the rest from the identity cache, app/store/identity.py)."""
        asked = [i for i, q in enumerate(queries) if q.answerable(self.sentence_vectors)]
        answers: list[list[StoredHit]] = [[] for _ in queries]
        if not asked:
            return answers
        requests = [_request(queries[i]) for i in asked]
        if len(requests) == 1:
            found = [self._read(lambda shard: shard.query(requests[0]))]
        else:
            batch = qe.QueryBatchRequest(requests)
            found = self._read(lambda shard: shard.query_batch(batch))
        for i, points in zip(asked, found, strict=True):
            q = queries[i]
            if q.using == SENTENCES or q.fields == ():
                answers[i] = [StoredHit(str(p.id), float(p.score), {}) for p in points]
            elif identity_only(q.fields):
                answers[i] = self.identity.hits([(p.id, p.score) for p in points],
                                                self.retrieve)
            else:
                answers[i] = _hits(points)
        return answers

    def retrieve(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        # both flags positional: the stub names them, the binding takes them by position
        records = self._read(lambda shard: shard.retrieve(list(ids), True, False))
        return {str(r.id): dict(r.payload or {}) for r in records}

    def vectors(self, ids: Sequence[str]) -> dict[str, ChunkPoint]:
        if not ids:
            return {}
        records = self._read(lambda shard: shard.retrieve(list(ids), False, True))
        return {str(r.id): stored_point(r.id, r.vector, None) for r in records}

    def count(self, flt: ChunkFilter) -> int:
        request = qe.CountRequest(filter=_filter(flt), exact=True)
        return int(self._read(lambda shard: shard.count(request)))

    def export_points(self, offset: str | None, limit: int
                      ) -> tuple[list[ChunkPoint], str | None]:
        request = qe.ScrollRequest(offset=offset, limit=limit, with_payload=True,
                                   with_vector=True)
        records, following = self._read(lambda shard: shard.scroll(request))
        return ([stored_point(r.id, r.vector, r.payload) for r in records],
                str(following) if following is not None else None)

    def count_all(self) -> int:
        return int(self._read(lambda shard: shard.count(qe.CountRequest(exact=True))))

    def scroll(self, flt: ChunkFilter, limit: int = 10_000,
               fields: Sequence[str] | None = None) -> list[StoredHit]:
        """The points under ``flt``; identity fields alone come from the identity cache
        (ids only from the engine: a browse's 10,000 points copy no payload)."""
        plain = identity_only(fields)
        request = qe.ScrollRequest(limit=limit, filter=_filter(flt),
                                   with_payload=False if plain else
                                   list(fields) if fields else True)
        records, _next = self._read(lambda shard: shard.scroll(request))
        if plain:
            return self.identity.hits([(p.id, 0.0) for p in records], self.retrieve)
        return _hits(records)

    def copy_for_index(self, dest: Path) -> None:
        """A flushed copy of the shard's files at ``dest``, for an index built in a child
        (app/store/index_build.py). Writes wait while it copies; reads go on (the copy is
        file I/O, which releases the GIL: 0.5 s for 100k chunks, a 5 ms ticker never paused
        beyond 5 ms in bench/scale.py)."""
        from app.store.index_build import copy_shard

        with self._write_lock:
            self._check_usable()
            self._shard.flush()
            copy_shard(self._shard_path, Path(dest))

    def delete_pending_compaction(self) -> bool:
        return self._deleted_since_compaction

    def compact(self) -> bool:
        """Rewrite the segments that hold deleted points, so a deleted document's text leaves
        the engine's files (its WAL keeps recent writes until they rotate out). Holds the GIL
        while it runs: ~1 s per 60k chunks measured here, so the worker runs it when idle."""
        with self._write_lock:
            self._check_usable()
            self._deleted_since_compaction = False
            try:
                return self._optimize_and_flush()
            except Exception as first:  # noqa: BLE001
                # "Failed to flush … tracker_journal.dat is shorter than expected" (issues 23,
                # 38) was another process's EdgeShard.load rewriting this shard's files; the
                # folder lock (_lock_folder) now stops that. Kept for what else may fail a
                # flush: reloading the shard from its files and WAL is a restart, whole.
                log.warning("engine compaction failed, reopening: %s", first)
                self._reopen()
                self._check_usable()
            try:
                return self._optimize_and_flush()
            except Exception as second:  # noqa: BLE001
                self._deleted_since_compaction = True  # tried again at the next interval
                self._reopen()
                raise StoreRejected(f"the vector engine could not compact: {second}") from None

    def _optimize_and_flush(self) -> bool:
        changed = bool(self._shard.optimize())
        self._shard.flush()
        return changed

    def close(self) -> None:
        with self._write_lock:
            try:
                if self._broken is None:
                    self._shard.flush()
                    self._shard.close()
            finally:
                _unlock_folder(self._folder_lock)
                self._folder_lock = None


LOCK_FILE = "evidence.lock"


def _lock_folder(root: Path) -> Any:
    """Our own exclusive lock on the engine folder, taken before qdrant-edge opens anything.

    Why (issue 38): ``EdgeShard.load`` in a second process loads the segments — rewriting
    their flag files and removing payload tracker journals — before it fails on the shard's
    own lock. The running server then failed its next flush ("tracker_journal.dat is shorter
    than expected", logged as a compaction failure after `evidence search` or `ingest` had
    tried the engine while `evidence serve` held it; tests/store/test_edge_lock.py shows 32
    files changed by one such attempt). With this lock the second process never reaches the
    engine. Released on close, and by the kernel when the process dies (SIGKILL included)."""
    import fcntl

    handle = open(root / LOCK_FILE, "a+b")  # noqa: SIM115 - held for the store's lifetime
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise _in_use(root) from None
    return handle


def _in_use(root: Path) -> StoreLocked:
    """The engine folder is held by another process: ours refused, or qdrant-edge's lock."""
    return StoreLocked(f"the embedded engine at {root / 'shard'} is in use by another process "
                       "(a running `evidence serve`?); the CLI sends work to the server instead")


def _unlock_folder(handle: Any) -> None:
    if handle is not None:
        handle.close()  # closing the descriptor releases its flock


def check_collection_file(path: Path) -> dict[str, Any] | None:
    """What the collection recorded of itself (None for a new one), its BM25 scoring checked,
    read without opening the engine."""
    meta_path = Path(path) / "collection.json"
    recorded = json.loads(meta_path.read_text()) if meta_path.exists() else None
    check_sparse_scoring(recorded, Path(path))
    return recorded


def set_aside(path: Path) -> Path | None:
    """Move an embedded collection out of the way (kept, renamed) so a new one can be built;
    None if there is none. StoreLocked while a running process holds it."""
    path = Path(path)
    shard = path / "shard"
    if not path.exists() or not any(path.iterdir()):
        return None
    if shard.exists() and any(shard.iterdir()):
        try:  # the folder lock is the engine's: loading proves nobody else holds it
            qe.EdgeShard.load(str(shard)).close()
        except Exception as exc:
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreLocked(f"the embedded engine at {shard} is in use by another "
                                  "process: stop `evidence serve` first") from None
    aside = path.with_name(f"{path.name}.before-reindex-{time.strftime('%Y%m%d-%H%M%S')}")
    path.rename(aside)
    return aside
