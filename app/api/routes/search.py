"""POST /search: authorise → plan → search pipeline → Evidence Result."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from app.api.deps import PublishingClientDep, RuntimeDep, SessionDep
from app.api.schemas import (
    MAX_WINDOW,
    ContentEvidence,
    ContentItem,
    Contribution,
    DocumentVersionRef,
    EvidenceResult,
    LiteralSpan,
    Meta,
    MetadataEvidence,
    ResultRow,
    RetrievalInfo,
    Scores,
    SearchRequest,
)
from app.errors import BadRequest, Conflict
from app.registry.tables import Document, DocumentVersion
from app.search.filters import parse_filters
from app.search.pipeline import SearchEngine, SearchPlan
from app.search.spans import literal_spans, query_terms
from app.search.types import Candidate

router = APIRouter(tags=["search"])


def get_search_engine(request: Request) -> SearchEngine:
    return request.app.state.search_engine


SearchEngineDep = Annotated[SearchEngine, Depends(get_search_engine)]


@router.post("/search", response_model=EvidenceResult, response_model_exclude_none=False)
def search(body: SearchRequest, runtime: RuntimeDep, session: SessionDep,
           client: PublishingClientDep, engine: SearchEngineDep) -> EvidenceResult:
    """Search the caller's published, current Document Versions; one row per version."""
    return answer_search(session, engine, client_id=client.id, body=body,
                         default_alpha=runtime.settings.search.hybrid_alpha)


def answer_search(session: Session, engine: SearchEngine, *, client_id: str,
                  body: SearchRequest, default_alpha: float) -> EvidenceResult:
    if body.scope in ("metadata", "both"):
        raise Conflict(
            f"scope '{body.scope}' needs Metadata Discovery Readiness for this client, which "
            "it does not have; search scope 'content', or enable metadata discovery",
            code="METADATA_DISCOVERY_NOT_READY",
            details={"scope": body.scope, "state": "disabled", "progress": 0.0})
    if body.offset + body.limit > MAX_WINDOW:
        raise BadRequest(f"offset + limit must be at most {MAX_WINDOW} (got "
                         f"{body.offset + body.limit})", code="WINDOW_TOO_LARGE",
                         details={"offset": body.offset, "limit": body.limit,
                                  "max_window": MAX_WINDOW})
    flt, applied = parse_filters(body.filters, client_id=client_id)
    alpha = default_alpha if body.alpha is None else body.alpha
    outcome = engine.search(SearchPlan(query=body.query, alpha=alpha, rerank=body.rerank,
                                       offset=body.offset, limit=body.limit, filter=flt,
                                       applied_filters=applied))
    metadata = _canonical_metadata(session, client_id,
                                   [(v.document_id, v.version_id) for _, v in outcome.page])
    terms = query_terms(body.query)
    rows = [ResultRow(
        rank=rank,
        document_version=DocumentVersionRef(document_id=v.document_id, version_id=v.version_id),
        canonical_metadata=metadata.get((v.document_id, v.version_id), {}),
        retrieval_contributions=[Contribution(lane="content", rank=rank)],
        content_evidence=ContentEvidence(
            items=[_item(c, terms, body.explain) for c in v.evidence], total=v.total,
            truncated=v.truncated),
        metadata_evidence=MetadataEvidence()) for rank, v in outcome.page]
    timings = outcome.trace.timings
    return EvidenceResult(results=rows, meta=Meta(
        query=body.query, total=outcome.total, total_is_lower_bound=outcome.total_is_lower_bound,
        offset=body.offset, limit=body.limit, has_more=outcome.has_more,
        query_time_ms=timings.get("total", 0.0),
        retrieval=RetrievalInfo(alpha=alpha, reranked=outcome.reranked,
                                reranked_count=outcome.reranked_count),
        applied_filters=applied, scope=body.scope, timings=timings,
        warnings=outcome.trace.warnings))


def _item(c: Candidate, terms: frozenset[str], explain: bool) -> ContentItem:
    text = c.payload.get("text", "")
    return ContentItem(
        chunk_id=c.chunk_id, chunk_index=c.chunk_index, text=text, page=c.payload.get("page"),
        literal_spans=[LiteralSpan(**s) for s in literal_spans(text, terms)],  # type: ignore[arg-type]
        heading_path=list(c.payload.get("heading_path") or []),
        line_start=c.payload.get("line_start"), line_end=c.payload.get("line_end"),
        scores=Scores(dense=c.dense_score, dense_rank=c.dense_rank, sparse=c.sparse_score,
                      sparse_rank=c.sparse_rank, fused=c.fused, rerank=c.rerank_score)
        if explain else None)


def _canonical_metadata(session: Session, client_id: str,
                        keys: list[tuple[str, str]]) -> dict[tuple[str, str], dict]:
    if not keys:
        return {}
    rows = session.execute(
        select(Document.document_id, DocumentVersion.version_id,
               DocumentVersion.canonical_metadata)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
        .where(Document.client_id == client_id,
               tuple_(Document.document_id, DocumentVersion.version_id).in_(keys)))
    return {(d, v): m for d, v, m in rows}
