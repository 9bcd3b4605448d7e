"""EVIDENCE_DATA_DIR is the root of everything the embedded default writes: a real server
started in a fresh working directory with only that setting keeps its registry (uploaded
bytes), engine and first key there, and writes nothing where it was started."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.live import free_port

REPO = Path(__file__).resolve().parents[2]


def test_the_data_dir_holds_registry_engine_and_key(tmp_path: Path) -> None:
    cwd, data = tmp_path / "fresh-cwd", tmp_path / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("EVIDENCE_") or k == "EVIDENCE_MODELS__DIR"}
    env.update({"EVIDENCE_DATA_DIR": str(data), "PYTHONPATH": str(REPO),
                "EVIDENCE_INGEST__POLL_INTERVAL_S": "0.1"})
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_server", str(port)], cwd=cwd,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        key = (data / "initial-api-key.txt").read_text().strip()
        r = httpx.post(f"{url}/documents", headers={"X-API-Key": key},
                       files={"file": ("notes.txt", b"The landlord keeps the deposit.")})
        assert r.status_code == 202, r.text
        job = r.json()["job_id"]
        while httpx.get(f"{url}/jobs/{job}", headers={"X-API-Key": key}).json()[
                "status"] != "succeeded":
            assert time.monotonic() < deadline + 30
            time.sleep(0.1)
        found = httpx.post(f"{url}/search", headers={"X-API-Key": key},
                           json={"query": "landlord deposit"}).json()
        assert [r["document_version"]["document_id"] for r in found["results"]] == ["notes.txt"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (data / "evidence.db").is_file() and (data / "qdrant").is_dir()
    assert list(cwd.iterdir()) == []
