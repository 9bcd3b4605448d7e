"""The shipped BM25 background (public English word frequencies by BM25 term id), read once.

Built by app/models/build_background.py; used by app/search/bm25.py's BackgroundPrior.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

ASSET = Path(__file__).parent / "assets" / "bm25_background.tsv.gz"


@lru_cache(maxsize=1)
def load_background(path: Path = ASSET) -> dict[int, float]:
    """{term id: frequency per word}; 62k terms, ~40 ms."""
    table: dict[int, float] = {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        if line and not line.startswith("#"):
            term, freq = line.split("\t")
            table[int(term)] = float(freq)
    return table
