"""Where one search's CPU goes (issue 25), in this process: the search service, the presenter
and the encoded Evidence Result, over the synthetic index bench/query_latency.py builds (real
SciFact vectors, every version registered), profiled with cProfile; prints CPU ms per search
and the top functions by their own time. Commit the command, not the profile.

    python -m bench.profile_search --size 10000 --queries 100 [--sort cumulative]

The HTTP side (the door, FastAPI, uvicorn) and the threads under many clients are profiled
over a real server: ``python -m bench.search_load --py-spy FILE [--gil]``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import SyntheticCorpus, machine, upsert_all
from bench.query_latency import register_bm25, register_versions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--base", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--callers", default="",
                        help="also print who calls functions matching this name")
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()

    from app.api.presenter import evidence_result
    from app.registry.database import transaction
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchQuery, SearchService
    from app.settings import Settings
    from evaluation.runner import open_eval_runtime

    corpus = SyntheticCorpus(args.models, args.base, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        runtime, client_id = open_eval_runtime(Settings(models={"dir": args.models}),
                                               Path(tmp), models=corpus.models)
        register_versions(runtime, client_id, args.size)
        register_bm25(runtime, client_id, corpus.points(client_id, args.size))
        upsert_all(runtime.store, corpus.points(client_id, args.size))
        service = SearchService(SearchEngine(runtime.store, corpus.models,
                                             runtime.settings.search), 0.5)

        stages: dict[str, list[float]] = {}

        def search_all() -> None:
            for q in corpus.queries:
                with transaction(runtime.sessions) as s:
                    answer = service.answer(s, client_id=client_id, query=SearchQuery(
                        query=q, alpha=0.5, limit=10))
                    evidence_result(answer, explain=False).model_dump_json()
                for stage, ms in answer.timings.items():
                    stages.setdefault(stage, []).append(ms)

        search_all()  # warm
        stages.clear()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        search_all()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        n = len(corpus.queries)
        print(f"{machine()}; {args.size:,} chunks")
        print(f"{n} searches: {1000 * cpu / n:.1f} ms CPU and {1000 * wall / n:.1f} ms wall "
              "per search (unprofiled; the query model's threads included)")
        total = statistics.mean(stages.pop("total"))
        print(f"meta.timings, mean ms per search (share of the service's {total:.1f} ms):")
        for stage, ms in sorted(stages.items(), key=lambda kv: -statistics.mean(kv[1])):
            print(f"  {stage:14} {statistics.mean(ms):7.2f}  {statistics.mean(ms) / total:5.1%}")
        rest = total - sum(statistics.mean(ms) for ms in stages.values())
        print(f"  {'(untimed)':14} {rest:7.2f}  {rest / total:5.1%}")
        profile = cProfile.Profile()
        profile.enable()
        search_all()
        profile.disable()
        runtime.close()
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out).sort_stats(args.sort)
    stats.print_stats(args.top)
    if args.callers:
        stats.print_callers(args.callers)
    print(out.getvalue()[:20000])


if __name__ == "__main__":
    main()
