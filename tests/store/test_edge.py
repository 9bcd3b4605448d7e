"""The embedded engine's adapter (app/store/edge.py): reopening after a failed write, and
compaction that takes a deleted document's text out of the engine's files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.domain.errors import StoreRejected
from app.models.encoders import SparseVec
from app.store import ChunkFilter, ChunkPoint
from app.store.base import SEARCHABLE, point_id
from app.store.edge import EdgeStore

SECRET = "CONFIDENTIAL-TOKEN-4711"


class FailingShard:
    """The real shard, except that the next ``budget["fail"]`` writes raise as the engine
    does once it is poisoned."""

    def __init__(self, shard: Any, budget: dict[str, int]) -> None:
        self._shard, self._budget = shard, budget

    def update(self, op: Any) -> None:
        if self._budget["fail"] > 0:
            self._budget["fail"] -= 1
            raise RuntimeError("Service runtime error: Not recovered from previous error")
        self._shard.update(op)

    def flush(self) -> None:
        if self._budget.get("flush_fail", 0) > 0:
            self._budget["flush_fail"] -= 1
            raise RuntimeError("Service internal error: Failed to flush mmap payload gridstore: "
                               "Tracker journal tracker_journal.dat is shorter than expected")
        self._shard.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._shard, name)


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    budget = {"fail": 0, "opened": 0}
    real_open = EdgeStore._open

    def open_wrapped(self: EdgeStore) -> Any:
        budget["opened"] += 1
        return FailingShard(real_open(self), budget)

    monkeypatch.setattr(EdgeStore, "_open", open_wrapped)
    return budget


def _point(doc: str, i: int, text: str = "some text") -> ChunkPoint:
    return ChunkPoint(id=point_id("c1", doc, "v1", i), dense=None, sparse=SparseVec([i + 1], [1.0]),
                      payload={"client_id": "c1", "document_id": doc, "version_id": "v1",
                               "chunk_index": i, "text": text, "visibility": SEARCHABLE})


def _store(tmp_path: Path) -> EdgeStore:
    return EdgeStore(tmp_path / "edge", dense_model="m", dense_dim=4)


def test_a_write_that_fails_once_reopens_the_engine_and_succeeds(tmp_path: Path,
                                                                 failing: dict) -> None:
    store = _store(tmp_path)
    failing["fail"] = 1
    store.upsert([_point("a", 0)])
    assert failing["opened"] == 2  # opened, then reopened once
    assert store.count(ChunkFilter("c1")) == 1
    store.close()


def test_a_write_the_engine_refuses_twice_fails_alone_and_later_writes_go_on(
        tmp_path: Path, failing: dict) -> None:
    store = _store(tmp_path)
    failing["fail"] = 2
    with pytest.raises(StoreRejected) as err:
        store.upsert([_point("bad", 0)])
    assert "refused this write of chunks" in err.value.message and err.value.http_status == 422
    store.upsert([_point("good", 0)])
    store.delete(client_id="c1", document_id="good")
    store.upsert([_point("good", 1)])
    assert [h.payload["document_id"] for h in store.scroll(ChunkFilter("c1"))] == ["good"]
    store.close()


def _files_holding(root: Path, needle: bytes, skip: str = "wal") -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and skip not in p.parts
            and needle in p.read_bytes()]


def test_compaction_takes_deleted_text_out_of_the_engines_segments(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.upsert([_point("keep", i) for i in range(20)] + [_point("gone", 0, SECRET)])
    store.close()  # flushed: the text is in the segment files now
    store = _store(tmp_path)
    assert _files_holding(tmp_path, SECRET.encode())
    assert not store.delete_pending_compaction()
    store.delete(client_id="c1", document_id="gone")
    assert store.delete_pending_compaction()
    assert store.compact() is True
    assert not store.delete_pending_compaction()
    assert _files_holding(tmp_path, SECRET.encode()) == []
    assert store.count(ChunkFilter("c1")) == 20
    store.close()
    store = _store(tmp_path)  # reopens fine after compaction
    assert store.count(ChunkFilter("c1")) == 20
    store.close()


def test_a_compaction_whose_flush_fails_reopens_the_engine_and_loses_nothing(
        tmp_path: Path, failing: dict) -> None:
    """The issue's "tracker_journal.dat is shorter than expected", raised by a compaction's
    flush: the shard is loaded again from its files and WAL and the compaction runs again;
    failing twice, it is tried at the next interval and every write goes on."""
    store = _store(tmp_path)
    store.upsert([_point("keep", i) for i in range(5)] + [_point("gone", 0, SECRET)])
    store.delete(client_id="c1", document_id="gone")
    failing["flush_fail"] = 1
    store.compact()  # no error: reopened, compacted again
    assert failing["opened"] == 2 and not store.delete_pending_compaction()
    store.delete(client_id="c1", document_id="keep", version_id="v0")  # nothing; pending again
    failing["flush_fail"] = 2
    with pytest.raises(StoreRejected, match="could not compact"):
        store.compact()
    assert store.delete_pending_compaction()  # tried again later
    store.upsert([_point("after", 0)])
    assert sorted({h.payload["document_id"] for h in store.scroll(ChunkFilter("c1"))}) == [
        "after", "keep"]
    assert store.compact() in (True, False)
    store.close()
    reopened = _store(tmp_path)
    assert reopened.count(ChunkFilter("c1")) == 6
    reopened.close()
