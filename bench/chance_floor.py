"""Each query's chance score (issue 37), checked against chance itself — no nDCG read.

1. Calibration: for off-topic pairs (the null of bench/dense_floor_null.py, with SciFact's
   claims cut to 4, 3, 2 and 1 rarest words too), how often an off-topic passage passes the
   query's own chance floor as first stated (median + 3.09 × 1.4826 × MAD of its cosines to
   the shipped background: a normal bulk's one in a thousand) and the fixed 0.26, per cut;
   then the Z at which one in a thousand passes (directions weighed alike), and the pooled
   quantiles (the minimum is the 99th).
2. What each floor keeps of SciFact's judged pairs (query × its relevant abstract, whole
   abstracts embedded), per cut: reported, never used to choose (Z is set by the null).

    python -m bench.chance_floor
"""

from __future__ import annotations

import numpy as np

from bench.common import REPO, SCIFACT, machine
from bench.dense_floor_null import EVERYDAY, off_topic_passages

CUTS = (0, 4, 3, 2, 1)
FIXED = 0.26


def main() -> None:
    from app.models.loading import load_models
    from app.search.chance import chance_score
    from evaluation import beir
    from evaluation.short_queries import shorten

    print(machine())
    models = load_models(REPO / "models")
    dense, background = models.dense, models.chance_background
    assert dense is not None and background is not None, "run `evidence models install`"
    data = beir.load(SCIFACT)
    engineering, science = off_topic_passages(dense, data)
    judged = sorted({d for rel in data.qrels.values() for d in rel if d in data.corpus})
    relevant = dict(zip(judged, dense.embed_documents(
        [f"{data.corpus[d][0]}\n\n{data.corpus[d][1]}" for d in judged]), strict=True))
    bg = models.bm25_background or {}

    print("\n1. off-topic pairs passing: the query's chance floor (z = 3.09) vs the fixed 0.26")
    print(f"{'queries':34s} {'pairs':>8s} {'chance':>8s} {'0.26':>8s} "
          f"{'median chance':>14s}")
    pooled = []
    sets = [(f"claims, {c or 'whole'}{' words' if c else ''} × repo docs",
             data.queries if c == 0 else shorten(data.queries, models.sparse, bg, c),
             engineering) for c in CUTS]
    sets.append(("everyday queries × SciFact abstracts", dict(enumerate(EVERYDAY)), science))
    chances: dict[str, dict] = {}
    for label, queries, passages in sets:
        ids = [q for q, t in queries.items() if t.strip()]
        q = np.array([dense.embed_query(queries[i]) for i in ids])
        cos = q @ passages.T
        floors = np.array([chance_score(v, background) for v in q])
        chances[label] = dict(zip(ids, floors, strict=True))
        passing = (cos >= floors[:, None]).mean()
        bulk = background @ q.T  # (passages, queries)
        med = np.median(bulk, axis=0)
        mad = np.median(np.abs(bulk - med), axis=0) * 1.4826
        pooled.append((cos, med, mad))
        print(f"{label:34s} {cos.size:8d} {passing:8.4f} {(cos >= FIXED).mean():8.4f} "
              f"{np.median(floors):14.3f}")
    # z from the null alone: each direction weighed alike (as bench.dense_floor_null), the z at
    # which one off-topic pair in a thousand passes
    def rate(z: float) -> float:
        return float(np.mean([(cos >= (med + z * mad)[:, None]).mean()
                              for cos, med, mad in pooled]))
    grid = np.arange(3.0, 9.01, 0.05)
    rates = [rate(z) for z in grid]
    z_cal = float(next(z for z, r in zip(grid, rates, strict=True) if r <= 0.001))
    shown = [f"{z:.1f}: {r:.4f}" for z, r in zip(grid, rates, strict=True)
             if abs(z * 2 - round(z * 2)) < 1e-6]
    print("\nz sweep (balanced off-topic pass rate): " + ", ".join(shown))
    print(f"z calibrated to one in a thousand: {z_cal:.2f}")
    allcos = np.concatenate([c.ravel() for c, _, _ in pooled])
    print(f"pooled off-topic quantiles: p50 {np.percentile(allcos, 50):.3f}, "
          f"p99 {np.percentile(allcos, 99):.3f}, p99.9 {np.percentile(allcos, 99.9):.3f}")
    minimum = 0.0

    print("\n2. judged pairs kept (query × relevant abstract), reported only")
    print(f"{'cut':10s} {'pairs':>6s} {'fixed 0.26':>11s} {'z 3.09':>8s} {'z cal':>8s}")
    for cut, (label, queries, _) in zip(CUTS, sets, strict=False):
        pairs = [(q, d) for q, rel in data.qrels.items() for d in rel
                 if d in relevant and q in chances[label]]
        qv = {q: np.asarray(dense.embed_query(queries[q])) for q in {p[0] for p in pairs}}
        cos = np.array([float(qv[q] @ relevant[d]) for q, d in pairs])
        floor = np.array([max(chances[label][q], minimum) for q, _ in pairs])
        qs = np.array([qv[q] for q, _ in pairs])
        bulk = background @ qs.T
        med = np.median(bulk, axis=0)
        mad = np.median(np.abs(bulk - med), axis=0) * 1.4826
        print(f"{cut or 'whole'!s:10s} {len(pairs):6d} {(cos >= FIXED).mean():11.3f} "
              f"{(cos >= floor).mean():8.3f} {(cos >= med + z_cal * mad).mean():8.3f}")


if __name__ == "__main__":
    main()
