"""Another client's one-line upload while one client's seven hostile files run (issue 47): a
real `evidence serve` (its workers and children, the real models). Client A uploads the seven
files at once; one second later, and then every --every seconds until A's files have all
ended, client B uploads a one-line `.txt`; each figure is the time from B's upload to B's
version published (the goal: within 5 s, whatever A's files are doing then); then how each of
A's files ended. Baseline: the same upload on the idle server, same run.

    python -m bench.hostile_fairness [--every 10] [--repeats 1] [--log-level INFO]
        [--seconds 150 --server-repo /work/base]   # a baseline's first 150 s

The seven files, each made here (nothing downloaded), each hostile in its own way:
  big.docx      word/document.xml of 31 MiB (just under the 32 MiB part bound): ~60k paragraphs
  pages.pdf     2,000 pages with a text layer (the OCR page bound does not apply)
  drawing.pdf   one page of 400,000 drawing operators (pdfminer reads each: ~30 s)
  long.eml      a 1.1 MB plain-text body (~1,100 chunks: the chunk budget's worth of work)
  deep.eml      parts nested 200 deep (past the 64 bound: fails with EMAIL_TOO_DEEP)
  rows.xlsx     60,000 rows of 8 cells
  table.html    8 MB of table rows
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
import zipfile
from pathlib import Path

import httpx

from bench.common import REPO, machine
from bench.serving import Served, serve
from bench.slow_file_fairness import _client_key, _published_after

WORDS = ("ledger invoice payment account transfer contract clause supplier remittance audit "
         "quarter balance").split()


def _sentence(i: int) -> str:
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(12)) + f" number {i}."


def big_docx(body_bytes: int = 31 * 2**20) -> bytes:
    """A DOCX whose one body part inflates to ``body_bytes`` (a few hundred KB uploaded)."""
    head = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w='
            '"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
    tail = "</w:body></w:document>"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package'
                   '/2006/content-types"><Default Extension="rels" ContentType="application/'
                   'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
                   'ContentType="application/xml"/><Override PartName="/word/document.xml" '
                   'ContentType="application/vnd.openxmlformats-officedocument.'
                   'wordprocessingml.document.main+xml"/></Types>')
        z.writestr("_rels/.rels",
                   '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org'
                   '/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
                   'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
                   'Target="word/document.xml"/></Relationships>')
        with z.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(head.encode())
            written, i = len(head) + len(tail), 0
            while written < body_bytes:
                p = f"<w:p><w:r><w:t>{_sentence(i)}</w:t></w:r></w:p>".encode()
                part.write(p)
                written, i = written + len(p), i + 1
            part.write(tail.encode())
    return out.getvalue()


def nested_eml(levels: int = 200) -> bytes:
    inner = b"From: a@example.org\r\nSubject: deep\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
    for _ in range(levels):
        inner = (b"From: a@example.org\r\nSubject: level\r\nMIME-Version: 1.0\r\n"
                 b"Content-Type: message/rfc822\r\n\r\n" + inner)
    return b"From: a@example.org\r\nSubject: top\r\nMIME-Version: 1.0\r\n" + inner


def hostile_files() -> list[tuple[str, bytes]]:
    from tests.factories import pdf_bytes, slow_pdf, xlsx_bytes

    body = "\n\n".join(_sentence(i) for i in range(12_000)).encode()
    long_eml = (b"From: a@example.org\r\nTo: b@example.org\r\nSubject: long\r\n"
                b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + body)
    rows = [["id", "date", "supplier", "amount", "currency", "account", "memo", "status"]] + [
        [i, "2024-01-15", f"Supplier {i % 97}", i * 1.5, "EUR", f"ACC-{i:06d}",
         _sentence(i)[:40], "paid"] for i in range(60_000)]
    html = ("<html><body><table>" + "".join(
        f"<tr><td>{i}</td><td>{_sentence(i)}</td></tr>" for i in range(70_000))
        + "</table></body></html>").encode()
    return [("big.docx", big_docx()),
            ("pages.pdf", pdf_bytes([f"Page {i}: {_sentence(i)}" for i in range(2000)])),
            ("drawing.pdf", slow_pdf(400_000, "Ledger drawing")),
            ("long.eml", long_eml), ("deep.eml", nested_eml()),
            ("rows.xlsx", xlsx_bytes({"Payments": rows})), ("table.html", html)]


def _upload_all(http: httpx.Client, served: Served, files: list[tuple[str, bytes]]
                ) -> list[tuple[str, str]]:
    jobs = []
    for name, content in files:
        answer = http.post("/documents", headers=served.headers,
                           files={"file": (f"{time.monotonic_ns()}-{name}", content)})
        jobs.append((name, answer.json().get("job_id", f"refused {answer.status_code}")))
    return jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--every", type=float, default=10.0,
                        help="seconds between B's uploads while A's files run")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="stop B's uploads after this long (0: when A's files have ended)")
    parser.add_argument("--server-repo", type=Path, default=REPO,
                        help="the checkout whose code serves (a baseline worktree)")
    parser.add_argument("--only", default="", help="comma-separated file names to upload")
    parser.add_argument("--log-level", default="WARNING",
                        help="the server's (its log: serve.log in the data folder printed)")
    args = parser.parse_args()
    print(machine())
    t0 = time.perf_counter()
    files = [(n, c) for n, c in hostile_files() if not args.only or n in args.only.split(",")]
    print(f"made the seven files in {time.perf_counter() - t0:.0f} s: " + ", ".join(
        f"{name} {len(content) / 2**20:.1f} MiB" for name, content in files))
    with serve(env={"EVIDENCE_INGEST__POLL_INTERVAL_S": "0.1",
                    "EVIDENCE_LOG_LEVEL": args.log_level}, repo=args.server_repo) as served, \
            httpx.Client(base_url=served.url, timeout=120) as http:
        print(f"server log: {served.data_dir / 'serve.log'}", flush=True)
        rival = _client_key(served, "rival")
        warm = [http.post("/documents", headers={"X-API-Key": rival},  # every worker's
                          files={"file": (f"warm-{i}.txt", f"warm up {i}".encode())}).json()
                for i in range(4)]
        while any(http.get(f"/jobs/{w['job_id']}", headers={"X-API-Key": rival}).json()[
                "status"] not in ("succeeded", "failed") for w in warm):
            time.sleep(0.1)
        _published_after(http, rival, b"and again")
        idle = [_published_after(http, rival, f"idle note {i}".encode())
                for i in range(args.repeats)]
        print(f"B's one-line upload → published, idle server: median {statistics.median(idle):.2f}"
              f" s (max {max(idle):.2f})")
        for round_ in range(args.repeats):
            started = time.perf_counter()
            jobs = _upload_all(http, served, files)
            uploaded = time.perf_counter() - started
            print(f"round {round_ + 1}: A's seven uploads took {uploaded:.1f} s", flush=True)
            live = [j for _, j in jobs if not j.startswith("refused")]
            waits: list[tuple[float, float]] = []  # (seconds into the round, B's wait)
            time.sleep(1.0)
            while True:  # B uploads a line every --every s while A's files run
                at = time.perf_counter() - started
                waits.append((at, _published_after(http, rival, f"busy note {at:.0f}".encode())))
                print(f"   at {at:6.1f} s B published {waits[-1][1]:.2f} s after its upload",
                      flush=True)
                if (args.seconds and at >= args.seconds) or _all_ended(http, served, live):
                    break
                time.sleep(max(0.0, args.every - (time.perf_counter() - started - at)))
            ended = {} if args.seconds else served.wait_for_jobs(live)
            seconds = [w for _, w in waits]
            print(f"   B: {len(seconds)} uploads, median {statistics.median(seconds):.2f} s, "
                  f"max {max(seconds):.2f} s; over 5 s: {sum(w > 5 for w in seconds)}")
            for name, job_id in jobs:
                job = ended.get(job_id, {})
                print(f"   A {name:12} {job.get('status', job_id):10} "
                      f"{job.get('error_code') or ''}")


def _all_ended(http: httpx.Client, served: Served, job_ids: list[str]) -> bool:
    return all(http.get(f"/jobs/{j}", headers=served.headers).json()["status"]
               in ("succeeded", "failed") for j in job_ids)

if __name__ == "__main__":
    main()
