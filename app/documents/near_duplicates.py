"""Near duplicates: a version's MinHash signature (datasketch) over its words' 5-shingles,
computed in the extraction child, and its LSH band digests, stored in the registry so another
version of the same client sharing a band is a candidate (app/registry/near_duplicates.py).

Stated: 128 permutations (an estimate of Jaccard similarity within ±0.09 at 95 %), shingles of
5 words (a changed clause changes the few shingles that cross it, not the document) — fewer
for a short text, by ``shingle_words``: one word changed among n changes the k shingles
holding it of n − k + 1, a Jaccard of (n − 2k + 1) / (n + 1), so k is the largest (at most 5)
that keeps one changed word at 0.9 or more: k ≤ (n + 1) / 20. A 40-word contract and its copy
with "ninety" for "sixty" were 0.76 with 5-word shingles (not near), are 0.90 with 2-word ones
(near, with room for the estimate's noise: its standard deviation there is 0.027); a text
whose length crosses a step (59 and 60 words) is shingled two ways and not compared. Near at
an estimated Jaccard ≥ ``NEAR_THRESHOLD`` 0.8; datasketch's optimal split for that threshold,
9 bands of 13 rows, finds pairs at 0.8 with probability 1 − (1 − 0.8¹³)⁹ ≈ 0.44 and at 0.9
with ≈ 0.94 — pairs found are then checked on the whole signature. Texts under
``MIN_SHINGLES`` shingles get no signature (a one-line note is near everything like it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

NUM_PERM = 128
SHINGLE_WORDS = 5
NEAR_THRESHOLD = 0.8
BANDS, ROWS = 9, 13  # datasketch.lsh._optimal_param(0.8, 128, 0.5, 0.5)
MIN_SHINGLES = 20
ONE_WORD_KEEPS = 0.9  # a text with one word changed stays this similar (shingle_words)
MAX_SHINGLES = 200_000  # a huge document's first ones: bounded time and memory


def signature(texts: Sequence[str]) -> list[int] | None:
    """The MinHash hash values of the texts' word shingles, or None for a short text."""
    from datasketch import MinHash

    words = " ".join(texts).casefold().split()
    k = shingle_words(len(words))
    shingles = {" ".join(words[i:i + k]).encode() for i in range(max(len(words) - k + 1, 0))}
    if len(shingles) < MIN_SHINGLES:
        return None
    minhash = MinHash(num_perm=NUM_PERM, seed=1)
    minhash.update_batch(list(shingles)[:MAX_SHINGLES])
    return [int(v) for v in minhash.hashvalues]


def shingle_words(n: int) -> int:
    """Words per shingle for a text of ``n`` words (the module's rule): ⌊(n + 1) / 20⌋,
    between 1 and 5 — 5 from 100 words on, as before."""
    return max(1, min(SHINGLE_WORDS, (n + 1) // round(2 / (1 - ONE_WORD_KEEPS))))


def bands(values: Sequence[int]) -> list[tuple[int, str]]:
    """(band number, digest) of each LSH band of a signature."""
    return [(b, hashlib.sha1(",".join(map(str, values[b * ROWS:(b + 1) * ROWS])).encode()
                             ).hexdigest()[:16]) for b in range(BANDS)]


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """The estimated Jaccard similarity: the share of equal hash values."""
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)
