"""The multilingual judged set (tests/data/multilingual) before and after issue 52: each
checkout indexes the set itself (its own analysis at ingestion) and writes each query's
nDCG@10 — the search as a caller makes it, alpha left to the service — then the two are
compared per language with the paired bootstrap interval.

    (cd <checkout before> && python /path/to/bench/multilingual.py --work-dir /tmp/ml-before \\
        --out /tmp/ml-before.json)
    python bench/multilingual.py --work-dir /tmp/ml-after --out /tmp/ml-after.json \\
        --factors 0,0.25,0.5,0.75,1
    python bench/multilingual.py --compare /tmp/ml-before.json /tmp/ml-after.json

``--distractors N``: the first N SciFact abstracts indexed beside the set, judged relevant to
nothing — a collection whose English text a German query's dense vector lands in as noise (the
issue's concern), and where 15 documents a language no longer make every query easy.

``--factors``: the foreign-language dense weight (EVIDENCE_SEARCH__FOREIGN_DENSE_WEIGHT) to
score, each over every query; ``--compare`` then chooses one by leave-one-query-out
cross-validation over the non-English queries (the factor best on the others, scored on the
one left out) and reports that estimate beside each factor's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

DATASET = Path(__file__).resolve().parents[1] / "tests" / "data" / "multilingual"


def language_of(qid: str) -> str:
    return qid.split("-")[1]


def run(args: argparse.Namespace) -> None:
    sys.path.insert(0, os.getcwd())  # the checkout in the working directory answers
    from app.registry.database import transaction
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchQuery, SearchService
    from app.settings import SearchSettings, Settings
    from evaluation import beir
    from evaluation.metrics import ndcg_at_k
    from evaluation.runner import document_id_for, ingest_corpus, open_eval_runtime

    data = beir.load(args.dataset)
    runtime, client_id = open_eval_runtime(Settings(), args.work_dir)
    try:
        ingest_corpus(runtime, client_id, data, lambda done, total: None)
        if args.distractors:
            scifact = beir.load(args.scifact or Path(__file__).resolve().parents[2] / "shared"
                                / "data" / "scifact")
            extra = dict(list(scifact.corpus.items())[:args.distractors])
            ingest_corpus(runtime, client_id, beir.Dataset(corpus=extra, queries={}, qrels={}),
                          lambda done, total: None)
        factors = ([float(f) for f in args.factors.split(",")]
                   if "foreign_dense_weight" in SearchSettings.model_fields else [None])
        out: dict[str, dict[str, float]] = {}
        for factor in factors:
            settings = runtime.settings.search if factor is None else \
                runtime.settings.search.model_copy(update={"foreign_dense_weight": factor})
            service = SearchService(SearchEngine(runtime.store, runtime.models, settings),
                                    settings.hybrid_alpha)
            scores = {}
            with transaction(runtime.sessions) as s:
                for qid, query in data.queries.items():
                    answer = service.answer(s, client_id=client_id, query=SearchQuery(
                        query=query, limit=10, syntax=False))
                    relevant = {document_id_for(d): g for d, g in data.qrels[qid].items()}
                    scores[qid] = ndcg_at_k([r.document_id for r in answer.rows], relevant, 10)
            out["as before" if factor is None else f"{factor:g}"] = scores
    finally:
        runtime.close()
    args.out.write_text(json.dumps({"code": os.getcwd(), "runs": out}))


def compare(before_path: Path, after_path: Path) -> None:
    from statistics import mean

    from evaluation.compare import paired

    before = next(iter(json.loads(before_path.read_text())["runs"].values()))
    runs = json.loads(after_path.read_text())["runs"]
    foreign = [q for q in before if language_of(q) != "en"]
    # leave-one-query-out over the non-English queries: the factor best on the others
    chosen = []
    for held in foreign:
        rest = [q for q in foreign if q != held]
        best = max(runs, key=lambda f: (mean(runs[f][q] for q in rest), -float(f)))
        chosen.append((held, best, runs[best][held]))
    print(f"leave-one-out over {len(foreign)} non-English queries: nDCG@10 "
          f"{mean(s for _, _, s in chosen):.4f}; factors chosen "
          f"{sorted({f for _, f, _ in chosen})}")
    for factor, scores in runs.items():
        print(f"factor {factor}: all non-English queries {mean(scores[q] for q in foreign):.4f}")
    from app.settings import SearchSettings

    default = f"{SearchSettings.model_fields['foreign_dense_weight'].default:g}"
    pick = default if default in runs else next(iter(runs))  # the default, not the best
    print(f"\nafter (factor {pick}, the default) against before, per language, paired "
          "bootstrap 95 %:")
    for language in sorted({language_of(q) for q in before}):
        qs = [q for q in before if language_of(q) == language]
        result = paired("before", {q: before[q] for q in qs}, "after",
                        {q: runs[pick][q] for q in qs})
        print(f"  {language}: {len(qs)} queries, before {result.mean_a:.4f}, after "
              f"{result.mean_b:.4f}, after − before {result.diff:+.4f} [{result.low:+.4f}, "
              f"{result.high:+.4f}], {result.wins} / {result.losses} / {result.ties} "
              "(better / worse / tied)")
    qs = foreign
    result = paired("before", {q: before[q] for q in qs}, "after", {q: runs[pick][q] for q in qs})
    print(f"  non-English together: {len(qs)} queries, after − before {result.diff:+.4f} "
          f"[{result.low:+.4f}, {result.high:+.4f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--factors", default="0.25")
    parser.add_argument("--distractors", type=int, default=0)
    parser.add_argument("--scifact", type=Path, default=None,
                        help="where the distractors come from (default ../shared/data/scifact)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.work_dir and args.out:
        run(args)
    else:
        parser.error("--work-dir and --out, or --compare BEFORE AFTER")


if __name__ == "__main__":
    main()
