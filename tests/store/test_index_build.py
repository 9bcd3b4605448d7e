"""The HNSW index built in a child process (app/store/index_build.py): the same answers as the
exact scan, the source untouched, and a build killed at any instant leaving nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe

from app.models.encoders import SparseVec
from app.store import ChunkFilter, ChunkPoint
from app.store.base import DENSE, SEARCHABLE
from app.store.edge import EdgeStore, edge_config
from app.store.index_build import (
    PARTIAL,
    IndexBuildFailed,
    build_in_child,
    discard_partial,
)

DIM, N = 32, 12_000  # 12k × 32 floats = 1.5 MB: above the child's 1 MB indexing threshold
REPO = Path(__file__).resolve().parents[2]


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    s = EdgeStore(tmp_path_factory.mktemp("sealed") / "qdrant", dense_model="fake/dense",
                  dense_dim=DIM)
    vecs = _vectors(N, 1)
    for start in range(0, N, 2000):
        s.upsert([ChunkPoint(
            id=f"00000000-0000-0000-0000-{i:012d}", dense=vecs[i].tolist(),
            sparse=SparseVec([i % 97, 1000 + i % 13], [1.0, 0.5]),
            payload={"client_id": "c", "document_id": f"d{i // 4}", "version_id": "v1",
                     "chunk_index": i % 4,
                     "visibility": SEARCHABLE}) for i in range(start, start + 2000)])
    yield s
    s.close()


def _top(shard: qe.EdgeShard, vector: list[float], exact: bool) -> list[str]:
    found = shard.query(qe.QueryRequest(
        limit=10, query=qe.Query.Nearest(vector, using=DENSE), with_payload=False,
        params=qe.SearchParams(exact=exact)))
    return [str(p.id) for p in found]


def test_the_child_builds_an_index_that_answers_as_the_exact_scan(store: EdgeStore,
                                                                   tmp_path: Path) -> None:
    store.copy_for_index(tmp_path / "copy")
    report = build_in_child(tmp_path / "copy", tmp_path / "sealed-1", dense_dim=DIM)
    assert report.points == N
    print(f"built in {report.seconds:.2f} s")
    assert report.indexed_vectors >= N  # the dense vectors at least (sparse ones count too)
    assert not (tmp_path / "copy").exists() and not (tmp_path / f"sealed-1{PARTIAL}").exists()
    built = qe.EdgeShard.load(str(tmp_path / "sealed-1"), edge_config(DIM, False))
    try:
        queries = _vectors(20, 99).tolist()
        recall = np.mean([len(set(_top(built, q, False)) & set(_top(built, q, True))) / 10
                          for q in queries])
        assert recall >= 0.98
        assert built.info().points_count == N
    finally:
        built.close()
    # the server's own shard is as it was and still answers
    assert store.count(ChunkFilter(client_id="c")) == N


def _partial_build(store: EdgeStore, tmp_path: Path, target: Path) -> subprocess.Popen[bytes]:
    store.copy_for_index(tmp_path / "copy")
    partial = target.with_name(target.name + PARTIAL)
    (tmp_path / "copy").rename(partial)
    return subprocess.Popen([sys.executable, "-m", "app.store.index_build", str(partial),
                             str(DIM), "0"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("after_s", [0.05, 0.6])
def test_a_build_killed_midway_leaves_nothing_and_the_next_one_succeeds(
        store: EdgeStore, tmp_path: Path, after_s: float) -> None:
    target = tmp_path / "sealed-2"
    child = _partial_build(store, tmp_path, target)
    time.sleep(after_s)  # while it opens the copy, and while it builds the graph
    assert child.poll() is None, "the build ended before the kill: the test proves nothing"
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL
    assert not target.exists()  # nothing half-built is ever where a loader looks
    assert store.count(ChunkFilter(client_id="c")) == N  # the source lost nothing
    store.copy_for_index(tmp_path / "copy")
    report = build_in_child(tmp_path / "copy", target, dense_dim=DIM)  # discards the partial
    assert report.points == N  # nothing lost, nothing doubled
    assert not target.with_name(target.name + PARTIAL).exists()


def test_a_failed_child_is_reported_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "edge_config.json").write_text("{not json")
    with pytest.raises(IndexBuildFailed, match="exited with"):
        build_in_child(tmp_path / "copy", tmp_path / "sealed-3", dense_dim=DIM)
    assert not (tmp_path / "sealed-3").exists()
    assert not (tmp_path / f"sealed-3{PARTIAL}").exists()


def test_an_index_is_built_once_into_a_new_folder(store: EdgeStore, tmp_path: Path) -> None:
    (tmp_path / "sealed-4").mkdir()
    store.copy_for_index(tmp_path / "copy")
    with pytest.raises(FileExistsError):
        build_in_child(tmp_path / "copy", tmp_path / "sealed-4", dense_dim=DIM)
    assert (tmp_path / "copy").exists()  # not consumed: the caller may build elsewhere


def test_discard_partial_only_removes_a_partial(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    assert discard_partial(tmp_path / "x") is False
    (tmp_path / f"x{PARTIAL}").mkdir()
    assert discard_partial(tmp_path / "x") is True
    assert (tmp_path / "x").exists() and not (tmp_path / f"x{PARTIAL}").exists()


class _CountingShard:
    """The engine shard with its flushes counted (the binding's methods cannot be patched)."""

    def __init__(self, shard: object) -> None:
        self._shard, self.flushes = shard, 0

    def flush(self) -> None:
        self.flushes += 1
        self._shard.flush()  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._shard, name)


def _points(start: int, n: int) -> list[ChunkPoint]:
    vecs = _vectors(n, start)
    return [ChunkPoint(id=f"00000000-0000-0000-0001-{i:012d}", dense=vecs[i - start].tolist(),
                       sparse=SparseVec([1], [1.0]),
                       payload={"client_id": "f", "document_id": "d", "version_id": "v1",
                                "chunk_index": i, "visibility": SEARCHABLE})
            for i in range(start, start + n)]


def test_the_shard_is_flushed_every_2000_points_written(tmp_path: Path) -> None:
    from app.store.edge import FLUSH_EVERY_POINTS

    assert FLUSH_EVERY_POINTS == 2000
    store = EdgeStore(tmp_path / "q", dense_model="fake/dense", dense_dim=DIM)
    counting = _CountingShard(store._shard)
    store._shard = counting
    try:
        store.upsert(_points(0, 1999))
        assert counting.flushes == 0  # one short of the bound
        store.upsert(_points(1999, 1))
        assert counting.flushes == 1  # at it
        store.upsert(_points(2000, 1999))
        assert counting.flushes == 1  # the count started again
        store.upsert(_points(3999, 2500))
        assert counting.flushes == 2  # one large write: one flush
    finally:
        store._shard = counting._shard
        store.close()
