"""A real `evidence serve` in a subprocess for the benchmarks that measure the service as an
operator runs it: its own temporary data directory, the installed models, settings by env."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import REPO, SCIFACT
from tests.live import wait_until_healthy


@dataclass
class Served:
    url: str
    key: str
    process: subprocess.Popen
    data_dir: Path

    @property
    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key}

    def rss_mb(self) -> float:
        """Resident memory of the server and every descendant (the workers' children and any
        child those start)."""
        seen, todo, total = set(), [self.process.pid], 0
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                try:  # every thread's children: the pool's process is started by the worker's
                    todo += [int(c) for c in children.read_text().split()]
                except OSError:
                    pass
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    def wait_for_jobs(self, job_ids: list[str], timeout_s: float = 3600) -> dict[str, dict]:
        deadline, done = time.monotonic() + timeout_s, {}
        with httpx.Client(base_url=self.url, headers=self.headers, timeout=60) as http:
            while len(done) < len(job_ids) and time.monotonic() < deadline:
                for job_id in job_ids:
                    if job_id not in done:
                        job = http.get(f"/jobs/{job_id}").json()
                        if job["status"] in ("succeeded", "failed"):
                            done[job_id] = job
                time.sleep(0.5)
        return done


@contextmanager
def serve(env: dict[str, str] | None = None, port: int = 8765,
          data_dir: Path | None = None, repo: Path = REPO) -> Iterator[Served]:
    """``data_dir``: reuse a folder an earlier run filled (to profile or compare settings
    without ingesting again); by default a new temporary one. ``repo``: the checkout whose
    code serves (another one: a baseline from the same run, e.g. a `git worktree` of main)."""
    data = data_dir or Path(tempfile.mkdtemp(prefix="bench-serve-"))
    data.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, "EVIDENCE_DATA_DIR": str(data),
                "EVIDENCE_DATABASE__URL": f"sqlite:///{data}/evidence.db",
                "EVIDENCE_QDRANT__PATH": str(data / "qdrant"),
                "EVIDENCE_MODELS__DIR": str(REPO / "models"), "EVIDENCE_LOG_LEVEL": "WARNING",
                **(env or {})}
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
                               cwd=repo, env=full_env, stdout=subprocess.DEVNULL,
                               stderr=open(data / "serve.log", "w"))  # noqa: SIM115
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, data / "serve.log")
        key = (data / "initial-api-key.txt").read_text().strip()
        yield Served(url=url, key=key, process=process, data_dir=data)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def scifact(docs: int) -> tuple[list[tuple[str, str]], list[str]]:
    """(document id, Markdown text) for the first ``docs`` abstracts, and the queries."""
    from evaluation import beir

    data = beir.load(SCIFACT)
    corpus = [(f"sf{d}", f"# {t}\n\n{x}\n") for d, (t, x) in list(data.corpus.items())[:docs]]
    return corpus, list(data.queries.values())


def upload_all(served: Served, corpus: list[tuple[str, str]]) -> list[str]:
    with httpx.Client(base_url=served.url, headers=served.headers, timeout=60) as http:
        return [http.post("/documents", files={"file": (f"{d}.md", text.encode())},
                          data={"document_id": d}).json()["job_id"] for d, text in corpus]
