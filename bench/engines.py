"""The same hybrid query on qdrant-client's local mode vs the embedded Qdrant Edge engine.

Both stores hold the same N points (real SciFact vectors repeated with noise, as in
query_latency.py) behind our VectorStore adapter; each query runs the dense and the BM25 lane
(top 100, client filter). Reports p50/p95 per engine and the ratio, same run.

    python bench/engines.py --sizes 10000,100000 --queries 50
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SyntheticCorpus, machine, upsert_all  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--base", type=int, default=1000)
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()

    from app.search.lanes import LANE_FIELDS
    from app.settings import QdrantSettings
    from app.store import ChunkFilter, open_store

    corpus = SyntheticCorpus(args.models, args.base, args.queries)
    models = corpus.models
    assert models.dense is not None
    qvecs = [(models.dense.embed_query(q), models.sparse.embed_query(q)) for q in corpus.queries]
    print(f"machine: {machine()}")
    for size in (int(s) for s in args.sizes.split(",")):
        points = list(corpus.points("c", size))
        results = {}
        for engine in ("qdrant-edge (embedded)", "qdrant-client local mode"):
            with tempfile.TemporaryDirectory() as tmp:
                settings = (QdrantSettings(path=Path(tmp)) if engine.startswith("qdrant-edge")
                            else QdrantSettings(url=f"path:{tmp}"))
                store = open_store(settings, dense_model="bench", dense_dim=384)
                t0 = time.perf_counter()
                upsert_all(store, points)
                build = time.perf_counter() - t0
                flt = ChunkFilter(client_id="c")
                times = []
                for vec, svec in qvecs * 2:
                    t0 = time.perf_counter()
                    store.query_dense(vec, flt, 100, fields=LANE_FIELDS)
                    store.query_sparse(svec, flt, 100, fields=LANE_FIELDS)
                    times.append((time.perf_counter() - t0) * 1000)
                times = times[len(qvecs):]
                store.close()
                results[engine] = (float(np.percentile(times, 50)),
                                   float(np.percentile(times, 95)), build)
        print(f"\n{size:,} points")
        for engine, (p50, p95, build) in results.items():
            print(f"{engine:26} p50 {p50:8.1f} ms  p95 {p95:8.1f} ms  (loaded in {build:.0f} s)")
        edge, local = results["qdrant-edge (embedded)"][0], results["qdrant-client local mode"][0]
        print(f"local mode p50 / embedded p50 = {local / edge:.1f}x")


if __name__ == "__main__":
    main()
