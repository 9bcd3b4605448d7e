"""Calibration from a client's own judgments over HTTP (issue 37): a client whose judgments
favour words gets a low alpha, one whose judgments favour meaning a high one — each applied only
because its interval says so, each to its own searches alone; a client whose judgments agree
with the defaults keeps them; too few judgments is a 409; judgments are per client.

The dense fake here knows synonyms (``zarb`` means ``zorb``…) and, like real dense models, reads
no codes; BM25 reads only the words written. Each topic (a letter) has a query, the document
the client judges relevant, and documents that one lane ranks above it."""

from __future__ import annotations

import string

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

    report = svc.http.post("/clients/me/calibration", headers=svc.auth(words)).json()
    assert report["applied"] is True and report["queries"] == 12 and report["folds"] == 5
    assert report["chosen"]["alpha"] <= 0.25 and report["chosen"]["ndcg"] == 1.0
    assert report["default"] == {"alpha": 0.5, "fusion": "rank",
                                 "ndcg": pytest.approx(1 / np.log2(3), abs=1e-4)}
    assert report["interval"][0] > 0 and report["cross_validated_ndcg"] == 1.0

    report = svc.http.post("/clients/me/calibration", headers=svc.auth(meaning)).json()
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
    report = svc.http.post("/clients/me/calibration", headers=svc.auth(key)).json()
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
