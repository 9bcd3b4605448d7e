"""Ingest a BEIR corpus through the real pipeline and ask every query through the real search.

Each corpus document becomes one Document Version (Markdown: its title as the heading, so the
title goes in front of every chunk as in production). The index lives in its own data directory,
so evaluation never touches a user's documents; pass the same ``work_dir`` again to reuse it.
Evaluation is keyed to document ids, so it survives re-chunking and re-embedding.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.documents.uploads import accept_upload, document_id_for
from app.models.loading import LoadedModels
from app.registry import clients as reg
from app.registry.database import transaction
from app.registry.tables import Document
from app.runtime import Runtime, build_runtime
from app.search.bm25 import weigh_query
from app.search.lanes import dense_lane, sparse_lane
from app.search.pipeline import SearchEngine
from app.search.service import SearchQuery, SearchService, client_corpus
from app.settings import DatabaseSettings, QdrantSettings, Settings
from app.store import ChunkFilter
from evaluation.beir import Dataset
from evaluation.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k

if TYPE_CHECKING:
    from ingest.service import WorkerPool

EVAL_CLIENT = "eval"
DEPTH = 100


@dataclass
class ModeResult:
    mode: str
    alpha: float
    rerank: bool
    ndcg10: float
    recall100: float
    mrr10: float
    p50_ms: float
    p95_ms: float


@dataclass
class LaneCalibration:
    lane: str
    relevant: list[float] = field(default_factory=list)
    other: list[float] = field(default_factory=list)

    def floor_keeping(self, share: float) -> float:
        return percentile(self.relevant, 100 * (1 - share))


def eval_settings(base: Settings, work_dir: Path) -> Settings:
    return base.model_copy(update={
        "data_dir": work_dir,
        "database": DatabaseSettings(url=f"sqlite:///{work_dir}/registry.db"),
        "qdrant": QdrantSettings(path=work_dir / "qdrant",  # embedded, whatever the base's
                                 sentence_vectors=base.qdrant.sentence_vectors,
                                 sentence_pooling=base.qdrant.sentence_pooling),
        "embedded_worker": False,
    })


def open_eval_runtime(base: Settings, work_dir: Path, models: LoadedModels | None = None
                      ) -> tuple[Runtime, str]:
    runtime = build_runtime(eval_settings(base, work_dir), models=models)
    with transaction(runtime.sessions) as s:
        try:
            client = reg.get_client(s, name=EVAL_CLIENT)
        except Exception:  # noqa: BLE001 - first run
            client, _ = reg.create_client(s, name=EVAL_CLIENT)
    return runtime, client.id


def ingest_corpus(runtime: Runtime, client_id: str, dataset: Dataset,
                  on_progress: Callable[[int, int], None],
                  workers: WorkerPool | None = None) -> tuple[int, float]:
    """Upload and index every corpus document not indexed yet: (how many, seconds from the
    first upload to the last publication, worker start-up excluded), by the settings'
    ingest.workers. ``workers`` lets a benchmark run differently wired ones (warmed, without
    entities) over the same path."""
    from ingest.service import WorkerPool

    have = indexed_ids(runtime, client_id)
    todo = [(d, t) for d, t in dataset.corpus.items() if document_id_for(d) not in have]
    if not todo:
        return 0, 0.0
    owned = workers is None
    pool = workers or WorkerPool(runtime)  # their children load the models at a first job
    started = time.perf_counter()
    with transaction(runtime.sessions) as s:
        for doc_id, (title, text) in todo:
            body = f"# {title}\n\n{text}\n" if title else text
            accept_upload(s, settings=runtime.settings.ingest, client_id=client_id,
                          filename=f"{document_id_for(doc_id)}.md", content=body.encode(),
                          document_id=document_id_for(doc_id), custom={}, source="eval", path=None)
    watching = threading.Event()

    def watch() -> None:  # progress from the registry, while the workers index
        while not watching.wait(1.0):
            on_progress(len(indexed_ids(runtime, client_id)) - len(have), len(todo))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    done = pool.drain()
    watching.set()
    watcher.join()
    on_progress(done, len(todo))
    elapsed = time.perf_counter() - started
    if owned:
        pool.close()
    return len(todo), elapsed


def indexed_ids(runtime: Runtime, client_id: str) -> set[str]:
    """The client's documents with a current version."""
    from sqlalchemy import select

    with transaction(runtime.sessions) as s:
        return set(s.scalars(select(Document.document_id).where(
            Document.client_id == client_id, Document.current_version_id.is_not(None))))


def ranked_ids(session, service: SearchService, client_id: str, query: str,  # type: ignore[no-untyped-def]
               alpha: float, rerank: bool, limit: int, fusion: str | None = None) -> list[str]:
    """The document ids of the answer a caller gets, best first."""
    answer = service.answer(session, client_id=client_id,
                            query=SearchQuery(query=query, alpha=alpha, rerank=rerank,
                                              limit=limit, fusion=fusion,
                                              syntax=False))  # claims are plain text
    return [row.document_id for row in answer.rows]


def evaluate(runtime: Runtime, client_id: str, dataset: Dataset, modes: list[tuple[str, float,
             bool]], engine: SearchEngine | None = None) -> list[ModeResult]:
    """nDCG@10 and MRR@10 from the answer a caller gets with limit 10 (the candidate depth
    follows the window, so a limit-100 answer may order its top 10 differently); recall@100
    from a limit-100 answer. Latency is the limit-10 request's."""
    engine = engine or SearchEngine(runtime.store, runtime.models, runtime.settings.search)
    service = SearchService(engine, runtime.settings.search.hybrid_alpha)
    results = []
    for name, alpha, rerank in modes:
        ndcg, recall, mrr, times = [], [], [], []
        with transaction(runtime.sessions) as s:
            for qid, query in dataset.queries.items():
                rel = {document_id_for(d): g for d, g in dataset.qrels[qid].items()}
                t0 = time.perf_counter()
                top10 = ranked_ids(s, service, client_id, query, alpha, rerank, 10)
                times.append((time.perf_counter() - t0) * 1000)
                top100 = ranked_ids(s, service, client_id, query, alpha, rerank, DEPTH)
                ndcg.append(ndcg_at_k(top10, rel, 10))
                recall.append(recall_at_k(top100, rel, 100))
                mrr.append(mrr_at_k(top10, rel, 10))
        n = len(ndcg) or 1
        results.append(ModeResult(name, alpha, rerank, sum(ndcg) / n, sum(recall) / n,
                                  sum(mrr) / n, percentile(times, 50), percentile(times, 95)))
    return results


def calibrate(runtime: Runtime, client_id: str, dataset: Dataset) -> list[LaneCalibration]:
    """Each lane's raw scores (no floor), best chunk per document in the top 100, split into
    judged-relevant documents and the rest."""
    models = runtime.models
    flt = ChunkFilter(client_id=client_id)
    lanes = {"dense": LaneCalibration("dense"), "sparse": LaneCalibration("sparse")}
    for qid, query in dataset.queries.items():
        rel = {document_id_for(d) for d, g in dataset.qrels[qid].items() if g > 0}
        with transaction(runtime.sessions) as s:
            sparse = models.sparse.embed_query(query)
            prior = SearchEngine(runtime.store, models, runtime.settings.search).bm25_prior
            sparse = weigh_query(sparse, client_corpus(s, client_id, prior)(sparse.indices))
        results = [sparse_lane(runtime.store, sparse, flt, depth=DEPTH, floor=float("-inf"))]
        if models.dense is not None:
            results.append(dense_lane(runtime.store, models.dense.embed_query(query), flt,
                                      depth=DEPTH, floor=float("-inf")))
        for lane in results:
            best: dict[str, float] = {}
            for c in lane.hits:
                score = c.dense_score if lane.lane == "dense" else c.sparse_score
                best[c.document_id] = max(best.get(c.document_id, float("-inf")), score or 0.0)
            for doc, score in best.items():
                (lanes[lane.lane].relevant if doc in rel else lanes[lane.lane].other).append(score)
    return list(lanes.values())
