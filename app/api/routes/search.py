"""POST /search: authorise → the search service → the contract's Evidence Result."""

from __future__ import annotations

import logging

from fastapi import APIRouter

from app import metrics
from app.api.deps import PublishingClientDep, SearchServiceDep, SessionDep
from app.api.presenter import evidence_result, search_query
from app.api.schemas import EvidenceResult, SearchRequest, error_responses

router = APIRouter(tags=["search"])
log = logging.getLogger(__name__)


@router.post("/search", response_model=EvidenceResult,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500, 503))
def search(body: SearchRequest, session: SessionDep, client: PublishingClientDep,
           service: SearchServiceDep) -> EvidenceResult:
    """Search the caller's published, current Document Versions; one row per version."""
    answer = service.answer(session, client_id=client.id, query=search_query(body))
    metrics.observe_search(answer.scope, answer.fusion, answer.timings, answer.degradations)
    log.info("search", extra={"fields": {
        "client_id": client.id, "scope": answer.scope, "alpha": answer.alpha,
        "fusion": answer.fusion, "results": len(answer.rows), "total": answer.total,
        "ms": answer.timings.get("total")}})  # never the query text or evidence
    return evidence_result(answer, explain=body.explain)
