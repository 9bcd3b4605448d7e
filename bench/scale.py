"""Issue 64's engine figures at 10k, 100k, 1M chunks: exact scan today against an HNSW index
built in a child process (app/store/index_build.py), and what a build costs the server.

Per size, on the embedded store (bench/common's synthetic corpus: real SciFact vectors,
repeated with noise): the two lanes' p50/p95 as the server runs them today (exact, client
filter, top 100, the lane fields), then a copy of the shard indexed in a child while a 5 ms
ticker thread and a search every 50 ms run in this process (the ticker's longest pause, those
searches' p50 and max), the child's build time, the built shard's load time (it holds the GIL:
the pause a server would see if it loaded the shard itself), the indexed lanes' p50/p95 and
ratio to the 10k figure, recall@10 of the indexed dense lane against exact, resident memory,
and the time to reopen today's shard.

    python bench/scale.py --sizes 10000,100000,1000000 --base 500
"""

# ruff: noqa: B023 - each closure is called only inside the iteration that makes it
from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SyntheticCorpus, machine, upsert_all  # noqa: E402


class Ticker:
    """A thread that wakes every 5 ms; its longest gap is how long the process froze."""

    def __init__(self) -> None:
        self.longest, self._stop = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            self.longest, last = max(self.longest, now - last), now

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.longest * 1000


def timed(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def p(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--base", type=int, default=500)
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()
    import qdrant_edge as qe

    from app.search.lanes import LANE_FIELDS
    from app.store import ChunkFilter
    from app.store.base import DENSE, SPARSE
    from app.store.edge import EdgeStore, _filter, edge_config
    from app.store.index_build import build_in_child

    corpus = SyntheticCorpus(args.models, args.base, args.queries)
    models = corpus.models
    assert models.dense is not None
    dense_q = [models.dense.embed_query(q) for q in corpus.queries]
    sparse_q = [models.sparse.embed_query(q) for q in corpus.queries]
    print(f"machine: {machine()}")
    first: dict[str, float] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            store = EdgeStore(root / "qdrant", dense_model="bench", dense_dim=len(dense_q[0]))
            t0 = time.perf_counter()
            upsert_all(store, corpus.points("c", size))
            print(f"\n{size:,} chunks written in {time.perf_counter() - t0:.0f} s")
            ticker, t0 = Ticker(), time.perf_counter()
            store._shard.flush()  # the first flush of everything written: it holds the GIL
            print(f"first flush {time.perf_counter() - t0:.2f} s, ticker pause "
                  f"{ticker.stop():.0f} ms")
            flt = ChunkFilter(client_id="c")
            for v in dense_q[:10]:  # warm
                store.query_dense(v, flt, 100, fields=LANE_FIELDS)
            exact_d = timed(lambda v: store.query_dense(v, flt, 100, fields=LANE_FIELDS), dense_q)
            exact_s = timed(lambda v: store.query_sparse(v, flt, 100, fields=LANE_FIELDS),
                            sparse_q)
            truth = [[h.id for h in store.query_dense(v, flt, 10, fields=())] for v in dense_q]
            base_of = {h.id: h.payload["text"] for v in dense_q
                       for h in store.query_dense(v, flt, 100, fields=("text",))}

            ticker, during, done = Ticker(), [], threading.Event()

            def search_meanwhile() -> None:
                i = 0
                while not done.is_set():
                    t = time.perf_counter()
                    store.query_dense(dense_q[i % len(dense_q)], flt, 100, fields=LANE_FIELDS)
                    store.query_sparse(sparse_q[i % len(sparse_q)], flt, 100, fields=LANE_FIELDS)
                    during.append((time.perf_counter() - t) * 1000)
                    i += 1
                    time.sleep(0.05)

            searcher = threading.Thread(target=search_meanwhile)
            searcher.start()
            t0 = time.perf_counter()
            store.copy_for_index(root / "copy")
            copy_s = time.perf_counter() - t0
            report = build_in_child(root / "copy", root / "sealed", dense_dim=len(dense_q[0]))
            done.set()
            searcher.join()
            build_pause = ticker.stop()

            ticker = Ticker()
            t0 = time.perf_counter()
            built = qe.EdgeShard.load(str(root / "sealed"), edge_config(len(dense_q[0]), False))
            load_s, load_pause = time.perf_counter() - t0, ticker.stop()
            engine_filter = _filter(flt)

            def indexed(using: str, vector, limit: int = 100):  # type: ignore[no-untyped-def]
                v = qe.SparseVector(vector.indices, vector.values) if using == SPARSE else vector
                return built.query(qe.QueryRequest(
                    limit=limit, query=qe.Query.Nearest(v, using=using), filter=engine_filter,
                    with_payload=False))  # as the server asks: identity fields from its cache

            for v in dense_q[:10]:
                indexed(DENSE, v)
            hnsw_d = timed(lambda v: indexed(DENSE, v), dense_q)
            hnsw_s = timed(lambda v: indexed(SPARSE, v), sparse_q)
            recall = np.mean([len({str(h.id) for h in indexed(DENSE, v, 10)} & set(t)) / 10
                              for v, t in zip(dense_q, truth, strict=True)])
            # the same texts found (the corpus repeats each base text size/base times with
            # noise; which copy comes first is the noise's choice, not a ranking difference)
            text_recall = np.mean([len({base_of.get(str(h.id)) for h in indexed(DENSE, v, 10)}
                                       & {base_of[i] for i in t}) / len({base_of[i] for i in t})
                                   for v, t in zip(dense_q, truth, strict=True)])
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            built.close()
            store.close()
            t0 = time.perf_counter()
            EdgeStore(root / "qdrant", dense_model="bench", dense_dim=len(dense_q[0])).close()
            reopen_s = time.perf_counter() - t0

            both_exact = [a + b for a, b in zip(exact_d, exact_s, strict=True)]
            both_hnsw = [a + b for a, b in zip(hnsw_d, hnsw_s, strict=True)]
            first.setdefault("exact", p(both_exact, 50))
            first.setdefault("hnsw", p(both_hnsw, 50))
            print(f"exact today   dense p50 {p(exact_d, 50):6.2f} p95 {p(exact_d, 95):6.2f}  "
                  f"sparse p50 {p(exact_s, 50):6.2f} p95 {p(exact_s, 95):6.2f}  both p50 "
                  f"{p(both_exact, 50):6.2f} ms (× {p(both_exact, 50) / first['exact']:.2f})")
            print(f"indexed       dense p50 {p(hnsw_d, 50):6.2f} p95 {p(hnsw_d, 95):6.2f}  "
                  f"sparse p50 {p(hnsw_s, 50):6.2f} p95 {p(hnsw_s, 95):6.2f}  both p50 "
                  f"{p(both_hnsw, 50):6.2f} ms (× {p(both_hnsw, 50) / first['hnsw']:.2f})")
            print(f"recall@10 indexed vs exact {recall:.3f} (points), {text_recall:.3f} (texts)")
            print(f"build: copy {copy_s:.2f} s, child {report.seconds:.1f} s; longest ticker "
                  f"pause {build_pause:.0f} ms; {len(during)} searches meanwhile p50 "
                  f"{p(during, 50):.1f} max {max(during):.1f} ms")
            print(f"load of the built shard {load_s:.2f} s (ticker pause {load_pause:.0f} ms); "
                  f"reopen of today's shard {reopen_s:.2f} s; peak RSS {rss:,.0f} MB")


if __name__ == "__main__":
    main()
