"""The search stages composed, through POST /search: the ceiling, the candidate deepening, the
scope "both" fusion and the metadata lane's reserved filters — each a fault that once passed the
stage tests unnoticed (issue 11). Fake models, real engine and registry; numbers by hand."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import make_settings
from tests.fakes import FakeDense, fake_models
from tests.service import Service, running_service


def _service(tmp_path: Path, **search: object):  # type: ignore[no-untyped-def]
    settings = make_settings(tmp_path, chunk_size=20, chunk_overlap=2)
    settings.search.sparse_floor = 0.0
    for name, value in search.items():
        setattr(settings.search, name, value)
    return running_service(tmp_path, fake_models(), settings=settings)


def _ids(body: dict) -> list[str]:
    return [r["document_version"]["document_id"] for r in body["results"]]


def test_a_lane_cut_by_the_ceiling_makes_the_total_a_lower_bound(tmp_path: Path) -> None:
    with _service(tmp_path, candidate_ceiling=50) as svc:
        for i in range(60):  # 60 one-chunk versions, all matching
            svc.ingest(f"d{i}.txt", f"apollo note number {i}", document_id=f"d{i:02d}")
        meta = svc.search(query="apollo", alpha=0, limit=10).json()["meta"]
        # the lane fetched its ceiling of 50 chunks while 10 more eligible ones remained
        assert (meta["total"], meta["total_is_lower_bound"], meta["has_more"]) == (50, True,
                                                                                  True)


def test_the_total_is_exact_when_the_lanes_were_not_cut(tmp_path: Path) -> None:
    with _service(tmp_path) as svc:
        for i in range(60):
            svc.ingest(f"d{i}.txt", f"apollo note number {i}", document_id=f"d{i:02d}")
        meta = svc.search(query="apollo", alpha=0, limit=10).json()["meta"]
        assert (meta["total"], meta["total_is_lower_bound"]) == (60, False)


def test_candidates_deepen_until_the_page_of_versions_is_full(tmp_path: Path) -> None:
    """Three versions of ~75 strongly matching chunks each (two paragraphs a chunk) fill the
    first 100 candidates; the ten weakly matching versions are found only when the lanes fetch
    deeper."""
    with _service(tmp_path) as svc:
        paragraph = "apollo apollo apollo apollo filler{j} words here"
        for b in range(3):
            text = "\n\n".join(paragraph.format(j=j) for j in range(150))
            svc.ingest(f"big{b}.txt", text, document_id=f"big{b}")
        for s in range(10):
            svc.ingest(f"small{s}.txt", f"apollo once in note {s}", document_id=f"small{s}")
        body = svc.search(query="apollo", alpha=0, limit=10).json()
        assert body["meta"]["total"] == 13 and body["meta"]["total_is_lower_bound"] is False
        assert _ids(body)[:3] == ["big0", "big1", "big2"]
        assert sorted(_ids(body)[3:]) == [f"small{s}" for s in range(7)]


@pytest.fixture
def both(tmp_path: Path) -> Service:
    with _service(tmp_path) as svc:
        docs = {  # content: a (3 × apollo) > b (2 ×); the x's and c hold no apollo in text
            "a": ("apollo apollo apollo", {"p": "apollo mission"}),   # metadata: all words
            "b": ("apollo apollo", {"p": "Apollo"}),                   # metadata: exact
            "c": ("unrelated words", {"p": "apollo"}),                 # metadata: exact
            "x1": ("other words", {"p": "Apollo", "q": "APOLLO"}),     # metadata: 2 exact
        }
        for doc_id, (text, custom) in docs.items():
            svc.ingest(f"{doc_id}.txt", text, document_id=doc_id, metadata=json.dumps(custom))
        r = svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                          headers=svc.auth())
        assert r.status_code == 200
        svc.worker.drain()
        yield svc


def test_scope_both_fuses_lane_ranks_with_k_60_hand_computed(both: Service) -> None:
    body = both.search(query="apollo", alpha=0, scope="both").json()
    contributions = {r["document_version"]["document_id"]:
                     {c["lane"]: c["rank"] for c in r["retrieval_contributions"]}
                     for r in body["results"]}
    # content ranks a 1, b 2; metadata ranks x1 1 (two exact leaves), b 2, c 3 (exact, by id),
    # a 4 (all words). Fused, k = 60:
    #   b: 1/62 + 1/62 = 0.032258   a: 1/61 + 1/64 = 0.032018
    #   x1: 1/61 = 0.016393         c: 1/63 = 0.015873
    # (with k = 1, a's 1/2 + 1/5 = 0.7 would beat b's 1/3 + 1/3 = 0.667)
    assert _ids(body) == ["b", "a", "x1", "c"]
    assert contributions == {"b": {"content": 2, "metadata": 2},
                             "a": {"content": 1, "metadata": 4},
                             "x1": {"metadata": 1}, "c": {"metadata": 3}}


def test_reserved_filters_narrow_the_metadata_lane(both: Service) -> None:
    def ids(filters: dict) -> list[str]:
        r = both.search(query="apollo", scope="metadata", filters=filters)
        assert r.status_code == 200, r.text
        return _ids(r.json())

    assert ids({}) == ["x1", "b", "c", "a"]
    assert ids({"document_id": ["c", "a"]}) == ["c", "a"]
    assert ids({"kind": "md"}) == []
    assert ids({"version_id": "v2"}) == []


def test_feedback_reaches_a_version_that_shares_words_with_the_best_one_only(
        tmp_path: Path) -> None:
    """With pseudo-relevance feedback, a second pass asks with the first pass's best chunk
    folded in: a version that shares that chunk's words but not the query's now answers."""
    texts = {"best": "quokka habitat marsupial island rottnest wallaby",
             "kin": "marsupial island rottnest wallaby colony census",
             "other": "gearbox engine wheels brakes clutch"}
    results = {}
    for prf in (0, 1):
        settings = make_settings(tmp_path / f"prf{prf}")
        settings.search.prf_docs = prf
        settings.search.dense_floor = 0.2
        with running_service(tmp_path / f"prf{prf}", fake_models(), settings=settings) as svc:
            for doc, text in texts.items():
                svc.ingest(f"{doc}.txt", text, document_id=doc)
            body = svc.search(query="quokka habitat", alpha=1.0, explain=True).json()
            results[prf] = [r["document_version"]["document_id"] for r in body["results"]]
    assert results[0] == ["best"]  # "kin" shares no word with the query: under the floor
    assert results[1][:2] == ["best", "kin"]  # moved toward "best", the query finds its kin
    assert "other" not in results[1]


def test_a_title_weight_lifts_the_version_whose_title_holds_the_word(tmp_path: Path) -> None:
    """BM25 lane (fake counts, one IDF for both): "Apollo" as a title counts once in its chunk
    (the passage prefix), against twice in the other's body. Weight 0.5 adds half a count:
    1.5 against 2, the order holds; weight 1.5: 2.5 against 2, the titled version first."""
    docs = {"titled": "# Apollo\n\nLaunch notes for the crew.\n",
            "body": "# Notes\n\nApollo and apollo again in the body.\n"}
    orders = {}
    for weight in (0.0, 0.5, 1.5):
        with _service(tmp_path / str(weight), title_weight=weight) as svc:
            for doc_id, text in docs.items():
                svc.ingest(f"{doc_id}.md", text, document_id=doc_id)
            body = svc.search(query="apollo", alpha=0, limit=10, explain=True).json()
            orders[weight] = [(r["document_version"]["document_id"],
                               r["content_evidence"]["items"][0]["scores"]["sparse"])
                              for r in body["results"]]
    idf = orders[0.0][0][1] / 2
    assert orders[0.0] == [("body", 2 * idf), ("titled", pytest.approx(idf))]
    assert orders[0.5] == [("body", 2 * idf), ("titled", pytest.approx(1.5 * idf))]
    assert orders[1.5] == [("titled", pytest.approx(2.5 * idf)), ("body", 2 * idf)]


def test_sentence_scores_lift_a_chunk_that_answers_in_one_sentence(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Dense lane (fake hashed bag of words): "long" answers "apollo launch window" in one of
    its sentences among unrelated ones, which dilute its whole-chunk cosine below "short"'s;
    with sentence_depth its best stored sentence vector (embedded at ingestion with its title,
    as the chunk was) ranks it first, and explain shows that sentence's cosine as its dense
    score and how many candidates had sentences. A collection made without sentence vectors
    ranks as before, says it scored none, and the server says at start how to get them."""
    docs = {"long": "Quarterly canteen menus rotate weekly with seasonal produce. Parking "
                    "permits renew every spring at the front desk. The apollo launch window "
                    "opens at dawn. Visitors sign the register daily before entering the "
                    "building. Meeting rooms are booked through the shared calendar.\n",
            "short": "Apollo archive index.\n"}
    firsts, lanes = {}, {}
    for name, depth, stored in (("off", 0, True), ("on", 10, True), ("unstored", 10, False)):
        settings = make_settings(tmp_path / name)  # one chunk per document
        settings.search.sentence_depth, settings.search.dense_floor = depth, 0.0
        settings.qdrant.sentence_vectors = stored
        with caplog.at_level(logging.WARNING, logger="app.main"), running_service(
                tmp_path / name, fake_models(), settings=settings) as svc:
            assert svc.runtime.store.sentence_vectors is stored
            assert not [r for r in caplog.records if "sentence vectors" in r.message]
            caplog.clear()
            assert svc.http.get("/health").json()["sentence_vectors"] is stored
            for doc_id, text in docs.items():
                svc.ingest(f"{doc_id}.txt", text, document_id=doc_id)
            body = svc.search(query="apollo launch window", alpha=1, limit=10,
                              explain=True).json()
            firsts[name] = [(r["document_version"]["document_id"],
                             r["content_evidence"]["items"][0]["scores"]["dense"])
                            for r in body["results"]]
            lanes[name] = {lane["lane"]: lane["sentence_scored"]
                           for lane in body["meta"]["lanes"]}
    # a collection made without them, opened by settings that ask for them, says how to get
    # them (the default asks for none: no warning above)
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.runtime import build_runtime

    made = make_settings(tmp_path / "made-without")
    build_runtime(made, models=fake_models()).close()
    asking = make_settings(tmp_path / "made-without")
    asking.qdrant.sentence_vectors = True
    runtime = build_runtime(asking, models=fake_models())
    try:
        with caplog.at_level(logging.WARNING, logger="app.main"), TestClient(
                create_app(asking, runtime=runtime, start_worker=False)):
            assert runtime.store.sentence_vectors is False
        assert [r for r in caplog.records if "made without sentence vectors" in r.message
                and "evidence reindex" in r.message]
    finally:
        runtime.close()
    assert [d for d, _ in firsts["off"]] == ["short", "long"]
    assert [d for d, _ in firsts["on"]] == ["long", "short"]
    assert firsts["unstored"] == firsts["off"]
    # alpha 1: the dense lane alone; both chunks have a sentence of 12 characters or more
    assert lanes == {"off": {"dense": None}, "on": {"dense": 2}, "unstored": {"dense": None}}
    # the sentence as embedded: its title (a text file's name) in front, as the chunk's was;
    # stored as 16-bit floats, so within 1e-3
    fake = FakeDense()
    sentence = fake._vec("long.txt\n\nThe apollo launch window opens at dawn.")
    cosine = float(sentence @ np.asarray(fake.embed_query("apollo launch window")))
    assert firsts["on"][0][1] == pytest.approx(cosine, abs=1e-3)  # 0.5774
    assert cosine > firsts["off"][1][1] + 0.3  # against the chunk's own 0.2123
