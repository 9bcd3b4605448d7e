"""Operating it: request ids, probes, metrics and JSON logs, over HTTP (fake models)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from app.ops.logs import configure
from tests.conftest import METRICS_AUTH
from tests.factories import pdf_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models()) as service:
        yield service


def test_a_request_id_is_taken_or_made_echoed_and_in_every_error(svc: Service) -> None:
    mine = svc.http.get("/documents", headers={**svc.auth(), "X-Request-ID": "trace-42.a:b"})
    assert mine.headers["x-request-id"] == "trace-42.a:b"
    made = svc.http.get("/documents", headers=svc.auth()).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    hostile = svc.http.get("/documents", headers={**svc.auth(), "X-Request-ID": "a b\x7f" * 60})
    assert re.fullmatch(r"[0-9a-f]{32}", hostile.headers["x-request-id"])  # replaced
    for response in (svc.http.get("/documents/nope", headers=svc.auth()),  # a route's error
                     svc.http.get("/documents", headers={"X-Request-ID": "r-401"}),  # the gate's
                     svc.search(query="x", limit=0)):  # a validation error
        body = response.json()
        assert body["error"]["details"]["request_id"] == response.headers["x-request-id"]
    assert svc.http.get("/documents", headers={"X-Request-ID": "r-401"}).json()[
        "error"]["details"]["request_id"] == "r-401"


def test_liveness_and_readiness_need_no_key_and_readiness_names_what_is_wrong(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    assert svc.http.get("/healthz").json() == {"status": "ok"}
    ready = svc.http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready",
                            "checks": {"registry": "ok", "engine": "ok", "models": "ok"}}

    def broken() -> int:
        raise RuntimeError("engine gone")

    monkeypatch.setattr(svc.runtime.store, "count_all", broken)
    with svc.runtime.engine.begin() as conn:  # a registry one migration behind
        head = conn.exec_driver_sql("select version_num from alembic_version").scalar()
        conn.exec_driver_sql("update alembic_version set version_num = '0004'")
    try:
        not_ready = svc.http.get("/readyz")
        assert not_ready.status_code == 503
        error = not_ready.json()["error"]
        assert error["code"] == "NOT_READY"
        assert error["details"]["checks"] == {
            "registry": f"schema at 0004, the code needs {head}: run `evidence migrate`",
            "engine": "unavailable (RuntimeError)", "models": "ok"}
        assert svc.http.get("/healthz").status_code == 200  # alive all the same
    finally:
        with svc.runtime.engine.begin() as conn:
            conn.exec_driver_sql(f"update alembic_version set version_num = '{head}'")


def _value(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))  # exposition order
    pattern = "^" + re.escape(name) + (r"\{" + re.escape(want) + r"\}" if want else "") \
        + r" (\S+)$"
    found = re.search(pattern, text, re.M)
    assert found, (name, labels)
    return float(found.group(1))


def test_metrics_count_requests_searches_jobs_and_read_the_queue(svc: Service) -> None:
    before = svc.http.get("/metrics", headers=METRICS_AUTH).text
    searched = _value(before, "evidence_searches_total", scope="content", fusion="rank") \
        if "evidence_searches_total{" in before else 0.0
    succeeded = _value(before, "evidence_ingest_jobs_total", outcome="succeeded") \
        if 'evidence_ingest_jobs_total{outcome="succeeded"}' in before else 0.0
    svc.ingest("a.txt", "budget report for apollo", document_id="a")
    svc.ingest("b.pdf", pdf_bytes(["calibration of widgets"]), document_id="b")
    svc.upload("c.txt", "waiting in the queue", document_id="c")  # not drained
    svc.search(query="budget report")
    svc.http.get("/documents/unknown-one", headers=svc.auth())
    text = svc.http.get("/metrics", headers=METRICS_AUTH).text
    assert text.startswith("# HELP") and "evidence_http_requests_total" in text
    assert _value(text, "evidence_http_requests_total", method="GET",
                  route="/documents/{document_id}", status="404") >= 1
    assert "unknown-one" not in text  # routes, never raw paths
    assert _value(text, "evidence_searches_total", scope="content",
                  fusion="rank") == searched + 1
    assert _value(text, "evidence_search_stage_duration_seconds_count", stage="total") >= 1
    assert _value(text, "evidence_ingest_jobs_total", outcome="succeeded") == succeeded + 2
    assert _value(text, "evidence_ingest_stage_duration_seconds_count", stage="extract") >= 2
    assert _value(text, "evidence_jobs", state="queued") == 1  # read from the registry
    assert _value(text, "evidence_jobs", state="succeeded") == 2
    assert _value(text, "evidence_oldest_queued_job_age_seconds") >= 0
    assert _value(text, "evidence_engine_points") == 2
    assert 'evidence_models_info{dense_model="fake/dense"' in text
    assert re.search(r'evidence_worker_heartbeat_timestamp_seconds\{worker="[^"]+"\} \d', text)


def test_json_logs_carry_the_request_id_and_search_facts_never_text_or_keys(
        svc: Service, capsys: pytest.CaptureFixture[str]) -> None:
    svc.ingest("a.txt", "budget report for apollo", document_id="a")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure("INFO", "json")
        capsys.readouterr()
        r = svc.http.post("/search", json={"query": "budget report secret words"},
                          headers={**svc.auth(), "X-Request-ID": "req-7"})
        assert r.status_code == 200
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
        logging.getLogger("uvicorn.access").disabled = False
    mine = [line for line in lines if line["request_id"] == "req-7"]
    search = next(line for line in mine if line["message"] == "search")
    assert {"time", "level", "logger", "client_id", "scope", "alpha", "fusion", "results",
            "total", "ms"} <= set(search)
    assert (search["scope"], search["results"], search["level"]) == ("content", 1, "INFO")
    access = next(line for line in mine if line["logger"] == "evidence.access")
    assert (access["route"], access["status"]) == ("/search", 200)
    everything = json.dumps(lines)
    assert "secret words" not in everything and "apollo" not in everything
    assert svc.key not in everything


def test_metrics_are_the_operators_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every client's activity is in the metrics: the operator's token reads them, an API key
    does not, and without EVIDENCE_METRICS_TOKEN there are none."""
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        assert svc.http.get("/metrics", headers=METRICS_AUTH).status_code == 200
        for headers in ({}, svc.auth(), {"Authorization": "Bearer wrong"}):
            r = svc.http.get("/metrics", headers=headers)
            assert r.status_code == 401 and r.json()["error"]["code"] == "METRICS_TOKEN_INVALID"
            assert r.headers["WWW-Authenticate"] == "Bearer"
    off = make_settings(tmp_path / "off")
    off.metrics_token = None
    with running_service(tmp_path / "off", fake_models(), settings=off) as svc:
        r = svc.http.get("/metrics", headers=METRICS_AUTH)
        assert r.status_code == 404 and "EVIDENCE_METRICS_TOKEN" in r.json()["error"]["message"]


def test_a_workers_metrics_port_asks_for_the_token_too() -> None:
    import httpx

    from app.ops.metrics import serve_worker_metrics
    from tests.live import free_port

    port = free_port()
    serve_worker_metrics(port, "operator-metrics-token")
    url = f"http://127.0.0.1:{port}/metrics"
    assert httpx.get(url, timeout=5).status_code == 401
    ok = httpx.get(url, headers=METRICS_AUTH, timeout=5)
    assert ok.status_code == 200 and "evidence_" in ok.text
