"""The service's commands: migrate, serve, worker, openapi, reindex."""

from __future__ import annotations

import json
import logging
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from app.cli import common
from app.cli.common import (
    _fail,
    _fail_with,
    _logging,
    app,
    get_settings,
)
from app.cli.server_api import recorded_server
from app.domain.errors import ServiceError, StoreLocked


@app.command()
def migrate() -> None:
    """Create or upgrade the registry schema (Alembic) and create the vector collection: run
    once before api and workers start (docker-compose's `migrate` service), so they never race
    to do it."""
    common.refuse_while_served(get_settings(), "run `evidence migrate` again")
    from app.models.manifest import Manifest
    from app.registry.database import open_registry
    from app.store import open_store

    _logging()
    settings = get_settings()
    try:
        engine, _ = open_registry(settings)
        engine.dispose()
        manifest = Manifest.load(settings.models.dir)
        store = open_store(settings.qdrant, dense_model=manifest.dense.model if manifest.dense
                           else "none", dense_dim=manifest.dense_dim)
        store.close()
    except ServiceError as exc:
        _fail_with(exc)
    common.console.print("registry schema is up to date; the vector collection is ready")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="the port to listen on")] = 8000,
    workers: Annotated[int, typer.Option(
        min=1, max=64, help="API processes on one port (a Qdrant server only: the embedded "
                            "engine admits one process)")] = 1,
) -> None:
    """Start the API (with the ingestion worker in-process in the embedded default)."""
    settings = get_settings()
    common.refuse_while_served(settings, "start this one")  # a second serve on the same engine
    import uvicorn

    from app.main import create_app
    from app.models.manifest import Manifest
    from app.registry.database import open_registry
    from app.runtime import ensure_first_client

    _logging()
    try:  # the models are there: say so in one line before uvicorn's start-up traceback would
        Manifest.load(settings.models.dir)
    except ServiceError as exc:
        _fail(exc.message)
    if settings.qdrant.url is None:  # say what to do before uvicorn's start-up traceback would
        from app.store.edge import check_collection_file

        try:
            check_collection_file(settings.qdrant.path)
        except ServiceError as exc:
            _fail(exc.message)
    if workers > 1:
        if settings.qdrant.url is None or settings.qdrant.url.startswith("path:"):
            _fail("--workers needs a Qdrant server (EVIDENCE_QDRANT__URL): the embedded engine, "
                  "and qdrant-client's local folder, admit one process")
        # once, here, so the processes do not race to migrate or to create the first client
        engine, sessions = open_registry(settings)
        key = ensure_first_client(settings, sessions)
        engine.dispose()
        if key:
            from app.main import announce_first_key
            from app.runtime import INITIAL_KEY_FILE

            announce_first_key(key, settings.data_dir / INITIAL_KEY_FILE)
        with recorded_server(settings, host, port):
            uvicorn.run("app.main:app_from_environment", factory=True, workers=workers,
                        host=host, port=port, log_config=None, access_log=False)
        return
    # log_config None: uvicorn keeps the logging configured above (one format, request ids)
    with recorded_server(settings, host, port):  # the CLI finds it on any port
        uvicorn.run(create_app(settings), host=host, port=port, log_config=None,
                    access_log=False)


@app.command()
def worker(
    metrics_port: Annotated[int | None, typer.Option(
        min=1, max=65535, help="serve this worker's Prometheus metrics on this port (behind "
                               "EVIDENCE_METRICS_TOKEN, as the API's /metrics)")] = None,
) -> None:
    """Run an ingestion worker until SIGTERM/SIGINT (PostgreSQL + Qdrant server deployments)."""
    common.refuse_while_served(get_settings(), "run the worker beside a Qdrant server "
                               "(EVIDENCE_QDRANT__URL), or let `evidence serve` ingest")
    from app.runtime import build_runtime
    from ingest.service import WorkerPool

    _logging()
    settings = get_settings()
    if metrics_port:  # counters of this process; the queue: the API's
        from app.ops.metrics import serve_worker_metrics

        if settings.metrics_token is None:
            _fail("--metrics-port needs EVIDENCE_METRICS_TOKEN: the metrics show every "
                  "client's activity, so they are served to the operator only")
        serve_worker_metrics(metrics_port, settings.metrics_token.get_secret_value())
    try:
        runtime = build_runtime(settings)
    except StoreLocked as exc:
        _fail(exc.message + ". A separate worker needs a Qdrant server (EVIDENCE_QDRANT__URL).")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    running = WorkerPool(runtime)  # ingest.workers of them
    try:
        running.run_forever(stop)
    finally:
        running.close()
        runtime.close()





@app.command()
def openapi(out: Annotated[Path, typer.Option(help="where to write the spec")] = Path(
        "openapi.json")) -> None:
    """Write the API's OpenAPI spec (the checked-in openapi.json; a test fails when it drifts).

    The one a running `evidence serve` on this data folder serves, else built here (building
    the application takes ~1 s; asking the server, ~0.2 s — issue 46)."""
    out.write_text((served_spec_text() or spec_text()) + "\n")
    common.console.print(f"wrote {out}")


def served_spec_text() -> str | None:
    """The spec of the server running on this data folder, formatted as spec_text formats
    it; None where none runs or it cannot be read (then the caller builds it)."""
    from app.cli.server_api import json_call, running_server

    url = running_server(get_settings())
    if url is None:
        return None
    try:
        spec = json_call(url, "", "GET", "/openapi.json", timeout=10)
    except ServiceError:
        return None
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False)


def spec_text() -> str:
    """The served spec, as the checked-in file holds it (sorted keys, two-space indent)."""
    from app.main import create_app
    from app.settings import Settings

    return json.dumps(create_app(Settings()).openapi(), indent=2, sort_keys=True,
                      ensure_ascii=False)


@app.command()
def reindex() -> None:
    """Rebuild the vector collection from the files the registry keeps (after an upgrade that
    changes how chunks are stored; the error that sends you here says so).

    Embedded: the old engine folder is renamed aside (delete it once satisfied), a new one is
    built, every current version is queued again and ingested here. A Qdrant server: point
    EVIDENCE_QDRANT__COLLECTION at a new collection first; the old one is left untouched.
    """
    common.refuse_while_served(get_settings(), "run `evidence reindex` again")
    from app.registry import bm25_stats, jobs
    from app.registry.database import transaction
    from app.runtime import build_runtime
    from app.store.edge import set_aside
    from ingest.service import WorkerPool

    _logging()
    # a line per version would bury the summary: the worker speaks here only of what failed
    logging.getLogger("ingest").setLevel(max(logging.WARNING, logging.getLogger().level))
    settings = get_settings()
    try:
        if settings.qdrant.url is None:
            aside = set_aside(settings.qdrant.path)
            if aside is not None:
                common.console.print(f"the previous engine folder is kept at {aside}")
        runtime = build_runtime(settings)
    except ServiceError as exc:
        _fail_with(exc)
    try:
        with transaction(runtime.sessions) as s:
            bm25_stats.clear(s)
            queued = jobs.requeue_current_versions(s, max_attempts=settings.ingest.max_attempts)
        common.console.print(f"re-indexing {queued} current versions")
        rebuilder = WorkerPool(runtime)
        done = rebuilder.drain()
        rebuilder.close()
    finally:
        runtime.close()
    left = queued - done
    common.console.print("done: every current version is indexed again" if left <= 0 else
                         f"{done} indexed; {left} wait for a retry, which `evidence serve` "
                         "will make")


