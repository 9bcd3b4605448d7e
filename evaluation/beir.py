"""Read a BEIR-layout dataset: corpus.jsonl[.gz], queries.jsonl, qrels/test.tsv."""

from __future__ import annotations

import csv
import gzip
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Dataset:
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: grade}


def _open(path: Path):  # type: ignore[no-untyped-def]
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open()


def load(root: Path, split: str = "test") -> Dataset:
    corpus_path = next((p for p in (root / "corpus.jsonl", root / "corpus.jsonl.gz")
                        if p.exists()), None)
    if corpus_path is None:
        raise FileNotFoundError(f"{root} has no corpus.jsonl[.gz]")
    with _open(corpus_path) as fh:
        corpus = {str(d["_id"]): (d.get("title") or "", d.get("text") or "")
                  for d in map(json.loads, fh)}
    with (root / "queries.jsonl").open() as fh:
        queries = {str(q["_id"]): q["text"] for q in map(json.loads, fh)}
    qrels: dict[str, dict[str, int]] = {}
    with (root / "qrels" / f"{split}.tsv").open() as fh:
        reader = csv.reader(fh, delimiter="\t")
        next(reader, None)
        for qid, did, score in reader:
            qrels.setdefault(qid, {})[did] = int(score)
    queries = {q: t for q, t in queries.items() if q in qrels}
    return Dataset(corpus=corpus, queries=queries, qrels=qrels)
