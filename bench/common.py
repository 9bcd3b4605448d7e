"""Shared bits of the benchmarks: where SciFact is, the machine, percentiles."""

from __future__ import annotations

import argparse
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


def eval_index_args(description: str, queries: int) -> argparse.Namespace:
    """The options of a bench that reads the index `evidence eval` built."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, default=SCIFACT)
    parser.add_argument("--queries", type=int, default=queries)
    return parser.parse_args()


def open_eval_service(work_dir: Path):  # type: ignore[no-untyped-def]
    """(runtime, the eval client's id, a SearchService at alpha 0.5) over an eval index."""
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchService
    from app.settings import get_settings
    from evaluation.runner import open_eval_runtime

    runtime, client_id = open_eval_runtime(get_settings(), work_dir)
    service = SearchService(SearchEngine(runtime.store, runtime.models,
                                         runtime.settings.search), 0.5)
    return runtime, client_id, service


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

        from app.domain.sentences import flat_spans, split
        from app.store import ChunkPoint
        from app.store.base import SEARCHABLE, point_id

        spans = [flat_spans(split(text)) for text in self.texts]  # kept as ingestion keeps them
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
                    "sentence_spans": spans[base], "visibility": SEARCHABLE})


def upsert_all(store, points, batch: int = 1000) -> None:  # type: ignore[no-untyped-def]
    chunk = []
    for p in points:
        chunk.append(p)
        if len(chunk) == batch:
            store.upsert(chunk)
            chunk = []
    store.upsert(chunk)
