"""create_app(settings): the FastAPI app; its lifespan builds the heavy things once.

In the embedded default (``embedded_worker``) the ingestion worker runs in a thread of the
serving process, because the embedded engine locks its folder against a second process.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi_offline import FastAPIOffline

from app.api.console import mount_console
from app.api.deps import reject_unknown_query_params
from app.api.errors import install_error_handlers
from app.api.guard import DOCS_ASSETS, CatchAll, Gate
from app.api.observe import Observe
from app.api.presenter import batch_hits, watch_evidence
from app.api.routes import (
    audit,
    batches,
    clients,
    documents,
    entities,
    health,
    judgments,
    originals,
    search,
    sources,
    threads,
    watches,
)
from app.ops import metrics
from app.ops.audit import AuditTrail
from app.runtime import INITIAL_KEY_FILE, Runtime, build_runtime, ensure_first_client
from app.search.batches import BatchRunner, InteractiveSearches
from app.search.pipeline import SearchEngine
from app.search.service import SearchService
from app.settings import Settings
from app.sources.service import SourceScheduler
from app.watches.runner import WatchRunner

log = logging.getLogger(__name__)


def announce_first_key(key: str, path: Path) -> None:
    """The first key in full once, on the terminal only; logs (which are collected and kept)
    get its prefix and where the file is."""
    log.warning("created the first client 'default'; its API key %s… is in %s (readable by "
                "this user only)", key[:10], path)
    if sys.stderr.isatty():
        print(f"\n  API key of client 'default' (shown once): {key}\n", file=sys.stderr)


def app_from_environment() -> FastAPI:
    """The app of one of `evidence serve --workers N`'s processes: settings and logging from
    the environment, as the command that started them read them."""
    from app.ops.logs import configure
    from app.settings import get_settings

    settings = get_settings()
    configure(settings.log_level, settings.log.format)
    return create_app(settings)


def chunks_without_sentences(rt: Runtime) -> bool:
    """Whether the collection holds chunks stored before ingestion kept each chunk's sentences
    (payload ``sentence_spans``): one chunk of the first client holding any, read once."""
    from app.registry.clients import list_clients
    from app.store import ChunkFilter
    from app.store.payload import SENTENCE_SPANS

    with rt.sessions() as session:
        clients = [c.id for c in list_clients(session)]
    for client_id in clients:
        hits = rt.store.scroll(ChunkFilter(client_id=client_id, searchable_only=False), limit=1)
        if hits:
            return SENTENCE_SPANS not in hits[0].payload
    return False


def create_app(settings: Settings, runtime: Runtime | None = None,
               start_worker: bool | None = None) -> FastAPI:
    """The API. Tests pass a prepared ``runtime`` (fakes, temp dirs) and may keep the worker off."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rt = runtime or build_runtime(settings)
        app.state.runtime = rt
        app.state.search_service = SearchService(
            SearchEngine(rt.store, rt.models, settings.search), settings.search.hybrid_alpha)
        collector = metrics.install(rt)
        app.state.audit = AuditTrail(rt.sessions, settings.audit)
        # batch searches (app/search/batches.py), yielding to the interactive ones counted here
        app.state.interactive_searches = InteractiveSearches()
        batch_runner = app.state.batch_runner = BatchRunner(
            rt.sessions, app.state.search_service, settings.batch, batch_hits,
            app.state.interactive_searches)
        key = ensure_first_client(settings, rt.sessions)
        if key:
            announce_first_key(key, settings.data_dir / INITIAL_KEY_FILE)
        if chunks_without_sentences(rt):
            log.warning("chunks stored before their sentences were kept with them: snippets "
                        "and changes find each chunk's sentences at query time (slower) until "
                        "`evidence reindex` keeps them")
        if (settings.qdrant.sentence_vectors and not rt.store.sentence_vectors
                and settings.search.sentence_depth):
            log.warning("EVIDENCE_QDRANT__SENTENCE_VECTORS is on but the vector collection "
                        "was made without sentence vectors: chunks are not scored by their "
                        "best sentence; `evidence reindex` rebuilds it with them")
        stop = threading.Event()
        thread = None
        if start_worker if start_worker is not None else settings.embedded_worker:
            from ingest.service import WorkerPool  # the workers' entry point

            pool = WorkerPool(rt)
            app.state.wake_worker = pool.wake
            thread = threading.Thread(target=pool.run_forever, args=(stop,),
                                      name="ingest-workers", daemon=True)
            thread.start()
        # Every serving process evaluates watches (the registry's claims keep each event
        # single); tests that drive the worker drive the runner too (run_once).
        runner = app.state.watch_runner = WatchRunner(
            rt.sessions, app.state.search_service, settings.watch, watch_evidence,
            data_dir=settings.data_dir)
        watch_thread = None
        # sources with an interval synced when it comes (app/sources/service.py)
        scheduler = app.state.source_scheduler = SourceScheduler(
            rt, getattr(app.state, "wake_worker", None))
        source_thread = None
        if start_worker is not False:
            watch_thread = threading.Thread(target=runner.run_forever, args=(stop,),
                                            name="watch-runner", daemon=True)
            watch_thread.start()
            source_thread = threading.Thread(target=scheduler.run_forever, args=(stop,),
                                             name="source-scheduler", daemon=True)
            source_thread.start()
            batch_thread = threading.Thread(target=batch_runner.run_forever, args=(stop,),
                                            name="batch-runner", daemon=True)
            batch_thread.start()
        try:
            yield
        finally:
            stop.set()
            if thread is not None:
                app.state.wake_worker()
                thread.join(timeout=60)
                pool.close()
            if watch_thread is not None:
                watch_thread.join(timeout=settings.watch.timeout_s + 5)
            if source_thread is not None:
                source_thread.join(timeout=5)
                batch_runner.wake()
                batch_thread.join(timeout=30)
            runner.close()
            app.state.audit.close()
            metrics.remove(collector)
            if runtime is None:
                rt.close()

    # redirect_slashes off: the redirect would echo the Host header back (an absolute URL).
    # FastAPIOffline: /docs and /redoc load Swagger UI and ReDoc from the installed
    # fastapi-offline package (DOCS_ASSETS), never from a CDN, so they work with no network.
    app = FastAPIOffline(title="Evidence Search", version="0.1.0", lifespan=lifespan,
                         redirect_slashes=False, static_url=DOCS_ASSETS,
                         # operation ids are the handlers' names: generated clients get
                         # search(), upload_document(), list_documents()…
                         generate_unique_id_function=lambda route: route.name,
                         description="Document-version search: hybrid dense + BM25 retrieval over "
                                     "Qdrant, answering with Evidence Results.")
    install_error_handlers(app)
    limits = settings.limits
    app.add_middleware(Gate, json_limit=limits.json_body_bytes,  # inner: added first
                       multipart_limit=settings.ingest.max_upload_bytes
                       + limits.multipart_margin_bytes)
    app.add_middleware(CatchAll)
    app.add_middleware(Observe)  # outermost: the request id covers everything, 500s too
    for module in (documents, originals, search, batches, entities, threads, watches,
                   judgments, clients, sources, audit, health):
        app.include_router(module.router, dependencies=[Depends(reject_unknown_query_params)])
    mount_console(app)
    return app
