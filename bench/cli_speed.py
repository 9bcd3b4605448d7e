"""How long the CLI takes on top of the server's own answer (issue 38: `--help` within 0.5 s,
a command that talks to a server within 1 s of its answer).

A real `evidence serve` (bench/serving.py) holds 20 SciFact abstracts; each CLI command runs
as a user types it, from another working directory, finding the server through the record it
left in the data folder (no --server). The same request sent straight over HTTP gives the
server's time; the CLI's overhead is the difference, per run, median of ``--runs``.

    python -m bench.cli_speed [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

from bench.common import machine
from bench.serving import scifact, serve, upload_all
from tests.live import free_port


def _wall(args: list[str], env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"evidence {' '.join(args)} failed: {done.stderr or done.stdout}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    corpus, queries = scifact(20)
    with serve(port=free_port()) as served:
        served.wait_for_jobs(upload_all(served, corpus))
        env = {**os.environ, "EVIDENCE_DATA_DIR": str(served.data_dir),
               "EVIDENCE_API_KEY": served.key}
        env.pop("EVIDENCE_SERVER_URL", None)
        elsewhere = tempfile.mkdtemp(prefix="cli-speed-")
        query = queries[0]
        commands = [
            ("evidence --help", ["--help"], None),
            ("evidence search QUERY", ["search", query],
             ("POST", "/search", {"json": {"query": query}})),
            ("evidence documents list", ["documents", "list"],
             ("GET", "/documents", {})),
            ("evidence watch list", ["watch", "list"], ("GET", "/watches", {})),
        ]
        print(f"machine: {machine()}; {runs} runs each, medians; from {elsewhere}")
        print(f"{'command':28} {'CLI wall s':>10} {'server s':>9} {'overhead s':>11}")
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=60) as http:
            for label, args, direct in commands:
                walls, servers = [], []
                for _ in range(runs):
                    walls.append(_wall(args, env, elsewhere))
                    if direct:
                        method, path, kw = direct
                        started = time.perf_counter()
                        http.request(method, path, **kw).raise_for_status()
                        servers.append(time.perf_counter() - started)
                wall = statistics.median(walls)
                server = statistics.median(servers) if servers else 0.0
                print(f"{label:28} {wall:10.2f} {server:9.3f} {wall - server:11.2f}")
        unreachable = {**env, "EVIDENCE_SERVER_URL": "http://127.0.0.1:9"}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app.cli", "watch", "list"], env=unreachable,
                       cwd=elsewhere, capture_output=True)
        print(f"{'no server (refused)':28} {time.perf_counter() - started:10.2f}")


if __name__ == "__main__":
    main()
