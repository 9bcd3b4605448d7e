"""What the rest of the code needs from models, as protocols; fakes in tests implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class SparseVec:
    indices: list[int]
    values: list[float]


class DenseEncoder(Protocol):
    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> list[float]: ...


class SparseEncoder(Protocol):
    """BM25 term frequencies; ``languages`` (ISO 639-1 codes, app/models/languages.py): each
    text analysed in its own language, a query in each of them (its terms' union)."""

    name: str

    def embed_documents(self, texts: Sequence[str],
                        languages: Sequence[str] | None = None) -> list[SparseVec]: ...

    def embed_query(self, text: str, languages: Sequence[str] = ("en",)) -> SparseVec: ...


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


class TokenCounter(Protocol):
    def __call__(self, text: str) -> list[int]: ...
