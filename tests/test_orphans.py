"""SIGKILL of `evidence serve` leaves nothing running: its processing children (and with them
the multiprocessing resource tracker) exit within seconds, with the real models and children —
whether they are serving or still starting (killed the moment the first child appears)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import MODELS_DIR
from tests.live import free_port

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")]


def _processes() -> list[tuple[int, list[str]]]:
    """(pid, the fields of /proc/pid/stat after the command name) of every process."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found.append((int(entry.name),
                              (entry / "stat").read_text().rsplit(")", 1)[1].split()))
            except OSError:
                continue
    return found


def _children(pid: int) -> list[int]:
    return [p for p, fields in _processes() if int(fields[1]) == pid]


def _in_session(sid: int) -> list[int]:
    """Every live process of session ``sid`` (the server started as a session leader: its
    children, their children and the resource tracker, re-parented or not)."""
    return [p for p, fields in _processes() if int(fields[3]) == sid and fields[0] != "Z"]


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_server_leaves_no_child_running(tmp_path: Path) -> None:
    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}")
    port = free_port()
    server = _serve(tmp_path, port)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = _ready(server, url)
        key = (tmp_path / "data" / "initial-api-key.txt").read_text().strip()
        r = httpx.post(f"{url}/documents", headers={"X-API-Key": key},
                       files={"file": ("a.txt", b"A note that starts the processing child.")})
        job = r.json()["job_id"]
        while httpx.get(f"{url}/jobs/{job}", headers={"X-API-Key": key}).json()[
                "status"] != "succeeded":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        children = _children(server.pid)
        assert children, "the processing child should be running"
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
    deadline = time.monotonic() + 15
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p for p in children if _alive(p)]


def _ready(server: subprocess.Popen, url: str) -> float:
    """Wait for /readyz; returns the deadline the rest of the test keeps to."""
    deadline = time.monotonic() + 120
    while True:
        assert server.poll() is None and time.monotonic() < deadline
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return deadline
        except httpx.TransportError:
            pass
        time.sleep(0.3)


def _serve(tmp_path: Path, port: int, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env={**os.environ, "EVIDENCE_DATA_DIR": str(tmp_path / "data"),
             "EVIDENCE_MODELS__DIR": str(MODELS_DIR), "EVIDENCE_INGEST__POLL_INTERVAL_S": "0.1",
             **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)


@pytest.mark.parametrize("after_first_child_s", [0.0, 1.5])
def test_a_server_killed_while_its_children_start_leaves_nothing(
        tmp_path: Path, after_first_child_s: float) -> None:
    """Uploads are queued by a server without a worker; a second server starts with them
    waiting and is SIGKILLed the moment its first child process appears (its children are
    then importing, or loading their models): within 10 s nothing of it is left."""
    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}")
    port = free_port()
    queuing = _serve(tmp_path, port, EVIDENCE_EMBEDDED_WORKER="false")
    url = f"http://127.0.0.1:{port}"
    try:
        _ready(queuing, url)
        key = (tmp_path / "data" / "initial-api-key.txt").read_text().strip()
        for n in range(3):
            r = httpx.post(f"{url}/documents", headers={"X-API-Key": key},
                           files={"file": (f"n{n}.txt", f"Queued note number {n}.".encode())})
            assert r.status_code == 202
    finally:
        queuing.terminate()
        queuing.wait(timeout=60)
    server = _serve(tmp_path, free_port())
    try:
        deadline = time.monotonic() + 120
        while not [p for p in _in_session(server.pid) if p != server.pid]:
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(after_first_child_s)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _in_session(server.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _in_session(server.pid) == []
