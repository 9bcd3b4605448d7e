"""Ingestion throughput end to end vs the dense embedder alone, on the same chunks, same run.

End to end = upload registration + extract + chunk + spaCy + BM25 + dense + writes + publish,
through the real worker. Baseline = the same dense model embedding the same chunk texts (title
in front, same batch size), nothing else. Run order: baseline, end to end, baseline; the
baseline figure is the better of its two runs, so the ratio is not flattered by noise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SCIFACT, machine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()

    from app.models.loading import load_models
    from app.settings import Settings
    from evaluation import beir
    from evaluation.runner import ingest_corpus, open_eval_runtime
    from ingest.chunking import Chunker, embedding_text
    from ingest.extract import extract

    data = beir.load(SCIFACT)
    ids = list(data.corpus)[: args.docs]
    subset = beir.Dataset(corpus={i: data.corpus[i] for i in ids}, queries={}, qrels={})
    models = load_models(args.models, batch_size=args.batch_size)
    chunker = Chunker(models.count_tokens)
    texts = []
    for i in ids:
        title, text = subset.corpus[i]
        extracted = extract("md", f"# {title}\n\n{text}\n".encode(), f"{i}.md")
        for c in chunker.chunk(extracted):
            texts.append(embedding_text(extracted.title, c.heading_path, c.text))
    assert models.dense is not None

    def baseline() -> float:
        t0 = time.perf_counter()
        models.dense.embed_documents(texts)
        return len(texts) / (time.perf_counter() - t0)

    base1 = baseline()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(models={"dir": args.models})
        runtime, client_id = open_eval_runtime(settings, Path(tmp), models=models)
        n, seconds = ingest_corpus(runtime, client_id, subset, lambda d, t: None)
        runtime.close()
    e2e = len(texts) / seconds
    base2 = baseline()
    base = max(base1, base2)
    print(f"machine: {machine()}")
    print(f"{n} documents, {len(texts)} chunks")
    print(f"dense embedder alone: {base1:.1f} / {base2:.1f} chunks/s (best {base:.1f})")
    print(f"end to end:           {e2e:.1f} chunks/s ({seconds:.1f} s)")
    print(f"ratio end to end / embedder alone: {e2e / base:.3f}")


if __name__ == "__main__":
    main()
