"""Prometheus metrics (prometheus-client), all named ``evidence_…``; GET /metrics serves them.

Counters and histograms are process-wide. The registry's state (jobs by state, the oldest
queued job's age) and the engine's point count are read when scraped (``StateCollector``), so
every API process reports the same truth whichever worker did the work. A separate
`evidence worker` process serves its own counters on ``--metrics-port`` (scrape each worker).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    Info,
    disable_created_metrics,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from app.runtime import Runtime

log = logging.getLogger(__name__)
disable_created_metrics()  # no *_created series: half the lines, nothing an alert uses

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

HTTP_REQUESTS = Counter("evidence_http_requests", "HTTP requests answered",
                        ["method", "route", "status"])
HTTP_SECONDS = Histogram("evidence_http_request_duration_seconds",
                         "HTTP request duration", ["method", "route"], buckets=_FAST)
SEARCHES = Counter("evidence_searches", "Searches answered", ["scope", "fusion"])
SEARCH_STAGE_SECONDS = Histogram(
    "evidence_search_stage_duration_seconds",
    "Search duration by stage (embed, dense, sparse, fuse, rerank, group, metadata, total)",
    ["stage"], buckets=_FAST)
SEARCH_DEGRADED = Counter("evidence_search_degradations",
                          "Searches answered with less than asked, by reason", ["reason"])
JOBS = Counter("evidence_ingest_jobs", "Ingestion jobs finished or put back, by outcome",
               ["outcome"])
CHUNKS_INDEXED = Counter("evidence_ingest_chunks_indexed", "Chunks written and published")
INGEST_STAGE_SECONDS = Histogram(
    "evidence_ingest_stage_duration_seconds",
    "Ingestion duration by stage (extract, chunk, embed, entities, write, publish)",
    ["stage"], buckets=_SLOW)
WORKER_HEARTBEAT = Gauge("evidence_worker_heartbeat_timestamp_seconds",
                         "When each worker last showed it was alive (Unix time)", ["worker"])
MODELS = Info("evidence_models", "The models this process loaded")


def observe_search(scope: str, fusion: str, timings_ms: dict[str, float],
                   degradations: list[str]) -> None:
    SEARCHES.labels(scope, fusion).inc()
    for stage, ms in timings_ms.items():
        SEARCH_STAGE_SECONDS.labels(stage).observe(ms / 1000)
    for reason in degradations:
        SEARCH_DEGRADED.labels(reason).inc()


def observe_stages(timings_s: dict[str, float]) -> None:
    for stage, seconds in timings_s.items():
        INGEST_STAGE_SECONDS.labels(stage).observe(seconds)


def heartbeat(worker_id: str) -> None:
    WORKER_HEARTBEAT.labels(worker_id).set(time.time())


class StateCollector(Collector):
    """Queue depth by job state, the oldest queued job's age and the engine's point count,
    read from the registry and the engine at scrape time."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from app.registry import jobs as jobs_registry
        from app.registry.database import transaction

        depth = GaugeMetricFamily("evidence_jobs", "Ingestion jobs by state", labels=["state"])
        oldest = GaugeMetricFamily("evidence_oldest_queued_job_age_seconds",
                                   "Age of the oldest queued job (0 when none waits)")
        try:
            with transaction(self.runtime.sessions) as s:
                counts, age = jobs_registry.queue_state(s)
        except Exception as exc:  # noqa: BLE001 - a scrape must not fail with the registry
            log.warning("metrics: the registry could not be read: %s", exc)
            return
        for state in ("queued", "running", "succeeded", "failed"):
            depth.add_metric([state], counts.get(state, 0))
        oldest.add_metric([], age)
        yield depth
        yield oldest
        points = GaugeMetricFamily("evidence_engine_points",
                                   "Points in the vector collection (every client)")
        try:
            points.add_metric([], self.runtime.store.count_all())
        except Exception as exc:  # noqa: BLE001
            log.warning("metrics: the engine could not be counted: %s", exc)
            return
        yield points


def token_allows(expected: str | None, authorization: str | None) -> bool:
    """Whether an ``Authorization: Bearer …`` header carries the operator's metrics token
    (compared in constant time)."""
    import hmac

    if not expected or not authorization or not authorization.startswith("Bearer "):
        return False
    return hmac.compare_digest(authorization.removeprefix("Bearer ").encode(),
                               expected.encode())


def serve_worker_metrics(port: int, token: str) -> None:
    """A worker's own counters on ``port``, behind the same token as the API's /metrics."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client import make_wsgi_app

    metrics_app = make_wsgi_app()

    def guarded(environ: dict, start_response: Any) -> Any:
        if not token_allows(token, environ.get("HTTP_AUTHORIZATION")):
            start_response("401 Unauthorized", [("Content-Type", "text/plain"),
                                                ("WWW-Authenticate", "Bearer")])
            return [b"send the metrics token: Authorization: Bearer <EVIDENCE_METRICS_TOKEN>\n"]
        return metrics_app(environ, start_response)

    class Quiet(WSGIRequestHandler):
        def log_message(self, *_args: Any) -> None:  # scrapes are not news
            pass

    server = make_server("", port, guarded, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, name="worker-metrics", daemon=True).start()


def install(runtime: Runtime) -> StateCollector:
    """Register the state collector and the model info for this runtime (undo: ``remove``)."""
    manifest = runtime.models.manifest
    MODELS.info({"profile": runtime.models.profile.name,
                 "dense_model": manifest.dense.model if manifest.dense else "none",
                 "sparse_model": runtime.models.sparse.name,
                 "reranker": runtime.models.reranker.name if runtime.models.reranker
                 else "none"})
    collector = StateCollector(runtime)
    # one process serves one runtime's gauges: a second app in the process (tests) takes
    # them over instead of failing on duplicated series
    for previous in _INSTALLED:
        remove(previous)
    REGISTRY.register(collector)
    _INSTALLED.append(collector)
    return collector


_INSTALLED: list[StateCollector] = []


def remove(collector: StateCollector) -> None:
    if collector in _INSTALLED:
        _INSTALLED.remove(collector)
    try:
        REGISTRY.unregister(collector)
    except KeyError:
        pass
