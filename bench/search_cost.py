"""What a search costs through the service, at a few snippet budgets (issue 32): N SciFact
claims through ``SearchService.answer`` (limit 10, alpha 0.5, syntax off) on an index
``evidence eval`` built, p50 and p90 per budget of dense-model snippet sentences.

    evidence eval ../shared/data/scifact --alphas 0.5 --work-dir /tmp/sf    # the index, once
    python -m bench.search_cost --work-dir /tmp/sf --sentences 0,4,8,32

For the code before a change, run the same from that checkout (the working directory's
``app`` answers) on a copy of the index whose registry is migrated down to that code's head.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/data/scifact")
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--sentences", default="4", help="snippet budgets, comma-separated")
    args = parser.parse_args()
    sys.path.insert(0, os.getcwd())
    from app.registry.database import transaction
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchQuery, SearchService
    from app.settings import Settings
    from evaluation import beir
    from evaluation.runner import open_eval_runtime

    data = beir.load(args.dataset)
    runtime, client_id = open_eval_runtime(Settings(), args.work_dir)
    queries = list(data.queries.values())[:args.queries]
    try:
        for budget in (int(b) for b in args.sentences.split(",")):
            settings = runtime.settings.search.model_copy(update={"snippet_sentences": budget})
            service = SearchService(SearchEngine(runtime.store, runtime.models, settings),
                                    settings.hybrid_alpha)
            took = []
            with transaction(runtime.sessions) as session:
                for query in queries:
                    started = time.perf_counter()
                    service.answer(session, client_id=client_id,
                                   query=SearchQuery(query=query, limit=10, syntax=False))
                    took.append((time.perf_counter() - started) * 1000)
            took.sort()
            print(f"snippet sentences {budget}: p50 {statistics.median(took):.1f} ms, "
                  f"p90 {took[int(0.9 * len(took))]:.1f} ms over {len(took)} searches")
    finally:
        runtime.close()


if __name__ == "__main__":
    main()
