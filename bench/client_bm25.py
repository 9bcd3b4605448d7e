"""What per-client BM25 statistics cost: the registry read per search and the counting per
publication, against the engine's own BM25 query on the same corpus (same run).

    python -m bench.client_bm25 [--docs 5183] [--db-url sqlite:///…]

Each SciFact abstract is one published version of one chunk (real Qdrant/bm25 vectors); the
queries are SciFact's. Prints medians and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import REPO, SCIFACT, machine


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):.3f} ms, p95 {p95:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=5183)
    parser.add_argument("--db-url", default=None)
    args = parser.parse_args()

    from app.models.loading import load_models
    from app.registry import bm25_stats
    from app.registry import clients as reg
    from app.registry.bm25_stats import term_document_frequencies
    from app.registry.database import make_engine, make_sessionmaker, migrate, transaction
    from app.registry.tables import Document, DocumentVersion
    from app.search.bm25 import CorpusStats, weigh_query
    from app.store import ChunkFilter, ChunkPoint
    from app.store.base import SEARCHABLE, point_id
    from app.store.edge import EdgeStore
    from evaluation import beir

    data = beir.load(SCIFACT)
    texts = [f"{t}\n\n{x}" for t, x in list(data.corpus.values())[:args.docs]]
    queries = list(data.queries.values())
    models = load_models(REPO / "models", with_dense=False)
    vectors = models.sparse.embed_documents(texts)
    tmp = Path(tempfile.mkdtemp(prefix="bench-bm25-"))
    engine = make_engine(args.db_url or f"sqlite:///{tmp}/registry.db")
    migrate(engine)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as s:
        client, _key = reg.create_client(s, name=f"bench-{time.time_ns()}")
        client_id = client.id

    publish, supersede = [], []
    for i, vector in enumerate(vectors):
        with transaction(sessions) as s:
            doc = Document(client_id=client_id, document_id=f"d{i}", kind="md",
                           version_count=1, current_version_id="v1")
            s.add(doc)
            s.flush()
            version = DocumentVersion(document_pk=doc.id, version_id="v1", state="published",
                                      filename="x.md", mime_type="text/markdown", size_bytes=1,
                                      content_sha256="0", canonical_metadata={}, chunk_count=1,
                                      term_df=term_document_frequencies([vector]))
            s.add(version)
            s.flush()
            t0 = time.perf_counter()
            bm25_stats.add_version(s, client_id=client_id, version=version)
            publish.append((time.perf_counter() - t0) * 1000)
            if i % 50 == 0:  # a supersede: take the counts away and add them back
                t0 = time.perf_counter()
                bm25_stats.remove_version(s, client_id=client_id, version=version)
                bm25_stats.add_version(s, client_id=client_id, version=version)
                supersede.append((time.perf_counter() - t0) * 1000)

    store = EdgeStore(tmp / "qdrant", dense_model="none", dense_dim=4)
    points = [ChunkPoint(id=point_id(client_id, f"d{i}", "v1", 0), dense=None, sparse=v,
                         payload={"client_id": client_id, "document_id": f"d{i}",
                                  "version_id": "v1", "chunk_index": 0,
                                  "visibility": SEARCHABLE}) for i, v in enumerate(vectors)]
    for start in range(0, len(points), 1000):
        store.upsert(points[start:start + 1000])
    flt = ChunkFilter(client_id=client_id)
    lookup, engine_query = [], []
    for _round in range(2):
        for query in queries:
            terms = models.sparse.embed_query(query)
            t0 = time.perf_counter()
            with transaction(sessions) as s:
                weighted = weigh_query(terms, CorpusStats(*bm25_stats.lookup(
                    s, client_id=client_id, terms=terms.indices)))
            lookup.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            store.query_sparse(weighted, flt, 100, fields=("document_id",))
            engine_query.append((time.perf_counter() - t0) * 1000)
    store.close()
    with transaction(sessions) as s:
        terms_rows = s.execute(bm25_stats.TERMS.select().where(
            bm25_stats.TERMS.c.client_id == client_id)).all()
    print(f"machine: {machine()}; registry: {engine.dialect.name}; {len(texts)} versions "
          f"(one chunk each), {len(terms_rows)} distinct terms, {len(queries)} queries × 2")
    print(f"publish: counting a version's terms      {_ms(publish)}")
    print(f"supersede: − old counts, + new counts    {_ms(supersede)}")
    print(f"search: client IDF read + weighting      {_ms(lookup)}")
    print(f"search: the engine's BM25 query, top 100 {_ms(engine_query)}  (baseline)")


if __name__ == "__main__":
    main()
