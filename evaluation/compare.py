"""Honest comparisons of search configurations on one index: per-query nDCG@10, paired
bootstrap intervals, and K-fold cross-validation for parameter choices.

A difference of 0.01–0.02 nDCG on 150 queries is inside the noise of which queries happen to be
asked, so two configurations are compared per query on the same index (paired), and the mean
difference gets a bootstrap 95 % interval: resample the queries with replacement, take the mean
difference of each resample, read the 2.5th and 97.5th percentiles (Efron & Tibshirani, 1993,
ch. 13; Sakai, 2006, "Evaluating evaluation metrics based on the bootstrap"). A parameter chosen
by the best figure on all queries is judged on the queries it was chosen on; ``cross_validate``
chooses on K − 1 folds and scores the choice on the held fold, so every query's figure comes
from a configuration chosen without it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.registry.database import transaction
from app.runtime import Runtime
from app.search.pipeline import SearchEngine
from app.search.service import SearchService
from app.uploads import document_id_for
from evaluation.beir import Dataset
from evaluation.metrics import ndcg_at_k
from evaluation.runner import ranked_ids

CONFIG_KEYS = {"fusion": ("rank", "dbsf", "relative_score"), "alpha": None,
               "floors": ("on", "off"), "rerank": ("on", "off"), "depth": None, "prf": None,
               "prior": None, "entity": None, "dense_floor": None, "rrf_k": None}
BOOTSTRAP_SAMPLES = 10_000


@dataclass(frozen=True)
class Config:
    """One search configuration, written ``fusion=dbsf,alpha=0.5,floors=off``."""

    fusion: str = "rank"
    alpha: float = 0.5
    floors: bool = True
    rerank: bool = False
    depth: int = 100  # the lanes' least candidate depth (EVIDENCE_SEARCH__MIN_DEPTH)
    prf: int = 0  # pseudo-relevance feedback chunks (EVIDENCE_SEARCH__PRF_DOCS), 0: off
    # the BM25 background's weight in pseudo-chunks (EVIDENCE_SEARCH__BM25_PRIOR_CHUNKS);
    # None: the settings' value
    prior: float | None = None
    # the entity lane's weight (EVIDENCE_SEARCH__ENTITY_WEIGHT); None: the settings' value
    entity: float | None = None
    # the dense lane's floor (EVIDENCE_SEARCH__DENSE_FLOOR); None: the settings' value
    dense_floor: float | None = None
    # rank fusion's constant k (EVIDENCE_SEARCH__RRF_K); None: the settings' value
    rrf_k: int | None = None

    @classmethod
    def parse(cls, text: str, base: Config | None = None) -> Config:
        values: dict[str, Any] = dict((base or cls()).__dict__)
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or key not in CONFIG_KEYS:
                raise ValueError(f"{part!r}: write key=value with keys "
                                 f"{', '.join(CONFIG_KEYS)}")
            allowed = CONFIG_KEYS[key]
            if allowed and value not in allowed:
                raise ValueError(f"{key}={value}: use {' | '.join(allowed)}")
            if key in ("depth", "prf"):
                low, high = (10, 1000) if key == "depth" else (0, 20)
                if not value.isdigit() or not low <= int(value) <= high:
                    raise ValueError(f"{key}={value}: a whole number from {low} to {high}")
                values[key] = int(value)
            elif key == "prior":
                if not value.isdigit() or int(value) > 10_000_000:
                    raise ValueError(f"prior={value}: pseudo-chunks, a whole number from 0")
                values["prior"] = float(value)
            elif key == "entity":
                weight = float(value)
                if not 0.0 <= weight <= 10.0:
                    raise ValueError(f"entity={value}: a weight from 0 to 10")
                values["entity"] = weight
            elif key == "dense_floor":
                floor = float(value)
                if not -1.0 <= floor <= 1.0:
                    raise ValueError(f"dense_floor={value}: a cosine from -1 to 1")
                values["dense_floor"] = floor
            elif key == "rrf_k":
                if not value.isdigit() or not 1 <= int(value) <= 1000:
                    raise ValueError(f"rrf_k={value}: a whole number from 1 to 1000")
                values["rrf_k"] = int(value)
            elif key == "alpha":
                alpha = float(value)
                if not 0.0 <= alpha <= 1.0:
                    raise ValueError(f"alpha={value}: between 0 and 1")
                values["alpha"] = alpha
            elif key in ("floors", "rerank"):
                values[key] = value == "on"
            else:
                values[key] = value
        return cls(**values)

    @property
    def name(self) -> str:
        return (f"fusion={self.fusion},alpha={self.alpha:g},floors="
                f"{'on' if self.floors else 'off'}" + (",rerank=on" if self.rerank else "")
                + (f",depth={self.depth}" if self.depth != 100 else "")
                + (f",prf={self.prf}" if self.prf else "")
                + (f",prior={self.prior:g}" if self.prior is not None else "")
                + (f",entity={self.entity:g}" if self.entity is not None else "")
                + (f",dense_floor={self.dense_floor:g}" if self.dense_floor is not None else "")
                + (f",rrf_k={self.rrf_k}" if self.rrf_k is not None else ""))


def per_query_ndcg(runtime: Runtime, client_id: str, data: Dataset,
                   config: Config) -> dict[str, float]:
    """nDCG@10 of each query's limit-10 answer under ``config``, through the real service."""
    settings = runtime.settings.search.model_copy(update={
        "score_fusion_floors": True, "min_depth": config.depth, "prf_docs": config.prf,
        "candidate_ceiling": max(config.depth, runtime.settings.search.candidate_ceiling),
        **({"bm25_prior_chunks": config.prior} if config.prior is not None else {}),
        **({"entity_weight": config.entity} if config.entity is not None else {}),
        **({"dense_floor": config.dense_floor} if config.dense_floor is not None else {}),
        **({"rrf_k": config.rrf_k} if config.rrf_k is not None else {})})
    if not config.floors:
        settings = settings.model_copy(update={"dense_floor": float("-inf"),
                                               "sparse_floor": float("-inf")})
    service = SearchService(SearchEngine(runtime.store, runtime.models, settings),
                            settings.hybrid_alpha)
    scores = {}
    with transaction(runtime.sessions) as session:
        for qid, query in data.queries.items():
            top10 = ranked_ids(session, service, client_id, query, config.alpha,
                               config.rerank, 10, fusion=config.fusion)
            relevant = {document_id_for(d): g for d, g in data.qrels[qid].items()}
            scores[qid] = ndcg_at_k(top10, relevant, 10)
    return scores


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


def sweep_configs(base: Config, sweeps: Sequence[str]) -> list[Config]:
    """Every combination of ``key=v1|v2|…`` sweeps over ``base``."""
    axes = []
    for sweep in sweeps:
        key, sep, values = sweep.partition("=")
        if not sep or not values:
            raise ValueError(f"{sweep!r}: write key=v1|v2|… (e.g. alpha=0.3|0.5|0.7)")
        axes.append([f"{key.strip()}={v.strip()}" for v in values.split("|") if v.strip()])
    return [Config.parse(",".join(combo), base) for combo in itertools.product(*axes)]
