"""What sentence rescoring (EVIDENCE_SEARCH__SENTENCE_DEPTH) costs a search at query time: the
hybrid search (alpha 0.5, limit 10) through the service on the index `evidence eval` built,
off and at ``--depth``, alternating per query on the same index.

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
    services = {depth: SearchService(SearchEngine(runtime.store, runtime.models,
                                                  base.model_copy(update={"sentence_depth":
                                                                          depth})), 0.5)
                for depth in (0, args.depth)}
    took: dict[int, list[float]] = {depth: [] for depth in services}
    with transaction(runtime.sessions) as session:
        for query in list(data.queries.values())[:args.queries]:
            for depth, service in services.items():
                started = time.perf_counter()
                ranked_ids(session, service, client_id, query, 0.5, False, 10, fusion="rank")
                took[depth].append(time.perf_counter() - started)
    print(f"machine: {machine()}; {args.queries} SciFact claims, hybrid a=0.5, limit 10")
    for depth, runs in took.items():
        ordered = sorted(runs)
        print(f"sentence_depth={depth:<3} p50 {1000 * statistics.median(runs):7.0f} ms   "
              f"p95 {1000 * ordered[max(0, int(0.95 * len(ordered)) - 1)]:7.0f} ms")


if __name__ == "__main__":
    main()
