"""Hybrid search latency through the service code vs (query embedding + engine), same run.

Builds an embedded index of N chunks from real SciFact vectors: the first --base abstracts are
embedded for real, then repeated with a little noise on the dense vector to reach N (sparse
vectors and texts repeat as they are). Every chunk's version is registered and published in the
registry, as in production, so the service's metadata lookups are real too.

Per query, interleaved: the query embedding alone, the two engine queries alone (dense + BM25,
top 100, client filter, the payload fields the service asks for), and the whole service path
(the search service and the answer's presenter: embed, the client's BM25 statistics, lanes,
floors, fusion, grouping, evidence, registry lookups, the response model) for
alpha 0.5, limit 10, no rerank.

``--browse`` (issue 51): an empty query's browse timed too — the whole collection (every
chunk scrolled, every version ordered by date) and 20 documents named by a filter.

``--groups N`` (issue 48): a third of the documents carry one access group of seven, and the
service path is timed again, interleaved, for a key holding N of them (the groups' condition
inside every engine query); the ratio to the admin key's p50 is printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import CHUNKS_PER_DOC, SyntheticCorpus, machine, upsert_all  # noqa: E402


def register_versions(runtime, client_id: str, size: int) -> None:  # type: ignore[no-untyped-def]
    """Every chunk's version registered and published, as in production."""
    from sqlalchemy import insert

    from app.registry.tables import Document, DocumentVersion, utcnow

    n_docs, now = size // CHUNKS_PER_DOC, utcnow()
    with runtime.engine.begin() as conn:
        conn.execute(insert(Document), [dict(
            client_id=client_id, document_id=f"d{i}", kind="md", source="bench", path=None,
            version_count=1, current_version_id="v1", created_at=now, updated_at=now)
            for i in range(n_docs)])
        pks = dict(conn.execute(Document.__table__.select().with_only_columns(
            Document.document_id, Document.id)).all())
        conn.execute(insert(DocumentVersion), [dict(
            document_pk=pks[f"d{i}"], version_id="v1", state="published", filename=f"d{i}.md",
            mime_type="text/markdown", size_bytes=1000, content_sha256=uuid.uuid4().hex * 2,
            canonical_metadata={"schema_version": "2", "source": {"filename": f"d{i}.md"},
                                "custom": {}}, chunk_count=CHUNKS_PER_DOC, created_at=now,
            published_at=now) for i in range(n_docs)])


def register_bm25(runtime, client_id: str, points) -> None:  # type: ignore[no-untyped-def]
    """The client's BM25 statistics for the synthetic chunks, as publication would count them."""
    from collections import Counter

    from sqlalchemy import insert

    from app.registry.tables import Bm25Corpus, Bm25Term

    df: Counter[int] = Counter()
    chunks = 0
    for p in points:
        df.update(set(p.sparse.indices))
        chunks += 1
    with runtime.engine.begin() as conn:
        conn.execute(insert(Bm25Corpus), [{"client_id": client_id, "chunk_count": chunks}])
        conn.execute(insert(Bm25Term), [{"client_id": client_id, "term": t, "df": n}
                                        for t, n in df.items()])


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--base", type=int, default=2000)
    parser.add_argument("--models", type=Path, default=Path("models"))
    parser.add_argument("--groups", type=int, default=0,
                        help="also time a key holding this many access groups")
    parser.add_argument("--browse", action="store_true", help="also time empty-query browses")
    args = parser.parse_args()
    from dataclasses import replace

    from app.api.presenter import evidence_result
    from app.domain.access import Access
    from app.registry.database import transaction
    from app.search.lanes import LANE_FIELDS
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchQuery, SearchService
    from app.settings import Settings
    from app.store import ChunkFilter
    from evaluation.runner import open_eval_runtime

    corpus = SyntheticCorpus(args.models, args.base, args.queries)
    models, queries = corpus.models, corpus.queries
    assert models.dense is not None
    print(f"machine: {machine()}")
    print(f"embedded {len(corpus.texts)} base texts in {corpus.embed_s:.0f} s")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            runtime, client_id = open_eval_runtime(Settings(models={"dir": args.models}),
                                                   Path(tmp), models=models)
            t0 = time.perf_counter()
            register_versions(runtime, client_id, size)
            register_bm25(runtime, client_id, corpus.points(client_id, size))
            points = corpus.points(client_id, size)
            if args.groups:  # a third of the documents in one group of seven each
                points = [replace(p, payload={**p.payload, "access": [
                    f"g{int(p.payload['document_id'][1:]) % 7}"]})
                    if int(p.payload["document_id"][1:]) % 3 == 0 else p for p in points]
            upsert_all(runtime.store, points)
            key = Access(tuple(f"g{i}" for i in range(args.groups)))
            print(f"\n{size:,} chunks indexed in {time.perf_counter() - t0:.0f} s")
            service = SearchService(SearchEngine(runtime.store, models,
                                                 runtime.settings.search), 0.5)
            flt = ChunkFilter(client_id=client_id)
            embed_ms, engine_ms, service_ms, grouped_ms = [], [], [], []
            for q in queries * 2:  # the first pass warms caches; only the second is kept
                t0 = time.perf_counter()
                vec = models.dense.embed_query(q)
                svec = models.sparse.embed_query(q)
                t1 = time.perf_counter()
                runtime.store.query_dense(vec, flt, 100, fields=LANE_FIELDS)
                runtime.store.query_sparse(svec, flt, 100, fields=LANE_FIELDS)
                t2 = time.perf_counter()
                with transaction(runtime.sessions) as s:
                    evidence_result(service.answer(s, client_id=client_id, query=SearchQuery(
                        query=q, alpha=0.5, limit=10)), explain=False)
                t3 = time.perf_counter()
                if args.groups:
                    with transaction(runtime.sessions) as s:
                        evidence_result(service.answer(s, client_id=client_id, query=SearchQuery(
                            query=q, alpha=0.5, limit=10), access=key), explain=False)
                    grouped_ms.append((time.perf_counter() - t3) * 1000)
                embed_ms.append((t1 - t0) * 1000)
                engine_ms.append((t2 - t1) * 1000)
                service_ms.append((t3 - t2) * 1000)
            keep = len(queries)
            embed_ms, engine_ms, service_ms = embed_ms[keep:], engine_ms[keep:], service_ms[keep:]
            base = pct(embed_ms, 50) + pct(engine_ms, 50)
            for label, values in (("query embedding ", embed_ms), ("engine (2 lanes)", engine_ms),
                                  ("service search  ", service_ms)):
                print(f"{label} p50 {pct(values, 50):7.1f} ms  p95 {pct(values, 95):7.1f}")
            print(f"service p50 / (embed p50 + engine p50) = {pct(service_ms, 50) / base:.2f}")
            if args.groups:
                grouped_ms = grouped_ms[keep:]
                print(f"{args.groups}-group key     p50 {pct(grouped_ms, 50):7.1f} ms  p95 "
                      f"{pct(grouped_ms, 95):7.1f}; / admin key p50 = "
                      f"{pct(grouped_ms, 50) / pct(service_ms, 50):.2f}")
            if args.browse:
                docs = [f"d{i}" for i in range(20)]  # bench/common.py's document ids
                for label, filters in (("browse, everything", {}),
                                       ("browse, 20 documents", {"document_id": docs[:20]})):
                    times = []
                    for _ in range(25):
                        t0 = time.perf_counter()
                        with transaction(runtime.sessions) as s:
                            answer = service.answer(s, client_id=client_id, query=SearchQuery(
                                query="", filters=filters, limit=10))
                            evidence_result(answer, explain=False)
                        times.append((time.perf_counter() - t0) * 1000)
                    times = times[5:]
                    print(f"{label:<22} p50 {pct(times, 50):7.1f} ms  p95 {pct(times, 95):7.1f}"
                          f"  ({answer.total:,} versions"
                          f"{'+' if answer.total_is_lower_bound else ''}; last: "
                          + ", ".join(f"{k} {v:.0f}" for k, v in answer.timings.items()
                                      if v >= 1) + " ms)")
            runtime.close()


if __name__ == "__main__":
    main()
