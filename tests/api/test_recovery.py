"""A killed server's job resumes at once on restart (the embedded default), nothing doubled.

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
def test_a_job_killed_midway_finishes_within_seconds_of_the_restart(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = _start(tmp_path, port)
    try:
        key = (tmp_path / "data" / "initial-api-key.txt").read_text().strip()
        words = " ".join(f"w{i}" for i in range(64 * 40))  # ~45 chunks of 64 tokens: one batch
        text = "\n\n".join([words] * 12)                    # ~540 chunks, ~9 batches of 0.4 s
        r = httpx.post(f"{url}/documents", headers={"X-API-Key": key},
                       files={"file": ("long.txt", text.encode())},
                       data={"document_id": "long"})
        assert r.status_code == 202, r.text
        job_id = r.json()["job_id"]
        deadline = time.monotonic() + 60
        while _job(url, key, job_id)["progress"] < 0.3:
            assert time.monotonic() < deadline, _job(url, key, job_id)
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert _job_state(tmp_path, job_id) == "running"  # as the dead process left it

    second = _start(tmp_path, port)
    restarted = time.monotonic()
    try:
        while (job := _job(url, key, job_id))["status"] != "succeeded":
            assert job["status"] in ("queued", "running"), job
            assert time.monotonic() - restarted < 30, job  # the lease alone would be 300 s
            time.sleep(0.1)
        assert job["attempts"] == 2
        doc = httpx.get(f"{url}/documents/long", headers={"X-API-Key": key}).json()
        chunk_count = doc["versions"][0]["chunk_count"]
        client_id = httpx.get(f"{url}/clients/me", headers={"X-API-Key": key}).json()["id"]
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
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
