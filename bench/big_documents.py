"""Big plain-text documents: extraction + chunking time and peak memory by size (each size in a
fresh process, no chunk limit), then a 50 MB upload through a real `evidence serve` with the
default limits: how long until its job ends and why, the server's memory, and /health meanwhile.

    python -m bench.big_documents [--sizes 1,5,25] [--upload-mb 50]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time

import httpx

from bench.common import REPO, machine

PARAGRAPH = ("Expression of the protein was measured in 42 samples from mice treated for "
             "three weeks, and the effect on survival was significant (p < 0.01). ") * 4


def text_of(mb: float) -> bytes:
    """Paragraphs without headings: the shape that froze the service (one section)."""
    block = (PARAGRAPH + "\n\n").encode()
    return (block * (int(mb * 1e6) // len(block) + 1))[:int(mb * 1e6)]


def prepare_once(mb: float) -> None:
    """In this process: extract and chunk ``mb`` MB, print seconds, chunks and peak RSS."""
    from app.models.loading import _token_counter
    from ingest.chunking import Chunker
    from ingest.processing import InProcess

    models = REPO / "models"
    manifest = json.loads((models / "manifest.json").read_text())
    counter = _token_counter(models / manifest["dense"]["path"] / "tokenizer.json")
    content = text_of(mb)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    prepared = InProcess(Chunker(counter, 512, 50), None).prepare(  # type: ignore[arg-type]
        "txt", content, "big.txt")
    print(json.dumps({"mb": mb, "s": time.perf_counter() - t0, "chunks": len(prepared.chunks),
                      "rss_growth_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                        - base) / 1024}))


def upload(mb: float) -> str:
    from bench.serving import serve

    content = text_of(mb)
    with serve() as served:
        health: list[float] = []
        stop = threading.Event()

        def probe() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    httpx.get(f"{served.url}/health", timeout=60)
                    health.append((time.perf_counter() - t0) * 1000)
                except httpx.HTTPError:
                    health.append(float("inf"))
                time.sleep(0.2)

        prober = threading.Thread(target=probe)
        prober.start()
        rss0 = served.rss_mb()
        t0 = time.perf_counter()
        r = httpx.post(f"{served.url}/documents", headers=served.headers, timeout=600,
                       files={"file": ("big.txt", content)}, data={"document_id": "big"})
        accepted_s = time.perf_counter() - t0
        job_id = r.json()["job_id"]
        peak = rss0
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=60) as http:
            while (job := http.get(f"/jobs/{job_id}").json())["status"] not in (
                    "succeeded", "failed"):
                peak = max(peak, served.rss_mb())
                time.sleep(0.5)
        ended_s = time.perf_counter() - t0
        stop.set()
        prober.join()
    ordered = sorted(health)
    return (f"{mb:g} MB upload: 202 after {accepted_s:.1f} s; job {job['status']} after "
            f"{ended_s:.0f} s, attempts {job['attempts']}: {job['error']!r}; server + child RSS "
            f"{rss0:.0f} → peak {peak:.0f} MB; /health meanwhile p50 "
            f"{ordered[len(ordered) // 2]:.0f} ms, max {ordered[-1]:.0f} ms ({len(ordered)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,5,25")
    parser.add_argument("--upload-mb", type=float, default=50)
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        prepare_once(args.one)
        return
    print(f"machine: {machine()}")
    for mb in (float(x) for x in args.sizes.split(",")):
        out = subprocess.run([sys.executable, "-m", "bench.big_documents", "--one", str(mb)],
                             cwd=REPO, capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['mb']:g} MB: extract + chunk {r['s']:.1f} s ({r['s'] / r['mb']:.2f} s/MB), "
              f"{r['chunks']} chunks, peak RSS growth {r['rss_growth_mb']:.0f} MB")
    if args.upload_mb:
        print(upload(args.upload_mb))


if __name__ == "__main__":
    main()
