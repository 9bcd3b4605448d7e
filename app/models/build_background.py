"""Build ``app/models/assets/bm25_background.tsv.gz``, the public word frequencies behind the
BM25 prior (app/search/bm25.py), from wordfreq's English list.

Run by hand when the BM25 model or wordfreq changes (the file is shipped, so no install step
and no user needs wordfreq):

    pip install "wordfreq==3.1.1" && python -m app.models.build_background

Each word of wordfreq's ``large_en`` list (frequency per word of running English text, words
down to 1e-8, blended from Wikipedia, subtitles, news, books, web text and more; Speer 2022,
https://github.com/rspeer/wordfreq, data CC BY-SA 4.0) is put through the installed BM25
model's own tokenizer, stopword list and stemmer, so each line's term id is exactly the id the
model gives that word; the frequencies of words sharing a stem add up. Words holding a digit
are left out: wordfreq stores numbers with their digits masked ("0000"), which no text holds.
Terms under ``MIN_FREQUENCY`` are left out too (their prior weight is negligible:
app/search/bm25.py).
"""

from __future__ import annotations

import gzip
import os
import sys
from collections import defaultdict
from pathlib import Path

ASSET = Path(__file__).parent / "assets" / "bm25_background.tsv.gz"
MIN_FREQUENCY = 1e-7


def word_frequencies() -> dict[str, float]:
    """wordfreq's large English list as {word: frequency} (its cB bins: 10^(-bin/100))."""
    import msgpack  # wordfreq's own dependency
    import wordfreq

    path = Path(wordfreq.__file__).parent / "data" / "large_en.msgpack.gz"
    bins = msgpack.loads(gzip.decompress(path.read_bytes()), strict_map_key=False)
    if bins[0] != {"format": "cB", "version": 1}:
        raise SystemExit(f"unexpected wordfreq list header {bins[0]!r}")
    return {word: 10 ** (-i / 100) for i, words in enumerate(bins[1:], start=1)
            for word in words}


def term_frequencies(models_dir: Path) -> dict[int, float]:
    """{BM25 term id: summed word frequency}, through the installed model's tokenization."""
    from app.models.loading import load_models

    sparse = load_models(models_dir, with_dense=False).sparse
    words = [(w, f) for w, f in word_frequencies().items()
             if not any(ch.isdigit() for ch in w)]
    totals: dict[int, float] = defaultdict(float)
    batch = 4096
    for start in range(0, len(words), batch):
        part = words[start:start + batch]
        for (_, freq), vec in zip(part, sparse.embed_documents([w for w, _ in part]),
                                  strict=True):
            for term in vec.indices:
                totals[term] += freq
    return {t: f for t, f in totals.items() if f >= MIN_FREQUENCY}


def main() -> None:
    models_dir = Path(os.environ.get("EVIDENCE_MODELS__DIR", "models"))
    totals = term_frequencies(models_dir)
    lines = [f"{term}\t{freq:.4g}\n" for term, freq in sorted(totals.items())]
    header = ("# BM25 term id\tfrequency per word of English text (wordfreq 3.1.1 large_en, "
              "CC BY-SA 4.0), built by app/models/build_background.py\n")
    ASSET.write_bytes(gzip.compress((header + "".join(lines)).encode(), mtime=0))
    print(f"{len(lines)} terms → {ASSET} ({ASSET.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
