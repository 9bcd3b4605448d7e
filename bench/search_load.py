"""Searches under load over loopback: one client alone, then many concurrent clients, against
one `evidence serve` (real models, embedded engine), same run.

    python -m bench.search_load [--docs 300] [--clients 50] [--seconds 60]
    python -m bench.search_load --data-dir /tmp/load-data --py-spy /tmp/load.txt  # profile

``--data-dir`` keeps the ingested folder for the next run (filled once); ``--py-spy`` records
the server's threads during the many-client phase (py-spy's raw format, for flame graphs or
grep; py-spy is not a dependency: ``pip install py-spy``).

Also measures the ceiling: the server's CPU time per search with one client (from
/proc/<pid>/stat), so cores / CPU-per-search is the most searches per second the machine
allows. The load generator is asyncio httpx in this process (it takes CPU too: said beside).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import time
from pathlib import Path

import httpx

from bench.common import machine
from bench.serving import Served, scifact, serve, upload_all


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


async def load(served: Served, queries: list[str], clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=served.url, headers=served.headers, timeout=120,
                                 limits=limits) as http:

        async def one_client(offset: int) -> None:
            nonlocal errors
            i = offset
            while time.monotonic() < deadline:
                t0 = time.perf_counter()
                try:
                    r = await http.post("/search", json={"query": queries[i % len(queries)]})
                    if r.status_code != 200:
                        errors += 1
                except httpx.HTTPError:
                    errors += 1
                latencies.append((time.perf_counter() - t0) * 1000)
                i += 1

        cpu0, t0, own0 = cpu_seconds(served.process.pid), time.monotonic(), time.process_time()
        await asyncio.gather(*(one_client(k * 7) for k in range(clients)))
        elapsed, cpu = time.monotonic() - t0, cpu_seconds(served.process.pid) - cpu0
        load_cpu = time.process_time() - own0
    ordered = sorted(latencies)
    return {"clients": clients, "n": len(latencies), "errors": errors,
            "rps": len(ordered) / elapsed,
            "p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))],
            "cpu_ms_per_search": 1000 * cpu / max(1, len(ordered)),
            "server_cores": cpu / elapsed, "load_cores": load_cpu / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--env", action="append", default=[],
                        help="NAME=VALUE for the server (repeatable), to compare settings")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="a folder to keep the ingested documents in, filled once")
    parser.add_argument("--py-spy", type=Path, default=None,
                        help="record the server under many clients into this file")
    parser.add_argument("--server-repo", type=Path, default=None,
                        help="serve another checkout's code (a baseline: git worktree add)")
    parser.add_argument("--gil", action="store_true",
                        help="with --py-spy: only the thread holding the GIL (what serialises)")
    args = parser.parse_args()
    env = dict(e.split("=", 1) for e in args.env)
    corpus, queries = scifact(args.docs)
    filled = args.data_dir is not None and (args.data_dir / "initial-api-key.txt").exists()
    with serve(env, data_dir=args.data_dir,
               **({"repo": args.server_repo} if args.server_repo else {})) as served:
        if not filled:
            served.wait_for_jobs(upload_all(served, corpus))
        asyncio.run(load(served, queries, 1, 5))  # warm
        alone = asyncio.run(load(served, queries, 1, args.seconds))
        spy = None if args.py_spy is None else subprocess.Popen(
            ["py-spy", "record", "--pid", str(served.process.pid), "--format", "raw",
             "--threads", "--nonblocking", "-o", str(args.py_spy),
             "--duration", str(int(args.seconds)), *(["--gil"] if args.gil else [])],
            stdout=subprocess.DEVNULL)
        many = asyncio.run(load(served, queries, args.clients, args.seconds))
        if spy is not None:
            spy.wait()
    cores = os.cpu_count() or 1
    print(f"machine: {machine()}; {args.docs} abstracts; server env {env or 'defaults'}"
          + (f"; code of {args.server_repo}" if args.server_repo else ""))
    for r in (alone, many):
        print(f"{r['clients']:>3} client(s), {args.seconds:.0f} s: {r['n']} searches, "
              f"{r['errors']} errors, {r['rps']:.1f} req/s, p50 {r['p50']:.0f} ms, "
              f"p95 {r['p95']:.0f} ms, server CPU {r['cpu_ms_per_search']:.1f} ms/search "
              f"({r['server_cores']:.2f} cores busy; the load generator {r['load_cores']:.2f})")
    print(f"ceiling from one client's CPU per search: {cores} cores / "
          f"{alone['cpu_ms_per_search']:.1f} ms = {1000 * cores / alone['cpu_ms_per_search']:.0f}"
          f" req/s; reached {many['rps'] / (1000 * cores / alone['cpu_ms_per_search']):.0%}")


if __name__ == "__main__":
    main()
