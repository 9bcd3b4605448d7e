"""Search-box queries from long ones: each query cut to its ``words`` rarest words, in their
order — how a person types a claim into a search box ("Radioiodine multinodular goitre
thyroid"). Rarity is the public English word frequency the BM25 prior ships
(app/models/assets/bm25_background.tsv.gz, read through the installed BM25 model's own
tokenizer and stemmer); a word the list does not hold counts as rarest; stopwords (no BM25
term) are never kept. Nothing here reads a corpus or a judgment, so the cut cannot be fitted
to them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from app.models.encoders import SparseEncoder
from evaluation.beir import Dataset

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


def with_cuts(data: Dataset, cuts: Sequence[int], sparse: SparseEncoder,
              background: Mapping[int, float]) -> Dataset:
    """The dataset's queries at each cut (0: whole; n: the n rarest words); with several
    cuts each query appears once per cut, as ``<id>@<cut>``, judged by the same qrels."""
    if not cuts or any(not 0 <= c <= 20 for c in cuts) or len(set(cuts)) != len(cuts):
        raise ValueError("cuts are distinct word counts from 0 (whole) to 20")
    per_cut = {c: dict(data.queries) if c == 0 else shorten(data.queries, sparse, background, c)
               for c in cuts}
    if len(cuts) == 1:
        return replace(data, queries=per_cut[cuts[0]])
    queries = {f"{q}@{c}": text for c in cuts for q, text in per_cut[c].items()}
    qrels = {f"{q}@{c}": data.qrels[q] for c in cuts for q in per_cut[c]}
    return replace(data, queries=queries, qrels=qrels)
