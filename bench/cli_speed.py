"""How long every CLI command takes against a running server (issue 46: each ≤ 0.5 s, median
of ``--runs``; `evidence --help` ≤ 0.3 s; a command that needs the embedded engine refused at
once).

A real `evidence serve` (bench/serving.py) holds 20 SciFact abstracts; each command runs as a
user types it, from another working directory, finding the server through the record it left
in the data folder (no --server). Where the command is an HTTP call, the same request sent
straight over HTTP gives the server's share (its overhead is the difference). Commands whose
purpose is long work — serve, worker, eval, calibrate, models install, registry copy, store
export/import, reindex, migrate — are timed as what they do while a server runs: refused at
once where they need the engine, else their `--help` (the CLI's own cost before the work).

    python -m bench.cli_speed [--runs 5]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bench.common import machine
from bench.serving import scifact, serve, upload_all
from tests.live import free_port

GOAL_S, HELP_GOAL_S = 0.5, 0.3


def _run(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True)
    return time.perf_counter() - started, done.returncode, (done.stderr or done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    corpus, queries = scifact(20)
    with serve(port=free_port()) as served:
        jobs = upload_all(served, corpus)
        served.wait_for_jobs(jobs)
        env = {**os.environ, "EVIDENCE_DATA_DIR": str(served.data_dir),
               "EVIDENCE_API_KEY": served.key}
        env.pop("EVIDENCE_SERVER_URL", None)
        elsewhere = tempfile.mkdtemp(prefix="cli-speed-")
        sample = Path(elsewhere) / "note.md"
        sample.write_text("# A note\n\nThe budget for 2027 is EUR 12,000.\n")
        query, doc, job = queries[0], corpus[0][0], jobs[0]
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=60) as http:
            watch = http.post("/watches", json={"query": "budget"}).json()["watch_id"]
            fresh = itertools.count()
            _run(["clients", "create", "bench"], env, elsewhere)
            # (label, args per run, the same request over HTTP or None, exit code expected)
            Command = tuple[str, Callable[[], list[str]], tuple | None, int]
            commands: list[Command] = [
                ("--help", lambda: ["--help"], None, 0),
                ("search QUERY", lambda: ["search", query],
                 ("POST", "/search", {"json": {"query": query}}), 0),
                ("documents list", lambda: ["documents", "list"], ("GET", "/documents", {}), 0),
                ("documents show DOC", lambda: ["documents", "show", doc],
                 ("GET", f"/documents/{doc}", {}), 0),
                ("changes DOC", lambda: ["changes", doc],
                 ("GET", f"/documents/{doc}/changes", {}), 0),
                ("jobs show JOB", lambda: ["jobs", "show", job], ("GET", f"/jobs/{job}", {}), 0),
                ("threads show ID (none)", lambda: ["threads", "show", "nothing"], None, 1),
                ("entities persons", lambda: ["entities", "persons"],
                 ("GET", "/entities", {"params": {"group": "persons"}}), 0),
                ("watch add Q", lambda: ["watch", "add", "budget"],
                 ("POST", "/watches", {"json": {"query": "budget"}}), 0),
                ("watch list", lambda: ["watch", "list"], ("GET", "/watches", {}), 0),
                ("watch matches W", lambda: ["watch", "matches", watch],
                 ("GET", f"/watches/{watch}/matches", {}), 0),
                ("watch rm W (gone after 1)", lambda: ["watch", "rm", watch], None, -1),
                ("ingest FILE", lambda: ["ingest", str(sample)], None, 0),
                ("clients list", lambda: ["clients", "list"], None, 0),
                ("clients create NAME", lambda: ["clients", "create", f"c{next(fresh)}"],
                 None, 0),
                ("clients key NAME", lambda: ["clients", "key", "bench"], None, 0),
                ("clients revoke-key X", lambda: ["clients", "revoke-key", "esk_nothing"],
                 None, 0),
                ("clients authority NAME", lambda: ["clients", "authority", "bench", "active"],
                 None, 0),
                ("clients discovery NAME", lambda: ["clients", "discovery", "bench"], None, 0),
                ("models show", lambda: ["models", "show"], None, 0),
                ("mcp --print-config", lambda: ["mcp", "--print-config"], None, 0),
                ("openapi --out FILE", lambda: ["openapi", "--out",
                                                str(Path(elsewhere) / "spec.json")], None, 0),
                ("reindex (refused)", lambda: ["reindex"], None, 1),
                ("migrate (refused)", lambda: ["migrate"], None, 1),
                ("worker (refused)", lambda: ["worker"], None, 1),
                ("store export (refused)", lambda: ["store", "export",
                                                    str(Path(elsewhere) / "x")], None, 1),
                ("store import (refused)", lambda: ["store", "import", elsewhere], None, 1),
                ("serve (one runs)", lambda: ["serve", "--port", str(free_port())], None, 1),
            ] + [(f"{name} --help", lambda name=name: [*name.split(), "--help"], None, 0)
                 for name in ("eval", "calibrate", "models install", "registry copy")]
            print(f"machine: {machine()}; {runs} runs each, medians; from {elsewhere}")
            print(f"{'evidence …':28} {'wall s':>7} {'server s':>9} {'CLI s':>6}  goal")
            slow = []
            for label, args, direct, expected in commands:
                walls, servers = [], []
                for _ in range(runs):
                    wall, rc, said = _run(args(), env, elsewhere)
                    if expected >= 0 and rc != expected:
                        raise SystemExit(f"evidence {label}: exit {rc}, expected {expected}: "
                                         f"{said.strip()[-400:]}")
                    walls.append(wall)
                    if direct:
                        method, path, kw = direct
                        started = time.perf_counter()
                        http.request(method, path, **kw)
                        servers.append(time.perf_counter() - started)
                wall = statistics.median(walls)
                server = statistics.median(servers) if servers else 0.0
                goal = HELP_GOAL_S if label == "--help" else GOAL_S
                mark = "ok" if wall <= goal else "SLOW"
                if wall > goal:
                    slow.append(label)
                print(f"{label:28} {wall:7.2f} {server:9.3f} {wall - server:6.2f}  "
                      f"≤ {goal} {mark}")
            print(f"{len(commands) - len(slow)} of {len(commands)} within their goal"
                  + (f"; over: {', '.join(slow)}" if slow else ""))
        unreachable = {**env, "EVIDENCE_SERVER_URL": "http://127.0.0.1:9"}
        wall, _rc, _said = _run(["watch", "list"], unreachable, elsewhere)
        print(f"{'no server (refused)':28} {wall:7.2f}")


if __name__ == "__main__":
    main()
