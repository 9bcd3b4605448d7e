"""Side by side, one run: what a user would build from the same parts vs Evidence Search.

Peer: LlamaIndex IngestionPipeline (SentenceSplitter 512/50 + the same fastembed dense model)
into QdrantVectorStore(enable_hybrid=True) on qdrant-client's local mode, BM25 sparse vectors
from the same fastembed Qdrant/bm25 model with the IDF modifier, hybrid retrieval with its
default relative-score fusion, top 10. Ours: `evidence eval`'s path (real worker, real search).
Same corpus, same queries, same models, same machine, one process.

    pip install "llama-index-vector-stores-qdrant>=0.10,<0.11"
    python bench/peer_llamaindex.py [--docs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SCIFACT, machine  # noqa: E402


def peer(models, data, tmp: Path) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient
    from qdrant_client import models as qm

    dense = models.dense._model  # the same fastembed TextEmbedding

    class Embed(BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return next(iter(dense.embed([text]))).tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return [v.tolist() for v in dense.embed(texts, batch_size=16)]

        def _get_query_embedding(self, query: str) -> list[float]:
            return next(iter(dense.query_embed([query]))).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    sparse = models.sparse._model

    def sparse_docs(texts: list[str]):  # type: ignore[no-untyped-def]
        out = list(sparse.embed(texts))
        return [e.indices.tolist() for e in out], [e.values.tolist() for e in out]

    def sparse_query(texts: list[str]):  # type: ignore[no-untyped-def]
        out = list(sparse.query_embed(texts))
        return [e.indices.tolist() for e in out], [e.values.tolist() for e in out]

    client = QdrantClient(path=str(tmp / "peer"))
    store = QdrantVectorStore(
        "peer", client=client, enable_hybrid=True, sparse_doc_fn=sparse_docs,
        sparse_query_fn=sparse_query,
        sparse_config=qm.SparseVectorParams(modifier=qm.Modifier.IDF))
    docs = [Document(text=f"{title}\n\n{text}", doc_id=did)
            for did, (title, text) in data.corpus.items()]
    embed = Embed()
    t0 = time.perf_counter()
    pipeline = IngestionPipeline(transformations=[SentenceSplitter(chunk_size=512,
                                                                   chunk_overlap=50), embed],
                                 vector_store=store)
    nodes = pipeline.run(documents=docs)
    ingest_s = time.perf_counter() - t0
    retriever = VectorStoreIndex.from_vector_store(store, embed_model=embed).as_retriever(
        vector_store_query_mode="hybrid", similarity_top_k=10, sparse_top_k=10)
    runs = []
    for qid, query in data.queries.items():
        t0 = time.perf_counter()
        hits = retriever.retrieve(query)
        # several chunks of one document may come back: count each document once, in order
        ids = list(dict.fromkeys(h.node.ref_doc_id for h in hits))
        runs.append((qid, ids, (time.perf_counter() - t0) * 1000))
    client.close()
    return {"ingest_s": ingest_s, "chunks": len(nodes), "runs": runs}


def ours(models, data, tmp: Path) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from app.registry.database import transaction
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchQuery, SearchService
    from app.settings import Settings
    from evaluation.runner import ingest_corpus, open_eval_runtime

    runtime, client_id = open_eval_runtime(Settings(), tmp / "ours", models=models)
    n, ingest_s = ingest_corpus(runtime, client_id, data, lambda d, t: None)
    service = SearchService(SearchEngine(runtime.store, models, runtime.settings.search), 0.5)
    runs = []
    with transaction(runtime.sessions) as s:
        for qid, query in data.queries.items():
            t0 = time.perf_counter()
            answer = service.answer(s, client_id=client_id,
                                    query=SearchQuery(query=query, alpha=0.5, limit=10))
            runs.append((qid, [row.document_id for row in answer.rows],
                         (time.perf_counter() - t0) * 1000))
    runtime.close()
    return {"ingest_s": ingest_s, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=0, help="0: the whole corpus")
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()

    from app.models.loading import load_models
    from evaluation import beir
    from evaluation.metrics import ndcg_at_k, percentile

    data = beir.load(SCIFACT)
    if args.docs:
        keep = {d for q in data.qrels.values() for d in q}
        keep |= set(list(data.corpus)[: max(0, args.docs - len(keep))])
        data = beir.Dataset({d: data.corpus[d] for d in data.corpus if d in keep},
                            data.queries, data.qrels)
    models = load_models(args.models)
    print(f"machine: {machine()}")
    print(f"{len(data.corpus)} documents, {len(data.queries)} queries")
    with tempfile.TemporaryDirectory() as tmp:
        results = {"peer (LlamaIndex + qdrant-client local)": peer(models, data, Path(tmp)),
                   "Evidence Search (embedded engine)": ours(models, data, Path(tmp))}
    for name, r in results.items():
        ndcg = statistics.mean(ndcg_at_k(ids, data.qrels[q], 10) for q, ids, _ in r["runs"])
        times = [ms for _, _, ms in r["runs"]]
        print(f"{name}: ingest {r['ingest_s']:.0f} s, query p50 {percentile(times, 50):.1f} ms "
              f"p95 {percentile(times, 95):.1f} ms, nDCG@10 {ndcg:.3f}")


if __name__ == "__main__":
    main()
