"""What `diagnose` costs: the same SciFact queries through the search service with and without
ten named documents to diagnose, interleaved, on the index `evidence eval` built.

Usage: python bench/diagnose_cost.py --work-dir /tmp/eval_scifact [--queries 60]
(build the index first: `evidence eval ../shared/data/scifact --work-dir /tmp/eval_scifact`).
The named documents are each query's judged-relevant ones, then the corpus's first ones, so
the statuses are a realistic mix (shown, outside the window, under a floor, beyond the depth).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import eval_index_args, machine, open_eval_service  # noqa: E402


def main() -> None:
    args = eval_index_args(__doc__ or "", queries=60)

    from app.documents.uploads import document_id_for
    from app.registry.database import transaction
    from app.search.service import SearchQuery
    from evaluation import beir

    data = beir.load(args.dataset)
    runtime, client_id, service = open_eval_service(args.work_dir)
    first = [document_id_for(d) for d in list(data.corpus)[:10]]
    plain, asked, diagnose_ms, statuses = [], [], [], Counter()
    try:
        with transaction(runtime.sessions) as s:
            for qid, text in list(data.queries.items())[:args.queries]:
                named = ([document_id_for(d) for d in data.qrels[qid]] + first)[:10]
                t0 = time.perf_counter()
                service.answer(s, client_id=client_id, query=SearchQuery(query=text, limit=10))
                plain.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                answer = service.answer(s, client_id=client_id, query=SearchQuery(
                    query=text, limit=10, diagnose=tuple(named)))
                asked.append((time.perf_counter() - t0) * 1000)
                diagnose_ms.append(answer.timings["diagnose"])
                statuses.update(d.status for d in answer.diagnoses or [])
    finally:
        runtime.close()
    print(f"machine: {machine()}")
    print(f"{len(plain)} queries, 10 documents diagnosed each, alpha 0.5, limit 10")
    p50, p50_asked = statistics.median(plain), statistics.median(asked)
    p95 = sorted(diagnose_ms)[int(0.95 * len(diagnose_ms)) - 1]
    print(f"search p50 {p50:.1f} ms; with diagnose p50 {p50_asked:.1f} ms (ratio "
          f"{p50_asked / p50:.2f}); meta.timings.diagnose p50 "
          f"{statistics.median(diagnose_ms):.1f} ms, p95 {p95:.1f} ms")
    print("statuses:", dict(statuses.most_common()))


if __name__ == "__main__":
    main()
