"""Batch search (issue 51): POST /searches/batch (JSON) or /searches/batch/upload (a CSV or
text list) → a job that searches each query as POST /search would → its hits as JSON lines or
CSV at GET /searches/batch/{id}/results. The work is app/search/batches.py's; this door
validates, records the batch, searches its first query at once (so a filter or scope the
search refuses is refused here, not 1,000 times later) and leaves the rest to the runner."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Path, Query, Request, Response, UploadFile
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.deps import AuditDep, ClientDep, RuntimeDep, SearchServiceDep, SessionDep
from app.api.presenter import plain_filters
from app.api.schemas import (
    MAX_QUERY_CHARS,
    NOT_BLANK,
    FilterValue,
    Fusion,
    JsonInteger,
    Scope,
    Versions,
    error_responses,
)
from app.domain.errors import BadRequest, Conflict, ServiceError
from app.domain.limits import is_valid_utf8
from app.registry import search_batches as batches_registry
from app.registry.clients import Caller
from app.registry.tables import SearchBatch
from app.search.batches import (
    BatchSearch,
    checked_queries,
    csv_text,
    export_lines,
    export_rows,
    read_query_list,
    search_one,
)
from app.search.filters import FILTER_KEY_PATTERN, MAX_FILTER_KEYS

router = APIRouter(tags=["batch search"])
BatchId = Annotated[str, Path(pattern="^bat_[0-9a-f]{24}$", description="bat_… as created")]


class BatchQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    query: str = Field(..., min_length=1, max_length=MAX_QUERY_CHARS, pattern=NOT_BLANK)
    name: str | None = Field(None, max_length=200, description="Your label for it (a person's "
                                                               "or a company's name)")


class BatchOptions(BaseModel):
    """What every query of the batch shares: POST /search's body less its query, offset,
    facets, explain and diagnostics."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str | None = Field(None, max_length=200, description="The batch's label")
    scope: Annotated[Scope, Field(strict=False)] = Scope.content
    alpha: float | None = Field(None, ge=0.0, le=1.0)
    filters: dict[str, FilterValue] | None = Field(
        default_factory=dict, json_schema_extra={
            "propertyNames": {"pattern": FILTER_KEY_PATTERN}, "maxProperties": MAX_FILTER_KEYS},
        description="As POST /search's filters, applied to every query")
    limit: JsonInteger = Field(10, ge=1, le=200, description=(
        "Document Versions kept per query (at most EVIDENCE_BATCH__MAX_RESULTS, 50 unless the "
        "operator says otherwise: beyond it 422 BATCH_RESULTS_LIMIT)"))
    rerank: bool = False
    fusion: Annotated[Fusion | None, Field(strict=False)] = None
    versions: Annotated[Versions, Field(strict=False)] = Versions.current
    as_of: Annotated[datetime | None, Field(strict=False)] = None
    syntax: bool = True
    collapse: Literal["none", "thread", "duplicates"] = "none"

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


def _utf8_queries(value: list) -> list:
    for item in value:
        text = item if isinstance(item, str) else getattr(item, "query", "")
        if not text.strip() or not is_valid_utf8(text):
            raise ValueError("a query is not blank and is valid UTF-8 (no lone surrogate)")
    return value


class BatchRequest(BatchOptions):
    queries: list[Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                                       pattern=NOT_BLANK)] | BatchQuery] = Field(
        ..., min_length=1, max_length=100_000,
        description="The queries: texts, or {query, name}; at most EVIDENCE_BATCH__MAX_QUERIES",
        examples=[["Harbor View Properties", {"query": "IE29AIBK93115212345678",
                                              "name": "account"}]])

    _checked = field_validator("queries")(_utf8_queries)


class BatchOut(BaseModel):
    batch_id: str
    name: str | None
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    total: int = Field(description="Queries in the batch")
    done: int = Field(description="Queries searched so far")
    progress: float = Field(description="done / total")
    hits: int = Field(description="Rows found so far, over every query")
    failed_queries: int = Field(description="Queries the search refused (each says why in "
                                            "the results)")
    error: str | None = Field(None, description="Why the batch stopped, if it failed")
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    results_url: str


class BatchList(BaseModel):
    items: list[BatchOut]


def batch_out(batch: SearchBatch) -> BatchOut:
    return BatchOut(batch_id=batch.batch_id, name=batch.name, status=batch.status,  # type: ignore[arg-type]
                    total=batch.total, done=batch.done,
                    progress=round(batch.done / batch.total, 4) if batch.total else 1.0,
                    hits=batch.hits, failed_queries=batch.failed_queries, error=batch.error,
                    created_at=batch.created_at, started_at=batch.started_at,
                    finished_at=batch.finished_at,
                    results_url=f"/searches/batch/{batch.batch_id}/results")


def _own(client: Caller) -> str | None:
    """A key with access groups sees the batches it made; an admin key every one of its
    client's."""
    return client.key_id if client.access.groups is not None else None


def _start(request: Request, runtime: RuntimeDep, session: SessionDep, client: Caller,
           service: SearchServiceDep, audit: AuditDep, options: BatchOptions,
           queries: list[dict[str, Any]]) -> BatchOut:
    settings = runtime.settings.batch
    queries = checked_queries(queries, max_queries=settings.max_queries,
                              max_chars=MAX_QUERY_CHARS)
    if options.limit > settings.max_results:
        raise BadRequest(f"limit is at most {settings.max_results} per query in a batch "
                         "(EVIDENCE_BATCH__MAX_RESULTS)", code="BATCH_RESULTS_LIMIT",
                         details={"max_results": settings.max_results})
    if batches_registry.active_count(session, client_id=client.id) >= \
            settings.max_active_per_client:
        raise Conflict(f"{settings.max_active_per_client} batch searches of this client are "
                       "queued or running: wait for one to finish, or cancel one (DELETE "
                       "/searches/batch/{id})", code="BATCH_LIMIT_REACHED",
                       details={"max_active": settings.max_active_per_client})
    shared = BatchSearch(
        scope=str(options.scope.value), alpha=options.alpha, rerank=options.rerank,
        filters=plain_filters(options.filters), limit=options.limit,
        fusion=str(options.fusion.value) if options.fusion else None,
        versions=str(options.versions.value),
        as_of=options.as_of.isoformat() if options.as_of else None, syntax=options.syntax,
        collapse=options.collapse, narrowed=client.narrowed)
    batch = batches_registry.create(session, client_id=client.id, key_id=client.key_id,
                                    name=options.name, request=shared.as_json(),
                                    queries=queries)
    runner = request.app.state.batch_runner
    try:  # the first query now: what the search refuses for every query is refused here
        search_one(session, service, runner.render, batch, 0, refuse=True)
    except ServiceError:
        session.rollback()
        raise
    if batch.total == 1:
        batches_registry.finish(session, batch_pk=batch.id, status="done")
    session.commit()
    session.refresh(batch)
    runner.wake()
    audit.record(client, "batch_search", target=batch.batch_id,
                 query="\n".join(q["query"] for q in queries[:20]),
                 details={"queries": len(queries), "scope": shared.scope,
                          "filters": dict(shared.filters)})
    return batch_out(batch)


@router.post("/searches/batch", status_code=202, response_model=BatchOut,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500))
def create_batch(request: Request, body: BatchRequest, runtime: RuntimeDep,
                 session: SessionDep, client: ClientDep, service: SearchServiceDep,
                 audit: AuditDep, response: Response) -> BatchOut:
    """Search a list of queries as one job, each as POST /search would with the shared body
    (scope, filters, alpha, limit per query …); follow it at GET /searches/batch/{id}, export
    its hits from …/results as JSON lines or CSV."""
    queries = [{"query": q, "name": None} if isinstance(q, str) else q.model_dump()
               for q in body.queries]
    out = _start(request, runtime, session, client, service, audit, body, queries)
    response.headers["Location"] = f"/searches/batch/{out.batch_id}"
    return out


@router.post("/searches/batch/upload", status_code=202, response_model=BatchOut,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500))
async def upload_batch(
    request: Request, runtime: RuntimeDep, client: ClientDep, service: SearchServiceDep,
    audit: AuditDep, response: Response,
    file: Annotated[UploadFile, File(description="A list: one query a line (.txt), or a CSV "
                                                 "with a query column and an optional name "
                                                 "column")],
    options: Annotated[str | None, Form(max_length=20_000, description=(
        "The shared search body as JSON: {\"scope\", \"filters\", \"alpha\", \"limit\", "
        "\"name\", …} (as POST /searches/batch, less queries)"))] = None,
) -> BatchOut:
    """A batch from an uploaded list (the same job as POST /searches/batch)."""
    import anyio

    settings = runtime.settings.batch
    data = await file.read()
    queries = read_query_list(data, max_queries=settings.max_queries,
                              max_chars=MAX_QUERY_CHARS)
    try:
        parsed = BatchOptions.model_validate(json.loads(options) if options else {})
    except (ValueError, ValidationError) as error:
        message = (error.errors()[0]["msg"] if isinstance(error, ValidationError)
                   else "options is not JSON")
        raise BadRequest(f"options: {message}"[:300], code="INVALID_BATCH_OPTIONS") from None
    if parsed.name is None and file.filename:
        parsed = parsed.model_copy(update={"name": file.filename[:200]})

    def start() -> BatchOut:
        with runtime.sessions() as session:
            return _start(request, runtime, session, client, service, audit, parsed, queries)

    out = await anyio.to_thread.run_sync(start)
    response.headers["Location"] = f"/searches/batch/{out.batch_id}"
    return out


@router.api_route("/searches/batch/upload", methods=["GET", "PUT", "PATCH", "DELETE"],
                  include_in_schema=False)
async def upload_other_methods() -> None:
    """Only POST: without this, GET /searches/batch/upload would be read as a batch id."""
    raise StarletteHTTPException(405, "Method Not Allowed")


@router.get("/searches/batch", response_model=BatchList,
            responses=error_responses(401, 422, 500))
def list_batches(session: SessionDep, client: ClientDep) -> BatchList:
    """The client's batch searches, newest first (a key with groups: its own)."""
    return BatchList(items=[batch_out(b) for b in batches_registry.listed(
        session, client_id=client.id, key_id=_own(client))])


@router.get("/searches/batch/{batch_id}", response_model=BatchOut,
            responses=error_responses(401, 404, 422, 500))
def get_batch(batch_id: BatchId, session: SessionDep, client: ClientDep) -> BatchOut:
    return batch_out(batches_registry.get(session, client_id=client.id, batch_id=batch_id,
                                          key_id=_own(client)))


@router.get("/searches/batch/{batch_id}/results",
            responses={**error_responses(401, 404, 422, 500), 200: {
                "content": {"application/x-ndjson": {}, "text/csv": {}},
                "description": "JSON lines (one object per query, its hits inside) or CSV "
                               "(one row per hit; a query without hits one row without a "
                               "rank). X-Evidence-Batch-Status says whether it is finished"}})
def batch_results(
    batch_id: BatchId, runtime: RuntimeDep, session: SessionDep, client: ClientDep,
    audit: AuditDep,
    format: Annotated[Literal["jsonl", "csv"], Query(
        description="jsonl (default) or csv")] = "jsonl",
) -> StreamingResponse:
    """The hits of every query searched so far (all of them once status is done), streamed."""
    batch = batches_registry.get(session, client_id=client.id, batch_id=batch_id,
                                 key_id=_own(client))
    pk = batch.id
    audit.record(client, "batch_export", target=batch.batch_id,
                 details={"format": format, "queries": batch.done})

    def body() -> Iterator[str]:
        with runtime.sessions() as own:
            fresh = own.get(SearchBatch, pk)
            if fresh is None:
                return
            if format == "csv":
                yield from csv_text(export_rows(own, fresh))
            else:
                for line in export_lines(own, fresh):
                    yield json.dumps(line, ensure_ascii=False) + "\n"

    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in (batch.name or batch_id))
    return StreamingResponse(
        body(), media_type="text/csv; charset=utf-8" if format == "csv"
        else "application/x-ndjson",
        headers={"X-Evidence-Batch-Status": batch.status,
                 "Content-Disposition": f'attachment; filename="{stem[:80]}.{format}"'})


@router.delete("/searches/batch/{batch_id}", status_code=204,
               responses=error_responses(401, 404, 422, 500))
def delete_batch(batch_id: BatchId, session: SessionDep, client: ClientDep) -> None:
    """Stop a batch (if it runs) and delete it with its results."""
    batch = batches_registry.get(session, client_id=client.id, batch_id=batch_id,
                                 key_id=_own(client))
    batches_registry.remove(session, batch)
