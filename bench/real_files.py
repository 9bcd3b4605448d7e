"""Real files, one by one, through a live `evidence serve` (issues 34, 45): per format, how many
were tried, refused at upload (by code), published without a warning, published with warnings
(what was not read, a charset guessed), failed (by code), seconds per file (upload to job end),
and the server's memory — idle before, peak while ingesting, idle after.

    python -m bench.real_files --gather /tmp/real     # a folder of real files on this machine
    python -m bench.real_files /tmp/real               # the table (docs/BENCHMARKS.md)
    python -m bench.real_files /tmp/public --repo /work/base   # another checkout's code

The folder is read recursively; each file is its own document (its path the document id).

``--gather`` copies files nobody here wrote from this machine's own packages: CPython's test
data (e-mails of its ``email`` tests, images of ``imghdr``'s), numpy's test CSVs, Debian's
documentation (PDFs, HTML, Markdown), python-docx's and python-pptx's own templates, Tcl's
message catalogues named ``.msg`` (text, not Outlook: they must be refused with a reason). Any
folder of real files works the same.
"""

from __future__ import annotations

import argparse
import glob
import shutil
import statistics
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

from app.domain.formats import SUPPORTED

SOURCES = [  # (glob, extension to give the copy or None, at most)
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/test/test_email/data/msg_*.txt", ".eml", 40),
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/test/imghdrdata/python.*", None, 12),
    ("/usr/share/doc/**/*.pdf", None, 10),
    ("/usr/share/doc/**/*.html", None, 15),
    ("/usr/share/doc/**/*.md", None, 15),
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/numpy/random/tests/data/*.csv",
     None, 10),
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/docutils/**/*.odt", None, 2),
    (".venv/lib/python3.11/site-packages/docx/templates/default.docx", None, 1),
    (".venv/lib/python3.11/site-packages/pptx/templates/default.pptx", None, 1),
    (".venv/lib/python3.11/site-packages/**/*.jpg", None, 3),
    ("/usr/share/tcltk/tcl8.6/msgs/*.msg", None, 8),
    ("/root/.pyenv/versions/3.11.7/lib/python3.11/test/**/*.txt", None, 15),
]


def gather(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    copied = 0
    for pattern, extension, most in SOURCES:
        found = sorted(p for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
        for n, path in enumerate(found[:most]):
            source = Path(path)
            name = f"{source.parent.name}-{source.stem}{extension or source.suffix}"
            shutil.copyfile(source, target / f"{n:02d}-{name}")
            copied += 1
    print(f"{copied} files in {target}")


def run(folder: Path, port: int, idle_s: float, repo: Path | None = None,
        verbose: bool = False) -> None:
    import re

    from bench.common import machine
    from bench.serving import REPO, serve

    files = sorted(p for p in folder.rglob("*") if p.is_file())
    rows: dict[str, dict] = defaultdict(lambda: {"tried": 0, "refused": Counter(),
                                                 "published": 0, "warned": 0,
                                                 "failed": Counter(), "seconds": []})
    peak = [0.0]
    with serve(port=port, repo=repo or REPO) as served:
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], served.rss_mb())
                time.sleep(0.2)

        time.sleep(idle_s)
        idle_before = served.rss_mb()
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=600) as http:
            for path in files:
                kind = path.suffix.lower() if path.suffix.lower() in SUPPORTED else "other"
                row = rows[kind]
                row["tried"] += 1
                t0 = time.perf_counter()
                document_id = re.sub(r"[^A-Za-z0-9._-]+", "-",
                                     str(path.relative_to(folder)))[-120:]
                answer = http.post("/documents", files={"file": (path.name, path.read_bytes())},
                                   data={"document_id": document_id})
                if answer.status_code != 202:
                    row["refused"][f"{answer.status_code} {answer.json()['error']['code']}"] += 1
                    if verbose:
                        print(f"refused {path}: {answer.json()['error']['message'][:160]}")
                    continue
                job = served.wait_for_jobs([answer.json()["job_id"]])[answer.json()["job_id"]]
                row["seconds"].append(time.perf_counter() - t0)
                if job["status"] != "succeeded":
                    row["failed"][job.get("error_code") or "?"] += 1
                    if verbose:
                        print(f"failed {path}: {job.get('error_code')} "
                              f"{(job.get('error') or '')[:160]}")
                    continue
                versions = http.get(f"/documents/{document_id}").json()["versions"]
                warnings = versions[0]["canonical_metadata"]["quality"].get("warnings") or []
                row["warned" if warnings else "published"] += 1
                if verbose and warnings:
                    print(f"warned {path}: {'; '.join(warnings)[:200]}")
        stop.set()
        time.sleep(idle_s)
        idle_after = served.rss_mb()
    print(f"{len(files)} files from {folder}; {machine()}\n")
    print("| format | tried | refused at upload | published | published, warned | "
          "failed (code) | s/file median |")
    print("|---|---|---|---|---|---|---|")
    for kind in sorted(rows):
        row = rows[kind]
        refused = ", ".join(f"{n} × {c}" for c, n in row["refused"].items()) or "—"
        failed = ", ".join(f"{n} × {c}" for c, n in row["failed"].items()) or "—"
        median = f"{statistics.median(row['seconds']):.2f}" if row["seconds"] else "—"
        print(f"| {kind} | {row['tried']} | {refused} | {row['published']} | {row['warned']} | "
              f"{failed} | {median} |")
    print(f"\nmemory (server and every child): idle {idle_before:.0f} MB before, peak "
          f"{peak[0]:.0f} MB while ingesting, idle {idle_after:.0f} MB {idle_s:.0f} s after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--gather", action="store_true",
                        help="fill FOLDER with real files from this machine, then stop")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--idle-s", type=float, default=20.0,
                        help="seconds idle before the first and after the last upload")
    parser.add_argument("--repo", type=Path, default=None,
                        help="serve another checkout's code (a baseline: a git worktree)")
    parser.add_argument("--verbose", action="store_true",
                        help="a line for every file refused, failed or warned")
    args = parser.parse_args()
    if args.gather:
        gather(args.folder)
    else:
        run(args.folder, args.port, args.idle_s, args.repo, args.verbose)


if __name__ == "__main__":
    main()
