"""The search service's answer as the contract's Evidence Result (app/api/schemas/search.py).

Literal spans are computed here, for the evidence shown; explain adds each item's scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel

from app.api.schemas import (
    AutocutInfo,
    ContentEvidence,
    ContentItem,
    ContextMatch,
    Contribution,
    Diagnostic,
    DocumentOut,
    DocumentVersionRef,
    EvidenceResult,
    FacetValue,
    JobOut,
    JobStage,
    LaneDiagnosis,
    LaneExplain,
    LaneFailureInfo,
    LiteralSpan,
    Meta,
    MetadataEvidence,
    MetadataItem,
    PageBox,
    QuerySyntax,
    ResultRow,
    RetrievalInfo,
    Scores,
    SearchRequest,
    Snippet,
    TableLocation,
    ThreadRef,
    VersionOut,
)
from app.documents.boxes import cited_boxes
from app.domain.leaves import LeafMatch
from app.domain.textnorm import fold
from app.registry.documents import DocumentSummary
from app.registry.tables import DocumentVersion, IngestionJob
from app.search.collapse import with_duplicates
from app.search.metadata_lane import MetadataHit
from app.search.service import AnswerRow, SearchAnswer, SearchQuery
from app.search.snippets import SNIPPET_CHARS, snippet
from app.search.spans import literal_spans, query_terms
from app.search.types import MAX_EVIDENCE, Candidate, VersionHit
from app.store.payload import (
    HEADING_PATH,
    LINE_END,
    LINE_START,
    PAGE,
    TEXT,
    TITLE,
    chunk_location,
)


def search_query(body: SearchRequest) -> SearchQuery:
    return SearchQuery(query=body.query, scope=body.scope, alpha=body.alpha, rerank=body.rerank,
                       filters=plain_filters(body.filters), offset=body.offset, limit=body.limit,
                       fusion=body.fusion, versions=body.versions, as_of=body.as_of,
                       diagnose=tuple(body.diagnose), facets=tuple(body.facets or ()),
                       syntax=body.syntax, collapse=body.collapse,
                       changed_only=body.changed_only, sort=body.sort,
                       autocut=int(body.autocut))  # true: the first drop


def plain_filters(filters: dict[str, Any] | None) -> dict[str, Any]:
    """Request filters as plain JSON values (ranges and negations as the objects they were)."""
    return {k: v.model_dump(by_alias=True, exclude_none=True) if isinstance(v, BaseModel)
            else v for k, v in (filters or {}).items()}


def evidence_result(answer: SearchAnswer, *, explain: bool) -> EvidenceResult:
    terms = query_terms(answer.query)
    rows = [ResultRow(
        rank=row.rank,
        document_version=_version_ref(row),
        canonical_metadata=row.canonical_metadata,
        retrieval_contributions=[Contribution(lane=lane, rank=r)  # type: ignore[arg-type]
                                 for lane, r in row.contributions.items()],
        content_evidence=_content_evidence(row.content, terms, explain, row.changes),
        metadata_evidence=_metadata_evidence(row.metadata),
        thread=ThreadRef(**row.thread) if row.thread else None) for row in answer.rows]
    return EvidenceResult(results=rows, meta=Meta(
        query=answer.query, total=answer.total, total_is_lower_bound=answer.total_is_lower_bound,
        offset=answer.offset, limit=answer.limit, has_more=answer.has_more,
        query_time_ms=answer.timings["total"],
        retrieval=RetrievalInfo(alpha=answer.alpha, fusion=answer.fusion,  # type: ignore[arg-type]
                                calibrated=answer.calibrated,
                                query_language=answer.query_language,
                                alpha_reason=answer.alpha_reason,
                                reranked=answer.reranked,
                                reranked_count=answer.reranked_count,
                                status=answer.status,  # type: ignore[arg-type]
                                lanes=answer.searched,  # type: ignore[arg-type]
                                failures=[LaneFailureInfo(lane=f.lane, code=f.code,  # type: ignore[arg-type]
                                                          message=f.message)
                                          for f in answer.failures]),
        applied_filters=answer.applied_filters, scope=answer.scope, timings=answer.timings,
        warnings=answer.warnings,
        query_syntax=QuerySyntax(**answer.query_syntax) if answer.query_syntax else None,
        autocut=AutocutInfo(**answer.autocut) if answer.autocut else None,
        lanes=[LaneExplain(lane=r.lane, floor=r.floor if math.isfinite(r.floor) else None,
                           floor_from=r.floor_from if math.isfinite(r.floor) else None,  # type: ignore[arg-type]
                           chance=r.chance, sentence_scored=r.sentence_scored,
                           fetched=r.fetched, kept=len(r.hits),  # type: ignore[arg-type]
                           removed_by_floor=r.fetched - len(r.hits), depth=r.depth)
               for r in answer.lanes] if explain else None,
        facets=None if answer.facets is None else {
            key: [FacetValue(**v) for v in values] for key, values in answer.facets.items()},
        diagnostics=None if answer.diagnoses is None else [
            Diagnostic(document_id=d.document_id, version_id=d.version_id,
                       status=d.status, rank=d.rank,  # type: ignore[arg-type]
                       lanes=[LaneDiagnosis(**asdict(x)) for x in d.lanes],
                       filters=d.filters, message=d.message) for d in answer.diagnoses]))


def _version_ref(row: AnswerRow) -> DocumentVersionRef:
    timeline = row.version
    if timeline is None:
        return DocumentVersionRef(document_id=row.document_id, version_id=row.version_id)
    return DocumentVersionRef(document_id=row.document_id, version_id=row.version_id,
                              is_current=timeline.is_current,
                              published_at=timeline.published_at,
                              superseded_at=timeline.superseded_at,
                              superseded_by=timeline.superseded_by)


def _content_evidence(hit: VersionHit | None, terms: frozenset[str], explain: bool,
                      changes: dict[int, str] | None = None) -> ContentEvidence:
    if hit is None:
        return ContentEvidence(items=[], total=0, truncated=False)
    return ContentEvidence(items=[_item(c, terms, explain, changes) for c in hit.evidence],
                           total=hit.total, truncated=hit.truncated)


def _metadata_evidence(hit: MetadataHit | None) -> MetadataEvidence:
    if hit is None:
        return MetadataEvidence()
    return MetadataEvidence(items=[_leaf_item(m) for m in hit.matches[:MAX_EVIDENCE]],
                            total=len(hit.matches), truncated=len(hit.matches) > MAX_EVIDENCE)


def _leaf_item(m: LeafMatch) -> MetadataItem:
    text = str(m.leaf.value)
    return MetadataItem(key=m.leaf.key, value=m.leaf.value, match=m.match,  # type: ignore[arg-type]
                        spans=[LiteralSpan(start=a, end=b, text=text[a:b]) for a, b in m.spans])


def _item(c: Candidate, terms: frozenset[str], explain: bool,
          changes: dict[int, str] | None = None) -> ContentItem:
    text = c.payload.get(TEXT, "")
    location = chunk_location(c.payload)
    spans = literal_spans(text, terms)
    start, end = snippet(text, [(s["start"], s["end"], fold(str(s["text"])))  # type: ignore[arg-type]
                                for s in spans], c.focus)
    if c.focus is not None and (changes or {}).get(c.chunk_index):  # changed_only: the sentence
        start, end = c.focus if c.focus[1] - c.focus[0] <= SNIPPET_CHARS else snippet(
            text, [], c.focus)
    return ContentItem(
        chunk_id=c.chunk_id, chunk_index=c.chunk_index, text=text, page=c.payload.get(PAGE),
        literal_spans=[LiteralSpan(**s) for s in spans],  # type: ignore[arg-type]
        snippet=Snippet(text=text[start:end], start=start, end=end),
        heading_path=list(c.payload.get(HEADING_PATH) or []),
        context_matches=context_matches(c, terms),
        line_start=None if location else c.payload.get(LINE_START),
        line_end=None if location else c.payload.get(LINE_END),
        location=TableLocation(**location) if location else None,
        change=(changes or {}).get(c.chunk_index),
        boxes=None if c.boxes is None else [PageBox(**b) for b in cited_boxes(  # type: ignore[arg-type]
            c.boxes, [(s["start"], s["end"]) for s in spans] or [(start, end)])],
        scores=Scores(entity_rank=c.entity_rank, dense=c.dense_score, dense_rank=c.dense_rank,
                      sparse=c.sparse_score,
                      sparse_rank=c.sparse_rank, fused=c.fused, rerank=c.rerank_score,
                      dense_scaled=c.dense_scaled, sparse_scaled=c.sparse_scaled)
        if explain else None)


def context_matches(c: Candidate, terms: frozenset[str]) -> list[ContextMatch]:
    """The query's words in the title and the headings over a chunk: BM25 reads them with the
    chunk's text (the passage prefix), so a chunk can be found by them alone (issue 53)."""
    found, said = [], set()
    for where, text in (("title", c.payload.get(TITLE) or ""),
                        *(("heading", h) for h in c.payload.get(HEADING_PATH) or [])):
        spans = literal_spans(str(text), terms) if text and terms and text not in said else []
        said.add(text)  # a first heading that is the title is said once
        if spans:
            found.append(ContextMatch(where=where, text=str(text),  # type: ignore[arg-type]
                                      spans=[LiteralSpan(**s) for s in spans]))  # type: ignore[arg-type]
    return found


def document_out(summary: DocumentSummary,
                  versions: list[DocumentVersion] | None = None,
                  errors: Mapping[int, tuple[str | None, str | None]] | None = None,
                  duplicates: tuple[list[str], list[dict]] | None = None,
                  jobs: Mapping[int, str] | None = None) -> DocumentOut:
    """A document as GET /documents lists it (with every version for GET /documents/{id}, and
    the error and code of each version's last job)."""
    doc = summary.document
    errors = errors or {}
    return DocumentOut(
        document_id=doc.document_id, filename=summary.filename, title=summary.title,
        kind=doc.kind, source=doc.source, path=doc.path,
        current_version_id=doc.current_version_id, latest_version_id=summary.latest_version_id,
        state=summary.state, error=summary.error, error_code=summary.error_code,
        version_count=doc.version_count,
        chunk_count=summary.chunk_count, access=list(summary.access),
        created_at=doc.created_at, updated_at=doc.updated_at,
        versions=None if versions is None else [VersionOut(
            version_id=v.version_id, state=v.state, filename=v.filename, mime_type=v.mime_type,
            size_bytes=v.size_bytes, content_sha256=v.content_sha256, chunk_count=v.chunk_count,
            created_at=v.created_at, published_at=v.published_at,
            superseded_at=v.superseded_at, superseded_by=v.superseded_by,
            canonical_metadata=with_duplicates(
                v.canonical_metadata, *(duplicates if duplicates and v.version_id
                                        == doc.current_version_id else ([], []))),
            error=errors.get(v.id, (None, None))[0] if v.state == "failed" else None,
            error_code=errors.get(v.id, (None, None))[1] if v.state == "failed" else None,
            job_id=(jobs or {}).get(v.id))
            for v in versions])


def job_out(job: IngestionJob, document_id: str, version_id: str) -> JobOut:
    return JobOut(job_id=job.id, status=job.status, attempts=job.attempts,
                  max_attempts=job.max_attempts, progress=job.progress, error=job.error,
                  error_code=job.error_code,
                  stage=JobStage(**job.stage) if job.stage and job.status == "running"
                  else None,
                  document_id=document_id, version_id=version_id,
                  created_at=job.created_at, started_at=job.started_at,
                  finished_at=job.finished_at)


def watch_evidence(answer: SearchAnswer) -> dict[str, Any]:
    """A watch match's evidence: what POST /search cites for the answer's first row, as JSON
    (the watch runner records it; app/watches/runner.py)."""
    row = evidence_result(answer, explain=False).results[0]
    return {"content": [item.model_dump(mode="json") for item in row.content_evidence.items],
            "metadata": [item.model_dump(mode="json") for item in row.metadata_evidence.items]}


def search_audit(answer: SearchAnswer) -> dict[str, Any]:
    """What the audit trail keeps of a search besides its words (app/ops/audit.py): scope,
    filters, how many it found and the page's version ids."""
    return {"scope": answer.scope, "filters": answer.applied_filters, "total": answer.total,
            "offset": answer.offset,
            "results": [f"{row.document_id}:{row.version_id}" for row in answer.rows]}


def batch_hits(answer: SearchAnswer) -> list[dict[str, Any]]:
    """A batch query's rows as its export keeps them (app/search/batches.py): each version's
    file name, its first cited chunk's page, id and snippet, and the score it was ranked by
    (its best chunk's fused score; a metadata-only row its best leaf's; a browse's 0)."""
    result = evidence_result(answer, explain=False)
    out = []
    for row, raw in zip(result.results, answer.rows, strict=True):
        items = row.content_evidence.items
        first = items[0] if items else None
        leaf = row.metadata_evidence.items[0] if row.metadata_evidence.items else None
        score = (raw.content.best.fused if raw.content is not None and raw.content.chunks
                 else raw.metadata.best if raw.metadata is not None else None)
        source = (raw.canonical_metadata.get("source") or {})
        out.append({"rank": row.rank, "document_id": row.document_version.document_id,
                    "version_id": row.document_version.version_id,
                    "filename": source.get("filename"),
                    "page": first.page if first is not None else None,
                    "chunk_id": first.chunk_id if first is not None else None,
                    "snippet": first.snippet.text if first is not None and first.snippet
                    else f"{leaf.key}: {leaf.value}" if leaf is not None else None,
                    "score": round(score, 6) if score is not None else None})
    return out
