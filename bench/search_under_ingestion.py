"""Search latency while a large document is ingested, against the same searches idle, with the
ingestion work in a child process (the default) and in the serving process's worker thread.

    python -m bench.search_under_ingestion [--docs 300] [--mb 1.0]
    python -m bench.search_under_ingestion --scanned-pages 20 --modes child   # a scan, OCR'd

For each mode a fresh `evidence serve` (real models, embedded engine) gets ``--docs`` SciFact
abstracts; then one client asks SciFact queries one after another over HTTP, first idle, then
while a ``--mb`` MB text (SciFact abstracts, repeated) is extracted, chunked, embedded and
written. Latencies are those of searches that started while the large job was running.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import httpx

from bench.common import machine
from bench.serving import scifact, serve, upload_all


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def searches(served, queries: list[str], stop: threading.Event | None = None,  # type: ignore[no-untyped-def]
             rounds: int = 1) -> list[float]:
    out: list[float] = []
    with httpx.Client(base_url=served.url, headers=served.headers, timeout=600) as http:
        for _ in range(rounds):
            for query in queries:
                if stop is not None and stop.is_set():
                    return out
                t0 = time.perf_counter()
                r = http.post("/search", json={"query": query})
                assert r.status_code == 200, r.text
                out.append((time.perf_counter() - t0) * 1000)
            if stop is None:
                break
    return out


def run(mode: str, env: dict[str, str], corpus, queries, large: bytes,  # type: ignore[no-untyped-def]
        filename: str = "large.txt") -> dict:
    with serve(env) as served:
        seeded = time.perf_counter()
        jobs = upload_all(served, corpus)
        served.wait_for_jobs(jobs)
        seed_s = time.perf_counter() - seeded
        searches(served, queries[:20])  # warm
        idle = searches(served, queries)
        rss_before = served.rss_mb()
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=600) as http:
            job_id = http.post("/documents", files={"file": (filename, large)},
                               data={"document_id": "large"}).json()["job_id"]
        stop, busy, peak = threading.Event(), [], [rss_before]

        def watch() -> None:
            with httpx.Client(base_url=served.url, headers=served.headers, timeout=600) as h:
                while True:
                    peak.append(served.rss_mb())
                    if h.get(f"/jobs/{job_id}").json()["status"] in ("succeeded", "failed"):
                        stop.set()
                        return
                    time.sleep(0.5)

        started = time.perf_counter()
        watcher = threading.Thread(target=watch)
        watcher.start()
        busy = searches(served, queries, stop=stop, rounds=10_000)
        watcher.join()
        ingest_s = time.perf_counter() - started
        job = served.wait_for_jobs([job_id])[job_id]
    return {"mode": mode, "seed_s": seed_s, "idle": idle, "busy": busy, "ingest_s": ingest_s,
            "job": job,
            "rss_before": rss_before, "rss_peak": max(peak)}


def scanned_pdf_of(pages: int) -> bytes:
    """Generated invoice and statement pages, degraded as scans are (bench/ocr_quality.py)."""
    import random

    from bench.ocr_quality import page_lines, scanned
    from tests.factories import scanned_pdf

    rng = random.Random(25)
    return scanned_pdf([scanned(page_lines(rng), rng) for _ in range(pages)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--scanned-pages", type=int, default=0,
                        help="ingest a scanned PDF of this many pages (OCR) instead of a text")
    parser.add_argument("--modes", choices=("both", "child"), default="both")
    args = parser.parse_args()
    corpus, queries = scifact(args.docs + 2000)
    seed, filler = corpus[:args.docs], corpus[args.docs:]
    if args.scanned_pages:
        large, filename = scanned_pdf_of(args.scanned_pages), "large.pdf"
        what = f"a {args.scanned_pages}-page scanned PDF ({len(large) / 1e6:.1f} MB)"
    else:
        text = "\n\n".join(t for _, t in filler)
        large = (text * (int(args.mb * 1e6 / len(text)) + 1)).encode()[:int(args.mb * 1e6)]
        filename, what = "large.txt", f"a {len(large) / 1e6:.1f} MB text"
    print(f"machine: {machine()}; {args.docs} abstracts indexed; {what} ingested; "
          f"{len(queries)} queries")
    modes = [("child process (default)", {"EVIDENCE_INGEST__CHILD_PROCESS": "true"})]
    if args.modes == "both":
        modes.append(("worker thread", {"EVIDENCE_INGEST__CHILD_PROCESS": "false"}))
    for mode, env in modes:
        r = run(mode, env, seed, queries, large, filename)
        idle_p95, busy_p95 = pct(r["idle"], 0.95), pct(r["busy"], 0.95)
        print(f"{mode}: idle p50 {statistics.median(r['idle']):.0f} ms p95 {idle_p95:.0f} ms "
              f"({len(r['idle'])} searches); while ingesting p50 "
              f"{statistics.median(r['busy']):.0f} ms p95 {busy_p95:.0f} ms "
              f"({len(r['busy'])} searches) = {busy_p95 / idle_p95:.2f}× idle p95; "
              f"ingestion {r['ingest_s']:.0f} s ({r['job']['status']}) — without searches, "
              f"the {len(seed)} abstracts took {r['seed_s']:.0f} s; RSS with children "
              f"{r['rss_before']:.0f} → {r['rss_peak']:.0f} MB"
              + (f"; {args.scanned_pages / r['ingest_s']:.2f} scanned pages/s"
                 if args.scanned_pages else ""))


if __name__ == "__main__":
    main()
