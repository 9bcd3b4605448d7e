"""How long another client's one-line upload takes to be published while a slow PDF is read
(issue 23): a real `evidence serve` (child processes, real models), one client uploads a PDF
whose one page holds --operators drawing operators (~40-90 µs each to parse here), the other
uploads a one-line .txt a second later; the baseline is the same upload on an idle server.

    python bench/slow_file_fairness.py --operators 600000 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import httpx

from bench.common import REPO, machine
from bench.serving import Served, serve
from tests.factories import slow_pdf


def _client_key(served: Served, name: str) -> str:
    env = {**os.environ, "EVIDENCE_DATA_DIR": str(served.data_dir),
           "EVIDENCE_DATABASE__URL": f"sqlite:///{served.data_dir}/evidence.db"}
    out = subprocess.run([sys.executable, "-m", "app.cli", "clients", "create", name],
                         cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout
    return out.rsplit("(shown once):", 1)[1].split()[0]


def _published_after(http: httpx.Client, key: str, text: bytes) -> float:
    t0 = time.perf_counter()
    job = http.post("/documents", headers={"X-API-Key": key},
                    files={"file": ("note.txt", text)}).json()["job_id"]
    while http.get(f"/jobs/{job}", headers={"X-API-Key": key}).json()["status"] != "succeeded":
        time.sleep(0.05)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--operators", type=int, default=600_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    with serve(env={"EVIDENCE_INGEST__POLL_INTERVAL_S": "0.1"}) as served, \
            httpx.Client(base_url=served.url, timeout=60) as http:
        rival = _client_key(served, "rival")
        _published_after(http, rival, b"warm the children up")
        idle = [_published_after(http, rival, f"idle note {i}".encode())
                for i in range(args.repeats)]
        loaded, slow_s = [], []
        for i in range(args.repeats):
            t0 = time.perf_counter()
            slow = http.post("/documents", headers=served.headers, files={
                "file": (f"slow-{i}.pdf", slow_pdf(args.operators, f"Ledger {i}"))}).json()
            time.sleep(1.0)
            loaded.append(_published_after(http, rival, f"busy note {i}".encode()))
            served.wait_for_jobs([slow["job_id"]])
            slow_s.append(time.perf_counter() - t0)
    print(f"one-line upload → published, idle server: median {statistics.median(idle):.2f} s")
    print(f"same, 1 s after another client's slow PDF: median {statistics.median(loaded):.2f} s"
          f" (max {max(loaded):.2f} s)")
    print(f"the slow PDF itself: median {statistics.median(slow_s):.1f} s to publish")


if __name__ == "__main__":
    main()
