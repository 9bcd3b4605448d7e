"""Ingestion throughput end to end vs the dense embedder alone, on the same chunks, same run.

End to end = upload registration + extract + chunk + spaCy + BM25 + dense + writes + publish,
through the real worker. Baseline = the same dense model embedding the same chunk texts (title
in front, same batch size), nothing else, run before and after; the better of the two is kept,
so the ratio is not flattered by noise.

Beside the ratio it measures what bounds it on this machine: the dense model's work on one
thread (its CPU time, since it scales to every core), spaCy NER alone, and the rest of the
pipeline (end to end with NER switched off, minus the dense model). No schedule can finish
faster than (dense on one thread + NER + rest) / cores, so that gives the best ratio any
overlap could reach here.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SCIFACT, machine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--models", type=Path, default=Path("models"))
    args = parser.parse_args()

    from app.models.loading import load_models
    from app.settings import Settings
    from app.store.payload import passage_text
    from evaluation import beir
    from evaluation.runner import ingest_corpus, open_eval_runtime
    from ingest.chunking import Chunker
    from ingest.embedding import BatchEmbedder
    from ingest.entities import EntityExtractor
    from ingest.extract import extract
    from ingest.service import build_deps
    from ingest.worker import Worker

    data = beir.load(SCIFACT)
    ids = list(data.corpus)[: args.docs]
    subset = beir.Dataset(corpus={i: data.corpus[i] for i in ids}, queries={}, qrels={})
    models = load_models(args.models, batch_size=args.batch_size)
    one_thread = load_models(args.models, batch_size=args.batch_size, threads=1)
    chunker = Chunker(models.count_tokens)
    texts, raw_per_doc = [], []
    for i in ids:
        title, text = subset.corpus[i]
        extracted = extract("md", f"# {title}\n\n{text}\n".encode(), f"{i}.md")
        chunks = chunker.chunk(extracted)
        texts += [passage_text(extracted.title, c.heading_path, c.text) for c in chunks]
        raw_per_doc.append([c.text for c in chunks])
    assert models.dense is not None and one_thread.dense is not None

    def per_chunk_ms(work) -> float:  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        work()
        return (time.perf_counter() - t0) * 1000 / len(texts)

    def end_to_end(with_entities: bool) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(models={"dir": args.models})
            runtime, client_id = open_eval_runtime(settings, Path(tmp), models=models)
            worker = None
            if not with_entities:
                deps = build_deps(runtime)
                deps.embedder = BatchEmbedder(models.dense, models.sparse, None)
                worker = Worker(deps, runtime.settings.ingest)
            _, seconds = ingest_corpus(runtime, client_id, subset, lambda d, t: None, worker)
            runtime.close()
        return seconds * 1000 / len(texts)

    ner = EntityExtractor(models.spacy_path)
    components = {
        "dense": lambda: models.dense.embed_documents(texts),
        "dense_1t": lambda: one_thread.dense.embed_documents(texts),
        "ner": lambda: [ner.extract(raw) for raw in raw_per_doc],
    }
    before = {name: per_chunk_ms(work) for name, work in components.items()}
    e2e = end_to_end(with_entities=True)
    e2e_no_ner = end_to_end(with_entities=False)
    after = {name: per_chunk_ms(work) for name, work in components.items()}
    # Components count at their best of two: the bound below is then the most generous one.
    dense_a, dense_b = before["dense"], after["dense"]
    dense = min(dense_a, dense_b)
    dense_1t = min(before["dense_1t"], after["dense_1t"])
    ner_ms = min(before["ner"], after["ner"])
    rest = max(0.0, e2e_no_ner - dense)
    cores = os.cpu_count() or 1
    floor_ms = max(dense, (dense_1t + ner_ms + rest) / cores)
    print(f"machine: {machine()}")
    print(f"{len(ids)} documents, {len(texts)} chunks; ms per chunk:")
    print(f"  dense embedder alone:        {dense_a:.1f} / {dense_b:.1f} (best {dense:.1f})")
    print(f"  dense on one thread:         {before['dense_1t']:.1f} / {after['dense_1t']:.1f}")
    print(f"  spaCy NER alone:             {before['ner']:.1f} / {after['ner']:.1f}")
    print(f"  end to end:                  {e2e:.1f}")
    print(f"  end to end, NER off:         {e2e_no_ner:.1f} (rest = {rest:.1f})")
    print(f"ratio end to end / embedder alone: {dense / e2e:.3f}")
    print(f"ratio with NER off:                {dense / e2e_no_ner:.3f}")
    print(f"best ratio any overlap could reach on {cores} cores: {dense / floor_ms:.3f}")


if __name__ == "__main__":
    main()
