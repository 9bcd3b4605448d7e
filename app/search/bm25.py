"""BM25 weighted per client: the query carries its client's IDF, the engine stores only the
BM25-normalised term frequencies.

Why not the engine's IDF modifier: Qdrant computes it over the whole collection — every client,
hidden (superseded) points and, in the embedded engine, deleted points until restart. A client
could then read from its own scores whether another client's documents hold a word, and every
client's ranking and BM25 floor moved whenever another client uploaded. Here N and each term's
document frequency count only the chunks of the client's own current, published versions
(app/registry/bm25_stats.py, updated in the publishing transaction), and the formula is the
engine's own, so a single-client corpus scores exactly as before.

A small corpus has no statistics of its own worth the name: one document gives each of its
words df = N = 1, an IDF of ln(1 + 0.5/1.5) = 0.29, and no BM25 score can reach the contract's
absolute floor of 1.0. So the client's counts are blended with a public background — word
frequencies of general English (app/models/assets/bm25_background.tsv.gz, built from wordfreq
by app/models/build_background.py) — worth ``m`` pseudo-chunks (``BackgroundPrior``):

    N' = N + m          n'(t) = df(t) + m · p(t)        p(t) = 1 − exp(−L · f(t))
    idf(t) = ln((N' − n' + 0.5) / (n' + 0.5) + 1)

f(t) is the term's frequency per word of English text, p(t) the chance that a chunk of L = 256
words (the BM25 model's own assumed average length) holds it at least once. It is the
posterior mean of a Beta prior on the term's chunk rate (Dirichlet smoothing with a background
model, Zhai & Lafferty 2001, applied to document frequencies): with N ≪ m the background
decides how rare a word is; as the client's corpus grows past m its own counts take over. Only
public numbers and the client's own counts enter, so no client's uploads move another's
scores. ``m = 0`` is Qdrant's formula exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.models.encoders import SparseVec

CHUNK_WORDS = 256.0  # fastembed's Qdrant/bm25 avg_len: the chunk length BM25 assumes
FLOOR_FREQUENCY = 1e-8  # wordfreq's least listed frequency: a word it never saw is rarer


@dataclass(frozen=True)
class BackgroundPrior:
    """Public word frequencies ({term id: frequency per word}) worth ``chunks`` pseudo-chunks
    of general English in every client's IDF."""

    frequencies: Mapping[int, float]
    chunks: float

    def rate(self, term: int) -> float:
        """The chance that a chunk of CHUNK_WORDS words holds the term."""
        return -math.expm1(-CHUNK_WORDS * self.frequencies.get(term, FLOOR_FREQUENCY))


@dataclass(frozen=True)
class CorpusStats:
    """A client's BM25 statistics for some terms: its chunk count and each term's df, and
    the public prior they are blended with (None: the client's counts alone)."""

    chunks: int
    df: Mapping[int, int]
    prior: BackgroundPrior | None = None

    def idf(self, term: int) -> float:
        df = self.df.get(term, 0)
        if self.prior is None or self.prior.chunks <= 0:
            return idf(self.chunks, df)
        m = self.prior.chunks
        return idf(self.chunks + m, df + m * self.prior.rate(term))


# The client's statistics for the given term ids (the route binds client and session).
CorpusLookup = Callable[[Sequence[int]], CorpusStats]


def idf(chunks: float, df: float) -> float:
    """Qdrant's IDF: ln((N − n + 0.5) / (n + 0.5) + 1), n clamped to N."""
    df = min(df, chunks)
    return math.log((chunks - df + 0.5) / (df + 0.5) + 1.0)


def weigh_query(vector: SparseVec, stats: CorpusStats) -> SparseVec:
    """The query vector times each term's IDF; terms none of the client's chunks hold are
    dropped (they can match nothing the client may see)."""
    indices, values = [], []
    for term, weight in zip(vector.indices, vector.values, strict=True):
        if stats.df.get(term, 0) > 0:
            indices.append(term)
            values.append(weight * stats.idf(term))
    return SparseVec(indices, values)