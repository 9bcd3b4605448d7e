"""An HNSW index for a sealed copy of an embedded shard, built in a child process.

Why a child (issue 64): ``EdgeShard.optimize()`` holds the interpreter's lock for its whole run
(~29 s for 100k chunks here), so built in the server's process it freezes every thread —
searches, health checks, the worker. Built in a child, the server's lock is never taken: the
parent only copies the sealed shard's files (I/O, which releases the lock) and waits.

The promises, whatever instant a crash (of the child or of the parent) hits:
- the source shard is never opened by the child nor changed: the child works on a copy;
- the result appears only whole: the child builds in ``<target>.partial`` and renames it to
  ``<target>`` after its last flush; a ``.partial`` left by a crash is removed before the next
  build, so nothing half-built is ever loaded and nothing is doubled.

What is left to wire (docs/ARCHITECTURE.md, "Scale"): sealing the live shard at a size, the
fan-out over sealed shards and their merge by score, and replaying writes made during a build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Qdrant's own defaults (m 16, ef_construct 100): the probe measured recall@10 1.0 at
# 100k with them, and bench/scale.py measures it again on our vectors; chosen by principle, not
# tuned on the bench's figure. One indexing thread: on a 2-core machine the other core stays
# the server's while a build runs.
HNSW_M, HNSW_EF_CONSTRUCT, INDEXING_THREADS = 16, 100, 1
# Any segment above 1 MB of vectors is indexed in the child (the server's config never indexes).
CHILD_INDEXING_THRESHOLD_KB = 1000
PARTIAL = ".partial"


class IndexBuildFailed(RuntimeError):
    """The child did not finish: the source is intact, nothing was left at the target."""


@dataclass(frozen=True)
class BuildReport:
    target: Path
    seconds: float
    points: int
    indexed_vectors: int


def hnsw_config() -> Any:
    import qdrant_edge as qe

    return qe.HnswIndexConfig(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT,
                              full_scan_threshold=10_000, max_indexing_threads=INDEXING_THREADS)


def copy_shard(source: Path, target: Path) -> None:
    """Copy a flushed shard's files; the caller holds its writes back while this runs."""
    shutil.copytree(source, target)


def build_in_child(sealed_copy: Path, target: Path, *, dense_dim: int,
                   sentence_vectors: bool = False, timeout_s: float = 3600.0) -> BuildReport:
    """Index ``sealed_copy`` (a copy nobody else opens) into ``target`` in a child process.

    ``sealed_copy`` is consumed: it becomes ``<target>.partial`` and then ``target``."""
    target = Path(target)
    partial = target.with_name(target.name + PARTIAL)
    discard_partial(target)
    if target.exists():
        raise FileExistsError(f"{target} exists: an index is built once into a new folder")
    Path(sealed_copy).rename(partial)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "app.store.index_build", str(partial),
                           str(dense_dim), "1" if sentence_vectors else "0"],
                          capture_output=True, text=True, timeout=timeout_s,
                          cwd=Path(__file__).resolve().parents[2],
                          env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False)
    if proc.returncode != 0:
        discard_partial(target)
        raise IndexBuildFailed(f"the index build exited with {proc.returncode}: "
                               f"{(proc.stderr or proc.stdout).strip()[-500:]}")
    points, indexed = (int(x) for x in proc.stdout.split()[-2:])
    partial.rename(target)
    return BuildReport(target, time.perf_counter() - started, points, indexed)


def discard_partial(target: Path) -> bool:
    """Remove what a crashed build left (``<target>.partial``); True if there was any."""
    partial = Path(target).with_name(Path(target).name + PARTIAL)
    if partial.exists():
        shutil.rmtree(partial)
        return True
    return False


def _child(path: str, dense_dim: int, sentence_vectors: bool) -> None:
    """The child: open the copy with indexing on, build, flush, close; print the counts."""
    import qdrant_edge as qe

    from app.store.edge import edge_config

    shard = qe.EdgeShard.load(path, edge_config(dense_dim, sentence_vectors, indexed=True))
    shard.optimize()
    shard.flush()
    info = shard.info()
    shard.close()
    print(info.points_count, info.indexed_vectors_count, flush=True)


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1")
