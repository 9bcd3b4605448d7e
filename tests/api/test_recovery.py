"""A killed server's job resumes at once on restart (the embedded default), nothing doubled,
and a crash is not an attempt.

A real process is started, killed with SIGKILL in the middle of a job and started again. The
lease is left at its 300 s default: the job must finish within seconds of the restart anyway,
because the embedded engine's folder lock proves no other worker can hold it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.store import ChunkFilter
from app.store.edge import EdgeStore
from tests.live import free_port

REPO = Path(__file__).resolve().parents[2]


def _start(tmp: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "EVIDENCE_DATA_DIR": str(tmp / "data"),
           "EVIDENCE_DATABASE__URL": f"sqlite:///{tmp}/data/registry.db",
           "EVIDENCE_QDRANT__PATH": str(tmp / "data" / "qdrant"),
           "EVIDENCE_INGEST__CHUNK_SIZE": "64", "EVIDENCE_INGEST__CHUNK_OVERLAP": "8",
           "EVIDENCE_INGEST__POLL_INTERVAL_S": "0.1", "EVIDENCE_TEST_BATCH_DELAY_S": "0.4"}
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_server", str(port)], cwd=REPO,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(proc.stderr.read().decode()[-2000:] if proc.stderr else "no start")


def _job(url: str, key: str, job_id: str) -> dict:
    return httpx.get(f"{url}/jobs/{job_id}", headers={"X-API-Key": key}).json()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.slow
def test_five_kills_during_ingestion_leave_every_document_published(tmp_path: Path) -> None:
    """A crash is not an attempt: a long job in flight at each of five SIGKILLs (three
    attempts allowed) and four small ones all end published, the long one on attempt 1,
    each restart resuming it at once (the lease alone would be 300 s), every chunk once."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start(tmp_path, port)
    key = (tmp_path / "data" / "initial-api-key.txt").read_text().strip()
    words = " ".join(f"w{i}" for i in range(64 * 40))
    uploads = [("long.txt", "\n\n".join([words] * 12))] + [
        (f"small-{n}.txt", f"A small note number {n}.") for n in range(4)]
    job_ids = []
    for name, text in uploads:
        r = httpx.post(f"{url}/documents", headers={"X-API-Key": key},
                       files={"file": (name, text.encode())})
        assert r.status_code == 202, r.text
        job_ids.append(r.json()["job_id"])
    try:
        for _ in range(5):  # killed each time the long job has written a batch more
            before = _job(url, key, job_ids[0])["progress"]
            deadline = time.monotonic() + 60
            while (job := _job(url, key, job_ids[0]))["progress"] <= max(before, 0.1):
                assert job["status"] in ("queued", "running"), job
                assert time.monotonic() < deadline, job
                time.sleep(0.05)
            server.send_signal(signal.SIGKILL)
            server.wait()
            server = _start(tmp_path, port)
        deadline = time.monotonic() + 60
        while any((job := _job(url, key, j))["status"] != "succeeded" for j in job_ids):
            assert job["status"] in ("queued", "running"), job
            assert time.monotonic() < deadline, job
            time.sleep(0.1)
        assert _job(url, key, job_ids[0])["attempts"] == 1
        listed = httpx.get(f"{url}/documents", headers={"X-API-Key": key}).json()
        assert {d["state"] for d in listed["documents"]} == {"published"}
        assert listed["total"] == 5
        chunk_count = sum(d["chunk_count"] for d in listed["documents"])
        client_id = httpx.get(f"{url}/clients/me", headers={"X-API-Key": key}).json()["id"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    store = EdgeStore(tmp_path / "data" / "qdrant", dense_model="fake/dense", dense_dim=384)
    try:  # every chunk once, all of them searchable: nothing doubled, nothing partial
        everything = ChunkFilter(client_id=client_id, searchable_only=False)
        assert store.count(everything) == store.count(ChunkFilter(client_id)) == chunk_count
    finally:
        store.close()


def _job_state(tmp: Path, job_id: str) -> str:
    import sqlite3

    with sqlite3.connect(tmp / "data" / "registry.db") as db:
        return db.execute("SELECT status FROM ingestion_jobs WHERE id = ?",
                          (job_id,)).fetchone()[0]
