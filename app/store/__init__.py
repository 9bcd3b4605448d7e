"""The only code that talks to Qdrant: one VectorStore protocol, two implementations."""

from __future__ import annotations

from app.domain.errors import StoreLocked
from app.settings import QdrantSettings
from app.store.base import ChunkFilter, ChunkPoint, LaneQuery, StoredHit, VectorStore

__all__ = ["ChunkFilter", "ChunkPoint", "LaneQuery", "StoreLocked", "StoredHit", "VectorStore",
           "open_store"]


def open_store(settings: QdrantSettings, *, dense_model: str, dense_dim: int) -> VectorStore:
    """The embedded Qdrant Edge shard by default; a Qdrant server or cluster when a URL is set."""
    if settings.url:
        from app.store.server import ServerStore

        return ServerStore(url=settings.url, api_key=settings.api_key.get_secret_value()
                           if settings.api_key else None, collection=settings.collection,
                           dense_model=dense_model, dense_dim=dense_dim,
                           identity_capacity=settings.identity_cache,
                           sentence_vectors=settings.sentence_vectors)
    from app.store.edge import EdgeStore

    return EdgeStore(settings.path, dense_model=dense_model, dense_dim=dense_dim,
                     identity_capacity=settings.identity_cache,
                     sentence_vectors=settings.sentence_vectors)
