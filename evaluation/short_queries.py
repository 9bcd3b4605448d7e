"""Search-box queries from long ones: each query cut to its ``words`` rarest words, in their
order — how a person types a claim into a search box ("Radioiodine multinodular goitre
thyroid"). Rarity is the public English word frequency the BM25 prior ships
(app/models/assets/bm25_background.tsv.gz, read through the installed BM25 model's own
tokenizer and stemmer); a word the list does not hold counts as rarest; stopwords (no BM25
term) are never kept. Nothing here reads a corpus or a judgment, so the cut cannot be fitted
to them."""

from __future__ import annotations

import re
from collections.abc import Mapping

from app.models.encoders import SparseEncoder

WORD = re.compile(r"[^\W_](?:[\w\-']*[^\W_])?")


def shorten(queries: Mapping[str, str], sparse: SparseEncoder,
            background: Mapping[int, float], words: int) -> dict[str, str]:
    """{query id: its ``words`` rarest words in their order} (a query with fewer kept whole,
    its stopwords dropped)."""
    found = {q: WORD.findall(text) for q, text in queries.items()}
    vocabulary = sorted({w for ws in found.values() for w in ws})
    terms = dict(zip(vocabulary, sparse.embed_documents(vocabulary), strict=True))

    def rarity(word: str) -> float:
        ids = terms[word].indices
        return min((background.get(i, 0.0) for i in ids), default=float("inf"))

    short = {}
    for qid, ws in found.items():
        distinct = [w for i, w in enumerate(ws) if w not in ws[:i] and terms[w].indices]
        keep = set(sorted(distinct, key=lambda w: (rarity(w), w))[:words])
        short[qid] = " ".join(w for w in distinct if w in keep)
    return short
