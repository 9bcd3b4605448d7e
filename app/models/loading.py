"""Load the installed models once, from ./models only, never from a hub.

``HF_HUB_OFFLINE=1`` is set before fastembed is imported so a missing file fails at once
instead of retrying a download for ~40 s.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.domain.errors import ModelsNotInstalled
from app.models.background import load_background
from app.models.chance_background import load_background as load_chance_background
from app.models.encoders import DenseEncoder, Reranker, SparseEncoder, SparseVec, TokenCounter
from app.models.manifest import Manifest
from app.models.profiles import ModelProfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
log = logging.getLogger(__name__)


class FastembedDense:
    """fastembed TextEmbedding: documents with ``embed``, queries with ``query_embed``."""

    def __init__(self, model: Any, name: str, dim: int, batch_size: int) -> None:
        self._model, self.name, self.dim, self._batch = model, name, dim, batch_size

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(list(self._model.embed(list(texts), batch_size=self._batch)),
                          dtype=np.float32)

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in next(iter(self._model.query_embed([text])))]

    def embed_with_spans(self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
                         ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each text's vector and, from the same forward pass, a vector for each of its
        ``spans`` (character ranges of the text): the token states inside the span pooled
        as the model pools a whole text (mean), then normalised ("late chunking"). The
        text's own vector is exactly ``embed_documents``' (checked in
        tests/models/test_contextual_pooling.py). A span holding no token (past the
        model's 512 tokens) gets the text's own vector."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), []
        inner = self._model.model  # fastembed's ONNX text model: its tokenizer and session
        vectors, rows = [], []
        for start in range(0, len(texts), self._batch):
            batch = list(texts[start:start + self._batch])
            encoded = inner.tokenizer.encode_batch(batch)
            output = inner.onnx_embed(batch)
            states = np.asarray(output.model_output, dtype=np.float32)
            mask = np.asarray(output.attention_mask, dtype=np.float32)
            for k, enc in enumerate(encoded):
                whole = _normalised((states[k] * mask[k][:, None]).sum(0)
                                    / max(mask[k].sum(), 1.0))
                vectors.append(whole)
                offsets = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
                real = (np.asarray(enc.special_tokens_mask) == 0) & (mask[k] > 0)
                wanted = spans[start + k]
                row = np.tile(whole, (len(wanted), 1)).astype(np.float32)
                for j, (a, b) in enumerate(wanted):
                    inside = real & (offsets[:, 0] < b) & (offsets[:, 1] > a)
                    if inside.any():
                        row[j] = _normalised(states[k][inside].mean(0))
                rows.append(row)
        return np.asarray(vectors, dtype=np.float32), rows


def _normalised(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


class FastembedSparse:
    """fastembed's Qdrant/bm25: term frequencies; IDF is applied by the engine (Modifier.IDF).

    English is the model as installed (NLTK's stop words, shipped: every English vector stays
    what it was); another language (issue 52) is the same model with that language's Snowball
    stemmer and the `stop-words` package's list, made on first use. Term ids are hashes of the
    stemmed words, one id space for every language."""

    def __init__(self, model: Any, name: str, make: Any = None) -> None:
        self._model, self.name = model, name
        self._make = make  # language name → a model for it (None: English only)
        self._models: dict[str, Any] = {"en": model}
        self._lock = threading.Lock()

    def _for(self, language: str) -> Any:
        from app.domain.languages import LANGUAGES

        if language not in LANGUAGES or self._make is None:
            return self._model
        with self._lock:
            if language not in self._models:
                self._models[language] = self._make(LANGUAGES[language])
            return self._models[language]

    def embed_documents(self, texts: Sequence[str],
                        languages: Sequence[str] | None = None) -> list[SparseVec]:
        languages = languages or ["en"] * len(texts)
        out: list[SparseVec | None] = [None] * len(texts)
        for language in dict.fromkeys(languages):
            at = [i for i, lang in enumerate(languages) if lang == language]
            embedded = self._for(language).embed([texts[i] for i in at], batch_size=256)
            for i, e in zip(at, embedded, strict=True):
                out[i] = SparseVec([int(t) for t in e.indices], [float(v) for v in e.values])
        return [v for v in out if v is not None]

    def embed_query(self, text: str, languages: Sequence[str] = ("en",)) -> SparseVec:
        """The query's terms in each language (their union, each once: BM25's query weight
        is 1 a term)."""
        terms: dict[int, float] = {}
        for language in dict.fromkeys(languages or ("en",)):
            e = next(iter(self._for(language).query_embed([text])))
            for t, v in zip(e.indices, e.values, strict=True):
                terms.setdefault(int(t), float(v))
        ids = sorted(terms)
        return SparseVec(ids, [terms[t] for t in ids])


class FastembedReranker:
    def __init__(self, model: Any, name: str) -> None:
        self._model, self.name = model, name

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [float(s) for s in self._model.rerank(query, list(passages), batch_size=32)]


@dataclass
class LoadedModels:
    """Everything model-shaped the service uses, built once at start-up."""

    profile: ModelProfile
    manifest: Manifest
    dense: DenseEncoder | None
    sparse: SparseEncoder
    reranker: Reranker | None
    count_tokens: TokenCounter
    spacy_path: Path | None  # None: no entity model (test fakes)
    dense_error: str | None = None
    # Public word frequencies by BM25 term id, the prior of every client's IDF (app/search/bm25.py);
    # None: the client's counts alone (test fakes, whose term ids are their own)
    bm25_background: Mapping[int, float] | None = None
    # The chance background's vectors, each query's own dense floor (app/search/chance.py);
    # None: the profile's fixed floor (test fakes, or models installed before it existed)
    chance_background: Any = None


def _token_counter(tokenizer_file: Path) -> TokenCounter:
    """Token ids from the dense model's own tokenizer, with the shipped padding and truncation
    (128 in MiniLM's tokenizer.json) switched off, or every text would count ≤ 128."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_file))
    tok.no_padding()
    tok.no_truncation()

    def count(text: str) -> list[int]:
        return tok.encode(text, add_special_tokens=False).ids

    return count


def load_models(models_dir: Path, *, batch_size: int = 1, threads: int | None = None,
                with_dense: bool = True, with_chance: bool = True) -> LoadedModels:
    """Load the manifest's models; a dense model that fails to load is recorded, not fatal
    (searches then degrade to keywords with a warning; alpha = 1 answers 503)."""
    from fastembed import SparseTextEmbedding, TextEmbedding

    manifest = Manifest.load(models_dir)
    profile = manifest.model_profile
    sparse_path = models_dir / manifest.sparse.path
    if not (sparse_path / "english.txt").exists() and profile.name == "offline":
        # fastembed silently turns stopwords off without this file, changing every vector.
        raise ModelsNotInstalled(f"{sparse_path}/english.txt is missing: the BM25 stopword list "
                                 "is required; run `evidence models install` again")
    where = ({"specific_model_path": str(sparse_path)} if profile.name == "offline"
             else {"cache_dir": str(sparse_path), "local_files_only": True})
    sparse_model = SparseTextEmbedding(manifest.sparse.model, **where)

    def in_language(name: str) -> Any:
        from stop_words import get_stop_words

        return SparseTextEmbedding(manifest.sparse.model, language=name,
                                   stopwords=set(get_stop_words(name)), **where)

    sparse = FastembedSparse(sparse_model, manifest.sparse.model, in_language)

    dense: DenseEncoder | None = None
    dense_error = None
    counter: TokenCounter | None = None
    if manifest.dense is not None:
        dense_path = models_dir / manifest.dense.path
        try:
            if profile.name == "offline":
                _register_offline_dense(manifest.dense.model, manifest.dense_dim)
                counter = _token_counter(dense_path / "tokenizer.json")
                model = (TextEmbedding(manifest.dense.model, specific_model_path=str(dense_path),
                                       threads=threads) if with_dense else None)
            else:
                model = TextEmbedding(manifest.dense.model, cache_dir=str(dense_path),
                                      threads=threads, local_files_only=True)
                counter = _token_counter(Path(model.model._model_dir) / "tokenizer.json")
            if model is not None:
                dense = FastembedDense(model, manifest.dense.model, manifest.dense_dim,
                                       batch_size)
        except Exception as exc:  # noqa: BLE001 - reported, search degrades to keywords
            dense_error = f"{type(exc).__name__}: {exc}"
            log.error("dense model %s failed to load: %s", manifest.dense.model, dense_error)
    if counter is None:
        raise ModelsNotInstalled("the dense model's tokenizer could not be loaded "
                                 f"({dense_error}); chunks are counted in its tokens")

    reranker: Reranker | None = None
    if manifest.reranker is not None:
        try:
            from fastembed.rerank.cross_encoder import TextCrossEncoder

            reranker = FastembedReranker(TextCrossEncoder(
                manifest.reranker.model, cache_dir=str(models_dir / manifest.reranker.path),
                local_files_only=True), manifest.reranker.model)
        except Exception as exc:  # noqa: BLE001 - no reranker is a valid state
            log.warning("reranker %s failed to load: %s", manifest.reranker.model, exc)
    return LoadedModels(profile=profile, manifest=manifest, dense=dense, sparse=sparse,
                        reranker=reranker, count_tokens=counter,
                        spacy_path=models_dir / manifest.spacy.path, dense_error=dense_error,
                        bm25_background=load_background(),
                        chance_background=load_chance_background(
                            models_dir, manifest.dense.model)
                        if manifest.dense and dense and with_chance else None)


def load_token_counter(models_dir: Path) -> TokenCounter:
    """The dense model's token counter alone (chunking counts in its tokens), without loading
    any model where the profile ships the tokenizer as a file (the offline one)."""
    manifest = Manifest.load(models_dir)
    if manifest.dense is not None and manifest.model_profile.name == "offline":
        tokenizer = models_dir / manifest.dense.path / "tokenizer.json"
        if tokenizer.exists():
            return _token_counter(tokenizer)
    return load_models(models_dir, with_dense=False).count_tokens


def _register_offline_dense(name: str, dim: int) -> None:
    """Tell fastembed how to run the int8 MiniLM export: mean pooling, L2-normalised."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    if any(m["model"].lower() == name.lower() for m in TextEmbedding.list_supported_models()):
        return
    TextEmbedding.add_custom_model(
        model=name, pooling=PoolingType.MEAN, normalization=True,
        sources=ModelSource(hf="local/only"), dim=dim, model_file="model.onnx")
