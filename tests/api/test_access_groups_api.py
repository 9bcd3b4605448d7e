"""Access groups inside a client (issue 48), through the API on both stores.

A generated test: random documents with random groups (some none, some shared text so
duplicates name each other), random keys (admin, a few groups, none at all, delegating),
then every door a key with groups may use is asked by every key: what it is shown is
exactly what its groups allow — ids, totals, duplicates, jobs, 404s shaped as for a
document that does not exist. The doors that do not filter by groups yet answer 403.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from app.registry import clients as reg
from app.registry.database import transaction
from tests.conftest import make_settings, pg_schema
from tests.fakes import fake_models
from tests.service import Service, running_service

POOL = ("legal", "finance", "hr")
COMMON = "zebra"  # a word every document holds: a search for it finds everything visible


@pytest.fixture(params=["edge", "qdrant-client",
                        pytest.param("edge+postgres", marks=pytest.mark.postgres)])
def svc(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Service]:
    """The embedded engine and qdrant-client's local mode on SQLite; the embedded engine on
    PostgreSQL (the registry's group filter is SQL: both dialects)."""
    from app.settings import QdrantSettings
    from app.store import open_store

    with ExitStack() as stack:
        db_url = (stack.enter_context(pg_schema()) if request.param == "edge+postgres"
                  else None)
        settings = make_settings(tmp_path, db_url)
        settings.search.sparse_floor = 0.0  # tiny corpora: every BM25 score counts
        store = None
        if request.param == "qdrant-client":
            store = open_store(QdrantSettings(url=f"path:{tmp_path / 'local'}"),
                               dense_model="fake", dense_dim=384)
        yield stack.enter_context(running_service(tmp_path, fake_models(), settings=settings,
                                                  store=store))


def _key(svc: Service, groups: tuple[str, ...] | None, delegate: bool = False) -> str:
    with transaction(svc.runtime.sessions) as s:
        client = reg.get_client(s, name="acme")
        return reg.issue_key(s, client_id=client.id, groups=groups, may_delegate=delegate)


def _found(svc: Service, key: str) -> list[str]:
    return [r["document_version"]["document_id"]
            for r in svc.search(key, query=COMMON).json()["results"]]


def _sees(key_groups: tuple[str, ...] | None, doc_groups: tuple[str, ...]) -> bool:
    return key_groups is None or not doc_groups or bool(set(doc_groups) & set(key_groups))


def _corpus(svc: Service, rng: random.Random) -> tuple[dict[str, tuple[str, ...]],
                                                         dict[str, str]]:
    """Ten documents with random groups; two pairs hold the same text (duplicates)."""
    groups_of, jobs = {}, {}
    texts = [f"{COMMON} memo {i} about topic{i} and budget line {i}" for i in range(8)]
    texts += [texts[0], texts[1]]  # the same text under other groups: exact duplicates
    for i, text in enumerate(texts):
        groups = tuple(sorted(rng.sample(POOL, rng.randint(0, 2))))
        doc = f"doc{i}"
        body = svc.upload(f"{doc}.txt", text, document_id=doc, access=",".join(groups))
        assert body.status_code == 202, body.text
        groups_of[doc], jobs[doc] = groups, body.json()["job_id"]
    svc.worker.drain()
    return groups_of, jobs


@pytest.mark.parametrize("seed", [1, 2])
def test_every_door_shows_a_key_exactly_what_its_groups_allow(svc: Service, seed: int) -> None:
    rng = random.Random(seed)
    groups_of, jobs = _corpus(svc, rng)
    keys: list[tuple[str, tuple[str, ...] | None]] = [(svc.key, None), (_key(svc, ()), ())]
    for _ in range(4):
        held = tuple(sorted(rng.sample(POOL, rng.randint(1, 2))))
        keys.append((_key(svc, held), held))
    missing = svc.http.get("/documents/nothing-here", headers=svc.auth()).json()["error"]
    for key, held in keys:
        visible = {d for d, g in groups_of.items() if _sees(held, g)}
        listed = svc.http.get("/documents", headers=svc.auth(key)).json()
        assert {d["document_id"] for d in listed["documents"]} == visible, held
        assert listed["total"] == len(visible)
        found = svc.search(key, query=COMMON, limit=50)
        assert found.status_code == 200, found.text
        body = found.json()
        shown = {r["document_version"]["document_id"] for r in body["results"]}
        assert shown == visible, (held, shown, visible)
        assert body["meta"]["total"] == len(visible)
        for row in body["results"]:  # duplicates never name a document it may not see
            named = row["canonical_metadata"].get("duplicates", {})
            for other in named.get("exact", []) + [n["document_id"] for n in
                                                   named.get("near", [])]:
                assert other in visible, (held, other)
        for doc, groups in groups_of.items():
            one = svc.http.get(f"/documents/{doc}", headers=svc.auth(key))
            job = svc.http.get(f"/jobs/{jobs[doc]}", headers=svc.auth(key))
            changes = svc.http.get(f"/documents/{doc}/changes", headers=svc.auth(key))
            if doc in visible:
                assert one.status_code == 200 and one.json()["access"] == list(groups)
                named = one.json()["versions"][-1]["canonical_metadata"].get("duplicates", {})
                assert set(named.get("exact", [])) <= visible, (held, named)
                assert job.status_code == 200 and changes.status_code != 404
            else:  # as for a document that does not exist
                error = one.json()["error"]
                assert (one.status_code, error["code"]) == (404, missing["code"])
                assert error["message"] == missing["message"].replace("nothing-here", doc)
                assert job.status_code == 404 and job.json()["error"]["code"] == "JOB_NOT_FOUND"
                assert changes.status_code == 404
            filtered = svc.search(key, query=COMMON, filters={"document_id": doc}).json()
            assert {r["document_version"]["document_id"] for r in filtered["results"]} == (
                {doc} if doc in visible else set())


def test_a_relabelled_document_moves_at_once_and_a_key_labels_only_with_its_groups(
        svc: Service) -> None:
    legal, finance = _key(svc, ("legal",)), _key(svc, ("finance",))
    svc.ingest("a.txt", f"{COMMON} the merger agreement", document_id="a", access="legal")
    assert _found(svc, legal) == ["a"]
    assert svc.search(finance, query=COMMON).json()["results"] == []
    moved = svc.http.patch("/documents/a", json={"access": ["finance"]}, headers=svc.auth())
    assert moved.status_code == 200 and moved.json()["access"] == ["finance"]
    assert svc.search(legal, query=COMMON).json()["results"] == []
    assert _found(svc, finance) == ["a"]
    refused = svc.http.patch("/documents/a", json={"access": ["legal"]},
                             headers=svc.auth(finance))
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        403, "ACCESS_GROUP_NOT_HELD")
    hidden = svc.http.patch("/documents/a", json={"access": []}, headers=svc.auth(legal))
    assert hidden.status_code == 404  # it cannot see it, so it cannot change it
    opened = svc.http.patch("/documents/a", json={"access": []}, headers=svc.auth(finance))
    assert opened.status_code == 200 and opened.json()["access"] == []
    assert _found(svc, legal) == ["a"]
    # a new version that names no groups keeps the document's; one that names them relabels
    svc.ingest("a.txt", f"{COMMON} the merger agreement, signed", document_id="a",
               access="hr")
    assert svc.search(legal, query=COMMON).json()["results"] == []
    # a key with groups cannot add a version to (or learn more of) a document it cannot see
    taken = svc.upload("a.txt", "other text", key=legal, document_id="a")
    assert (taken.status_code, taken.json()["error"]["code"]) == (
        409, "DOCUMENT_ID_UNAVAILABLE")
    foreign = svc.upload("b.txt", "text", key=legal, access="finance")
    assert (foreign.status_code, foreign.json()["error"]["code"]) == (
        403, "ACCESS_GROUP_NOT_HELD")


def test_the_same_bytes_from_another_group_are_never_answered_with_a_hidden_document(
        svc: Service) -> None:
    legal = _key(svc, ("legal",))
    first = svc.ingest("secret.txt", f"{COMMON} board minutes", access="hr")
    again = svc.upload("secret.txt", f"{COMMON} board minutes", key=legal)
    assert again.status_code == 202, again.text
    assert again.json()["document_id"] != first["document_id"]
    assert again.json()["deduplicated"] is False


def test_delegated_groups_narrow_and_a_key_that_may_not_delegate_is_refused(
        svc: Service) -> None:
    svc.ingest("l.txt", f"{COMMON} legal memo", document_id="l", access="legal")
    svc.ingest("f.txt", f"{COMMON} finance memo", document_id="f", access="finance")
    svc.ingest("o.txt", f"{COMMON} open memo", document_id="o")
    front_end = _key(svc, ("legal", "finance"), delegate=True)

    def seen(key: str, header: str | None) -> set[str] | int:
        headers = {**svc.auth(key), **({"X-Evidence-Groups": header}
                                       if header is not None else {})}
        r = svc.http.post("/search", json={"query": COMMON}, headers=headers)
        if r.status_code != 200:
            return r.status_code
        return {row["document_version"]["document_id"] for row in r.json()["results"]}
    assert seen(front_end, None) == {"l", "f", "o"}
    assert seen(front_end, "legal") == {"l", "o"}
    assert seen(front_end, "legal,hr") == {"l", "o"}  # hr is not the key's: never widened
    assert seen(front_end, "") == {"o"}  # a person without groups
    plain = _key(svc, ("legal",))
    r = svc.http.post("/search", json={"query": COMMON},
                      headers={**svc.auth(plain), "X-Evidence-Groups": "legal"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "GROUPS_DELEGATION_FORBIDDEN")
    assert seen(svc.key, None) == {"l", "f", "o"}
    r = svc.http.post("/search", json={"query": COMMON},
                      headers={**svc.auth(), "X-Evidence-Groups": "legal"})
    assert r.status_code == 403  # the first key may not delegate either
    bad = svc.http.post("/search", json={"query": COMMON},
                        headers={**svc.auth(front_end), "X-Evidence-Groups": "Legal Team"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "ACCESS_GROUP_INVALID")


@pytest.mark.parametrize(("method", "path", "body"), [
    ("GET", "/entities", None), ("GET", "/threads/t1", None), ("GET", "/watches", None),
    ("POST", "/watches", {"query": "x"}), ("GET", "/judgments", None),
    ("GET", "/clients/me/metadata", None), ("POST", "/clients/me/keys", {}),
    ("GET", "/clients/me/calibration", None),
])
def test_doors_that_do_not_filter_by_groups_yet_refuse_a_key_with_groups(
        svc: Service, method: str, path: str, body: dict | None) -> None:
    legal = _key(svc, ("legal",))
    r = svc.http.request(method, path, json=body, headers=svc.auth(legal))
    assert (r.status_code, r.json()["error"]["code"]) == (403, "ACCESS_GROUPS_NOT_SUPPORTED")
    assert svc.http.request(method, path, json=body, headers=svc.auth()).status_code != 403


@pytest.mark.parametrize("body", [{"scope": "both"}, {"scope": "metadata"},
                                  {"collapse": "thread"}, {"diagnose": ["a"]}])
def test_search_features_that_read_the_registry_unfiltered_refuse_a_key_with_groups(
        svc: Service, body: dict) -> None:
    r = svc.search(_key(svc, ("legal",)), query=COMMON, **body)
    assert (r.status_code, r.json()["error"]["code"]) == (403, "ACCESS_GROUPS_NOT_SUPPORTED")


def test_who_am_i_says_a_keys_groups_and_no_client_wide_counts(svc: Service) -> None:
    delegating = _key(svc, ("legal", "hr"), delegate=True)
    me = svc.http.get("/clients/me", headers={**svc.auth(delegating),
                                              "X-Evidence-Groups": "hr"}).json()
    assert me["access_groups"] == ["hr"] and me["metadata_discovery"] is None
    admin = svc.http.get("/clients/me", headers=svc.auth()).json()
    assert admin["access_groups"] is None and admin["metadata_discovery"]["state"] == "disabled"


def test_keys_with_groups_are_issued_by_an_admin_key(svc: Service) -> None:
    r = svc.http.post("/clients/me/keys", json={"groups": ["Legal", "hr"], "delegate": True},
                      headers=svc.auth())
    assert r.status_code == 201 and r.json()["groups"] == ["hr", "legal"]
    svc.ingest("h.txt", f"{COMMON} hr memo", access="hr")
    assert len(svc.search(r.json()["key"], query=COMMON).json()["results"]) == 1
    too_many = svc.http.post("/clients/me/keys", json={"groups": [f"g{i}" for i in range(33)]},
                             headers=svc.auth())
    assert too_many.status_code == 422
    bad = svc.upload("x.txt", "text", access="a" * 65)
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "ACCESS_GROUP_INVALID")


def test_an_emails_attachments_take_its_groups_and_follow_its_relabelling(
        svc: Service) -> None:
    from tests.factories import eml_bytes

    legal, finance = _key(svc, ("legal",)), _key(svc, ("finance",))
    mail = eml_bytes("Settlement", f"{COMMON} draft attached.",
                     attachments=[("draft.txt", f"{COMMON} settlement draft".encode())])
    svc.ingest("mail.eml", mail, document_id="mail", access="legal")
    for _ in range(2):  # the attachment's own job
        svc.worker.drain()

    def listed(key: str) -> set[str]:
        return {d["document_id"] for d in svc.http.get(
            "/documents", headers=svc.auth(key)).json()["documents"]}
    attachment = next(d for d in listed(svc.key) if d != "mail")
    assert listed(legal) == {"mail", attachment} and listed(finance) == set()
    assert svc.http.get(f"/documents/{attachment}", headers=svc.auth()).json()["access"] \
        == ["legal"]
    refused = svc.http.patch(f"/documents/{attachment}", json={"access": []},
                             headers=svc.auth())
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        409, "ACCESS_FOLLOWS_MESSAGE")
    assert svc.http.patch("/documents/mail", json={"access": ["finance"]},
                          headers=svc.auth()).status_code == 200
    assert listed(finance) == {"mail", attachment} and listed(legal) == set()
    found = {r["document_version"]["document_id"]
             for r in svc.search(finance, query=COMMON).json()["results"]}
    assert found == {"mail", attachment}
    assert svc.search(legal, query=COMMON).json()["results"] == []
