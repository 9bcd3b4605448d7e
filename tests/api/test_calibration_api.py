"""Calibration from a client's own judgments over HTTP (issue 37): a client whose judgments
favour words gets a low alpha, one whose judgments favour meaning a high one — each applied only
because its interval says so, each to its own searches alone; a client whose judgments agree
with the defaults keeps them; too few judgments is a 409; judgments are per client.

The dense fake here knows synonyms (``zarb`` means ``zorb``…) and, like real dense models, reads
no codes; BM25 reads only the words written. Each topic (a letter) has a query, the document
the client judges relevant, and documents that one lane ranks above it."""

from __future__ import annotations

import string
import threading
import time

import numpy as np
import pytest

from tests.fakes import DIM, WORD, FakeDense, _bucket, fake_models
from tests.service import Service, running_service

TOPICS = string.ascii_lowercase[:12]
SAME = {f"{a}{c}": f"{b}{c}" for c in TOPICS for a, b in (("zarb", "zorb"), ("plan", "plin"))}


class MeaningDense(FakeDense):
    """Hashed concepts: synonyms (SAME) share a bucket."""

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(DIM, dtype=np.float32)
        for w in WORD.findall(text.lower()):
            v[_bucket(SAME.get(w, w), DIM)] += 1.0
        v[0] += 0.01
        return v / np.linalg.norm(v)


def words_corpus(c: str) -> list[tuple[str, str]]:
    """The query's words written out (relevant), and two paraphrases the dense lane prefers."""
    return [(f"rel-{c}", f"plin{c} zorb{c} moop{c} taff{c} gell{c} hask{c}"),
            (f"dis-{c}", f"zarb{c} plan{c} plin{c}"),
            (f"other-{c}", f"zarb{c} plan{c} vell{c} koor{c}")]


def meaning_corpus(c: str) -> list[tuple[str, str]]:
    """The query's meaning in other words (relevant), and a document sharing one word of it."""
    return [(f"rel-{c}", f"The zarb{c} needs a plan{c} soon."),
            (f"dis-{c}", f"A plin{c} for the quux{c} arrived.")]


def _judge(svc: Service, key: str, topics: str = TOPICS, grade: int = 2):
    return svc.http.post("/judgments", headers=svc.auth(key), json={"items": [
        {"query": f"zorb{c} plin{c}", "document_id": f"rel-{c}", "grade": grade}
        for c in topics]})


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    with running_service(tmp_path_factory.mktemp("calibration"),
                         fake_models(dense=MeaningDense())) as s:
        s.words = s.new_client("words")  # type: ignore[attr-defined]
        s.meaning = s.new_client("meaning")  # type: ignore[attr-defined]
        for c in TOPICS:
            for doc_id, text in words_corpus(c):
                assert s.upload(f"{doc_id}.txt", text, key=s.words,  # type: ignore[attr-defined]
                                document_id=doc_id).status_code == 202
            for doc_id, text in meaning_corpus(c):
                assert s.upload(f"{doc_id}.txt", text, key=s.meaning,  # type: ignore[attr-defined]
                                document_id=doc_id).status_code == 202
        s.worker.drain()
        yield s


def _top(svc: Service, key: str, c: str, **body: object) -> tuple[str, dict]:
    answer = svc.search(key, query=f"zorb{c} plin{c}", **body).json()
    return answer["results"][0]["document_version"]["document_id"], answer["meta"]["retrieval"]


def _calibrate(svc: Service, key: str) -> dict:
    """POST a calibration (202, the run and where to follow it), follow it to its end, and
    return its report."""
    started = svc.http.post("/clients/me/calibration", headers=svc.auth(key))
    assert started.status_code == 202, started.text
    run = started.json()
    assert run["status"] == "running" and run["searches_total"] > 0
    assert started.headers["location"] == f"/clients/me/calibration/runs/{run['run_id']}"
    deadline = time.monotonic() + 60
    while run["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        run = svc.http.get(started.headers["location"], headers=svc.auth(key)).json()
    assert run["status"] == "succeeded", run
    assert (run["progress"], run["searches_done"]) == (1.0, run["searches_total"])
    return run["report"]


def test_too_few_judged_queries_is_a_409_naming_the_count(svc: Service) -> None:
    key = svc.new_client("few")
    assert _judge(svc, key, TOPICS[:9]).json() == {"stored": 9, "total": 9}
    refused = svc.http.post("/clients/me/calibration", headers=svc.auth(key))
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "NOT_ENOUGH_JUDGMENTS"
    assert refused.json()["error"]["details"]["queries"] == 9


def test_words_and_meaning_each_get_their_own_alpha(svc: Service) -> None:
    words, meaning = svc.words, svc.meaning  # type: ignore[attr-defined]
    # the defaults (alpha 0.5, rank fusion) put the wrong document first for both clients
    assert _top(svc, words, "a")[0] == "dis-a" and _top(svc, meaning, "a")[0] == "dis-a"
    for key in (words, meaning):
        assert _judge(svc, key).json() == {"stored": 12, "total": 12}

    report = _calibrate(svc, words)
    assert report["applied"] is True and report["queries"] == 12 and report["folds"] == 5
    assert report["chosen"]["alpha"] <= 0.25 and report["chosen"]["ndcg"] == 1.0
    assert report["default"] == {"alpha": 0.5, "fusion": "rank",
                                 "ndcg": pytest.approx(1 / np.log2(3), abs=1e-4)}
    assert report["interval"][0] > 0 and report["cross_validated_ndcg"] == 1.0

    report = _calibrate(svc, meaning)
    assert report["applied"] is True and report["chosen"]["alpha"] == 1.0

    # each client's open searches follow its own calibration; an explicit alpha still rules
    top, retrieval = _top(svc, words, "b")
    assert (top, retrieval["calibrated"], retrieval["alpha"]) == (
        "rel-b", True, report_alpha(svc, words))
    top, retrieval = _top(svc, meaning, "b")
    assert (top, retrieval["calibrated"], retrieval["alpha"]) == ("rel-b", True, 1.0)
    top, retrieval = _top(svc, meaning, "b", alpha=0.5, fusion="rank")  # nothing left open
    assert (top, retrieval["calibrated"]) == ("dis-b", False)

    state = svc.http.get("/clients/me/calibration", headers=svc.auth(meaning)).json()
    assert state["applied"]["alpha"] == 1.0 and state["defaults"]["alpha"] == 0.5
    assert state["report"]["applied"] is True
    assert svc.http.delete("/clients/me/calibration",
                           headers=svc.auth(meaning)).status_code == 204
    assert _top(svc, meaning, "b")[1]["calibrated"] is False
    assert svc.http.get("/clients/me/calibration",
                        headers=svc.auth(meaning)).json()["applied"] is None


def report_alpha(svc: Service, key: str) -> float:
    return svc.http.get("/clients/me/calibration", headers=svc.auth(key)).json()[
        "applied"]["alpha"]


def test_judgments_the_defaults_already_satisfy_change_nothing(svc: Service) -> None:
    key = svc.new_client("content")
    for c in TOPICS:  # each query's own words, and nothing else near it
        assert svc.upload(f"only-{c}.txt", f"zorb{c} plin{c} here.", key=key,
                          document_id=f"rel-{c}").status_code == 202
    svc.worker.drain()
    _judge(svc, key)
    report = _calibrate(svc, key)
    assert report["applied"] is False and report["difference"] == 0.0
    assert "defaults" in report["reason"]
    assert svc.http.get("/clients/me/calibration",
                        headers=svc.auth(key)).json()["applied"] is None


def test_judgments_are_per_client_and_bounded(svc: Service) -> None:
    key, other = svc.new_client("j1"), svc.new_client("j2")
    stored = svc.http.post("/judgments", headers=svc.auth(key), json={"items": [
        {"query": "fee", "chunk_id": "contract:v2:7", "grade": 3},
        {"query": "fee", "document_id": "contract", "grade": 1}]})  # the same pair: regraded
    assert stored.json() == {"stored": 2, "total": 1}
    listed = svc.http.get("/judgments", headers=svc.auth(key)).json()
    assert [(j["query"], j["document_id"], j["grade"]) for j in listed["items"]] == [
        ("fee", "contract", 1)]
    assert svc.http.get("/judgments", headers=svc.auth(other)).json() == {"items": [],
                                                                         "total": 0}
    for item in ({"query": "q", "grade": 1},  # neither target
                 {"query": "q", "document_id": "d", "chunk_id": "d:v1:0", "grade": 1},
                 {"query": "q", "document_id": "d", "grade": 4},
                 {"query": "q", "document_id": "d", "grade": -1},
                 {"query": " ", "document_id": "d", "grade": 1},
                 {"query": "q" * 1001, "document_id": "d", "grade": 1},
                 {"query": "q", "chunk_id": "not a chunk", "grade": 1}):
        response = svc.http.post("/judgments", headers=svc.auth(key), json={"items": [item]})
        assert response.status_code == 422, item
        if "grade" in item and item["grade"] == 1 and item["query"] == "q" and (
                ("document_id" in item) == ("chunk_id" in item)):
            assert response.json()["error"]["code"] == "INVALID_JUDGMENT"
    too_many = {"items": [{"query": "q", "document_id": "d", "grade": 1}] * 501}
    assert svc.http.post("/judgments", headers=svc.auth(key), json=too_many).status_code == 422
    assert svc.http.delete("/judgments", headers=svc.auth(key)).status_code == 204
    assert svc.http.get("/judgments", headers=svc.auth(key)).json()["total"] == 0


def test_a_run_is_followed_one_at_a_time_per_client_and_its_own(svc: Service,
                                                                  monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """While a client's run searches: its progress shows, a second POST is 409
    CALIBRATION_RUNNING naming the run, another client starts its own, and a run id is
    another client's 404; once it ends the client may start again."""
    from app.calibration import runs

    key, other = svc.new_client("held"), svc.new_client("free")
    for k in (key, other):
        for c in TOPICS:
            svc.upload(f"n-{c}.txt", f"zorb{c} plin{c} here.", key=k, document_id=f"rel-{c}")
        _judge(svc, k)
    svc.worker.drain()
    release, reached = threading.Event(), threading.Event()
    progress = runs._progress

    def held(sessions, run_id):  # type: ignore[no-untyped-def]
        count = progress(sessions, run_id)

        def after_search() -> None:
            count()
            if threading.current_thread().name.startswith("calibration-") and not release.is_set():
                reached.set()
                release.wait(30)
        return after_search

    monkeypatch.setattr(runs, "_progress", held)
    monkeypatch.setattr(runs, "BEAT_EVERY_S", 0.0)
    first = svc.http.post("/clients/me/calibration", headers=svc.auth(key))
    assert first.status_code == 202 and reached.wait(10)
    run_id = first.json()["run_id"]
    run = svc.http.get(f"/clients/me/calibration/runs/{run_id}", headers=svc.auth(key)).json()
    assert run["status"] == "running" and run["searches_done"] == 1
    assert run["searches_total"] == 12 * 10 and run["progress"] == round(1 / 120, 4)
    again = svc.http.post("/clients/me/calibration", headers=svc.auth(key))
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "CALIBRATION_RUNNING"
    assert again.json()["error"]["details"]["run_id"] == run_id
    assert svc.http.get(f"/clients/me/calibration/runs/{run_id}",
                        headers=svc.auth(other)).status_code == 404
    state = svc.http.get("/clients/me/calibration", headers=svc.auth(key)).json()
    assert state["latest_run"]["run_id"] == run_id
    assert svc.http.get("/clients/me/calibration",
                        headers=svc.auth(other)).json()["latest_run"] is None
    release.set()
    assert _calibrate(svc, other)["queries"] == 12  # its own, while or after the first ends
    deadline = time.monotonic() + 30
    while svc.http.get(f"/clients/me/calibration/runs/{run_id}", headers=svc.auth(key)
                       ).json()["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _calibrate(svc, key)["queries"] == 12  # the client may start again


def test_a_run_whose_server_stopped_is_failed_and_frees_the_client(svc: Service) -> None:
    """A run left running without a beat for a minute (its process died) reads as failed,
    CALIBRATION_INTERRUPTED, and no longer blocks the client's next run."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from app.registry import calibration_runs
    from app.registry.database import transaction
    from app.registry.tables import CalibrationRun, Client, utcnow

    key = svc.new_client("orphaned")
    for c in TOPICS:
        svc.upload(f"o-{c}.txt", f"zorb{c} plin{c} here.", key=key, document_id=f"rel-{c}")
    _judge(svc, key)
    svc.worker.drain()
    with transaction(svc.runtime.sessions) as s:
        client_id = s.scalar(select(Client.id).where(Client.name == "orphaned"))
    with svc.runtime.sessions() as s:  # committed by start itself, as a request's session is
        run = calibration_runs.start(s, client_id=client_id, searches_total=120)
        run_id = run.id
    url = f"/clients/me/calibration/runs/{run_id}"
    assert svc.http.get(url, headers=svc.auth(key)).json()["status"] == "running"
    assert svc.http.post("/clients/me/calibration", headers=svc.auth(key)).status_code == 409
    with transaction(svc.runtime.sessions) as s:
        s.execute(update(CalibrationRun).where(CalibrationRun.id == run_id).values(
            heartbeat_at=utcnow() - timedelta(seconds=calibration_runs.STALE_AFTER_S - 5)))
    assert svc.http.get(url, headers=svc.auth(key)).json()["status"] == "running"  # 55 s: alive
    with transaction(svc.runtime.sessions) as s:
        s.execute(update(CalibrationRun).where(CalibrationRun.id == run_id).values(
            heartbeat_at=utcnow() - timedelta(seconds=calibration_runs.STALE_AFTER_S + 5)))
    ended = svc.http.get(url, headers=svc.auth(key)).json()
    assert (ended["status"], ended["error_code"]) == ("failed", "CALIBRATION_INTERRUPTED")
    assert ended["finished_at"] is not None and ended["report"] is None
    assert _calibrate(svc, key)["queries"] == 12
