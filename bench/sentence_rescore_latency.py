"""What sentence rescoring (EVIDENCE_SEARCH__SENTENCE_DEPTH) costs a search at query time: the
hybrid search (alpha 0.5, limit 10) through the service on the index `evidence eval` built,
off and at ``--depth``, alternating per query on the same index. On a collection with sentence
vectors it is the engine's MaxSim over the stored vectors of the lane's first chunks (and of
each shown version's own); the index must have been built with them.

    python -m bench.sentence_rescore_latency --work-dir /tmp/scifact-eval [--queries 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench.common import SCIFACT, machine


def main() -> None:
    from app.registry.database import transaction
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchService
    from app.settings import get_settings
    from evaluation import beir
    from evaluation.runner import open_eval_runtime, ranked_ids

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--depth", type=int, default=20)
    args = parser.parse_args()
    data = beir.load(SCIFACT)
    runtime, client_id = open_eval_runtime(get_settings(), args.work_dir)
    base = runtime.settings.search
    if not runtime.store.sentence_vectors:
        raise SystemExit(f"{args.work_dir}: a collection without sentence vectors; rebuild it")

    class WithoutSentences:
        """The same engine seen as a collection made without sentence vectors: no rescoring,
        snippet focus embedded at query time (as every search ran before them)."""

        sentence_vectors = False

        def __getattr__(self, name: str) -> object:
            return getattr(runtime.store, name)

    def service(store: object, depth: int) -> SearchService:
        return SearchService(SearchEngine(store, runtime.models,  # type: ignore[arg-type]
                                          base.model_copy(update={"sentence_depth": depth})),
                             0.5)

    services = {"no sentence vectors": service(WithoutSentences(), 0),
                "stored, sentence_depth=0": service(runtime.store, 0),
                f"stored, sentence_depth={args.depth}": service(runtime.store, args.depth)}
    took: dict[str, list[float]] = {name: [] for name in services}
    with transaction(runtime.sessions) as session:
        for query in list(data.queries.values())[:args.queries]:
            for name, arm in services.items():
                started = time.perf_counter()
                ranked_ids(session, arm, client_id, query, 0.5, False, 10, fusion="rank")
                took[name].append(time.perf_counter() - started)
    print(f"machine: {machine()}; {args.queries} SciFact claims, hybrid a=0.5, limit 10")
    for name, runs in took.items():
        ordered = sorted(runs)
        print(f"{name:<28} p50 {1000 * statistics.median(runs):7.1f} ms   "
              f"p95 {1000 * ordered[max(0, int(0.95 * len(ordered)) - 1)]:7.1f} ms")


if __name__ == "__main__":
    main()
