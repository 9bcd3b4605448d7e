"""Another client's searches while one client's 1,000-query batch runs (issue 51): a real
`evidence serve` (real models, embedded engine), two clients with their own SciFact abstracts.
Client B searches one query at a time (as a person at the console would) — first alone, then
while client A's batch of 1,000 SciFact queries runs; the figure is B's p50 during the batch
over B's p50 alone (the goal: ≤ 1.5), with the batch's own pace beside it. Then, same run,
the audit trail's cost: B's p50 with the trail on and off (`--audit`: the goal ≤ 1.05).

    python -m bench.batch_fairness [--docs 200] [--searches 150] [--batch 1000]
        [--rest-ratio 0.5] [--audit]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import httpx

from bench.common import REPO, machine
from bench.serving import Served, scifact, serve


def _client_key(served: Served, name: str) -> str:
    out = subprocess.run([sys.executable, "-m", "app.cli", "clients", "create", name],
                         cwd=REPO, capture_output=True, text=True, check=True,
                         env={"EVIDENCE_DATA_DIR": str(served.data_dir),
                              "EVIDENCE_DATABASE__URL": f"sqlite:///{served.data_dir}/evidence.db",
                              "PATH": "/usr/bin:/bin"}).stdout
    return next(w for w in out.split() if w.startswith("evs_"))


def _fill(served: Served, key: str, corpus: list[tuple[str, str]]) -> None:
    with httpx.Client(base_url=served.url, headers={"X-API-Key": key}, timeout=60) as http:
        jobs = [http.post("/documents", files={"file": (f"{d}.md", t.encode())},
                          data={"document_id": d}).json()["job_id"] for d, t in corpus]
    deadline = time.monotonic() + 1800
    with httpx.Client(base_url=served.url, headers={"X-API-Key": key}, timeout=60) as http:
        while time.monotonic() < deadline:
            states = [http.get(f"/jobs/{j}").json()["status"] for j in jobs[-5:]]
            if all(s in ("succeeded", "failed") for s in states):
                return
            time.sleep(1)


def _searches(served: Served, key: str, queries: list[str]) -> list[float]:
    """Milliseconds of each search, one at a time."""
    out = []
    with httpx.Client(base_url=served.url, headers={"X-API-Key": key}, timeout=60) as http:
        for q in queries:
            t0 = time.perf_counter()
            r = http.post("/search", json={"query": q, "limit": 10})
            out.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, r.text
    return out


def _p50(ms: list[float]) -> float:
    return statistics.median(ms)


def fairness(args: argparse.Namespace) -> None:
    corpus, queries = scifact(args.docs * 2)
    env = {"EVIDENCE_BATCH__REST_RATIO": str(args.rest_ratio),
           "EVIDENCE_BATCH__MAX_QUERIES": str(max(args.batch, 1000))}
    with serve(env=env) as served:
        key_b = _client_key(served, "b")
        _fill(served, served.key, corpus[:args.docs])
        _fill(served, key_b, corpus[args.docs:])
        asked = (queries * 10)[:args.searches]
        _searches(served, key_b, asked[:20])  # warm
        alone = _searches(served, key_b, asked)
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=60) as http:
            batch = http.post("/searches/batch", json={
                "queries": (queries * 10)[:args.batch], "limit": 10}).json()
            started = time.monotonic()
            during = []
            while True:
                during += _searches(served, key_b, asked[:10])
                state = http.get(f"/searches/batch/{batch['batch_id']}").json()
                if state["status"] not in ("queued", "running") or len(during) >= args.searches:
                    break
            done_at_stop = state["done"]
            while state["status"] in ("queued", "running"):
                time.sleep(1)
                state = http.get(f"/searches/batch/{batch['batch_id']}").json()
            took = time.monotonic() - started
    print(machine())
    print(f"rest ratio {args.rest_ratio}; B: {len(alone)} searches alone, {len(during)} while "
          f"A's batch ran ({done_at_stop} of {args.batch} batch queries done by then)")
    print(f"B p50 alone   {_p50(alone):7.1f} ms  p90 {statistics.quantiles(alone, n=10)[-1]:.1f}")
    print(f"B p50 batch   {_p50(during):7.1f} ms  p90 {statistics.quantiles(during, n=10)[-1]:.1f}"
          f"  ratio ×{_p50(during) / _p50(alone):.2f}")
    print(f"A's batch: {state['total']} queries in {took:.0f} s ({state['total'] / took:.1f} "
          f"queries/s), status {state['status']}, {state['hits']} hits")


def audit_cost(args: argparse.Namespace) -> None:
    """B's p50 with the audit trail on and off, the two servers on one data folder, in turn."""
    corpus, queries = scifact(args.docs)
    asked = (queries * 10)[:args.searches]
    figures: dict[str, list[float]] = {"on": [], "off": []}
    data = None
    for repeat in range(args.repeats):
        for mode in ("off", "on") if repeat % 2 else ("on", "off"):
            env = {"EVIDENCE_AUDIT__ENABLED": "true" if mode == "on" else "false"}
            with serve(env=env, data_dir=data) as served:
                if data is None:
                    _fill(served, served.key, corpus)
                    data = served.data_dir
                _searches(served, served.key, asked[:20])  # warm
                figures[mode].append(_p50(_searches(served, served.key, asked)))
    print(machine())
    on, off = statistics.median(figures["on"]), statistics.median(figures["off"])
    print(f"audit on  p50 {on:6.1f} ms  (runs {', '.join(f'{x:.1f}' for x in figures['on'])})")
    print(f"audit off p50 {off:6.1f} ms  (runs {', '.join(f'{x:.1f}' for x in figures['off'])})")
    print(f"ratio ×{on / off:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=200, help="abstracts per client")
    parser.add_argument("--searches", type=int, default=150)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rest-ratio", type=float, default=0.5)
    parser.add_argument("--audit", action="store_true", help="the audit trail's cost instead")
    parser.add_argument("--repeats", type=int, default=4, help="--audit: runs per mode")
    args = parser.parse_args()
    audit_cost(args) if args.audit else fairness(args)


if __name__ == "__main__":
    main()
