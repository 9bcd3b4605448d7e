"""Mailbox sources (issue 50) against a real IMAP server (Dovecot, tests/imap_server.py):
synced, given two new messages (one a reply), synced again — exactly those two fetched and
the reply threaded; the same message in two folders one document; a wrong password, an
unreachable server and a missing operator key each a clear error; the password never
returned."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.conftest import make_settings
from tests.factories import eml_bytes
from tests.fakes import fake_models
from tests.imap_server import PASSWORD, USER, ImapServer, imap_server
from tests.live import free_port
from tests.service import Service, running_service

KEY = "Xq9yO1T9Q2mS0R7bVfR0bq6wY9fC3nK8mZ4sB1uJ5aE="  # a Fernet key for the tests


def _mail(subject: str, body: str, message_id: str, reply_to: str | None = None) -> bytes:
    raw = eml_bytes(subject, body).replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n")
    headers = f"Message-ID: {message_id}\r\n" + (
        f"In-Reply-To: {reply_to}\r\nReferences: {reply_to}\r\n" if reply_to else "")
    return headers.encode() + raw


@pytest.fixture
def imap() -> Iterator[ImapServer]:
    with imap_server() as server:
        yield server


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    settings = make_settings(tmp_path)
    settings.sources = settings.sources.model_copy(update={"secret_key": SecretStr(KEY)})
    settings.search.sparse_floor = 0.0
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        yield s


def _source(svc: Service, imap: ImapServer, **extra: object) -> dict:
    body = {"kind": "imap", "host": imap.host, "port": imap.port, "tls": False,
            "username": USER, "password": PASSWORD, "folders": ["INBOX", "Archive"], **extra}
    r = svc.http.post("/sources", json=body, headers=svc.auth())
    assert r.status_code == 201, r.text
    return r.json()


def _sync(svc: Service, source_id: str) -> dict:
    r = svc.http.post(f"/sources/{source_id}/sync", params={"wait": True},
                      headers=svc.auth())
    assert r.status_code == 200, r.text
    for _ in range(3):  # the messages, then their attachments
        svc.worker.drain()
    return r.json()["last_report"]


def test_a_second_sync_fetches_exactly_the_new_messages_and_threads_the_reply(
        svc: Service, imap: ImapServer) -> None:
    imap.deliver("INBOX", _mail("Quarterly audit", "The audit starts Monday.", "<a1@acme>"))
    imap.deliver("INBOX", _mail("Canteen", "Soup on Friday.", "<a2@acme>"))
    imap.deliver("Archive", _mail("Quarterly audit", "The audit starts Monday.", "<a1@acme>"))
    source = _source(svc, imap)
    assert "password" not in source and PASSWORD not in str(source)
    first = _sync(svc, source["source_id"])
    assert first["seen"] == 3 and len(first["new"]) == 2 and first["unchanged"] == 1
    listed = svc.http.get("/documents", headers=svc.auth()).json()["documents"]
    assert len(listed) == 2  # the same message in two folders: one document

    imap.deliver("INBOX", _mail("Re: Quarterly audit", "Monday works for us.", "<a3@acme>",
                                reply_to="<a1@acme>"))
    imap.deliver("INBOX", _mail("Parking", "The garage closes early.", "<a4@acme>"))
    second = _sync(svc, source["source_id"])
    assert second["seen"] == 2 and len(second["new"]) == 2, second  # exactly those two
    assert second["folders"]["INBOX"]["fetched"] == 2
    assert second["folders"]["Archive"]["fetched"] == 0
    docs = {d["document_id"]: d for d in svc.http.get(
        "/documents", headers=svc.auth()).json()["documents"]}
    assert len(docs) == 4

    def thread_of(subject_word: str) -> set[str]:
        found = svc.search(query=subject_word, alpha=0.0).json()["results"]
        return {r["canonical_metadata"]["document"].get("thread_id") for r in found}
    original, reply = thread_of("audit starts"), thread_of("Monday works")
    assert original & reply and None not in original  # the reply is in the audit's thread
    third = _sync(svc, source["source_id"])
    assert third["seen"] == 0 and third["new"] == []


def test_a_wrong_password_an_unreachable_server_and_no_operator_key(
        svc: Service, imap: ImapServer, tmp_path: Path) -> None:
    wrong = _source(svc, imap, password="not it")
    r = svc.http.post(f"/sources/{wrong['source_id']}/sync", params={"wait": True},
                      headers=svc.auth())
    assert (r.status_code, r.json()["error"]["code"]) == (403, "SOURCE_LOGIN_FAILED")
    nowhere = _source(svc, imap, port=free_port())
    r = svc.http.post(f"/sources/{nowhere['source_id']}/sync", params={"wait": True},
                      headers=svc.auth())
    assert (r.status_code, r.json()["error"]["code"]) == (503, "SOURCE_UNREACHABLE")
    with running_service(tmp_path / "keyless", fake_models()) as bare:
        r = bare.http.post("/sources", json={"kind": "imap", "host": imap.host,
                                             "port": imap.port, "tls": False,
                                             "username": USER, "password": PASSWORD},
                           headers=bare.auth())
        assert (r.status_code, r.json()["error"]["code"]) == (403, "SOURCE_SECRET_KEY_MISSING")


def test_bounded_runs_a_message_too_large_and_a_new_uidvalidity(
        svc: Service, imap: ImapServer) -> None:
    """A folder larger than one run's bound is read over several syncs, resuming where the
    last stopped; a message over the size bound is named in the report and skipped; a folder
    whose UIDVALIDITY changed is read again, its messages known by Message-ID (no doubles)."""
    from sqlalchemy import update

    from app.registry.tables import SourceFolder

    for i in range(3):
        imap.deliver("INBOX", _mail(f"Note {i}", f"Short note number {i}.", f"<n{i}@acme>"))
    imap.deliver("INBOX", _mail("Big", "x" * 20_000, "<big@acme>"))
    svc.runtime.settings.sources = svc.runtime.settings.sources.model_copy(
        update={"max_messages": 2, "max_message_bytes": 10_000})
    source = _source(svc, imap, folders=["INBOX"])["source_id"]
    first = _sync(svc, source)
    assert first["seen"] == 2 and first["truncated"] and len(first["new"]) == 2
    second = _sync(svc, source)
    assert second["seen"] == 2 and not second["truncated"] and len(second["new"]) == 1
    assert [f["code"] for f in second["failed"]] == ["SOURCE_MESSAGE_TOO_LARGE"]
    with svc.runtime.sessions() as s:  # as if the server had renumbered the folder
        s.execute(update(SourceFolder).values(uidvalidity=1))
        s.commit()
    svc.runtime.settings.sources = svc.runtime.settings.sources.model_copy(
        update={"max_messages": 100})
    again = _sync(svc, source)
    assert again["folders"]["INBOX"]["read_again"] and again["new"] == []
    assert again["unchanged"] == 3  # the same three messages: no second version
    assert len(svc.http.get("/documents", headers=svc.auth()).json()["documents"]) == 3


def test_a_host_idna_cannot_encode_and_a_changed_operator_key_are_clear_errors(
        svc: Service, imap: ImapServer) -> None:
    bad_host = _source(svc, imap, host="a..b")
    r = svc.http.post(f"/sources/{bad_host['source_id']}/sync", params={"wait": True},
                      headers=svc.auth())
    assert (r.status_code, r.json()["error"]["code"]) == (503, "SOURCE_UNREACHABLE")
    source = _source(svc, imap)
    other = "b" * 43 + "="  # another valid Fernet key
    svc.runtime.settings.sources = svc.runtime.settings.sources.model_copy(
        update={"secret_key": SecretStr(other)})
    r = svc.http.post(f"/sources/{source['source_id']}/sync", params={"wait": True},
                      headers=svc.auth())
    assert (r.status_code, r.json()["error"]["code"]) == (503, "SOURCE_SECRET_KEY_INVALID")
