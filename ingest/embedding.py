"""Dense and BM25 vectors for chunks, with entity extraction hidden behind the dense model.

The dense model (ONNX) releases the GIL while it runs, so spaCy and BM25 for a batch run in a
helper thread while the dense model embeds the same batch.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from app.models.encoders import DenseEncoder, SparseEncoder, SparseVec
from ingest.entities import Entities, EntityExtractor


@dataclass(frozen=True)
class EmbeddedBatch:
    dense: np.ndarray | None
    sparse: list[SparseVec]
    entities: list[Entities]
    seconds: dict[str, float] = field(default_factory=dict, compare=False)  # metrics


class BatchEmbedder:
    def __init__(self, dense: DenseEncoder | None, sparse: SparseEncoder,
                 entities: EntityExtractor | None) -> None:
        self._dense, self._sparse, self._entities = dense, sparse, entities
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ner-bm25")

    def _side(self, texts: Sequence[str], raw: Sequence[str]
              ) -> tuple[list[SparseVec], list[Entities], float]:
        sparse = self._sparse.embed_documents(texts)
        t0 = time.perf_counter()
        entities = self._entities.extract(raw) if self._entities else [{} for _ in raw]
        return sparse, entities, time.perf_counter() - t0

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch:
        """``texts`` (title + headings + chunk) feed the vectors; entities come from the chunk."""
        t0 = time.perf_counter()
        side = self._pool.submit(self._side, texts, raw_texts)
        dense = self._dense.embed_documents(texts) if self._dense is not None else None
        embed_s = time.perf_counter() - t0  # the dense model's wall time (BM25 runs beside it)
        sparse, entities, entities_s = side.result()
        return EmbeddedBatch(dense=dense, sparse=sparse, entities=entities,
                             seconds={"embed": embed_s, "entities": entities_s})

    def close(self) -> None:
        self._pool.shutdown(wait=False)
