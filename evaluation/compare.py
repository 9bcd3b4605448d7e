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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.calibration.stats import (  # noqa: F401 - the comparisons' statistics, re-exported
    BOOTSTRAP_SAMPLES,
    CrossValidated,
    Paired,
    bootstrap_interval,
    cross_validate,
    folds_of,
    mean,
    ndcg_at_k,
    paired,
)
from app.documents.uploads import document_id_for
from app.registry.database import transaction
from app.runtime import Runtime
from app.search.pipeline import SearchEngine
from app.search.service import SearchService
from evaluation.beir import Dataset
from evaluation.runner import ranked_ids

CONFIG_KEYS = {"fusion": ("rank", "dbsf", "relative_score"), "alpha": None,
               "floors": ("on", "off"), "rerank": ("on", "off"), "depth": None, "prf": None,
               "prior": None, "entity": None, "dense_floor": None, "rrf_k": None,
               "floor_rule": ("fixed", "chance"), "title": None, "sentences": None}


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
    # the dense floor's rule (EVIDENCE_SEARCH__DENSE_FLOOR_RULE); None: the settings' value
    floor_rule: str | None = None
    # the BM25 lane's title weight (EVIDENCE_SEARCH__TITLE_WEIGHT), 0: off
    title: float = 0.0
    # dense chunks rescored by their best sentence (EVIDENCE_SEARCH__SENTENCE_DEPTH), 0: off;
    # None: the settings' value
    sentences: int | None = None

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
            elif key in ("entity", "title"):
                weight = float(value)
                if not 0.0 <= weight <= 10.0:
                    raise ValueError(f"{key}={value}: a weight from 0 to 10")
                values[key] = weight
            elif key == "dense_floor":
                floor = float(value)
                if not -1.0 <= floor <= 1.0:
                    raise ValueError(f"dense_floor={value}: a cosine from -1 to 1")
                values["dense_floor"] = floor
            elif key == "rrf_k":
                if not value.isdigit() or not 1 <= int(value) <= 1000:
                    raise ValueError(f"rrf_k={value}: a whole number from 1 to 1000")
                values["rrf_k"] = int(value)
            elif key == "sentences":
                if not value.isdigit() or int(value) > 100:
                    raise ValueError(f"sentences={value}: a whole number from 0 to 100")
                values["sentences"] = int(value)
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
                + (f",rrf_k={self.rrf_k}" if self.rrf_k is not None else "")
                + (f",floor_rule={self.floor_rule}" if self.floor_rule is not None else "")
                + (f",title={self.title:g}" if self.title else "")
                + (f",sentences={self.sentences}" if self.sentences is not None else ""))


def per_query_ndcg(runtime: Runtime, client_id: str, data: Dataset,
                   config: Config) -> dict[str, float]:
    """nDCG@10 of each query's limit-10 answer under ``config``, through the real service."""
    settings = runtime.settings.search.model_copy(update={
        "score_fusion_floors": True, "min_depth": config.depth, "prf_docs": config.prf,
        "title_weight": config.title,
        **({"sentence_depth": config.sentences} if config.sentences is not None else {}),
        "candidate_ceiling": max(config.depth, runtime.settings.search.candidate_ceiling),
        **({"bm25_prior_chunks": config.prior} if config.prior is not None else {}),
        **({"entity_weight": config.entity} if config.entity is not None else {}),
        **({"dense_floor": config.dense_floor} if config.dense_floor is not None else {}),
        **({"rrf_k": config.rrf_k} if config.rrf_k is not None else {}),
        **({"dense_floor_rule": config.floor_rule} if config.floor_rule is not None else {})})
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


def sweep_configs(base: Config, sweeps: Sequence[str]) -> list[Config]:
    """Every combination of ``key=v1|v2|…`` sweeps over ``base``."""
    axes = []
    for sweep in sweeps:
        key, sep, values = sweep.partition("=")
        if not sep or not values:
            raise ValueError(f"{sweep!r}: write key=v1|v2|… (e.g. alpha=0.3|0.5|0.7)")
        axes.append([f"{key.strip()}={v.strip()}" for v in values.split("|") if v.strip()])
    return [Config.parse(",".join(combo), base) for combo in itertools.product(*axes)]
