"""Moving an index between engines, and backing it up: every point with its vectors and payload
to a folder of gzipped JSON-lines batches, and from such a folder into any engine.

Both directions resume: ``export`` records after each batch where the next one starts
(``manifest.json``), ``import`` records which batches are in (``imported.json``; re-writing a
batch is harmless, points keep their ids). ``import`` ends by checking that every exported id
is in the target. Why our own format: the embedded engine (Qdrant Edge) has no snapshot that a
Qdrant server can restore, and points are all this needs.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.domain.errors import ServiceError
from app.models.encoders import SparseVec
from app.store.base import ChunkPoint, VectorStore

MANIFEST, IMPORTED = "manifest.json", "imported.json"
FORMAT = "evidence-points/1"


@dataclass
class ExportManifest:
    format: str
    dense_model: str
    dense_dim: int
    batches: int = 0
    points: int = 0
    next_offset: str | None = None
    complete: bool = False
    # the source kept sentence vectors (an export from before them has no such key: False)
    sentence_vectors: bool = False


def _owner_only(path: str, flags: int) -> int:
    """``open``'s opener: a file the owner alone may read, from its first byte (an export
    holds every chunk's text; the README promises it owner-only, whatever the umask)."""
    fd = os.open(path, flags, 0o600)
    os.fchmod(fd, 0o600)  # a file an older export left keeps its mode otherwise
    return fd


def _write_json(path: Path, value: dict[str, Any]) -> None:
    """Written whole or not at all (a crash mid-write leaves the previous state)."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", opener=_owner_only) as fh:
        fh.write(json.dumps(value, indent=2))
    os.replace(tmp, path)


def _batch_path(folder: Path, n: int) -> Path:
    return folder / f"points-{n:06d}.jsonl.gz"


def export_points(store: VectorStore, folder: Path, *, dense_model: str, dense_dim: int,
                  batch: int = 1000, on_batch: Callable[[int], None] | None = None
                  ) -> ExportManifest:
    """Every point of ``store`` into ``folder``, continuing an unfinished export there."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)  # the export's folder: its owner's alone
    path = folder / MANIFEST
    if path.exists():
        manifest = ExportManifest(**json.loads(path.read_text()))
        if manifest.complete:
            return manifest
    else:
        manifest = ExportManifest(FORMAT, dense_model, dense_dim,
                                  sentence_vectors=store.sentence_vectors)
    while True:
        points, following = store.export_points(manifest.next_offset, batch)
        if points:
            with open(_batch_path(folder, manifest.batches + 1), "wb", opener=_owner_only
                      ) as raw, gzip.open(raw, "wt") as fh:
                for p in points:
                    row = {"id": p.id, "dense": p.dense,
                           "sparse": [p.sparse.indices, p.sparse.values], "payload": p.payload}
                    if p.sentences:
                        row["sentences"] = p.sentences
                    fh.write(json.dumps(row) + "\n")
            manifest.batches += 1
            manifest.points += len(points)
        manifest.next_offset = following
        manifest.complete = following is None
        _write_json(path, asdict(manifest))
        if on_batch:
            on_batch(manifest.points)
        if manifest.complete:
            return manifest


def read_manifest(folder: Path) -> ExportManifest:
    path = folder / MANIFEST
    if not path.exists():
        raise ServiceError(f"{folder} holds no export ({MANIFEST} is missing)",
                           code="EXPORT_NOT_FOUND")
    manifest = ExportManifest(**json.loads(path.read_text()))
    if manifest.format != FORMAT:
        raise ServiceError(f"{folder}: unknown export format {manifest.format!r}",
                           code="EXPORT_FORMAT")
    if not manifest.complete:
        raise ServiceError(f"{folder}: the export did not finish; run `evidence store export` "
                           "again to complete it", code="EXPORT_INCOMPLETE")
    return manifest


def _read_batch(path: Path) -> list[ChunkPoint]:
    with gzip.open(path, "rt") as fh:
        return [ChunkPoint(id=row["id"], dense=row["dense"],
                           sparse=SparseVec(indices=row["sparse"][0], values=row["sparse"][1]),
                           payload=row["payload"], sentences=row.get("sentences"))
                for row in map(json.loads, fh)]


@dataclass
class ImportReport:
    batches: int
    points: int
    missing: int  # exported ids the target does not hold (0 when the import is whole)
    # the export holds sentence vectors the target collection cannot keep (made without them)
    sentences_left_out: bool = False


def import_points(store: VectorStore, folder: Path,
                  on_batch: Callable[[int], None] | None = None) -> ImportReport:
    """Every exported batch into ``store``, skipping those an earlier run finished, then a
    check that the target holds every exported id."""
    manifest = read_manifest(folder)
    state_path = folder / IMPORTED
    done = set(json.loads(state_path.read_text())["batches"]) if state_path.exists() else set()
    for n in range(1, manifest.batches + 1):
        if n not in done:
            store.upsert(_read_batch(_batch_path(folder, n)))
            done.add(n)
            _write_json(state_path, {"batches": sorted(done)})
        if on_batch:
            on_batch(n)
    missing = 0
    for n in range(1, manifest.batches + 1):
        ids = [p.id for p in _read_batch(_batch_path(folder, n))]
        missing += len(set(ids) - set(store.retrieve(ids)))
    return ImportReport(batches=manifest.batches, points=manifest.points, missing=missing,
                        sentences_left_out=manifest.sentence_vectors
                        and not store.sentence_vectors)
