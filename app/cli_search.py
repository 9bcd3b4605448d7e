"""`evidence search`: the API's own answer, in-process or from a running server, as a table."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from app.errors import ServiceError, Unauthorized
from app.settings import Settings


def search_in_process(settings: Settings, body: dict[str, Any], api_key: str | None
                      ) -> dict[str, Any]:
    from pydantic import ValidationError

    from app.api.presenter import evidence_result, search_query
    from app.api.schemas import SearchRequest
    from app.models.loading import load_models
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import build_runtime, local_key
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchService

    try:
        request = SearchRequest(**body)
    except ValidationError as exc:
        raise ServiceError(str(exc), code="INVALID_REQUEST", http_status=422) from None
    # The store is opened first so a running server's lock is found before models load.
    from app.models.manifest import Manifest
    from app.store import open_store

    manifest = Manifest.load(settings.models.dir)
    store = open_store(settings.qdrant, dense_model=manifest.dense.model if manifest.dense
                       else "none", dense_dim=manifest.dense_dim)
    models = load_models(settings.models.dir, threads=settings.models.threads,
                         with_dense=(request.alpha if request.alpha is not None
                                     else settings.search.hybrid_alpha) > 0)
    runtime = build_runtime(settings, models=models, store=store)
    try:
        key = api_key or local_key(settings)
        with transaction(runtime.sessions) as s:
            client = reg.client_for_key(s, secret=key)
            reg.require_active_authority(s, client_id=client.id)
            service = SearchService(SearchEngine(runtime.store, runtime.models,
                                                 settings.search), settings.search.hybrid_alpha)
            answer = service.answer(s, client_id=client.id, query=search_query(request))
        return evidence_result(answer, explain=request.explain).model_dump(mode="json")
    finally:
        runtime.close()


def search_via_server(settings: Settings, body: dict[str, Any], api_key: str | None,
                      server: str) -> dict[str, Any]:
    import httpx

    from app.runtime import local_key

    key = api_key or local_key(settings)
    if not key:
        raise Unauthorized("no API key: pass --api-key or set EVIDENCE_API_KEY")
    response = httpx.post(f"{server.rstrip('/')}/search", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=60)
    if response.status_code != 200:
        error = response.json().get("error", {})
        raise ServiceError(error.get("message", response.text),
                           code=error.get("code", "HTTP_ERROR"),
                           http_status=response.status_code)
    return response.json()


def _fmt(value: float | None, rank: int | None, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f} (#{rank})" if rank else f"{value:.{digits}f}"


def print_answer(console: Console, answer: dict[str, Any]) -> None:
    meta = answer["meta"]
    plural = "" if meta["total"] == 1 else "s"
    table = Table(title=f"{meta['query']!r}: {meta['total']}"
                        f"{'+' if meta['total_is_lower_bound'] else ''} document version{plural}")
    for column in ("rank", "document", "version", "page/line", "meaning", "words", "fused",
                   "rerank"):
        table.add_column(column, no_wrap=True)
    table.add_column("snippet", overflow="ellipsis", no_wrap=True, min_width=20)
    for row in answer["results"]:
        item = row["content_evidence"]["items"][0]
        scores = item.get("scores") or {}
        where = (f"p. {item['page']}" if item.get("page") else
                 f"l. {item['line_start']}" if item.get("line_start") else "")
        snippet = " ".join(item["text"].split())[:200]
        table.add_row(str(row["rank"]), row["document_version"]["document_id"],
                      str(row["document_version"]["version_id"]), where,
                      _fmt(scores.get("dense"), scores.get("dense_rank")),
                      _fmt(scores.get("sparse"), scores.get("sparse_rank"), 2),
                      _fmt(scores.get("fused"), None, 4), _fmt(scores.get("rerank"), None),
                      snippet)
    console.print(table)
    retrieval = meta["retrieval"]
    console.print(f"alpha {retrieval['alpha']} · reranked {retrieval['reranked']} "
                  f"({retrieval['reranked_count']}) · {meta['query_time_ms']:.1f} ms "
                  f"· {', '.join(f'{k} {v:.1f}' for k, v in meta['timings'].items())}")
    for warning in meta.get("warnings", []):
        console.print(f"[yellow]warning:[/yellow] {warning}")
