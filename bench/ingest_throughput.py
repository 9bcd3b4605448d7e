"""Ingestion throughput end to end vs the dense embedder alone, on the same chunks, same run.

End to end = upload registration + extract + chunk + spaCy + BM25 + dense + writes + publish,
through the real worker. Baseline = the same dense model embedding the same chunk texts (title
in front, same batch size), nothing else, run before and after; the better of the two is kept,
so the ratio is not flattered by noise.

Beside the ratio it measures what bounds it on this machine: the dense model's work on one
thread (its CPU time, since it scales to every core), spaCy NER alone, and the rest of the
pipeline (the CPU of every process end to end with NER switched off, minus the dense model's).
No schedule can finish faster than (dense on one thread + NER + rest) / cores, so that gives
the best ratio any overlap could reach here. End to end runs through the settings'
ingest.workers (EVIDENCE_INGEST__WORKERS=1 for one), their children warmed by a document
each first.
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


def _cpu_with_children(pool) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of this process and of its processing children so far, read from each
    live child's /proc entry (they live until the pool closes)."""
    total = time.process_time()
    for worker in pool.workers:
        for pid in worker.deps.processor.child_pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


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
    from ingest.entities import EntityExtractor
    from ingest.extract import extract
    from ingest.service import WorkerPool

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

    def end_to_end(with_entities: bool, sentences: bool = False,
                   pooling: str = "separate") -> tuple[float, float]:
        """(wall ms per chunk, CPU ms per chunk of every process) through the settings'
        ingest.workers, their children warmed first by one document each; ``sentences``:
        into a collection that keeps sentence vectors made by ``pooling``, or one without
        (the default)."""
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(models={"dir": args.models},
                                qdrant={"sentence_vectors": sentences,
                                        "sentence_pooling": pooling})
            runtime, client_id = open_eval_runtime(settings, Path(tmp), models=models)
            pool = WorkerPool(runtime, entities=with_entities)
            warm = beir.Dataset(corpus={f"warm{i}": data.corpus[w] for i, w in enumerate(
                list(data.corpus)[-len(pool.workers):])}, queries={}, qrels={})
            ingest_corpus(runtime, client_id, warm, lambda d, t: None, pool)
            cpu0 = _cpu_with_children(pool)
            _, seconds = ingest_corpus(runtime, client_id, subset, lambda d, t: None, pool)
            cpu = _cpu_with_children(pool) - cpu0
            pool.close()
            runtime.close()
        return seconds * 1000 / len(texts), cpu * 1000 / len(texts)

    ner = EntityExtractor(models.spacy_path)
    components = {
        "dense": lambda: models.dense.embed_documents(texts),
        "dense_1t": lambda: one_thread.dense.embed_documents(texts),
        "ner": lambda: [ner.extract(raw) for raw in raw_per_doc],
    }
    before = {name: per_chunk_ms(work) for name, work in components.items()}
    # the default runs first and last, the better kept, as the baseline's two runs are: one
    # run's passes drift (on 2026-12-03 the first pass was its slowest)
    first, first_cpu = end_to_end(with_entities=True)
    separate, separate_cpu = end_to_end(with_entities=True, sentences=True)
    contextual, contextual_cpu = end_to_end(with_entities=True, sentences=True,
                                            pooling="contextual")
    e2e_no_ner, no_ner_cpu = end_to_end(with_entities=False)
    last, last_cpu = end_to_end(with_entities=True)
    (e2e, e2e_cpu) = min((first, first_cpu), (last, last_cpu))
    after = {name: per_chunk_ms(work) for name, work in components.items()}
    # Components count at their best of two: the bound below is then the most generous one.
    dense_a, dense_b = before["dense"], after["dense"]
    dense = min(dense_a, dense_b)
    dense_1t = min(before["dense_1t"], after["dense_1t"])
    ner_ms = min(before["ner"], after["ner"])
    rest = max(0.0, no_ner_cpu - dense_1t)  # CPU outside the dense model and NER
    cores = os.cpu_count() or 1
    workers = Settings().ingest.workers
    floor_ms = max(dense, (dense_1t + ner_ms + rest) / cores)
    print(f"machine: {machine()}")
    print(f"{len(ids)} documents, {len(texts)} chunks; ms per chunk:")
    print(f"  dense embedder alone:        {dense_a:.1f} / {dense_b:.1f} (best {dense:.1f})")
    print(f"  dense on one thread:         {before['dense_1t']:.1f} / {after['dense_1t']:.1f}")
    print(f"  spaCy NER alone:             {before['ner']:.1f} / {after['ner']:.1f}")
    print(f"  end to end (default: no sentence vectors): {first:.1f} / {last:.1f} (best "
          f"{e2e:.1f}, CPU {e2e_cpu:.1f}, {workers} workers)")
    print(f"  end to end, sentence vectors, separate:   {separate:.1f} (CPU "
          f"{separate_cpu:.1f}): x{separate / e2e:.2f}, ratio {dense / separate:.3f}")
    print(f"  end to end, sentence vectors, contextual: {contextual:.1f} (CPU "
          f"{contextual_cpu:.1f}): x{contextual / e2e:.2f}, ratio {dense / contextual:.3f}")
    print(f"  end to end, NER off:         {e2e_no_ner:.1f} (CPU {no_ner_cpu:.1f}: "
          f"rest = {rest:.1f} of CPU beside the dense model)")
    print(f"ratio end to end (default) / embedder alone: {dense / e2e:.3f}")
    print(f"ratio with NER off:                {dense / e2e_no_ner:.3f}")
    print(f"best ratio any overlap could reach on {cores} cores: {dense / floor_ms:.3f}")


if __name__ == "__main__":
    main()
