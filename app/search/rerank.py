"""Optional cross-encoder rerank of the best fused chunks, bounded in count and time.

The reranker reads the query with each of the best fused chunks — 3 × limit, at least 20, at
most 50 — with title and headings in front of the text, and those chunks take its order; the
rest keep the fused order after them. No reranker, an error or a timeout leaves the fused order
and says why.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace

from app.models.encoders import Reranker
from app.search.types import Candidate
from app.store.payload import stored_passage

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rerank")


def rerank_depth(limit: int) -> int:
    return min(50, max(20, 3 * limit))


@dataclass(frozen=True)
class RerankOutcome:
    ranked: list[Candidate]
    reranked: bool
    count: int
    warning: str | None
    reason: str | None = None  # the degradation's name in metrics


def rerank(query: str, fused: list[Candidate], *, reranker: Reranker | None, limit: int,
           timeout_s: float) -> RerankOutcome:
    if reranker is None:
        return RerankOutcome(fused, False, 0,
                             "no reranker is installed: results in the fused order",
                             "rerank_unavailable")
    head, tail = fused[:rerank_depth(limit)], fused[rerank_depth(limit):]
    if not head:
        return RerankOutcome(fused, False, 0, None)
    future = _POOL.submit(reranker.score, query, [stored_passage(c.payload) for c in head])
    try:
        scores = future.result(timeout=timeout_s)
    except FutureTimeout:
        return RerankOutcome(fused, False, 0, f"the reranker did not answer within "
                             f"{timeout_s:g} s: results in the fused order", "rerank_timeout")
    except Exception as exc:  # noqa: BLE001 - a failed reranker degrades, never fails a search
        return RerankOutcome(fused, False, 0, f"the reranker failed ({type(exc).__name__}): "
                             "results in the fused order", "rerank_failed")
    scored = [replace(c, rerank_score=float(s)) for c, s in zip(head, scores, strict=True)]
    scored.sort(key=lambda c: (-(c.rerank_score or 0.0), -c.fused, c.tie_key()))
    return RerankOutcome(scored + tail, True, len(scored), None)
