"""The statistics behind honest comparisons of search configurations — nDCG@k, paired
bootstrap intervals, K-fold cross-validation — shared by `evidence eval` (evaluation/) and each
client's own calibration (app/calibration/service.py). Pure: numbers in, numbers out.

A difference of 0.01–0.02 nDCG on 150 queries is inside the noise of which queries happen to be
asked, so two configurations are compared per query (paired), and the mean difference gets a
bootstrap 95 % interval: resample the queries with replacement, take the mean difference of each
resample, read the 2.5th and 97.5th percentiles (Efron & Tibshirani, 1993, ch. 13; Sakai, 2006).
A parameter chosen by the best figure on all queries is judged on the queries it was chosen on;
``cross_validate`` chooses on K − 1 folds and scores the choice on the held fold, so every
query's figure comes from a configuration chosen without it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

BOOTSTRAP_SAMPLES = 10_000


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with gain = relevance grade and log2(rank + 1) discount (Järvelin & Kekäläinen)."""
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def bootstrap_interval(diffs: Sequence[float], samples: int = BOOTSTRAP_SAMPLES,
                       seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of the mean of ``diffs`` over query resamples."""
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    return means[int(0.025 * samples)], means[int(0.975 * samples) - 1]


@dataclass
class Paired:
    """B − A per query: the mean difference, its interval, and who won where."""

    a: str
    b: str
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    wins: int  # queries where B scored higher
    losses: int
    ties: int
    movers: list[tuple[str, float]] = field(default_factory=list)  # (query id, B − A)

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


def paired(a_name: str, a: Mapping[str, float], b_name: str, b: Mapping[str, float],
           movers: int = 5, seed: int = 0) -> Paired:
    qids = sorted(a)
    if set(qids) != set(b):
        raise ValueError("the two runs must score the same queries")
    diffs = [b[q] - a[q] for q in qids]
    low, high = bootstrap_interval(diffs, seed=seed)
    moved = sorted(zip(qids, diffs, strict=True), key=lambda p: (-abs(p[1]), p[0]))[:movers]
    return Paired(a=a_name, b=b_name, mean_a=mean([a[q] for q in qids]),
                  mean_b=mean([b[q] for q in qids]), diff=mean(diffs), low=low, high=high,
                  wins=sum(d > 0 for d in diffs), losses=sum(d < 0 for d in diffs),
                  ties=sum(d == 0 for d in diffs), movers=[m for m in moved if m[1]])


def folds_of(qids: Sequence[str], k: int, seed: int = 0) -> list[list[str]]:
    """The queries dealt into ``k`` folds after a seeded shuffle (the same every run). Cuts of
    one query (``<id>@<cut>``, evaluation/short_queries.py) share a fold, so no claim is
    chosen on and judged on at once."""
    groups: dict[str, list[str]] = {}
    for qid in sorted(qids):
        groups.setdefault(qid.split("@", 1)[0], []).append(qid)
    if not 2 <= k <= len(groups):
        raise ValueError(f"folds must be between 2 and the number of queries ({len(groups)})")
    order = sorted(groups)
    random.Random(seed).shuffle(order)
    return [[q for g in order[i::k] for q in groups[g]] for i in range(k)]


@dataclass
class CrossValidated:
    """A choice among configurations judged on queries it was not chosen on."""

    estimate: float  # mean over all queries of the held-out scores of the fold's choice
    chosen: list[str]  # per fold, the configuration the other folds chose
    per_query: dict[str, float]  # each query's score under the choice made without it
    in_sample_best: str  # the best by the mean over every query (optimistic)
    in_sample_mean: float


def cross_validate(runs: Mapping[str, Mapping[str, float]], k: int,
                   seed: int = 0) -> CrossValidated:
    """For each fold: the configuration with the best mean on the other folds (ties: the
    first given), scored on this fold."""
    names = list(runs)
    qids = sorted(next(iter(runs.values())))
    per_query: dict[str, float] = {}
    chosen = []
    for held in folds_of(qids, k, seed):
        held_set = set(held)
        train = [q for q in qids if q not in held_set]
        best = max(names, key=lambda n: (mean([runs[n][q] for q in train]), -names.index(n)))
        chosen.append(best)
        per_query.update({q: runs[best][q] for q in held})
    best_all = max(names, key=lambda n: (mean(list(runs[n].values())), -names.index(n)))
    return CrossValidated(estimate=mean([per_query[q] for q in qids]), chosen=chosen,
                          per_query=per_query, in_sample_best=best_all,
                          in_sample_mean=mean(list(runs[best_all].values())))
