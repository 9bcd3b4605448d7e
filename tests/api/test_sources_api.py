"""Folder sources kept in sync (issue 50), over HTTP with a real folder: one file changed,
one renamed, one deleted, one added, one touched — exactly one new version, the renamed
document keeps its id under its new path, the deleted one goes (or stays, per source), and
nothing else is read again; paths out of the operator's roots refused; another client sees
none of it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.fixture
def share(tmp_path: Path) -> Path:
    folder = tmp_path / "share" / "case-17"
    folder.mkdir(parents=True)
    for name, text in (("a.md", "# Alpha\n\nThe alpha memo."), ("b.md", "# Bravo\n\nBravo."),
                       ("c.md", "# Charlie\n\nCharlie."), ("d.txt", "Delta notes.")):
        (folder / name).write_text(text)
    (folder / "ignored.exe").write_bytes(b"MZ")
    return folder


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[Service]:
    settings = make_settings(tmp_path)
    settings.sources = settings.sources.model_copy(update={
        "folder_roots": str(tmp_path / "share")})
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        yield s


def _sync(svc: Service, source_id: str, key: str | None = None) -> dict:
    r = svc.http.post(f"/sources/{source_id}/sync", params={"wait": True},
                      headers=svc.auth(key))
    assert r.status_code == 200, r.text
    svc.worker.drain()
    return r.json()["last_report"]


def _doc(svc: Service, document_id: str) -> dict | None:
    r = svc.http.get(f"/documents/{document_id}", headers=svc.auth())
    return r.json() if r.status_code == 200 else None


def test_a_second_sync_changes_exactly_what_changed(svc: Service, share: Path) -> None:
    made = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                         headers=svc.auth())
    assert made.status_code == 201, made.text
    source = made.json()["source_id"]
    first = _sync(svc, source)
    assert sorted(first["new"]) == ["a.md", "b.md", "c.md", "d.txt"] and first["read"] == 4
    assert {d["document_id"] for d in svc.http.get("/documents", headers=svc.auth()).json()[
        "documents"]} == {"a.md", "b.md", "c.md", "d.txt"}

    (share / "a.md").write_text("# Alpha\n\nThe alpha memo, amended.")
    (share / "sub").mkdir()
    os.rename(share / "b.md", share / "sub" / "b2.md")
    (share / "c.md").unlink()
    (share / "e.md").write_text("# Echo\n\nA new memo.")
    stat = (share / "d.txt").stat()
    os.utime(share / "d.txt", ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    second = _sync(svc, source)
    assert second["changed"] == ["a.md"] and second["new"] == ["e.md"]
    assert second["renamed"] == [{"from": "b.md", "to": "sub/b2.md"}]
    assert second["deleted"] == ["c.md"] and second["kept"] == []
    assert second["read"] == 4  # a, b2, d (touched: read, unchanged) and e — nothing else
    assert second["unchanged"] == 1 and second["seen"] == 4 and second["failed_count"] == 0
    assert [v["version_id"] for v in _doc(svc, "a.md")["versions"]] == ["v1", "v2"]
    renamed = _doc(svc, "b.md")
    assert renamed["path"] == "sub/b2.md" and renamed["version_count"] == 1
    assert _doc(svc, "c.md") is None and _doc(svc, "e.md") is not None
    assert _doc(svc, "d.txt")["version_count"] == 1
    found = svc.search(query="amended alpha memo", alpha=0.0).json()["results"]
    assert found[0]["document_version"]["version_id"] == "v2"
    third = _sync(svc, source)  # nothing changed: nothing read
    assert third["read"] == 0 and third["unchanged"] == 4
    assert not (third["new"] or third["changed"] or third["renamed"] or third["deleted"])


def test_on_delete_keep_leaves_the_document(svc: Service, share: Path) -> None:
    source = svc.http.post("/sources", json={"kind": "folder", "path": str(share),
                                             "on_delete": "keep"},
                           headers=svc.auth()).json()["source_id"]
    _sync(svc, source)
    (share / "c.md").unlink()
    report = _sync(svc, source)
    assert report["kept"] == ["c.md"] and report["deleted"] == []
    assert _doc(svc, "c.md") is not None


def test_paths_out_of_the_roots_and_links_out_of_the_folder_are_refused(
        svc: Service, share: Path, tmp_path: Path) -> None:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nNot for the index.")
    for path in (str(outside), str(share / ".." / ".." / "private"), "/etc"):
        r = svc.http.post("/sources", json={"kind": "folder", "path": path},
                          headers=svc.auth())
        assert (r.status_code, r.json()["error"]["code"]) == (403, "SOURCE_PATH_NOT_ALLOWED")
    (share / "escape.md").symlink_to(outside / "secret.md")
    missing = svc.http.post("/sources", json={"kind": "folder", "path": str(share / "nope")},
                            headers=svc.auth())
    assert (missing.status_code, missing.json()["error"]["code"]) == (
        422, "SOURCE_PATH_NOT_FOUND")
    source = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                           headers=svc.auth()).json()["source_id"]
    report = _sync(svc, source)
    assert {"path": "escape.md", "why": "a link out of the folder"} in report["skipped"]
    assert _doc(svc, "escape.md") is None


def test_another_client_sees_none_of_it(svc: Service, share: Path) -> None:
    source = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                           headers=svc.auth()).json()["source_id"]
    rival = svc.new_client("rival")
    for method, path in (("GET", f"/sources/{source}"), ("POST", f"/sources/{source}/sync"),
                         ("DELETE", f"/sources/{source}")):
        r = svc.http.request(method, path, headers=svc.auth(rival))
        assert (r.status_code, r.json()["error"]["code"]) == (404, "SOURCE_NOT_FOUND")
    assert svc.http.get("/sources", headers=svc.auth(rival)).json()["items"] == []


def test_no_roots_no_folder_sources(tmp_path: Path, share: Path) -> None:
    with running_service(tmp_path / "bare", fake_models()) as s:
        r = s.http.post("/sources", json={"kind": "folder", "path": str(share)},
                        headers=s.auth())
        assert (r.status_code, r.json()["error"]["code"]) == (403, "SOURCE_PATH_NOT_ALLOWED")


def test_a_sync_killed_halfway_resumes_with_nothing_lost_or_doubled(
        svc: Service, share: Path) -> None:
    """The process dies while the third file is uploaded (simulated by the upload raising
    past what the sync catches); the next sync finishes: every file one document, none
    twice, the two already recorded not read again."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from app.documents.uploads import accept_upload
    from app.registry.tables import Source, utcnow
    from app.sources import folder

    source_id = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                              headers=svc.auth()).json()["source_id"]
    with svc.runtime.sessions() as s:
        source = s.scalar(select(Source).where(Source.source_id == source_id))
        source_pk, client_id = source.id, source.client_id
    uploaded: list[str] = []

    def dying_upload(s, rel: str, content: bytes, document_id: str) -> bool:  # type: ignore[no-untyped-def]
        if len(uploaded) == 2:
            raise KeyboardInterrupt("killed")  # not a ServiceError: the sync stops here
        uploaded.append(rel)
        return accept_upload(s, settings=svc.runtime.settings.ingest, client_id=client_id,
                             filename=rel, content=content, document_id=document_id,
                             custom={}, source=source_id, path=rel).deduplicated

    with pytest.raises(KeyboardInterrupt):
        folder.sync(svc.runtime.sessions, source_pk, client_id=client_id, max_files=100,
                    upload=dying_upload, forget=lambda s, d: None)
    refused = svc.http.post(f"/sources/{source_id}/sync", headers=svc.auth())
    assert refused.status_code == 409  # the dead sync's lease holds until it expires
    with svc.runtime.sessions() as s:  # five minutes later
        s.execute(update(Source).where(Source.id == source_pk).values(
            sync_lease_until=utcnow() - timedelta(seconds=1)))
        s.commit()
    report = _sync(svc, source_id)
    assert sorted(report["new"]) == ["c.md", "d.txt"] and report["unchanged"] == 2
    assert report["read"] == 2  # the two recorded before the kill are not read again
    listed = svc.http.get("/documents", headers=svc.auth()).json()
    assert sorted(d["document_id"] for d in listed["documents"]) == [
        "a.md", "b.md", "c.md", "d.txt"]
    assert all(d["version_count"] == 1 for d in listed["documents"])


def test_a_source_with_an_interval_is_synced_by_the_scheduler_one_sync_at_a_time(
        svc: Service, share: Path) -> None:
    from sqlalchemy import select

    from app.registry.tables import Source
    from app.sources.service import claim, release

    too_often = svc.http.post("/sources", json={"kind": "folder", "path": str(share),
                                                "every": "10s"}, headers=svc.auth())
    assert too_often.status_code == 422
    made = svc.http.post("/sources", json={"kind": "folder", "path": str(share),
                                           "every": "15m"}, headers=svc.auth()).json()
    assert made["every_s"] == 900 and made["last_sync_at"] is None
    scheduler = svc.http.app.state.source_scheduler  # type: ignore[attr-defined]
    assert scheduler.run_once() == 1  # never synced: due
    svc.worker.drain()
    assert len(svc.http.get("/documents", headers=svc.auth()).json()["documents"]) == 4
    assert scheduler.run_once() == 0  # synced a moment ago: not due for 15 minutes
    with svc.runtime.sessions() as s:
        pk = s.scalar(select(Source.id).where(Source.source_id == made["source_id"]))
        assert claim(s, pk) and not claim(s, pk)  # one sync of a source at a time
    busy = svc.http.post(f"/sources/{made['source_id']}/sync", headers=svc.auth())
    assert busy.json()["error"]["message"].startswith(made["source_id"])
    assert (busy.status_code, busy.json()["error"]["code"]) == (409, "SOURCE_SYNC_RUNNING")
    with svc.runtime.sessions() as s:
        release(s, pk)
    assert svc.http.post(f"/sources/{made['source_id']}/sync", params={"wait": True},
                         headers=svc.auth()).status_code == 200


def test_a_large_folder_is_read_over_several_syncs_and_nothing_is_deleted_meanwhile(
        svc: Service, share: Path) -> None:
    svc.runtime.settings.sources = svc.runtime.settings.sources.model_copy(
        update={"max_files": 3})
    source = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                           headers=svc.auth()).json()["source_id"]
    for name in ("e.md", "f.md", "g.md"):
        (share / name).write_text(f"# {name}\n\nMore.")
    first = _sync(svc, source)
    assert first["read"] == 3 and first["truncated"] and len(first["new"]) == 3
    (share / "a.md").unlink()  # vanished while reads are pending: not deleted yet
    second = _sync(svc, source)
    assert second["read"] == 3 and second["truncated"] and second["deleted"] == []
    third = _sync(svc, source)  # the last file read: now a.md is known to be gone
    assert third["read"] == 1 and not third["truncated"] and third["deleted"] == ["a.md"]
    assert len(svc.http.get("/documents", headers=svc.auth()).json()["documents"]) == 6


def test_a_sync_runs_in_the_background_and_its_source_says_so(
        svc: Service, share: Path) -> None:
    """Without wait: 202 at once, then GET shows it syncing (with its counts so far) until
    its report is there."""
    import time

    source = svc.http.post("/sources", json={"kind": "folder", "path": str(share)},
                           headers=svc.auth()).json()["source_id"]
    started = svc.http.post(f"/sources/{source}/sync", headers=svc.auth())
    assert started.status_code == 202, started.text
    for _ in range(100):
        now = svc.http.get(f"/sources/{source}", headers=svc.auth()).json()
        if not now["syncing"] and now["last_report"]:
            break
        time.sleep(0.05)
    assert not now["syncing"] and now["progress"] is None
    assert sorted(now["last_report"]["new"]) == ["a.md", "b.md", "c.md", "d.txt"]


def test_hostile_paths_are_clear_errors(svc: Service, share: Path) -> None:
    for path in ("a\x00b", str(share) + "/\x00"):
        r = svc.http.post("/sources", json={"kind": "folder", "path": path},
                          headers=svc.auth())
        assert r.status_code in (403, 422), r.text
        assert r.json()["error"]["code"] in ("SOURCE_PATH_NOT_ALLOWED", "SOURCE_PATH_NOT_FOUND")
