"""POST /search: authorise → the search service → the contract's Evidence Result.

The hot path, so it runs in one worker thread of its own few (``search.threads``, one per
core: more only queue on the interpreter's lock), not FastAPI's 40 shared ones; its
dependencies do no I/O (app/api/deps.py), it reads the registry in a session of its own
(searches write nothing), and it returns the Evidence Result already encoded, so FastAPI
neither validates it again in another thread nor encodes it on the event loop (issue 25).
The response model still documents it.
"""

from __future__ import annotations

import functools
import logging
import os

import anyio
from fastapi import APIRouter, FastAPI, Request, Response

from app.api.deps import PublishingClientDep, RuntimeDep, SearchServiceDep
from app.api.presenter import evidence_result, search_audit, search_query
from app.api.schemas import EvidenceResult, SearchRequest, error_responses
from app.ops import metrics
from app.ops.audit import AuditTrail
from app.registry.clients import Caller
from app.runtime import Runtime
from app.search.batches import InteractiveSearches
from app.search.service import SearchService

router = APIRouter(tags=["search"])
log = logging.getLogger(__name__)


@router.post("/search", response_model=EvidenceResult,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500, 503))
async def search(request: Request, body: SearchRequest, runtime: RuntimeDep,
                 client: PublishingClientDep, service: SearchServiceDep) -> Response:
    """Search the caller's published, current Document Versions; one row per version."""
    return await anyio.to_thread.run_sync(functools.partial(
        _search, body, runtime, client, service, request.app.state.audit,
        request.app.state.interactive_searches), limiter=search_limiter(request.app))


def search_limiter(app: FastAPI) -> anyio.CapacityLimiter:
    """The search threads' tokens, made on first use (inside the event loop, as anyio asks)."""
    limiter = getattr(app.state, "search_limiter", None)
    if limiter is None:
        threads = app.state.runtime.settings.search.threads or os.cpu_count() or 2
        limiter = app.state.search_limiter = anyio.CapacityLimiter(threads)
    return limiter


def _search(body: SearchRequest, runtime: Runtime, client: Caller, service: SearchService,
            audit: AuditTrail, interactive: InteractiveSearches) -> Response:
    with interactive.running(), runtime.sessions() as session:  # batch queries wait for it
        answer = service.answer(session, client_id=client.id, query=search_query(body),
                                access=client.access)
    audit.record(client, "search", query=body.query, details=search_audit(answer))
    metrics.observe_search(answer.scope, answer.fusion, answer.timings, answer.degradations)
    log.info("search", extra={"fields": {
        "client_id": client.id, "scope": answer.scope, "alpha": answer.alpha,
        "fusion": answer.fusion, "results": len(answer.rows), "total": answer.total,
        "ms": answer.timings.get("total")}})  # never the query text or evidence
    return Response(evidence_result(answer, explain=body.explain).model_dump_json(by_alias=True),
                    media_type="application/json")
