"""Near duplicates: a version's MinHash signature (datasketch) over its words' 5-shingles,
computed in the extraction child, and its LSH band digests, stored in the registry so another
version of the same client sharing a band is a candidate (app/registry/near_duplicates.py).

Stated: 128 permutations (an estimate of Jaccard similarity within ±0.09 at 95 %), shingles of
5 words (a changed clause changes the few shingles that cross it, not the document), near at
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
MAX_SHINGLES = 200_000  # a huge document's first ones: bounded time and memory


def signature(texts: Sequence[str]) -> list[int] | None:
    """The MinHash hash values of the texts' word shingles, or None for a short text."""
    from datasketch import MinHash

    words = " ".join(texts).casefold().split()
    shingles = {" ".join(words[i:i + SHINGLE_WORDS]).encode()
                for i in range(max(len(words) - SHINGLE_WORDS + 1, 0))}
    if len(shingles) < MIN_SHINGLES:
        return None
    minhash = MinHash(num_perm=NUM_PERM, seed=1)
    minhash.update_batch(list(shingles)[:MAX_SHINGLES])
    return [int(v) for v in minhash.hashvalues]


def bands(values: Sequence[int]) -> list[tuple[int, str]]:
    """(band number, digest) of each LSH band of a signature."""
    return [(b, hashlib.sha1(",".join(map(str, values[b * ROWS:(b + 1) * ROWS])).encode()
                             ).hexdigest()[:16]) for b in range(BANDS)]


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """The estimated Jaccard similarity: the share of equal hash values."""
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)
