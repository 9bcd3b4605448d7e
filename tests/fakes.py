"""Deterministic stand-ins for the models, for unit tests: same text, same vector, every run."""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np

from app.models.encoders import SparseVec
from app.models.loading import LoadedModels
from app.models.manifest import InstalledModel, Manifest
from app.models.profiles import OFFLINE

WORD = re.compile(r"\w+")
DIM = 384


def _bucket(word: str, mod: int) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big") % mod


class FakeDense:
    """Hashed bag of words, L2-normalised: texts sharing words have a higher cosine."""

    name, dim = "fake/dense", DIM

    def __init__(self, delay_s: float = 0.0, fail: bool = False,
                 batch_delay_s: float = 0.0) -> None:
        self.delay_s, self.fail, self.batch_delay_s = delay_s, fail, batch_delay_s

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(DIM, dtype=np.float32)
        for w in WORD.findall(text.lower()):
            v[_bucket(w, DIM)] += 1.0
        v[0] += 0.01  # never the zero vector
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.batch_delay_s:  # a slow model, so a test can catch a job midway
            time.sleep(self.batch_delay_s)
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, DIM))

    def embed_query(self, text: str) -> list[float]:
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("model crashed")
        return self._vec(text).tolist()


class FakeSparse:
    """Term counts under hashed ids, like fastembed's BM25 (IDF is the engine's)."""

    name = "fake/bm25"

    def _vec(self, text: str) -> SparseVec:
        counts = Counter(_bucket(w, 2**31) for w in WORD.findall(text.lower()))
        ids = sorted(counts)
        return SparseVec(ids, [float(counts[i]) for i in ids])

    def embed_documents(self, texts: Sequence[str],
                        languages: Sequence[str] | None = None) -> list[SparseVec]:
        return [self._vec(t) for t in texts]

    def embed_query(self, text: str, languages: Sequence[str] = ("en",)) -> SparseVec:
        v = self._vec(text)
        return SparseVec(v.indices, [1.0] * len(v.indices))


class FakeReranker:
    """Scores a passage by how many query words it holds; optionally slow or failing."""

    name = "fake/reranker"

    def __init__(self, delay_s: float = 0.0, fail: bool = False) -> None:
        self.delay_s, self.fail, self.calls = delay_s, fail, 0

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("reranker crashed")
        words = set(WORD.findall(query.lower()))
        return [float(len(words & set(WORD.findall(p.lower())))) for p in passages]


def whitespace_tokens(text: str) -> list[int]:
    return [_bucket(w, 30000) for w in text.split()]


def fake_models(dense: FakeDense | None = None, reranker: FakeReranker | None = None,
                no_dense: bool = False) -> LoadedModels:
    manifest = Manifest(profile=OFFLINE.name,
                        dense=InstalledModel(model=FakeDense.name, path="dense"),
                        sparse=InstalledModel(model=FakeSparse.name, path="sparse"),
                        spacy=InstalledModel(model="none", path="spacy"))
    return LoadedModels(profile=OFFLINE, manifest=manifest,
                        dense=None if no_dense else (dense or FakeDense()),
                        sparse=FakeSparse(), reranker=reranker, count_tokens=whitespace_tokens,
                        spacy_path=None,
                        dense_error="not loaded (test)" if no_dense else None)
