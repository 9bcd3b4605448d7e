"""`evidence serve --workers N`: several API processes on one port and one PostgreSQL
registry. What can run here: the processes, the registry they share (uploads, listings, jobs,
keys through any process) and the refusal with the embedded engine. What cannot: a Qdrant
server (no binary installable here), so each process gets qdrant-client's in-memory store and
nothing is indexed or searched across processes (docs/BENCHMARKS.md says so)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.conftest import pg_schema
from tests.live import free_port, wait_until_healthy

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "models"


def _env(tmp_path: Path, db_url: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "EVIDENCE_DATA_DIR": str(tmp_path / "data"),
            "EVIDENCE_DATABASE__URL": db_url, "EVIDENCE_QDRANT__URL": ":memory:",
            "EVIDENCE_EMBEDDED_WORKER": "false", "EVIDENCE_MODELS__DIR": str(MODELS),
            "EVIDENCE_LOG__FORMAT": "json", "EVIDENCE_LOG_LEVEL": "INFO", **extra}


@pytest.fixture
def pg_url() -> Iterator[str]:
    """PostgreSQL only: several API processes are the scaled-out mode."""
    with pg_schema() as url:
        yield url


@pytest.mark.postgres
def test_two_api_processes_share_one_postgresql_registry(tmp_path: Path, pg_url: str) -> None:
    db_url = pg_url
    if not (MODELS / "manifest.json").exists():
        pytest.skip("the models are not installed (evidence models install)")
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--workers", "2", "--port", str(port)],
            cwd=REPO, env=_env(tmp_path, db_url), stdout=subprocess.DEVNULL, stderr=stderr)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, server, log)
        key = (tmp_path / "data" / "initial-api-key.txt").read_text().strip()
        auth = {"Authorization": f"Bearer {key}"}
        for i in range(8):  # a connection each, so the kernel spreads them over the processes
            r = httpx.post(f"{url}/documents", headers=auth, timeout=30,
                           files={"file": (f"d{i}.txt", f"document {i}".encode())},
                           data={"document_id": f"d{i}"})
            assert r.status_code == 202, r.text

        def listed(_: int) -> tuple[list[str], set[str]]:
            documents = httpx.get(f"{url}/documents", headers=auth, params={"limit": 50},
                                  timeout=30).json()["documents"]
            return sorted(d["document_id"] for d in documents), {d["state"] for d in documents}

        bad = httpx.get(f"{url}/documents", headers={"Authorization": "Bearer evs_nope"})
        assert bad.status_code == 401 and bad.json()["error"]["code"] == "API_KEY_INVALID"
        pids: set[int] = set()
        for _ in range(30):  # bursts of concurrent requests until both processes answered
            with ThreadPoolExecutor(8) as pool:  # whichever answers lists every upload, queued
                assert list(pool.map(listed, range(8))) == [
                    ([f"d{i}" for i in range(8)], {"queued"})] * 8
            time.sleep(0.2)  # the access lines are written as the responses go
            pids = _answering_pids(log)
            if len(pids) == 2:
                break
        assert len(pids) == 2, f"requests were answered by {pids} only"
        assert server.pid not in pids  # the supervisor answers nothing itself
    finally:
        server.terminate()
        server.wait(timeout=60)


def _answering_pids(log: Path) -> set[int]:
    """The processes whose access log lines record a GET /documents."""
    pids = set()
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("logger") == "evidence.access" and entry.get("route") == "/documents":
            pids.add(entry["pid"])
    return pids


def test_several_processes_are_refused_with_the_embedded_engine(tmp_path: Path) -> None:
    env = _env(tmp_path, f"sqlite:///{tmp_path}/registry.db")
    del env["EVIDENCE_QDRANT__URL"]
    done = subprocess.run([sys.executable, "-m", "app.cli", "serve", "--workers", "2",
                           "--port", str(free_port())], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    assert "--workers needs a Qdrant server" in done.stderr + done.stdout
