"""POST /search: authorise → the search service → the contract's Evidence Result."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import PublishingClientDep, SearchServiceDep, SessionDep
from app.api.presenter import evidence_result, search_query
from app.api.schemas import EvidenceResult, SearchRequest

router = APIRouter(tags=["search"])


@router.post("/search", response_model=EvidenceResult)
def search(body: SearchRequest, session: SessionDep, client: PublishingClientDep,
           service: SearchServiceDep) -> EvidenceResult:
    """Search the caller's published, current Document Versions; one row per version."""
    answer = service.answer(session, client_id=client.id, query=search_query(body))
    return evidence_result(answer, explain=body.explain)
