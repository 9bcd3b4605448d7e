"""Probes (Kubernetes conventions, as Qdrant's own): /healthz liveness, /readyz readiness;
/health what the service runs on; /metrics for Prometheus. None needs a key."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.api.deps import RuntimeDep
from app.api.errors import error_body
from app.api.schemas import Health, Liveness, Readiness, error_responses
from app.ops import metrics
from app.registry.database import schema_revision
from app.runtime import Runtime

log = logging.getLogger(__name__)

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
def health(runtime: RuntimeDep) -> Health:
    models = runtime.models
    return Health(
        status="ok",
        profile=models.profile.name,
        dense_model=models.manifest.dense.model if models.manifest.dense else None,
        dense_available=models.dense is not None,
        dense_error=models.dense_error,
        sparse_model=models.sparse.name,
        reranker=models.reranker.name if models.reranker else None,
        vector_store="qdrant-server" if runtime.settings.qdrant.url else "qdrant-edge",
        sentence_vectors=runtime.store.sentence_vectors,
    )


@router.get("/healthz", response_model=Liveness)
def healthz() -> Liveness:
    """Liveness: the process answers. No detail, no dependency checked."""
    return Liveness(status="ok")


def readiness_checks(runtime: Runtime) -> dict[str, str]:
    """Each dependency: "ok", or what is wrong with it."""
    checks: dict[str, str] = {}
    try:
        current, head = schema_revision(runtime.engine)
        checks["registry"] = "ok" if current == head else (
            f"schema at {current or 'nothing'}, the code needs {head}: run `evidence migrate`")
    except Exception as exc:  # noqa: BLE001 - a probe reports, never raises
        checks["registry"] = f"unreachable ({type(exc).__name__})"
    try:
        runtime.store.count_all()  # opened, and its model matched when it was opened
        checks["engine"] = "ok"
    except Exception as exc:  # noqa: BLE001
        checks["engine"] = f"unavailable ({type(exc).__name__})"
    models = runtime.models
    checks["models"] = ("ok" if models.dense is not None or models.manifest.dense is None
                        else f"the dense model did not load: {models.dense_error}")
    return checks


@router.get("/readyz", response_model=Readiness, responses=error_responses(503))
def readyz(runtime: RuntimeDep) -> Response:
    """Readiness: registry reachable and migrated, engine open, models loaded; a 503 names
    what is not ready."""
    checks = readiness_checks(runtime)
    failing = {k: v for k, v in checks.items() if v != "ok"}
    if failing:
        log.warning("not ready: %s", failing)
        return JSONResponse(error_body("NOT_READY", "not ready: " + "; ".join(
            f"{k}: {v}" for k, v in failing.items()), {"checks": checks}), status_code=503)
    return JSONResponse(Readiness(status="ready", checks=checks).model_dump())


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_LATEST: {}},
                             "description": "Prometheus text format"},
                       **error_responses(401, 404)})
def prometheus_metrics(runtime: RuntimeDep, request: Request) -> Response:
    """Every ``evidence_…`` metric (and the process's), in Prometheus' text format, for the
    operator: ``Authorization: Bearer <EVIDENCE_METRICS_TOKEN>``. They show every client's
    activity, so without the setting there are none (404)."""
    token = runtime.settings.metrics_token
    if token is None:
        return JSONResponse(error_body(
            "METRICS_OFF", "metrics are off: set EVIDENCE_METRICS_TOKEN and scrape with "
            "Authorization: Bearer <token>"), status_code=404)
    if not metrics.token_allows(token.get_secret_value(), request.headers.get("authorization")):
        return JSONResponse(error_body("METRICS_TOKEN_INVALID", "send the operator's metrics "
                                       "token: Authorization: Bearer <EVIDENCE_METRICS_TOKEN>"),
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
