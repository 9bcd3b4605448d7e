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
    r = svc.http.post(f"/sources/{source_id}/sync", headers=svc.auth(key))
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
