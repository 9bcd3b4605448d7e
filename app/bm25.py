"""BM25 weighted per client: the query carries its client's IDF, the engine stores only the
BM25-normalised term frequencies.

Why not the engine's IDF modifier: Qdrant computes it over the whole collection — every client,
hidden (superseded) points and, in the embedded engine, deleted points until restart. A client
could then read from its own scores whether another client's documents hold a word, and every
client's ranking and BM25 floor moved whenever another client uploaded. Here N and each term's
document frequency count only the chunks of the client's own current, published versions
(app/registry/bm25_stats.py, updated in the publishing transaction), and the formula is the
engine's own, so a single-client corpus scores exactly as before.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.models.encoders import SparseVec


@dataclass(frozen=True)
class CorpusStats:
    """A client's BM25 statistics for some terms: its chunk count and each term's df."""

    chunks: int
    df: Mapping[int, int]


# The client's statistics for the given term ids (the route binds client and session).
CorpusLookup = Callable[[Sequence[int]], CorpusStats]


def idf(chunks: int, df: int) -> float:
    """Qdrant's IDF: ln((N − n + 0.5) / (n + 0.5) + 1), n clamped to N."""
    df = min(df, chunks)
    return math.log((chunks - df + 0.5) / (df + 0.5) + 1.0)


def weigh_query(vector: SparseVec, stats: CorpusStats) -> SparseVec:
    """The query vector times each term's IDF; terms none of the client's chunks hold are
    dropped (they can match nothing the client may see)."""
    indices, values = [], []
    for term, weight in zip(vector.indices, vector.values, strict=True):
        df = stats.df.get(term, 0)
        if df > 0:
            indices.append(term)
            values.append(weight * idf(stats.chunks, df))
    return SparseVec(indices, values)


def term_document_frequencies(chunk_vectors: Iterable[SparseVec]) -> dict[str, int]:
    """{term id (as a JSON key): how many of the chunks hold it} for one version."""
    counts: Counter[int] = Counter()
    for vector in chunk_vectors:
        counts.update(set(vector.indices))
    return {str(term): n for term, n in sorted(counts.items())}
