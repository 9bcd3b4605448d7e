"""Liveness and what the service runs on."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import RuntimeDep
from app.api.schemas import Health

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
    )
