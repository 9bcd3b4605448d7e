"""What sentence vectors would cost ingestion (issue 37: sentence-level dense rescoring,
precomputed at ingestion as multivectors): the dense model's time for SciFact abstracts
embedded whole (what ingestion does now, one vector a chunk) against the same abstracts'
sentences, each read with its title as the rescoring stage reads them
(app/search/lane_rescore.py), in the same process, alternating, median of ``--rounds``.

    python -m bench.sentence_vectors_cost [--docs 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.common import REPO, machine
from bench.serving import scifact


def main() -> None:
    from app.domain.sentences import split
    from app.models.loading import load_models

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    corpus, _ = scifact(args.docs)
    models = load_models(REPO / "models", batch_size=1)
    assert models.dense is not None
    whole, sentences = [], []
    for _doc_id, markdown in corpus:
        title, _, text = markdown.partition("\n\n")
        title = title.removeprefix("# ")
        whole.append(f"{title}\n\n{text.strip()}")
        sentences += [f"{title}\n\n{text[a:b]}" for a, b in split(text)]
    timings: dict[str, list[float]] = {"whole": [], "sentences": []}
    for _ in range(args.rounds):
        for name, texts in (("whole", whole), ("sentences", sentences)):
            started = time.perf_counter()
            models.dense.embed_documents(texts)
            timings[name].append(time.perf_counter() - started)
    print(f"machine: {machine()}; {len(whole)} abstracts, {len(sentences)} sentences "
          f"({len(sentences) / len(whole):.1f} a chunk); medians of {args.rounds}")
    base = statistics.median(timings["whole"])
    for name, runs in timings.items():
        seconds = statistics.median(runs)
        print(f"{name:10} {seconds:7.2f} s  {1000 * seconds / len(whole):6.1f} ms a chunk  "
              f"x{seconds / base:.2f}")


if __name__ == "__main__":
    main()
