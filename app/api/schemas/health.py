"""Health, liveness and readiness."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    Field,
)


class Health(BaseModel):
    status: Literal["ok"]
    profile: str = Field(description="The model profile: offline or contract")
    dense_model: str | None
    dense_available: bool
    dense_error: str | None = Field(description="Why the dense model could not load, if not")
    sparse_model: str
    reranker: str | None
    vector_store: Literal["qdrant-edge", "qdrant-server"]
    sentence_vectors: bool = Field(
        False, description="Whether the collection keeps each chunk's sentence vectors (the "
                           "dense lane's best-sentence scores and meaning-only snippets read "
                           "them); a collection made before them has none until re-indexed "
                           "(`evidence reindex`)")


class Liveness(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready"]
    checks: dict[str, str] = Field(description="registry, engine, models: each ok")
