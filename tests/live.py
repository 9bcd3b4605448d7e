"""A real server on a loopback port (uvicorn in a thread) for tests that need real HTTP:
keep-alive connections, raw request bodies, schemathesis over the spec."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from app.main import create_app
from app.models.loading import LoadedModels
from app.runtime import Runtime, build_runtime
from ingest.service import build_deps
from ingest.worker import Worker
from tests.conftest import make_settings
from tests.factories import client_with_key


@dataclass
class LiveServer:
    url: str
    port: int
    runtime: Runtime
    worker: Worker
    keys: dict[str, str]
    app: Any = None  # its state holds the watch runner a test drives (run_once)


def wait_until_healthy(url: str, process: subprocess.Popen, log: Path,
                       seconds: float = 120) -> None:
    """Until a server started as a process answers ``/health``; its log's tail if it exits
    or does not answer in time (tests, and the benches' `evidence serve`)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(log.read_text()[-3000:])
        time.sleep(0.3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(tmp_path: Path, models: LoadedModels, clients: tuple[str, ...] = ("acme",),
                db_url: str | None = None, entities: bool = False) -> Iterator[LiveServer]:
    """The app on 127.0.0.1 with a worker the test drives (no entity model unless asked:
    fake-friendly)."""
    settings = make_settings(tmp_path, db_url)
    runtime = build_runtime(settings, models=models)
    deps = build_deps(runtime, entities=entities)
    worker = Worker(deps, settings.ingest, worker_id="live-test-worker")
    keys = {name: client_with_key(runtime.sessions, name)[1] for name in clients}
    port = free_port()
    app = create_app(settings, runtime=runtime, start_worker=False)
    server = uvicorn.Server(uvicorn.Config(app,
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield LiveServer(url=f"http://127.0.0.1:{port}", port=port, runtime=runtime,
                         worker=worker, keys=keys, app=app)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        runtime.close()


@contextmanager
def worker_running(live: LiveServer, every_s: float = 0.05) -> Iterator[LiveServer]:
    """The live server's worker draining the queue in a thread, as `evidence serve` does:
    for clients that upload and wait (the CLI, the console)."""
    stop = threading.Event()

    def work() -> None:
        while not stop.wait(every_s):
            live.worker.drain()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    try:
        yield live
    finally:
        stop.set()
        thread.join(timeout=30)
