"""Where one search's CPU goes (issue 25): POST /search through the whole app in this process
(FastAPI, the search service, the presenter, the response model), over an index `evidence
eval` built, profiled with cProfile; prints CPU ms per search and the top functions by their
own time. Commit the command, not the profile.

    evidence eval ../shared/data/scifact --alphas 0.5 --work-dir /tmp/scifact_idx   # once
    python -m bench.profile_search --work-dir /tmp/scifact_idx --queries 150
    py-spy record --format raw -o /tmp/search.txt -- \
        python -m bench.profile_search --work-dir /tmp/scifact_idx --no-cprofile
(cProfile sees only the calling thread; the app runs in TestClient's thread, so py-spy, which
samples every thread, is the one to read.)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

from bench.common import SCIFACT, machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-cprofile", action="store_true",
                        help="only the timed loop (for py-spy, which samples every thread)")
    args = parser.parse_args()
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.settings import Settings
    from evaluation import beir
    from evaluation.runner import eval_settings, open_eval_runtime

    settings = eval_settings(Settings(), args.work_dir)
    runtime, client_id = open_eval_runtime(Settings(), args.work_dir)
    with transaction(runtime.sessions) as s:
        key = reg.issue_key(s, client_id=client_id)
    queries = list(beir.load(SCIFACT).queries.values())[:args.queries]
    app = create_app(settings, runtime=runtime, start_worker=False)
    print(machine())
    with TestClient(app) as http:
        headers = {"Authorization": f"Bearer {key}"}
        for q in queries[:20]:  # warm up
            http.post("/search", json={"query": q}, headers=headers)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for q in queries:
            assert http.post("/search", json={"query": q}, headers=headers).status_code == 200
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        print(f"{len(queries)} searches: {1000 * cpu / len(queries):.1f} ms CPU and "
              f"{1000 * wall / len(queries):.1f} ms wall per search (unprofiled)")
        if args.no_cprofile:
            for q in queries * 3:
                http.post("/search", json={"query": q}, headers=headers)
            runtime.close()
            return
        profile = cProfile.Profile()
        profile.enable()
        for q in queries:
            http.post("/search", json={"query": q}, headers=headers)
        profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(args.top)
    print(out.getvalue()[:12000])
    runtime.close()


if __name__ == "__main__":
    main()
