"""What keeping the unfiltered rank costs a filtered search: the same SciFact queries through
the search service without a filter and with exact filters, interleaved, on the index
`evidence eval` built. A filtered search asks each lane twice (with and without the filters).

Usage: python bench/filter_cost.py --work-dir /tmp/eval_scifact [--queries 100]
Filters: ``kind: md`` (every document: the filter narrows nothing, so the cost is the second
query alone) and ``document_id`` of 100 documents (every tenth, from the start).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import eval_index_args, machine, open_eval_service  # noqa: E402


def main() -> None:
    args = eval_index_args(__doc__ or "", queries=100)

    from app.documents.uploads import document_id_for
    from app.registry.database import transaction
    from app.search.service import SearchQuery
    from evaluation import beir

    data = beir.load(args.dataset)
    runtime, client_id, service = open_eval_service(args.work_dir)
    tenth = [document_id_for(d) for d in list(data.corpus)[::10]][:100]
    configs = {"none": {}, "kind=md": {"kind": "md"}, "100 document_ids": {"document_id": tenth}}
    ms: dict[str, list[float]] = {name: [] for name in configs}
    try:
        with transaction(runtime.sessions) as s:
            for text in list(data.queries.values())[:args.queries]:
                for name, filters in configs.items():
                    t0 = time.perf_counter()
                    service.answer(s, client_id=client_id,
                                   query=SearchQuery(query=text, limit=10, filters=filters))
                    ms[name].append((time.perf_counter() - t0) * 1000)
    finally:
        runtime.close()
    print(f"machine: {machine()}")
    print(f"{args.queries} queries, alpha 0.5, limit 10, interleaved")
    base = statistics.median(ms["none"])
    for name, values in ms.items():
        p50 = statistics.median(values)
        print(f"filters {name:17} p50 {p50:6.1f} ms  ratio {p50 / base:.2f}")


if __name__ == "__main__":
    main()
