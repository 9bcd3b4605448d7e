"""Standing queries over HTTP (fake models), on both stores: a watch records a matching upload
once and not a non-matching one, with the search's own evidence; delivers a correctly signed
webhook to an allowed host only, retried with backoff, never from inside ingestion; per client;
bounded; re-indexing is no publication."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from app.registry import jobs
from app.registry.database import transaction
from app.registry.tables import Watch, WatchEvent
from tests.factories import eml_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service
from tests.webhook_receiver import Receiver

CONTRACT = ("# Service agreement\n\n## Fees\n\nThe annual fee is 24,000 EUR, payable in "
            "advance.\n\n## Termination\n\nEither party may terminate with three months' "
            "notice.\n")
UNRELATED = "# Canteen\n\nSoup of the day: lentils with cumin and lemon.\n"


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(params=["edge", "qdrant-client"])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        receiver: Receiver) -> Iterator[Service]:
    from app.settings import QdrantSettings
    from app.store import open_store
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp(f"watches-{request.param}")
    settings = make_settings(tmp)
    settings.watch = settings.watch.model_copy(update={
        # the receiver's port: an allowed host without a port admits 80 and 443 only
        "webhook_hosts": f"127.0.0.1:{receiver.port}", "backoff_base_s": 0.0,
        "max_attempts": 3,
        "max_per_client": 3})
    store = None
    if request.param == "qdrant-client":
        store = open_store(QdrantSettings(url=f"path:{tmp / 'local'}"), dense_model="fake",
                           dense_dim=384)
    with running_service(tmp, fake_models(), settings=settings, store=store) as s:
        yield s


def _watch(svc: Service, key: str | None = None, **body: object):
    return svc.http.post("/watches", json=body, headers=svc.auth(key))


def _matches(svc: Service, watch_id: str, key: str | None = None, **params: object) -> dict:
    response = svc.http.get(f"/watches/{watch_id}/matches", params=params,
                            headers=svc.auth(key))
    assert response.status_code == 200, response.text
    return response.json()


def _run(svc: Service) -> tuple[int, int]:
    return svc.http.app.state.watch_runner.run_once()  # type: ignore[attr-defined]


def test_a_matching_upload_is_recorded_once_and_its_webhook_signed(
        svc: Service, receiver: Receiver) -> None:
    receiver.posts.clear()
    created = _watch(svc, query="annual fee", name="fees", webhook_url=receiver.url)
    assert created.status_code == 201, created.text
    watch = created.json()
    assert watch["watch_id"].startswith("wat_") and watch["secret"].startswith("whsec_")
    assert (watch["query"], watch["scope"], watch["matches"]) == ("annual fee", "content", 0)

    svc.ingest("contract.md", CONTRACT, document_id="contract")
    svc.ingest("canteen.md", UNRELATED, document_id="canteen")
    assert receiver.posts == []  # ingestion published; it delivered nothing itself
    assert _run(svc) == (1, 1)
    assert _run(svc) == (0, 0)  # recorded once

    page = _matches(svc, watch["watch_id"])
    assert [(m["document_id"], m["version_id"]) for m in page["items"]] == [("contract", "v1")]
    match = page["items"][0]
    assert "annual fee is 24,000 EUR" in match["evidence"][0]["text"]
    assert match["delivery"]["state"] == "delivered" and match["delivery"]["attempts"] == 1
    assert page["has_more"] is False and page["next_cursor"] != "0"
    assert _matches(svc, watch["watch_id"], cursor=page["next_cursor"])["items"] == []

    [(headers, body)] = receiver.posts
    expected = "sha256=" + hmac.new(watch["secret"].encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-Evidence-Signature"] == expected
    sent = json.loads(body)
    assert (sent["event"], sent["watch_id"], sent["match"]["document_id"]) == (
        "watch.match", watch["watch_id"], "contract")
    assert sent["match"]["evidence"] == match["evidence"]

    listed = svc.http.get("/watches", headers=svc.auth()).json()["items"]
    assert [(w["watch_id"], w["matches"], w["matches_ever"], w["secret"]) for w in listed] == [
        (watch["watch_id"], 1, 1, None)]  # the secret is shown once, at creation


def test_a_new_version_matches_again_and_a_reindex_is_no_publication(svc: Service) -> None:
    watch = _watch(svc, query="annual fee").json()
    svc.ingest("contract.md", CONTRACT, document_id="contract")
    svc.ingest("contract.md", CONTRACT.replace("24,000", "36,000"), document_id="contract")
    assert _run(svc)[0] == 2
    assert [m["version_id"] for m in _matches(svc, watch["watch_id"])["items"]] == ["v1", "v2"]

    with transaction(svc.runtime.sessions) as s:  # what `evidence reindex` does
        assert jobs.requeue_current_versions(s, max_attempts=3) == 1
    svc.worker.drain()
    with svc.runtime.sessions() as s:
        assert s.scalar(select(func.count()).select_from(WatchEvent)) == 0
    assert _run(svc) == (0, 0)


def test_a_watch_sees_what_is_published_after_it_and_what_its_filters_admit(
        svc: Service) -> None:
    svc.ingest("before.md", CONTRACT, document_id="before")
    pdf_only = _watch(svc, query="annual fee", filters={"kind": "pdf"}).json()
    other_doc = _watch(svc, query="annual fee", filters={"document_id": ["nope"]}).json()
    any_kind = _watch(svc, query="annual fee").json()
    svc.ingest("after.md", CONTRACT, document_id="after")
    _run(svc)
    assert _matches(svc, pdf_only["watch_id"])["items"] == []
    assert _matches(svc, other_doc["watch_id"])["items"] == []
    assert [m["document_id"] for m in _matches(svc, any_kind["watch_id"])["items"]] == ["after"]


def test_an_e_mail_attachment_is_a_publication_too(svc: Service) -> None:
    watch = _watch(svc, query="annual fee").json()
    mail = eml_bytes("Contract", "See the attached agreement.",
                     attachments=[("agreement.txt", CONTRACT.encode())])
    svc.ingest("mail.eml", mail, document_id="mail")
    svc.worker.drain()  # the attachment's own job
    _run(svc)
    found = [m["document_id"] for m in _matches(svc, watch["watch_id"])["items"]]
    assert len(found) == 1 and found[0] != "mail"  # the attachment, not the covering note


def test_per_client_nothing_is_seen_or_matched_across_clients(svc: Service) -> None:
    other = svc.new_client("globex")
    mine = _watch(svc, query="annual fee").json()
    theirs = _watch(svc, other, query="annual fee").json()
    svc.ingest("contract.md", CONTRACT, key=other, document_id="contract")
    _run(svc)
    assert _matches(svc, mine["watch_id"])["items"] == []
    assert len(_matches(svc, theirs["watch_id"], other)["items"]) == 1
    for method, path in (("GET", ""), ("GET", "/matches"), ("DELETE", "")):
        response = svc.http.request(method, f"/watches/{theirs['watch_id']}{path}",
                                    headers=svc.auth())
        assert (response.status_code, response.json()["error"]["code"]) == (
            404, "WATCH_NOT_FOUND")
    assert [w["watch_id"] for w in svc.http.get("/watches", headers=svc.auth()).json()[
        "items"]] == [mine["watch_id"]]


@pytest.mark.parametrize(("url", "code"), [
    ("http://169.254.169.254/latest/meta-data", "WEBHOOK_HOST_NOT_ALLOWED"),
    ("http://10.0.0.5/hook", "WEBHOOK_HOST_NOT_ALLOWED"),
    ("http://localhost:{port}/hook", "WEBHOOK_HOST_NOT_ALLOWED"),  # only the name given
    ("http://127.0.0.1/hook", "WEBHOOK_HOST_NOT_ALLOWED"),  # port 80: not the one allowed
    ("http://127.0.0.1:5432/hook", "WEBHOOK_HOST_NOT_ALLOWED"),  # PostgreSQL's
    ("http://user:pw@127.0.0.1:{port}/hook", "WEBHOOK_URL_INVALID"),
    ("ftp://127.0.0.1:{port}/hook", "WEBHOOK_URL_INVALID"),
    ("FILE:///etc/passwd", "WEBHOOK_URL_INVALID"),
    ("gopher://127.0.0.1:{port}/", "WEBHOOK_URL_INVALID"),
    ("ws://127.0.0.1:{port}/hook", "WEBHOOK_URL_INVALID"),
    ("data:text/plain,hi", "WEBHOOK_URL_INVALID"),
    ("127.0.0.1/hook", "WEBHOOK_URL_INVALID"),
    ("http:///hook", "WEBHOOK_URL_INVALID"),  # no host
    ("http://127.0.0.1:99999/hook", "WEBHOOK_URL_INVALID"),
    ("http://127.0.0.1:{port}/x\r\nX-Evil: 1", "WEBHOOK_URL_INVALID"),  # header injection
    ("http://127.0.0.1:{port}/a b", "WEBHOOK_URL_INVALID"),
    ("http://127.0.0.1:{port}/" + "x" * 2001, "WEBHOOK_URL_INVALID"),
])
def test_webhooks_only_to_hosts_and_ports_the_operator_allows(
        svc: Service, receiver: Receiver, url: str, code: str) -> None:
    response = _watch(svc, query="annual fee", webhook_url=url.format(port=receiver.port))
    assert (response.status_code, response.json()["error"]["code"]) == (422, code)
    assert svc.http.get("/watches", headers=svc.auth()).json()["items"] == []


def test_an_upper_case_scheme_is_a_url_like_any_other(svc: Service, receiver: Receiver
                                                       ) -> None:
    response = _watch(svc, query="annual fee",
                      webhook_url=f"HTTP://127.0.0.1:{receiver.port}/hook")
    assert response.status_code == 201, response.text


def test_one_unsendable_webhook_fails_alone_and_never_loops(
        svc: Service, receiver: Receiver) -> None:
    """A watch stored with a URL the sender cannot send (made before URLs were checked this
    way: written into the registry here) fails its own delivery at once, with the reason;
    the other watch's delivery in the same round is delivered; nothing is sent again."""
    from sqlalchemy import update

    receiver.posts.clear()
    good = _watch(svc, query="annual fee", webhook_url=receiver.url).json()
    bad = _watch(svc, query="annual fee", webhook_url=receiver.url).json()
    with transaction(svc.runtime.sessions) as session:
        session.execute(update(Watch).where(Watch.watch_id == bad["watch_id"]).values(
            webhook_url=receiver.url + "\r\nX-Evil: 1"))
    svc.ingest("contract.md", CONTRACT, document_id="contract")
    assert _run(svc) == (2, 1)
    for _ in range(3):
        assert _run(svc) == (0, 0)
    assert len(receiver.posts) == 1
    assert json.loads(receiver.posts[0][1])["watch_id"] == good["watch_id"]
    failed = _matches(svc, bad["watch_id"])["items"][0]["delivery"]
    assert (failed["state"], failed["attempts"]) == ("failed", 1)
    assert "no longer allowed" in failed["last_error"]


@pytest.mark.parametrize(("status", "state", "attempts"), [
    (404, "failed", 1), (401, "failed", 1), (410, "failed", 1),  # refused: no use trying again
    (408, "pending", 1), (429, "pending", 1), (500, "pending", 1)])  # may pass later
def test_a_receiver_that_refuses_is_not_asked_again(
        svc: Service, receiver: Receiver, status: int, state: str, attempts: int) -> None:
    receiver.posts.clear()
    receiver.statuses[:] = [status]
    watch = _watch(svc, query="annual fee", webhook_url=receiver.url).json()
    svc.ingest("contract.md", CONTRACT, document_id="contract")
    _run(svc)
    delivery = _matches(svc, watch["watch_id"])["items"][0]["delivery"]
    assert (delivery["state"], delivery["attempts"], delivery["last_error"]) == (
        state, attempts, f"HTTP {status}")
    receiver.statuses.clear()


def test_a_runner_that_dies_mid_delivery_repeats_it_once_under_the_same_id(
        svc: Service, receiver: Receiver) -> None:
    """A claim counts its attempt and holds the delivery for seconds: a runner killed after
    its POST (here: the claim taken and the POST sent, its outcome never written) leaves the
    delivery due again after the lease, sent once more with the same X-Evidence-Delivery id
    (the receiver drops the repeat), then delivered — two POSTs, never a loop."""
    from datetime import timedelta

    from sqlalchemy import update

    from app.registry import watches as watches_registry
    from app.registry.tables import WatchMatch, utcnow
    from app.watches.runner import delivery_id, webhook_body

    receiver.posts.clear()
    watch = _watch(svc, query="annual fee", webhook_url=receiver.url).json()
    svc.ingest("contract.md", CONTRACT, document_id="contract")
    runner = svc.http.app.state.watch_runner  # type: ignore[attr-defined]
    assert runner.evaluate() == 1
    assert runner.lease_s < 60  # seconds, not minutes
    with svc.runtime.sessions() as session:  # the runner that will die: claims, then POSTs
        [(match, owner)] = watches_registry.claim_deliveries(session, limit=10,
                                                             lease_s=runner.lease_s)
        dead = runner._post(owner.webhook_url, owner.secret, webhook_body(owner, match),
                            delivery_id(owner, match))
    assert dead == (None, False) and len(receiver.posts) == 1
    assert runner.deliver() == 0  # still leased: no second runner takes it meanwhile
    with transaction(svc.runtime.sessions) as session:  # the lease lapses
        session.execute(update(WatchMatch).values(
            next_attempt_at=utcnow() - timedelta(seconds=1)))
    assert runner.deliver() == 1
    assert runner.deliver() == 0
    assert len(receiver.posts) == 2
    ids = {headers["X-Evidence-Delivery"] for headers, _ in receiver.posts}
    assert len(ids) == 1 and ids.pop().startswith("dlv_")
    assert {json.loads(body)["delivery_id"] for _, body in receiver.posts} == {
        receiver.posts[0][0]["X-Evidence-Delivery"]}
    delivery = _matches(svc, watch["watch_id"])["items"][0]["delivery"]
    assert (delivery["state"], delivery["attempts"]) == ("delivered", 2)


def test_a_failing_receiver_is_retried_with_backoff_then_given_up(
        svc: Service, receiver: Receiver) -> None:
    receiver.posts.clear()
    receiver.statuses[:] = [500, 503]
    watch = _watch(svc, query="annual fee", webhook_url=receiver.url).json()
    svc.ingest("contract.md", CONTRACT, document_id="contract")
    assert _run(svc) == (1, 0)
    delivery = _matches(svc, watch["watch_id"])["items"][0]["delivery"]
    assert (delivery["state"], delivery["attempts"], delivery["last_error"]) == (
        "pending", 1, "HTTP 500")
    assert _run(svc) == (0, 0)  # 503
    assert _run(svc) == (0, 1)  # the third try is taken
    assert len(receiver.posts) == 3 and len({p[1] for p in receiver.posts}) == 1  # same body

    receiver.statuses[:] = [500, 500, 500]
    svc.ingest("contract.md", CONTRACT.replace("24,000", "36,000"), document_id="contract")
    for _ in range(4):
        _run(svc)
    failed = _matches(svc, watch["watch_id"])["items"][1]["delivery"]
    assert (failed["state"], failed["attempts"]) == ("failed", 3)  # max_attempts, then no more


def test_bounds_and_deletion(svc: Service) -> None:
    ids = [_watch(svc, query=f"fee {i}").json()["watch_id"] for i in range(3)]
    over = _watch(svc, query="one too many")
    assert (over.status_code, over.json()["error"]["code"]) == (409, "WATCH_LIMIT_REACHED")
    assert svc.http.delete(f"/watches/{ids[0]}", headers=svc.auth()).status_code == 204
    assert svc.http.get(f"/watches/{ids[0]}", headers=svc.auth()).status_code == 404
    assert _watch(svc, query="room again").status_code == 201
    for body, field in (({"query": " "}, "query"), ({"query": "x", "alpha": 2}, "alpha"),
                        ({"query": "x", "name": "n" * 201}, "name"),
                        ({"query": "x", "filters": {"bad key": 1}}, "filter")):
        response = _watch(svc, **body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["message"].startswith(field), response.text
    bad_id = svc.http.get("/watches/nope", headers=svc.auth())
    assert bad_id.status_code == 422


def test_a_scope_the_search_would_refuse_is_refused_at_creation(svc: Service) -> None:
    response = _watch(svc, query="annual fee", scope="metadata")  # discovery is off
    assert response.status_code == 409, response.text


def test_a_deletion_is_committed_before_its_204_is_sent(svc: Service) -> None:
    """A client that reads the 204 and asks again must not find the watch: the session's
    commit happens before the response starts (app/api/deps.get_session), which CI once
    caught the other way round under load. Checked at the moment the response starts, from
    another session, so the test does not depend on timing."""
    from fastapi.testclient import TestClient

    watch_id = _watch(svc, query="annual fee").json()["watch_id"]
    seen_at_start: list[int] = []
    inner = svc.http.app

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        async def watching_send(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.start":
                with transaction(svc.runtime.sessions) as session:
                    seen_at_start.append(session.scalar(
                        select(func.count()).select_from(Watch)
                        .where(Watch.watch_id == watch_id)) or 0)
            await send(message)
        await inner(scope, receive, watching_send)

    response = TestClient(app).delete(f"/watches/{watch_id}", headers=svc.auth())
    assert response.status_code == 204
    assert seen_at_start == [0]
