"""The public Python client (evidence_client) against a live server over real HTTP: every
method, the one error type with the server's code, retries only where safe, sync and async."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from evidence_client import AsyncEvidenceClient, EvidenceClient, EvidenceError, verify_signature
from tests.fakes import fake_models
from tests.live import live_server, worker_running
from tests.webhook_receiver import Receiver


@pytest.fixture
def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    with live_server(tmp_path, fake_models(), clients=("acme", "rival")) as server, \
            worker_running(server):
        yield server


def test_every_method_against_a_live_server(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    note = tmp_path / "handbook.md"
    note.write_text("# Handbook\n\nEmployees get 25 days of paid vacation.\n")
    with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
        assert client.me()["name"] == "acme"
        first = client.upload(note, metadata={"team": "hr"}, document_id="handbook")
        assert (first["document_id"], first["version_id"]) == ("handbook", "v1")
        assert client.wait_for_job(first["job_id"], timeout_s=30)["status"] == "succeeded"
        second = client.upload(b"Invoice PO-2231 paid to DE89 3704 0044 0532 0130 00.",
                               filename="po.txt")
        client.wait_for_job(second["job_id"], timeout_s=30)
        [iban] = client.entities("account_numbers", q="de89")["items"]
        assert (iban["value"], iban["documents"]) == ("DE89 3704 0044 0532 0130 00", 1)
        named = client.entity_documents("account_numbers", "DE89370400440532013000")
        assert [d["document_id"] for d in named["items"]] == ["po.txt"]
        answer = client.search("vacation days", alpha=0.5, limit=5, explain=True,
                               filters={"custom.team": "hr"})
        assert [r["document_version"]["document_id"] for r in answer["results"]] == ["handbook"]
        assert answer["results"][0]["content_evidence"]["items"][0]["chunk_id"] == (
            "handbook:v1:0")
        listed = client.documents(limit=10, sort="created_at", order="asc")
        assert [d["document_id"] for d in listed["documents"]] == ["handbook", "po.txt"]
        assert client.document("handbook")["versions"][0]["state"] == "published"
        assert client.set_discovery(True)["state"] in ("discovering", "complete")
        assert client.delete_document("po.txt") is None
        with pytest.raises(EvidenceError) as gone:
            client.document("po.txt")
        assert (gone.value.status, gone.value.code) == (404, "DOCUMENT_NOT_FOUND")
        assert gone.value.request_id
    with EvidenceClient(live.url, api_key=live.keys["rival"]) as rival:  # one key, one client
        assert rival.search("vacation days")["results"] == []
        assert rival.documents()["documents"] == []
        assert rival.entities("account_numbers")["items"] == []


def test_errors_carry_the_servers_code_status_and_request_id(live) -> None:  # type: ignore[no-untyped-def]
    with EvidenceClient(live.url, api_key="es_not_a_key") as client:
        with pytest.raises(EvidenceError) as err:
            client.me()
        assert err.value.status == 401 and err.value.code.startswith("API_KEY")
    with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
        with pytest.raises(EvidenceError) as err:
            client.search("x", alpha=3)
        assert (err.value.status, err.value.code) == (422, "INVALID_ALPHA")
        with pytest.raises(TypeError, match="unknown search field"):
            client.search("x", top_k=3)
        with pytest.raises(ValueError, match="filename"):
            client.upload(b"bytes")
    with EvidenceClient("http://127.0.0.1:9", api_key="k", retries=2, backoff_s=0) as nowhere:
        with pytest.raises(EvidenceError) as err:
            nowhere.me()
        assert err.value.code == "SERVER_UNREACHABLE" and err.value.status is None


def test_reads_are_retried_on_a_passing_failure_and_writes_never() -> None:
    calls: list[tuple[str, str]] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append((request.method, request.url.path))
        if len([c for c in calls if c == (request.method, request.url.path)]) == 1:
            return httpx.Response(503, json={"error": {"code": "STORE_UNAVAILABLE",
                                                       "message": "busy", "details": {}}})
        return httpx.Response(200, json={"results": [], "ok": True})

    with EvidenceClient("http://x", api_key="k", backoff_s=0,
                        transport=httpx.MockTransport(flaky)) as client:
        assert client.search("q")["ok"] is True  # POST /search is a read: retried
        assert client.me()["ok"] is True  # GET: retried
        with pytest.raises(EvidenceError) as err:
            client.set_discovery(True)  # a change: never repeated
        assert (err.value.status, err.value.code) == (503, "STORE_UNAVAILABLE")
    assert calls == [("POST", "/search")] * 2 + [("GET", "/clients/me")] * 2 + [
        ("POST", "/clients/me/metadata/discovery")]


def test_the_async_client_does_the_same(live) -> None:  # type: ignore[no-untyped-def]
    async def flow() -> tuple[list[str], str]:
        async with AsyncEvidenceClient(live.url, api_key=live.keys["acme"]) as client:
            job = await client.upload(b"Travel expenses are reimbursed within 30 days.",
                                      filename="travel.txt", document_id="travel")
            done = await client.wait_for_job(job["job_id"], timeout_s=30)
            answer = await client.search("travel expenses", alpha=1.0)
            try:
                await client.document("nothing")
            except EvidenceError as exc:
                code = exc.code
            return [r["document_version"]["document_id"] for r in answer["results"]], \
                done["status"] + ":" + code

    found, status = asyncio.run(flow())
    assert found == ["travel"] and status == "succeeded:DOCUMENT_NOT_FOUND"


def test_changes_and_watches_with_a_verified_webhook(live) -> None:  # type: ignore[no-untyped-def]
    receiver = Receiver().allowed_by(live)
    try:
        with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
            watch = client.create_watch("annual fee", webhook_url=receiver.url, name="fees",
                                        alpha=0.5)
            for text in ("The annual fee is 12,000 EUR.", "The annual fee is 24,000 EUR."):
                job = client.upload(text.encode(), filename="fee.txt", document_id="fee")
                client.wait_for_job(job["job_id"], timeout_s=30)
            live.app.state.watch_runner.run_once()
            changed = client.changes("fee")
            assert [(c["kind"], c["after"]["text"]) for c in changed["changes"]] == [
                ("changed", "The annual fee is 24,000 EUR.")]
            page = client.watch_matches(watch["watch_id"])
            assert [m["version_id"] for m in page["items"]] == ["v1", "v2"]
            assert client.watch_matches(watch["watch_id"], cursor=page["next_cursor"])[
                "items"] == []
            assert [w["name"] for w in client.watches()["items"]] == ["fees"]
            assert client.watch(watch["watch_id"])["matches"] == 2
            for headers, body in receiver.posts:
                assert verify_signature(watch["secret"], body, headers["X-Evidence-Signature"])
                assert not verify_signature(watch["secret"], body + b" ",
                                            headers["X-Evidence-Signature"])
                assert not verify_signature("whsec_other", body,
                                            headers["X-Evidence-Signature"])
            assert len(receiver.posts) == 2
            assert client.delete_watch(watch["watch_id"]) is None
            with pytest.raises(EvidenceError) as gone:
                client.watch(watch["watch_id"])
            assert (gone.value.status, gone.value.code) == (404, "WATCH_NOT_FOUND")
    finally:
        receiver.close()
    assert not verify_signature("s", b"{}", None) and not verify_signature("s", b"{}", "md5=1")


def test_access_groups_through_the_client(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 48: upload with groups, relabel, a key with groups issued, a delegating key
    narrowed per person."""
    with EvidenceClient(live.url, api_key=live.keys["acme"]) as admin:
        board = admin.upload(b"Board minutes: the merger.", filename="board.txt",
                             access=["board"])
        admin.wait_for_job(board["job_id"], timeout_s=30)
        open_note = admin.upload(b"Canteen menu: the merger lunch.", filename="menu.txt")
        admin.wait_for_job(open_note["job_id"], timeout_s=30)
        front = admin.issue_key(groups=["board", "legal"], delegate=True)
        assert (front["groups"], front["delegate"]) == (["board", "legal"], True)
        legal = admin.issue_key(groups=["legal"])["key"]
        with EvidenceClient(live.url, api_key=legal) as reader:
            assert [d["document_id"] for d in reader.documents()["documents"]] == ["menu.txt"]
        for person, seen in ((["board"], {"board.txt", "menu.txt"}), ([], {"menu.txt"})):
            with EvidenceClient(live.url, api_key=front["key"], groups=person) as served:
                found = served.search("merger")["results"]
                assert {r["document_version"]["document_id"] for r in found} == seen
        assert admin.set_access("board.txt", ["legal"])["access"] == ["legal"]
        with EvidenceClient(live.url, api_key=legal) as reader:
            assert {d["document_id"] for d in reader.documents()["documents"]} == {
                "board.txt", "menu.txt"}


def test_the_original_and_a_page_image_through_the_client(live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 49: original() gives back the bytes uploaded, page_image() a PNG."""
    from tests.factories import pdf_bytes

    content = pdf_bytes(["The deposit is refundable within thirty days."])
    with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
        job = client.upload(content, filename="lease.pdf", document_id="lease")
        client.wait_for_job(job["job_id"], timeout_s=30)
        assert client.original("lease", "v1") == content
        png = client.page_image("lease", "v1", 1, width=200, highlight="lease:v1:0")
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        with pytest.raises(EvidenceError) as missing:
            client.page_image("lease", "v1", 2)
        assert (missing.value.status, missing.value.code) == (404, "PAGE_NOT_FOUND")


def test_a_batch_a_browse_and_the_audit_trail(live) -> None:  # type: ignore[no-untyped-def]
    """Issue 51 through the public client: a batch run by the server's runner, its results as
    JSON lines and CSV, an empty query's browse, and the trail of what this key did."""
    with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
        job = client.upload(b"Kestrel Holdings paid the survey invoice.", filename="k.txt")
        client.wait_for_job(job["job_id"], timeout_s=30)
        made = client.search_batch(["Kestrel", {"query": "survey", "name": "s"}], alpha=0.0,
                                   limit=5)
        assert made["total"] == 2 and made["batch_id"].startswith("bat_")
        live.app.state.batch_runner.run_until_idle()  # the live server runs no runner thread
        assert client.batch(made["batch_id"])["status"] == "done"
        lines = client.batch_results(made["batch_id"]).decode().splitlines()
        assert len(lines) == 2 and '"name": "s"' in lines[1]
        assert client.batch_results(made["batch_id"], format="csv").startswith(b"query_index,")
        listed = client.search("", sort="document_id")
        assert [r["document_version"]["document_id"] for r in listed["results"]] == ["k.txt"]
        actions = [e["action"] for e in client.audit()["events"]]
        assert {"batch_search", "batch_export", "search"} <= set(actions)
        with pytest.raises(TypeError):
            client.search_batch(["x"], offset=3)
