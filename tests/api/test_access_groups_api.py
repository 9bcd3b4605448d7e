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
    ("GET", "/judgments", None), ("POST", "/judgments", {}), ("GET", "/clients/me/metadata", None),
    ("POST", "/clients/me/keys", {}), ("GET", "/clients/me/calibration", None),
    ("POST", "/clients/me/metadata/discovery", {"enabled": True}),
])
def test_doors_that_set_or_read_client_wide_things_refuse_a_key_with_groups(
        svc: Service, method: str, path: str, body: dict | None) -> None:
    """Judgments and calibration set the client's defaults from its documents, the
    catalogue counts them all, keys are issued by an admin: an admin key's doors."""
    legal = _key(svc, ("legal",))
    r = svc.http.request(method, path, json=body, headers=svc.auth(legal))
    assert (r.status_code, r.json()["error"]["code"]) == (403, "ACCESS_GROUPS_NOT_SUPPORTED")
    assert svc.http.request(method, path, json=body, headers=svc.auth()).status_code != 403


def test_metadata_scopes_and_why_not_see_only_what_the_groups_allow(svc: Service) -> None:
    import json

    for doc, groups, owner in (("l", "legal", "alpha"), ("f", "finance", "bravo"),
                               ("o", "", "charlie")):
        svc.ingest(f"{doc}.md", f"{COMMON} memo {doc}", document_id=doc, access=groups,
                   metadata=json.dumps({"case": "K-7", "owner": owner,
                                        **({"secret_key": 1} if doc == "f" else {})}))
    assert svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                         headers=svc.auth()).status_code == 200
    svc.worker.drain()
    legal = _key(svc, ("legal",))
    for scope in ("metadata", "both"):
        body = svc.search(legal, query="K-7", scope=scope).json()
        assert {r["document_version"]["document_id"] for r in body["results"]} == {"l", "o"}
        assert svc.search(legal, query="bravo", scope=scope).json()["results"] == []
    # a metadata key only hidden documents hold is unknown to the key, as to another client
    unknown = svc.search(legal, query=COMMON, filters={"custom.secret_key": 1})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (
        422, "UNKNOWN_FILTER_KEY")
    assert svc.search(query=COMMON, filters={"custom.secret_key": 1}).status_code == 200
    why = svc.search(legal, query=COMMON, diagnose=["f", "nothing"]).json()
    said = {d["document_id"]: d for d in why["meta"]["diagnostics"]}
    assert said["f"]["status"] == said["nothing"]["status"] == "NOT_FOUND"
    assert said["f"]["message"] == said["nothing"]["message"].replace("nothing", "f")
    admin_why = svc.search(query=COMMON, diagnose=["f"]).json()["meta"]["diagnostics"][0]
    assert admin_why["status"] != "NOT_FOUND"


def test_a_watch_sees_what_its_key_may_see_when_it_runs(svc: Service) -> None:
    legal = _key(svc, ("legal",))
    made = svc.http.post("/watches", json={"query": COMMON}, headers=svc.auth(legal))
    assert made.status_code == 201, made.text
    watch = made.json()["watch_id"]
    admin_watch = svc.http.post("/watches", json={"query": COMMON},
                                headers=svc.auth()).json()["watch_id"]
    svc.ingest("f.txt", f"{COMMON} finance upload", document_id="f", access="finance")
    svc.ingest("l.txt", f"{COMMON} legal upload", document_id="l", access="legal")
    _evaluate(svc)

    def matched(key: str, watch_id: str) -> list[str]:
        r = svc.http.get(f"/watches/{watch_id}/matches", headers=svc.auth(key))
        assert r.status_code == 200, r.text
        return sorted(m["document_id"] for m in r.json()["items"])
    assert matched(legal, watch) == ["l"]  # never the finance upload
    assert matched(svc.key, admin_watch) == ["f", "l"]
    listed = svc.http.get("/watches", headers=svc.auth(legal)).json()["items"]
    assert [w["watch_id"] for w in listed] == [watch]  # its own watches only
    other = svc.http.get(f"/watches/{admin_watch}/matches", headers=svc.auth(legal))
    assert other.status_code == 404
    # the key's groups change: the watch follows at its next evaluation
    with transaction(svc.runtime.sessions) as s:
        from app.registry.tables import ApiKey

        s.query(ApiKey).filter(ApiKey.key_hash == reg.hash_key(legal)).one().groups = [
            "finance"]
    svc.ingest("f2.txt", f"{COMMON} second finance upload", document_id="f2",
               access="finance")
    _evaluate(svc)
    assert svc.http.get(f"/watches/{watch}/matches", headers=svc.auth(_key(svc, ("finance",)))
                        ).status_code == 404  # another key's watch
    # the legal upload, kept, is no longer the key's to see; the new finance one is
    assert matched(legal, watch) == ["f2"]
    assert matched(svc.key, watch) == ["f2", "l"]  # what it recorded, to an admin key
    reg_revoked = svc.http.get("/watches", headers=svc.auth(legal)).status_code
    assert reg_revoked == 200
    with transaction(svc.runtime.sessions) as s:
        reg.revoke_key(s, secret_or_prefix=legal)
    svc.ingest("o.txt", f"{COMMON} open upload", document_id="o")
    _evaluate(svc)
    assert matched(svc.key, watch) == ["f2", "l"]  # a revoked key's watch sees nothing
    assert matched(svc.key, admin_watch) == ["f", "f2", "l", "o"]


def _evaluate(svc: Service) -> None:
    """The watch runner over the pending publications (a server runs it in the background)."""
    svc.http.app.state.watch_runner.evaluate()  # type: ignore[attr-defined]


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


def test_a_thread_shows_a_key_only_its_messages_and_counts_only_them(svc: Service) -> None:
    from tests.factories import eml_bytes

    svc.ingest("a.eml", eml_bytes("Settlement terms", f"{COMMON} first draft",
                                  date="Mon, 15 Jan 2024 09:30:00 +0000"),
               document_id="a", access="legal")
    svc.ingest("b.eml", eml_bytes("Re: Settlement terms", f"{COMMON} finance reply",
                                  date="Tue, 16 Jan 2024 09:30:00 +0000"),
               document_id="b", access="finance")
    svc.ingest("c.eml", eml_bytes("Re: Settlement terms", f"{COMMON} open reply",
                                  date="Wed, 17 Jan 2024 09:30:00 +0000"),
               document_id="c")
    thread = svc.http.get("/documents/a", headers=svc.auth()).json()["versions"][-1][
        "canonical_metadata"]["document"]["thread_id"]
    legal, hr = _key(svc, ("legal",)), _key(svc, ("hr",))

    def messages(key: str) -> list[str] | int:
        r = svc.http.get(f"/threads/{thread}", headers=svc.auth(key))
        return [m["document_id"] for m in r.json()["messages"]] if r.status_code == 200 \
            else r.status_code
    assert messages(svc.key) == ["a", "b", "c"]
    assert messages(legal) == ["a", "c"]
    assert messages(hr) == ["c"]
    nobody = _key(svc, ())
    svc.http.patch("/documents/c", json={"access": ["legal"]}, headers=svc.auth())
    assert messages(nobody) == 404  # none of it: as a thread that does not exist
    collapsed = svc.search(legal, query=COMMON, collapse="thread").json()["results"]
    assert [row["thread"]["messages"] for row in collapsed] == [2]


def test_entity_rows_are_read_from_the_documents_a_key_may_see(svc: Service) -> None:
    """The entity pages' one source (GET /entities and /entities/…/documents read it)."""
    from app.domain.access import Access
    from app.registry import documents as docs_registry
    from app.registry.tables import Document, DocumentVersion

    svc.ingest("a.txt", f"{COMMON} a", document_id="a", access="legal")
    svc.ingest("b.txt", f"{COMMON} b", document_id="b", access="finance")
    with transaction(svc.runtime.sessions) as s:
        for version in s.query(DocumentVersion).all():
            version.entities = {"persons": ["Ada Okafor"]}
            version.entity_mentions = {"persons": {"Ada Okafor": 1}}
        client_id = s.query(Document).first().client_id
    with transaction(svc.runtime.sessions) as s:
        def rows(access: Access) -> list[str]:
            return sorted(r.document_id for r in docs_registry.current_entity_rows(
                s, client_id=client_id, access=access))
        assert rows(Access()) == ["a", "b"]
        assert rows(Access(("legal",))) == ["a"] and rows(Access(())) == []
    legal = _key(svc, ("legal",))
    listed = svc.http.get("/entities", params={"group": "persons"}, headers=svc.auth(legal))
    assert listed.status_code == 200, listed.text
    assert [(i["value"], i["documents"]) for i in listed.json()["items"]] == [("Ada Okafor", 1)]
    named = svc.http.get("/entities/persons/Ada Okafor/documents", headers=svc.auth(legal))
    assert [i["document_id"] for i in named.json()["items"]] == ["a"]
    none = svc.http.get("/entities", params={"group": "persons"},
                        headers=svc.auth(_key(svc, ("hr",))))
    assert none.json()["items"] == [] and none.json()["total"] == 0


def test_bm25_weighs_words_by_the_whole_client_as_promised(svc: Service) -> None:
    """The promise (README): BM25 statistics stay client-wide, so a visible chunk scores the
    same for every key, and a word's rarity counts the documents a key cannot see — a hidden
    document holding a word lowers that word's weight for everyone."""
    svc.ingest("a.txt", f"{COMMON} quokka ledger", document_id="a")
    legal = _key(svc, ("legal",))

    def sparse(key: str) -> float:
        body = svc.search(key, query="quokka", alpha=0.0, explain=True).json()
        return body["results"][0]["content_evidence"]["items"][0]["scores"]["sparse"]
    alone = sparse(legal)
    assert sparse(svc.key) == alone
    svc.ingest("h.txt", f"{COMMON} quokka hidden", document_id="h", access="hr")
    assert sparse(legal) == sparse(svc.key) < alone
