"""A client's search defaults calibrated on its own judgments (issue 37; no peer has it).

The client's judged queries are searched under each configuration of a small stated grid (alpha
0, 0.25, 0.5, 0.75, 1 under rank fusion and dbsf) — through the real search, the client's own
index, its own floors — and scored by nDCG@10 at the document level. A configuration is chosen
by K-fold cross-validation (stats.cross_validate: each query scored by the choice the other
folds made), and that held-out score is compared per query with the service's defaults by a
paired bootstrap interval. The choice (the best over all queries, once cross-validation has
shown choosing pays) is applied only when the interval's lower bound is above zero; otherwise
the defaults stay and the report says why. Bounded: at most ``MAX_QUERIES`` judged queries, 10
configurations, a search each. Another client's data is never read: the searches and the
judgments are the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.calibration.stats import cross_validate, ndcg_at_k, paired
from app.domain.errors import BadRequest, Conflict
from app.registry import judgments as judgments_registry
from app.search.service import SearchQuery, SearchService

ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)
FUSIONS = ("rank", "dbsf")
MIN_QUERIES = 10  # fewer cannot fill 5 folds of two queries or give an interval worth reading
MAX_QUERIES = 300
FOLDS = 5


@dataclass(frozen=True)
class Setting:
    alpha: float
    fusion: str

    @property
    def name(self) -> str:
        return f"fusion={self.fusion},alpha={self.alpha:g}"


@dataclass
class CalibrationReport:
    queries: int
    folds: int
    default: dict[str, Any]           # {alpha, fusion, ndcg}
    chosen: dict[str, Any]            # {alpha, fusion, ndcg}: the best over every query
    cross_validated_ndcg: float       # each query scored by the choice made without it
    difference: float                 # cross-validated − default, per query, mean
    interval: tuple[float, float]     # its 95 % paired bootstrap interval
    applied: bool
    reason: str
    per_fold: list[str]

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["interval"] = list(self.interval)
        return out


def record_judgments_of(session: Session, *, client_id: str, items: Sequence[Any]) -> int:
    """A client's judgments stored (each item: query, grade, and a document_id or a
    chunk_id, one of them — its ``target``), as POST /judgments and `evidence calibrate`
    take them; the client's total after. 422 INVALID_JUDGMENT names the first bad item."""
    for i, item in enumerate(items):
        if (item.document_id is None) == (item.chunk_id is None):
            raise BadRequest(f"items[{i}]: give document_id or chunk_id, one of them",
                             code="INVALID_JUDGMENT", details={"item": i})
    return judgments_registry.record(session, client_id=client_id, items=[
        (item.query, item.target, item.grade) for item in items])


def grid(default: Setting) -> list[Setting]:
    settings = [Setting(a, f) for f in FUSIONS for a in ALPHAS]
    return settings if default in settings else [default, *settings]


def document_ranking(session: Session, search: SearchService, client_id: str, query: str,
                     setting: Setting) -> list[str]:
    answer = search.answer(session, client_id=client_id, query=SearchQuery(
        query=query, alpha=setting.alpha, fusion=setting.fusion, limit=10, syntax=False))
    seen: list[str] = []
    for row in answer.rows:  # a document once, at its best version's rank
        if row.document_id not in seen:
            seen.append(row.document_id)
    return seen


def judged_queries(session: Session, *, client_id: str) -> dict[str, dict[str, int]]:
    """The client's judged queries with a relevant document (at most ``MAX_QUERIES``, by
    query), or 409 NOT_ENOUGH_JUDGMENTS: what a calibration would search, known before it
    starts."""
    judged = judgments_registry.by_query(session, client_id=client_id)
    judged = {q: rel for q, rel in judged.items() if any(g > 0 for g in rel.values())}
    if len(judged) < MIN_QUERIES:
        raise Conflict(f"calibration needs at least {MIN_QUERIES} queries with a relevant "
                       f"judgment (POST /judgments, or `evidence calibrate --judgments FILE`); "
                       f"this client has {len(judged)}",
                       code="NOT_ENOUGH_JUDGMENTS",
                       details={"queries": len(judged), "needed": MIN_QUERIES})
    return {q: judged[q] for q in sorted(judged)[:MAX_QUERIES]}


def search_count(session: Session, *, client_id: str, default: Setting) -> int:
    """How many searches a calibration of the client makes (409 as ``judged_queries``)."""
    return len(judged_queries(session, client_id=client_id)) * len(grid(default))


def calibrate(session: Session, search: SearchService, *, client_id: str,
              default: Setting, after_search: Callable[[], None] | None = None
              ) -> CalibrationReport:
    """``after_search``: called after each of the searches (a background run's progress)."""
    judged = judged_queries(session, client_id=client_id)
    queries = list(judged)
    settings = grid(default)

    def scored(q: str, s: Setting) -> float:
        score = ndcg_at_k(document_ranking(session, search, client_id, q, s), judged[q], 10)
        if after_search is not None:
            after_search()
        return score

    runs = {s.name: {q: scored(q, s) for q in queries} for s in settings}
    folds = min(FOLDS, len(queries))
    cv = cross_validate(runs, folds)
    best = next(s for s in settings if s.name == cv.in_sample_best)
    compared = paired(default.name, runs[default.name], "cross-validated", cv.per_query)
    mean_default = compared.mean_a
    if best == default:
        applied, reason = False, "the defaults are already the best configuration"
    elif compared.low > 0:
        applied, reason = True, ("choosing by cross-validation beats the defaults: the "
                                 "interval's lower bound is above zero")
    else:
        applied, reason = False, ("the interval holds zero: the judgments cannot tell the "
                                  "choice from the defaults, which stay")
    return CalibrationReport(
        queries=len(queries), folds=folds,
        default={"alpha": default.alpha, "fusion": default.fusion,
                 "ndcg": round(mean_default, 4)},
        chosen={"alpha": best.alpha, "fusion": best.fusion,
                "ndcg": round(cv.in_sample_mean, 4)},
        cross_validated_ndcg=round(cv.estimate, 4), difference=round(compared.diff, 4),
        interval=(round(compared.low, 4), round(compared.high, 4)), applied=applied,
        reason=reason, per_fold=cv.chosen)


def run_and_apply(session: Session, search: SearchService, *, client_id: str,
                  default: Setting, after_search: Callable[[], None] | None = None
                  ) -> CalibrationReport:
    """Calibrate; store the choice when it is applied (the defaults otherwise stay)."""
    report = calibrate(session, search, client_id=client_id, default=default,
                       after_search=after_search)
    if report.applied:
        judgments_registry.apply(session, client_id=client_id, alpha=report.chosen["alpha"],
                                 fusion=report.chosen["fusion"], report=report.as_json())
    return report
