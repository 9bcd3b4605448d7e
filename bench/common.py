"""Shared bits of the benchmarks: where SciFact is, the machine, percentiles."""

from __future__ import annotations

import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCIFACT = REPO.parent / "shared" / "data" / "scifact"


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{python}, {os.cpu_count()} cores, {cpu}"


CHUNKS_PER_DOC = 5


class SyntheticCorpus:
    """Real SciFact vectors for ``base`` abstracts, repeated with a little noise on the dense
    vector to reach any size (sparse vectors and texts repeat as they are)."""

    def __init__(self, models_dir: Path, base: int, queries: int) -> None:
        import time

        from app.models.loading import load_models
        from evaluation import beir

        data = beir.load(SCIFACT)
        self.texts = [f"{t}\n\n{x}" for t, x in list(data.corpus.values())[:base]]
        self.queries = list(data.queries.values())[:queries]
        self.models = load_models(models_dir)
        assert self.models.dense is not None
        t0 = time.perf_counter()
        self.dense = self.models.dense.embed_documents(self.texts)
        self.sparse = self.models.sparse.embed_documents(self.texts)
        self.embed_s = time.perf_counter() - t0

    def points(self, client_id: str, size: int):  # type: ignore[no-untyped-def]
        """ChunkPoints d0:0 … as the ingestion worker writes them, published."""
        import numpy as np

        from app.store import ChunkPoint
        from app.store.base import SEARCHABLE, point_id

        rng = np.random.default_rng(7)
        for i in range(size):
            base = i % len(self.texts)
            vec = self.dense[base] + rng.normal(0, 0.02, self.dense.shape[1]).astype(np.float32)
            doc, idx = f"d{i // CHUNKS_PER_DOC}", i % CHUNKS_PER_DOC
            yield ChunkPoint(
                id=point_id(client_id, doc, "v1", idx), dense=(vec / np.linalg.norm(vec)).tolist(),
                sparse=self.sparse[base], payload={
                    "client_id": client_id, "document_id": doc, "version_id": "v1",
                    "chunk_id": f"{doc}:{idx}", "chunk_index": idx, "text": self.texts[base],
                    "title": "", "heading_path": [], "page": None, "line_start": None,
                    "line_end": None, "kind": "md", "source": "bench", "entities": {},
                    "visibility": SEARCHABLE})


def upsert_all(store, points, batch: int = 1000) -> None:  # type: ignore[no-untyped-def]
    chunk = []
    for p in points:
        chunk.append(p)
        if len(chunk) == batch:
            store.upsert(chunk)
            chunk = []
    store.upsert(chunk)
